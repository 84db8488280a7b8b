package cli

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// trickRow is one line of testdata/url-tricks.txt.
type trickRow struct {
	want, rule, mode, tool, url, name string
}

// trickAnswer is what the golden file keeps of one `sites check --json`
// answer: everything but the rule's full host list and line number, which
// change whenever the built-in list grows.
type trickAnswer struct {
	Name      string `json:"name"`
	Input     string `json:"input"`
	URL       string `json:"url"`
	Tool      string `json:"tool"`
	Mode      string `json:"mode"`
	Decision  string `json:"decision"`
	DecidedBy string `json:"decided_by"`
	Rule      string `json:"rule,omitempty"`
	Sensitive bool   `json:"sensitive"`
	ExitCode  int    `json:"exit_code"`
	Reason    string `json:"reason"`
}

var builtinLine = regexp.MustCompile(`built-in:\d+`)

// TestSitesCheckTricks runs every URL trick of testdata/url-tricks.txt
// through the real `browseragent sites check --json` and checks the
// decision and rule decided by hand for it, then the whole answer against
// testdata/url-tricks.golden.json (-update rewrites that file).
func TestSitesCheckTricks(t *testing.T) {
	runEnv(t, nil)
	rows := readTricks(t, "testdata/url-tricks.txt")
	if len(rows) < 60 {
		t.Fatalf("%d URL tricks, want at least 60", len(rows))
	}
	sites, err := filepath.Abs("testdata/url-tricks-sites.yaml")
	if err != nil {
		t.Fatal(err)
	}
	exits := map[string]int{"allow": 0, "ask": 1, "deny": 2}
	var got []trickAnswer
	for _, r := range rows {
		code, stdout, stderr := runMain("sites", "check", "--json", "--sites", sites, "--mode", r.mode, "--tool", r.tool, r.url)
		var res sitesCheckResult
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Errorf("%s: exit %d, not JSON: %v\nstderr: %s", r.name, code, err, stderr)
			continue
		}
		a := trickAnswer{Name: r.name, Input: res.Input, URL: res.URL, Tool: res.Tool, Mode: res.Mode,
			Decision: res.Decision, DecidedBy: res.DecidedBy, Sensitive: res.Sensitive, ExitCode: res.ExitCode,
			Reason: builtinLine.ReplaceAllString(strings.ReplaceAll(res.Reason, sites, "url-tricks-sites.yaml"), "built-in:N")}
		if res.Rule != nil {
			a.Rule = res.Rule.Name
		}
		got = append(got, a)
		if diff := cmp.Diff([]string{r.want, r.rule, strconv.Itoa(exits[r.want])}, []string{a.Decision, orDash(a.Rule), strconv.Itoa(code)}); diff != "" {
			t.Errorf("%s: sites check %s %s %q: decision, rule, exit (-want +got):\n%s\nurl %s, reason: %s", r.name, r.mode, r.tool, r.url, diff, a.URL, a.Reason)
		}
	}
	golden := "testdata/url-tricks.golden.json"
	if *updateGolden {
		out, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(golden, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	var want []trickAnswer
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ from %s (-want +got); review, then rewrite with -update:\n%s", golden, diff)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// readTricks parses the table: decision, rule, mode, tool, a Go-quoted URL
// and "# name".
func readTricks(t *testing.T, path string) []trickRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []trickRow
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 5 {
			t.Fatalf("%s:%d: want decision rule mode tool \"url\" # name", path, i+1)
		}
		rest := strings.TrimSpace(line)
		for range 4 {
			rest = strings.TrimSpace(rest[strings.IndexAny(rest, " \t"):])
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			t.Fatalf("%s:%d: URL is not a Go-quoted string: %v", path, i+1, err)
		}
		u, _ := strconv.Unquote(q)
		name := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[len(q):]), "#"))
		if name == "" {
			t.Fatalf("%s:%d: the case has no name (# name)", path, i+1)
		}
		rows = append(rows, trickRow{want: f[0], rule: f[1], mode: f[2], tool: f[3], url: u, name: name})
	}
	return rows
}
