package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestRunConnect: `run --connect` does the task in the person's own
// Chromium, with its login (the answer comes from a page only a signed-in
// browser sees), closes the tab it opened there and says so, so the
// person's tab count is as it was; --keep-tabs leaves it open. The runs
// are the binary, one after the other, beside the other parallel tests.
func TestRunConnect(t *testing.T) {
	t.Parallel()
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	mux := http.NewServeMux()
	mux.HandleFunc("/autologin", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "ada", Path: "/"})
		http.Redirect(w, r, "/home", http.StatusSeeOther)
	})
	mux.HandleFunc("/home", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<title>Home</title><h1>Home</h1>") })
	mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("session"); err == nil {
			fmt.Fprintf(w, "<title>Account</title><main><h1>Account of %s</h1><p>Your plan is Saffron, renewed every March.</p></main>", c.Value)
			return
		}
		fmt.Fprint(w, "<title>Account</title><p>Please sign in.</p>")
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	home := []string{site.URL + "/home"}
	person := testutil.StartPersonsBrowser(t, chrome, []string{site.URL + "/autologin"},
		func(pages []string) bool { return cmp.Equal(pages, home) })
	defer person.Close(t)

	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep-tabs=%v", keep), func(t *testing.T) {
			srv := llmtest.New(t,
				llmtest.Rule{When: llmtest.LastUser("plan"), Reply: llmtest.Call("browser_open", `{"url":"`+site.URL+`/account"}`)},
				llmtest.Rule{When: llmtest.AfterCall("browser_open"), Reply: llmtest.Call("browser_extract", `{}`)},
				llmtest.Rule{When: llmtest.LastTool("Saffron"), Reply: llmtest.Text("Your plan is Saffron.")},
			)
			e := runBinEnv(t, srv)
			args := []string{"run", "--no-mcp", "--user-data-dir", person.Dir, "which plan am I on?"}
			if keep {
				args = append(args[:1], append([]string{"--keep-tabs"}, args[1:]...)...)
			}
			code, stdout, stderr := e.run(t, "", args...)
			if code != 0 || stdout != "Your plan is Saffron.\n" {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
			}
			const closed = "browseragent: Closed the tab the agent opened in your Chrome.\n"
			if got := strings.Contains(stderr, closed); got == keep {
				t.Errorf("stderr says %q: %v, want %v:\n%s", closed, got, !keep, stderr)
			}
			want := home
			if keep {
				want = append(home, site.URL+"/account")
			}
			time.Sleep(300 * time.Millisecond) // a tab closing late would be gone by now
			if diff := cmp.Diff(want, person.PageURLs(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("the person's tabs after run (-want +got)\n%s", diff)
			}
			if !person.Running() {
				t.Fatal("the person's browser stopped")
			}
		})
	}
}
