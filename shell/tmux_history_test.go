package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestTerminalHistoryKeepsNoSecrets types, at a real terminal, a password
// into a field the tool says is a password field (testshell's e2), a /call
// doing the same, a URL with a password and a token, and an ordinary
// field, and a task naming a password; the history file then holds none
// of the secrets, and the ordinary line as typed. (Piped scripts write no history, so this needs a tty.)
func TestTerminalHistoryKeepsNoSecrets(t *testing.T) {
	testutil.Parallel(t)
	dir, bin, tm := startTerminal(t)
	hist := filepath.Join(dir, "history")
	tm.keys(fmt.Sprintf("TESTSHELL_HISTORY=%s %s; echo done-$?", hist, bin), "Enter")
	tm.waitFor("browseragent[no browser|no model]>")

	tm.keys("/type e1 alice-visible", "Enter")
	tm.waitFor("Typed 13 characters into e1.")
	tm.keys("/type e2 hunter2secret", "Enter")
	tm.waitFor("Typed 13 characters into e2.")
	tm.keys(`/call browser_type {"ref":"e2","text":"hunter2json"}`, "Enter")
	tm.waitFor("Typed 11 characters into e2.")
	tm.keys("/fetch http://user:s3cr3t@127.0.0.1:1/x?token=abc", "Enter")
	tm.waitFor("web_fetch {")
	tm.keys("log in as bob with password hunter2task", "Enter")
	tm.waitFor("no LLM configured")
	tm.keys("C-d")
	tm.waitFor("done-0")

	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"/type e1 alice-visible",
		"/type e2 ****",
		`/call browser_type {"ref":"e2","text":"[redacted]"}`,
		"/fetch http://user:redacted@127.0.0.1:1/x?token=redacted",
		"log in as bob with password ***",
		"",
	}, "\n")
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("history (-want +got)\n%s", diff)
	}
	for _, secret := range []string{"hunter2", "user:s3cr3t@", "token=abc"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("history holds %q:\n%s", secret, b)
		}
	}
}
