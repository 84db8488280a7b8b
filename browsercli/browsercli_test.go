package browsercli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browsercli/wire"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

func TestRefArg(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"e3", "e3"}, {"@e3", "e3"}, {"@f1e3", "f1e3"}, {" e12 ", "e12"}, {"Log in", ""}, {"@", ""}, {"e3;", ""},
	} {
		got, fail := refArg(tc.in)
		if tc.want == "" {
			if fail == nil || fail.Exit != wire.ExitUsage {
				t.Errorf("refArg(%q) = %q, want a usage error", tc.in, got)
			}
			continue
		}
		if fail != nil || got != tc.want {
			t.Errorf("refArg(%q) = %q %+v, want %q", tc.in, got, fail, tc.want)
		}
	}
}

// TestFailureCode pins the browser's wordings the exit codes are told by:
// a change of words there must fail here, not silently turn a stale ref
// into a plain failure.
func TestFailureCode(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"ref e9 is not on the page any more (the page changed or navigated): take a new browser_snapshot", wire.ExitStale},
		{"no current tab: open one with browser_open, or pick one with browser_tabs and browser_select_tab", wire.ExitNoTab},
		{`no tab "t2": list tabs with browser_tabs`, wire.ExitNoTab},
		{"the tab browser_click acts on closed after it was checked; nothing was done.", wire.ExitNoTab},
		{`text "x" did not appear within 10s`, wire.ExitFailed},
	} {
		if got := failureCode(tc.text); got != tc.want {
			t.Errorf("failureCode(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestSnapshotElements(t *testing.T) {
	lines := []string{
		"Page: Shop", "URL: http://127.0.0.1/",
		`- heading "Shop" [level=1]`,
		`  - textbox "User" [required, ref=e4] value="ada"`,
		`  - checkbox "Gift wrap" [checked, ref=e5]`,
		`  - link "Cart \"now\"" [ref=e6] -> /cart`,
		`  - button [ref=e7]`,
		`  - iframe "Pay" [frame=f1] -> https://pay.test/`,
		`    - button "Pay now" [ref=f1e2]`,
		`  - text: Signed in`,
	}
	want := []element{
		{Ref: "e4", Role: "textbox", Name: "User", Value: "ada"},
		{Ref: "e5", Role: "checkbox", Name: "Gift wrap", Checked: true},
		{Ref: "e6", Role: "link", Name: `Cart "now"`, URL: "/cart"},
		{Ref: "e7", Role: "button"},
		{Ref: "f1e2", Frame: "f1", Role: "button", Name: "Pay now"},
	}
	if diff := cmp.Diff(want, elements(lines)); diff != "" {
		t.Errorf("elements (-want +got):\n%s", diff)
	}
}

func TestTabList(t *testing.T) {
	list := "3 tabs (shared browser):\nt1 [person's] \"Mail\" https://mail.test/\n" +
		"t2 [person's] (a page the sensitive-site rule \"bank\" denies)\nt3 [current, agent] \"Say \\\"hi\\\"\" http://b/x?y=1"
	want := []tabEntry{
		{ID: "t1", Title: "Mail", URL: "https://mail.test/"},
		{ID: "t2", Withheld: `a page the sensitive-site rule "bank" denies`},
		{ID: "t3", Title: `Say "hi"`, URL: "http://b/x?y=1", Current: true, Agent: true},
	}
	if diff := cmp.Diff(want, tabList(list)); diff != "" {
		t.Errorf("tabList (-want +got):\n%s", diff)
	}
	if got := tabList("No tabs open."); len(got) != 0 {
		t.Errorf("tabList of no tabs: %+v", got)
	}
}

func TestCurrentTab(t *testing.T) {
	list := "2 tabs (isolated browser):\nt1 [agent] \"Home\" http://a/\nt2 [current, agent] \"Say \\\"hi\\\"\" http://b/x?y=1"
	id, title, url, ok := currentTab(list)
	if diff := cmp.Diff([]any{"t2", `Say "hi"`, "http://b/x?y=1", true}, []any{id, title, url, ok}); diff != "" {
		t.Errorf("currentTab (-want +got):\n%s", diff)
	}
	if _, _, _, ok := currentTab("No tabs open."); ok {
		t.Error("currentTab found a tab in an empty list")
	}
}

// TestDaemonOfAnotherBuildEnds: after an upgrade, a command of the new
// build finds the old build's daemon; that one ends (exit 8, saying why)
// rather than run the command with old code, and the session is free for
// a fresh daemon.
func TestDaemonOfAnotherBuildEnds(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	rules, err := guard.LoadRules()
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	ready, wait := io.Pipe()
	go func() {
		served <- Serve(context.Background(), ServeOptions{Name: "up", Version: "v1", Ready: wait,
			Open: func(ctx context.Context, a tools.Approver) (*session.Session, error) {
				return session.NewSession(&session.SessionOptions{Rules: rules, Approver: a, AuditPath: "-"})
			}})
	}()
	line, _ := bufio.NewReader(ready).ReadString('\n')
	if line != "ok\n" {
		t.Fatalf("daemon start: %q", line)
	}
	resp, err := wire.Do(context.Background(), &wire.Request{Command: "pending", Version: "v1"}, &wire.ClientOptions{Session: "up"})
	if err != nil || resp.Exit != wire.ExitOK {
		t.Fatalf("same build: %+v %v", resp, err)
	}
	// A command that names only its program file (as Quick does) is served
	// by a daemon of that same file; another file is asked its version,
	// with nothing run, and the daemon goes on.
	resp, err = wire.Do(context.Background(), &wire.Request{Command: "pending", Binary: wire.Binary()}, &wire.ClientOptions{Session: "up"})
	if err != nil || resp.Exit != wire.ExitOK {
		t.Fatalf("same program file: %+v %v", resp, err)
	}
	// A file of another build, or a copy of this one, is asked its version;
	copied := &wire.Request{Command: "pending", Binary: "/elsewhere/browseragent 1 2"}
	if _, err := wire.Do(context.Background(), copied, &wire.ClientOptions{Session: "up"}); !errors.Is(err, wire.ErrNeedVersion) {
		t.Fatalf("another program file: %v, want wire.ErrNeedVersion", err)
	}
	// one that says it is of this build is served, and known by its file.
	resp, err = wire.Do(context.Background(), &wire.Request{Command: "pending", Binary: copied.Binary, Version: "v1"}, &wire.ClientOptions{Session: "up"})
	if err != nil || resp.Exit != wire.ExitOK {
		t.Fatalf("another program file of this build: %+v %v", resp, err)
	}
	if resp, err = wire.Do(context.Background(), copied, &wire.ClientOptions{Session: "up"}); err != nil || resp.Exit != wire.ExitOK {
		t.Fatalf("a program file known to be of this build: %+v %v", resp, err)
	}
	resp, err = wire.Do(context.Background(), &wire.Request{Command: "pending", Version: "v2"}, &wire.ClientOptions{Session: "up"})
	if err != nil || resp.Exit != wire.ExitLost || !strings.Contains(resp.Error, "ran browseragent v1, this is v2") {
		t.Fatalf("another build: %+v %v", resp, err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the old build's daemon did not end")
	}
	p, _ := wire.PathsOf("up")
	if p.Running() {
		t.Error("the session is still locked after its daemon ended")
	}
}

// TestEveryCommandRuns: each command the command line sends to a daemon
// is one the daemon runs.
func TestEveryCommandRuns(t *testing.T) {
	byDaemon := map[string]bool{"pending": true, "confirm": true, "deny": true} // serveConn's own
	for _, c := range wire.Commands() {
		if _, ok := runs[c.Name]; !ok && !c.Local && !byDaemon[c.Name] {
			t.Errorf("%s has no run in the daemon", c.Name)
		}
	}
	for name := range runs {
		if _, ok := wire.Lookup(name); !ok {
			t.Errorf("the daemon runs %s, which is no command", name)
		}
	}
}

// TestSkillAndManualNameEveryCommand: the skill file a coding agent reads
// and the manual keep up with the commands, and the skill file is one
// Claude Code reads (front matter with a name and a description).
func TestSkillAndManualNameEveryCommand(t *testing.T) {
	if !strings.HasPrefix(Skill, "---\nname: browseragent-browser\ndescription: ") {
		t.Errorf("SKILL.md does not open with its front matter:\n%.80s", Skill)
	}
	manual, err := os.ReadFile("../docs/browser-cli.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range wire.Commands() {
		if c.Name == "skill" || c.Name == "sessions" || c.Name == "pending" {
			continue // the skill file is itself; the others are in the manual
		}
		if !strings.Contains(Skill, "`"+c.Name) && !strings.Contains(Skill, " "+c.Name+" ") {
			t.Errorf("SKILL.md does not mention %s", c.Name)
		}
	}
	for _, c := range wire.Commands() {
		if !strings.Contains(string(manual), "`"+c.Name) {
			t.Errorf("docs/browser-cli.md does not mention %s", c.Name)
		}
	}
}
