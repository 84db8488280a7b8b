package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/guard"
)

// TestSitesCheckTable runs every line of guard's decision table through
// `browseragent sites check` and expects the same decision, rule and exit
// code as the guard itself.
func TestSitesCheckTable(t *testing.T) {
	runEnv(t, nil)
	data, err := os.ReadFile("../guard/testdata/decisions.txt")
	if err != nil {
		t.Fatal(err)
	}
	exits := map[string]int{"allow": 0, "ask": 1, "deny": 2}
	n := 0
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		want, rule, args, name := decisionLineArgs(t, i+1, line)
		n++
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runMain(args...)
			if _, err := guard.Normalize(args[len(args)-1]); err != nil {
				// The guard asks or refuses on an unreadable live URL; the
				// CLI calls it what it is: bad input.
				if code != 3 || !strings.Contains(stderr, "not a usable URL") {
					t.Errorf("unreadable URL: exit %d, stderr %q; want 3", code, stderr)
				}
				return
			}
			var res sitesCheckResult
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("exit %d, not JSON: %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
			}
			got := []string{res.Decision, ruleName(res.Rule), strconv.Itoa(code), strconv.Itoa(res.ExitCode)}
			exp := []string{want, rule, strconv.Itoa(exits[want]), strconv.Itoa(exits[want])}
			if diff := cmp.Diff(exp, got); diff != "" {
				t.Errorf("%v: decision, rule, exit, exit_code (-want +got):\n%s\nreason: %s", args, diff, res.Reason)
			}
		})
	}
	if n < 60 {
		t.Errorf("decision table has %d lines, want at least 60", n)
	}
}

// decisionLineArgs turns one line of decisions.txt into sites check args.
func decisionLineArgs(t *testing.T, lineNo int, line string) (want, rule string, args []string, name string) {
	f := strings.Fields(line)
	if len(f) < 6 {
		t.Fatalf("decisions.txt:%d: too few fields", lineNo)
	}
	want, rule = f[0], strings.TrimPrefix(f[1], "-")
	args = []string{"sites", "check", "--json", "--mode", f[2], "--tool", f[3]}
	if f[4] == "person" {
		args = append(args, "--person-tab")
	}
	rest := strings.TrimSpace(line[strings.Index(line, " "+f[4]+" ")+len(f[4])+2:])
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		t.Fatalf("decisions.txt:%d: url: %v", lineNo, err)
	}
	u, _ := strconv.Unquote(q)
	rest = strings.TrimSpace(rest[len(q):])
	if after, ok := strings.CutPrefix(rest, "page="); ok {
		pq, err := strconv.QuotedPrefix(after)
		if err != nil {
			t.Fatalf("decisions.txt:%d: page: %v", lineNo, err)
		}
		page, _ := strconv.Unquote(pq)
		args = append(args, "--page", page)
		rest = strings.TrimSpace(after[len(pq):])
	}
	return want, rule, append(args, "--", u), strings.TrimPrefix(rest, "# ")
}

func ruleName(r *sitesRuleJSON) string {
	if r == nil {
		return ""
	}
	return r.Name
}

func TestSitesCheckText(t *testing.T) {
	runEnv(t, nil)
	code, stdout, _ := runMain("sites", "check", "https://evil.example@WWW.PAYPAL.COM./x/../myaccount")
	want := []string{
		"url       https://www.paypal.com/myaccount",
		"tool      browser_click (write)",
		"mode      shared",
		"rule      paypal (payment, ask) from built-in:",
		"decision  ask (by rule)",
		"approvals once only",
		`reason    browser_click changes something on https://www.paypal.com/myaccount, which matches the sensitive-site rule "paypal"`,
	}
	lines := strings.Split(stdout, "\n")
	if code != 1 || len(lines) < len(want) {
		t.Fatalf("exit %d, stdout:\n%s", code, stdout)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want prefix %q", i+1, lines[i], w)
		}
	}
}

func TestSitesBadInput(t *testing.T) {
	runEnv(t, nil)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nrules:\n  - name: x\n    hosts: [a.example]\n    action: sometimes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args   []string
		stderr string
	}{
		{[]string{"sites", "check"}, "needs exactly one URL"},
		{[]string{"sites", "check", "a", "b"}, "needs exactly one URL"},
		{[]string{"sites", "check", "/relative"}, "no scheme"},
		{[]string{"sites", "check", "https://exa mple.com/"}, "forbidden character"},
		{[]string{"sites", "check", "--mode", "private", "https://a.example/"}, `unknown mode "private"`},
		{[]string{"sites", "check", "--nope", "https://a.example/"}, "unknown flag: --nope"},
		{[]string{"sites", "check", "--sites", bad, "https://a.example/"}, bad + `:3: rule "x": action "sometimes"`},
		{[]string{"sites", "list", "--sites", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
	}
	for _, c := range cases {
		code, _, stderr := runMain(c.args...)
		if code != 3 || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want 3 and %q", c.args, code, stderr, c.stderr)
		}
	}
}

func TestSitesListLayers(t *testing.T) {
	runEnv(t, nil)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "browseragent", "sensitive-sites.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("version: 1\nrules:\n  - name: paypal\n    hosts: [paypal.com]\n    action: deny\n  - name: local-files\n    disabled: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(t.TempDir(), "team.yaml")
	if err := os.WriteFile(extra, []byte("version: 1\nrules:\n  - name: intranet\n    category: work\n    hosts: [\"*.corp.example\"]\n    action: ask\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMain("sites", "list", "--json", "--sites", extra)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rules []sitesRuleJSON
	if err := json.Unmarshal([]byte(stdout), &rules); err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	for _, r := range rules {
		src[r.Name] = r.Action + " " + r.Source
	}
	got := []string{src["paypal"], src["intranet"], src["local-files"], strings.Fields(src["gmail"])[0]}
	want := []string{"deny " + user + ":3", "ask " + extra + ":3", "", "ask"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layered rules (-want +got):\n%s", diff)
	}
	for _, r := range rules {
		if r.Name == "paypal" && !strings.HasPrefix(r.Replaces, "built-in:") {
			t.Errorf("paypal replaces = %q, want the built-in rule's place", r.Replaces)
		}
	}
	// Reusing a built-in's name says so, at load and in the list.
	wantWarn := []string{
		"browseragent: warning: " + user + `:3: rule "paypal" replaces the built-in rule of the same name (built-in:`,
		"browseragent: warning: " + user + `:6: rule "local-files" turns off the built-in rule of the same name (built-in:`,
	}
	for _, w := range wantWarn {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	_, text, _ := runMain("sites", "list", "--sites", extra)
	if !strings.Contains(text, "deny  paypal  (") || !strings.Contains(text, "rules from built-in, "+user) {
		t.Errorf("text list lacks the override or sources:\n%s", text[max(0, len(text)-300):])
	}
	if !strings.Contains(text, "    replaces the rule of the same name at built-in:") {
		t.Errorf("text list does not say paypal replaces the built-in rule")
	}
	code, _, _ = runMain("sites", "check", "--mode", "isolated", "file:///etc/passwd")
	if code != 0 {
		t.Errorf("a disabled built-in rule must not apply: exit %d", code)
	}
}

func TestAuditCommand(t *testing.T) {
	runEnv(t, nil)
	code, stdout, stderr := runMain("audit")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "no tool calls in") {
		t.Errorf("empty log: exit %d, %q, %q", code, stdout, stderr)
	}
	log, err := guard.OpenAudit(guard.DefaultAuditPath())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for i, e := range []guard.Entry{
		{Tool: "web_fetch", Mode: "shared", TargetURL: "https://go.dev/", Decision: "allow", DecidedBy: guard.ByPolicy},
		{Tool: "browser_type", Mode: "shared", PageURL: "https://www.paypal.com/signin", Rule: "paypal", Decision: "deny", DecidedBy: guard.ByPerson,
			Args: map[string]any{"password": "hunter2"}, Duration: 1500 * time.Millisecond},
		{Tool: "browser_close", Mode: "shared", PageURL: "https://example.com/", Decision: "deny", DecidedBy: guard.ByPolicy, Error: "Refused: not our tab\nmore"},
	} {
		e.Time = at.Add(time.Duration(i) * time.Second)
		if err := log.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runMain("audit", "-n", "2")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 2 {
		t.Fatalf("audit -n 2: exit %d:\n%s", code, stdout)
	}
	for i, want := range [][]string{
		{"shared", "deny  (person)", "browser_type", "https://www.paypal.com/signin", "rule=paypal", "1.5s"},
		{"deny  (policy)", "browser_close", "error: Refused: not our tab"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d lacks %q: %s", i+1, w, lines[i])
			}
		}
	}
	_, js, _ := runMain("audit", "--json", "-n", "0")
	var toolList []string
	for _, l := range strings.Split(strings.TrimSpace(js), "\n") {
		var e guard.Entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("not a JSON line: %s", l)
		}
		toolList = append(toolList, e.Tool)
	}
	if diff := cmp.Diff([]string{"web_fetch", "browser_type", "browser_close"}, toolList); diff != "" {
		t.Errorf("audit --json (-want +got):\n%s", diff)
	}
	if strings.Contains(js, "hunter2") {
		t.Errorf("audit shows a password")
	}
	if code, _, _ := runMain("audit", "-n", "-1"); code != 2 {
		t.Errorf("audit -n -1: exit %d, want 2", code)
	}
}

// TestUserRulesFileProblems: a user rules file that is a link to nothing,
// or holds a byte that is not UTF-8, stops the command with the file (and
// the line) named, instead of running without the person's rules or
// saying "line 0".
func TestUserRulesFileProblems(t *testing.T) {
	runEnv(t, nil)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "browseragent", "sensitive-sites.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "moved-away.yaml")
	if err := os.Symlink(gone, user); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runMain("sites", "check", "https://example.com/")
	want := "browseragent: sensitive-sites file " + user + " is a link to " + gone + ", which does not exist; refusing to start without your sensitive-site rules (fix or remove the link)\n"
	if code != exitSitesBad || stderr != want {
		t.Errorf("dangling link: exit %d, stderr %q; want %d, %q", code, stderr, exitSitesBad, want)
	}
	os.Remove(user)
	if err := os.WriteFile(user, []byte("version: 1\nrules:\n  - name: bank\n    note: Caf\xe9 bank\n    hosts: [bank.example]\n    action: ask\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runMain("sites", "check", "https://example.com/")
	if want := user + ":4: byte 0xE9 at column 14 is not UTF-8 text"; code != exitSitesBad || !strings.Contains(stderr, want) {
		t.Errorf("Latin-1 byte: exit %d, stderr %q; want %d and %q", code, stderr, exitSitesBad, want)
	}
}
