package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
)

func newSitesCmd(s *streams) *cobra.Command {
	var sitesFile string
	cmd := &cobra.Command{
		Use:   "sites",
		Short: "Check an address against the sensitive-site rules, or list them",
		Long: `The sensitive-site rules decide where the agent must ask before it writes
(action: ask) and where it may do nothing at all (action: deny). They are the
built-in list, then $XDG_CONFIG_HOME/browseragent/sensitive-sites.yaml when it
exists, then --sites FILE; a later rule replaces an earlier one of the same name.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&sitesFile, "sites", "", "extra sensitive-sites `FILE`, layered over the built-in and user rules")
	// Exit codes 1 and 2 mean ask and deny here, so usage errors get 3.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitCode(exitSitesBad, fmt.Sprintf("%s (see '%s --help')", err, c.CommandPath()))
	})
	cmd.AddCommand(newSitesCheckCmd(s, &sitesFile), newSitesListCmd(s, &sitesFile))
	return cmd
}

// sitesRules loads the effective rules; a bad rules file is bad input (3).
// Warnings go to warn.
func sitesRules(sitesFile string, warn io.Writer) (*guard.Rules, error) {
	rules, err := loadRules(sitesFile, warn)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return nil, exitCode(exitSitesBad, ee.msg)
		}
		return nil, exitCode(exitSitesBad, err.Error())
	}
	return rules, nil
}

type sitesCheckFlags struct {
	tool, mode, page string
	personTab, json  bool
}

func newSitesCheckCmd(s *streams, sitesFile *string) *cobra.Command {
	var f sitesCheckFlags
	cmd := &cobra.Command{
		Use:   "check URL",
		Short: "Say what the guard decides for a tool call on URL (exit 0 allow, 1 ask, 2 deny, 3 bad input)",
		Example: `  browseragent sites check https://www.paypal.com/myaccount
  browseragent sites check --tool mcp__chrome-devtools__take_snapshot https://mail.google.com/
  browseragent sites check --tool browser_open --json https://vault.bitwarden.com/
  browseragent sites check --mode isolated 'https://evil.example@paypal.com/'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return exitCode(exitSitesBad, "sites check needs exactly one URL (see 'browseragent sites check --help')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSitesCheck(s, *sitesFile, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.tool, "tool", "browser_click", "tool `NAME` as the agent sees it (browser_click, mcp__chrome-devtools__click, web_fetch...)")
	fl.StringVar(&f.mode, "mode", "shared", "browser `MODE`: shared (the person's Chrome) or isolated (browseragent's own)")
	fl.StringVar(&f.page, "page", "", "for navigating tools: the `URL` of the page the tab shows now (javascript: targets are judged by it)")
	fl.BoolVar(&f.personTab, "person-tab", false, "the tab acted on is one the person opened, not the agent")
	fl.BoolVar(&f.json, "json", false, "print the decision as JSON")
	return cmd
}

// sitesCheckResult is the JSON form of `sites check`.
type sitesCheckResult struct {
	Input     string         `json:"input"`
	URL       string         `json:"url"`
	Tool      string         `json:"tool"`
	Effect    string         `json:"effect"`
	Mode      string         `json:"mode"`
	Decision  string         `json:"decision"`
	DecidedBy string         `json:"decided_by"`
	Reason    string         `json:"reason"`
	Rule      *sitesRuleJSON `json:"rule"`
	Sensitive bool           `json:"sensitive"`
	Approvals []string       `json:"approvals,omitempty"`
	ExitCode  int            `json:"exit_code"`
}

type sitesRuleJSON struct {
	Name     string   `json:"name"`
	Category string   `json:"category,omitempty"`
	Action   string   `json:"action"`
	Hosts    []string `json:"hosts"`
	Paths    []string `json:"paths,omitempty"`
	Schemes  []string `json:"schemes"`
	Note     string   `json:"note,omitempty"`
	Source   string   `json:"source"`
	// Replaces is where the rule of the same name it replaced was.
	Replaces string `json:"replaces,omitempty"`
}

func runSitesCheck(s *streams, sitesFile, raw string, f sitesCheckFlags) error {
	mode, err := guard.ParseMode(f.mode)
	if err != nil {
		return exitCode(exitSitesBad, err.Error())
	}
	if _, err := guard.Normalize(raw); err != nil {
		return exitCode(exitSitesBad, err.Error())
	}
	rules, err := sitesRules(sitesFile, s.err)
	if err != nil {
		return err
	}
	p := guard.NewPolicy(rules, &guard.Options{Mode: mode})
	call := p.SiteCall(f.tool, raw, f.page, f.personTab)
	d := p.Check(call)
	res := newCheckResult(raw, call, d, rules)
	if f.json {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printCheck(s.out, res)
	}
	if res.ExitCode != exitSitesAllow {
		return exitCode(res.ExitCode, "")
	}
	return nil
}

func newCheckResult(raw string, c guard.Call, d guard.Decision, rules *guard.Rules) sitesCheckResult {
	res := sitesCheckResult{
		Input: raw, URL: d.URL, Tool: c.Tool, Effect: d.Effect.String(), Mode: d.Mode.String(),
		Decision: d.Verdict.String(), DecidedBy: d.DecidedBy, Reason: d.Reason, Sensitive: d.Sensitive,
	}
	if u, err := guard.Normalize(raw); err == nil && res.URL == "" {
		res.URL = u.String()
	}
	for _, sc := range d.Scopes {
		res.Approvals = append(res.Approvals, sc.String())
	}
	for _, r := range append(rules.List(), rules.Fixed()...) {
		if r.Name == d.Rule {
			res.Rule = ruleJSON(r)
		}
	}
	switch d.Verdict {
	case guard.Ask:
		res.ExitCode = exitSitesAsk
	case guard.Deny:
		res.ExitCode = exitSitesDeny
	}
	return res
}

func ruleJSON(r guard.Rule) *sitesRuleJSON {
	return &sitesRuleJSON{Name: r.Name, Category: r.Category, Action: r.Action.String(), Hosts: r.Hosts,
		Paths: r.Paths, Schemes: r.Schemes, Note: r.Note, Source: r.Where(), Replaces: r.Replaces}
}

func printCheck(w io.Writer, res sitesCheckResult) {
	fmt.Fprintf(w, "url       %s\n", textutil.VisibleLine(res.URL))
	fmt.Fprintf(w, "tool      %s (%s)\n", textutil.VisibleLine(res.Tool), res.Effect)
	fmt.Fprintf(w, "mode      %s\n", res.Mode)
	if r := res.Rule; r != nil {
		cat := ""
		if r.Category != "" {
			cat = r.Category + ", "
		}
		fmt.Fprintf(w, "rule      %s (%s%s) from %s\n", textutil.VisibleLine(r.Name), textutil.VisibleLine(cat), r.Action, textutil.VisibleLine(r.Source))
	} else {
		fmt.Fprintf(w, "rule      none: not a sensitive site\n")
	}
	fmt.Fprintf(w, "decision  %s (by %s)\n", res.Decision, res.DecidedBy)
	if len(res.Approvals) > 0 {
		fmt.Fprintf(w, "approvals %s\n", approvalText(res.Approvals))
	}
	fmt.Fprintf(w, "reason    %s\n", textutil.VisibleLine(res.Reason))
}

func approvalText(scopes []string) string {
	if len(scopes) == 1 {
		return "once only: a sensitive page needs a fresh approval every time; --yes never covers it"
	}
	return strings.Join(scopes, ", ") + " (\"always\" lasts until the mode changes; --yes covers it in scripts)"
}

func newSitesListCmd(s *streams, sitesFile *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "Print the effective sensitive-site rules and the file each came from",
		Example: "  browseragent sites list\n  browseragent sites list --sites ./more-sites.yaml --json",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 0 {
				return exitCode(exitSitesBad, "sites list takes no arguments")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			rules, err := sitesRules(*sitesFile, s.err)
			if err != nil {
				return err
			}
			if asJSON {
				return listRulesJSON(s.out, rules)
			}
			listRules(s.out, rules)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the rules as a JSON array")
	return cmd
}

func listRulesJSON(w io.Writer, rules *guard.Rules) error {
	out := []*sitesRuleJSON{}
	for _, r := range rules.List() {
		out = append(out, ruleJSON(r))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func listRules(w io.Writer, rules *guard.Rules) {
	for _, r := range rules.List() {
		cat := ""
		if r.Category != "" {
			cat = "  [" + r.Category + "]"
		}
		// A rules file given with --sites may come with a project:
		// every field is shown visible.
		fmt.Fprintf(w, "%s  %s%s  (%s)\n", r.Action, textutil.VisibleLine(r.Name), textutil.VisibleLine(cat), textutil.VisibleLine(r.Where()))
		fmt.Fprintf(w, "    hosts:   %s\n", textutil.VisibleLine(strings.Join(r.Hosts, ", ")))
		if len(r.Paths) > 0 {
			fmt.Fprintf(w, "    paths:   %s\n", textutil.VisibleLine(strings.Join(r.Paths, ", ")))
		}
		if strings.Join(r.Schemes, ",") != "http,https,ws,wss" {
			fmt.Fprintf(w, "    schemes: %s\n", textutil.VisibleLine(strings.Join(r.Schemes, ", ")))
		}
		if r.Note != "" {
			fmt.Fprintf(w, "    note:    %s\n", textutil.VisibleLine(r.Note))
		}
		if r.Replaces != "" {
			fmt.Fprintf(w, "    replaces the rule of the same name at %s\n", textutil.VisibleLine(r.Replaces))
		}
	}
	fmt.Fprintf(w, "%d rules from %s\n", rules.Len(), textutil.VisibleLine(strings.Join(rules.Sources(), ", ")))
}
