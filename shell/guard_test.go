package shell

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type stubGuard struct{ grants []string }

func (g *stubGuard) Grants() []string { return g.grants }
func (g *stubGuard) ResetTrust() int {
	n := len(g.grants)
	g.grants = nil
	return n
}
func (g *stubGuard) CheckSite(url string) (string, error) {
	return fmt.Sprintf("%s: sensitive (banking), rule paypal.com\nwrites ask every time", url), nil
}
func (g *stubGuard) Audit(n int) ([]string, error) {
	return []string{fmt.Sprintf("last %d:", n), "09:00 web_fetch allow"}, nil
}

func TestScriptGuardCommands(t *testing.T) {
	g := &stubGuard{grants: []string{"mcp__chrome-devtools__click: this tool always"}}
	out, errs := runScript(t, &Options{Tools: newFakeTools(), Guard: g}, `/trust
/trust reset
/trust
/trust forget
/sites check paypal.com
/sites
/audit 5
/audit x
`)
	wantOut := `mcp__chrome-devtools__click: this tool always
/trust reset drops them; switching /connect or /disconnect drops them too
dropped 1 grant; every write asks again
no grants: every call that needs approval asks
https://paypal.com: sensitive (banking), rule paypal.com
writes ask every time
last 5:
09:00 web_fetch allow
`
	if diff := cmp.Diff(wantOut, out); diff != "" {
		t.Errorf("stdout (-want +got)\n%s", diff)
	}
	wantErr := `error: /trust: unknown sub-command "forget"
usage: /trust [reset]
error: /sites: missing check URL
usage: /sites check URL
error: /audit: "x" is not a positive number
usage: /audit [N]
`
	if diff := cmp.Diff(wantErr, errs); diff != "" {
		t.Errorf("stderr (-want +got)\n%s", diff)
	}
}
