package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
)

func newAuditCmd(s *streams) *cobra.Command {
	var (
		n      int
		asJSON bool
		file   string
	)
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the last tool calls from the audit log and what the guard decided",
		Long: `Every tool call, allowed or not, is one JSON line in
$XDG_STATE_HOME/browseragent/audit.jsonl (~/.local/state when unset): time,
tool, server, mode, page URL, matched rule, decision and who decided.
Passwords, tokens, cookies and Authorization headers are redacted before
they are written.`,
		Example: "  browseragent audit\n  browseragent audit -n 100 --json | jq 'select(.decision != \"allow\")'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 0 {
				return exitCode(exitUsage, "-n must be 0 (all) or more")
			}
			path := file
			if path == "" {
				path = guard.DefaultAuditPath()
			}
			entries, err := guard.ReadAudit(path, n)
			if err != nil {
				return err
			}
			if asJSON {
				return printAuditJSON(s.out, entries)
			}
			if len(entries) == 0 {
				fmt.Fprintf(s.err, "no tool calls in %s yet\n", path)
				return nil
			}
			printAudit(s.out, entries)
			return nil
		},
	}
	cmd.Flags().IntVarP(&n, "lines", "n", 20, "show the last `N` calls (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON lines, as stored")
	cmd.Flags().StringVar(&file, "file", "", "read this audit `FILE` instead of the default")
	return cmd
}

func printAuditJSON(w io.Writer, entries []guard.Entry) error {
	enc := json.NewEncoder(w)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

// printAudit prints one line per call:
// time, mode, decision (by whom), tool, URL, rule, duration, error.
func printAudit(w io.Writer, entries []guard.Entry) {
	for _, e := range entries {
		var b strings.Builder
		// The model chose the URLs and arguments, a page or a tool the
		// error, and anyone who can write the file every field: each is
		// shown visible.
		fmt.Fprintf(&b, "%s  %-8s  %-5s %-8s  %s", e.Time.Local().Format("2006-01-02 15:04:05"), textutil.VisibleLine(e.Mode),
			textutil.VisibleLine(e.Decision), "("+textutil.VisibleLine(e.DecidedBy)+")", textutil.VisibleLine(e.Tool))
		u := e.PageURL
		if e.TargetURL != "" {
			u = "→ " + e.TargetURL
		}
		if u != "" {
			fmt.Fprintf(&b, "  %s", textutil.VisibleLine(u))
		}
		if e.Rule != "" {
			fmt.Fprintf(&b, "  rule=%s", textutil.VisibleLine(e.Rule))
		}
		if e.Duration > 0 {
			fmt.Fprintf(&b, "  %s", e.Duration.Round(time.Millisecond))
		}
		if e.Error != "" {
			fmt.Fprintf(&b, "  error: %s", textutil.VisibleLine(textutil.FirstLine(e.Error, 0)))
		}
		fmt.Fprintln(w, b.String())
	}
}
