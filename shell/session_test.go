package shell

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/session"
)

// TestScriptRealSession drives the shell over a real session.Session (guard,
// registry, web_fetch) against pages served on 127.0.0.1: the script's
// commands produce the pages' content, and every call lands in the audit log.
func TestScriptRealSession(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Local page</title></head><body>
<h1>Prices</h1><article><p>The basic plan costs ten euros a month, billed yearly, and includes everything a small team needs.</p>
<p>The team plan costs twenty euros a month per person and adds shared workspaces and priority support.</p></article></body></html>`)
	}))
	defer srv.Close()

	rules, err := guard.LoadRules()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, AuditPath: dir + "/audit.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	out, errs := runScript(t, &Options{Tools: sess.Registry, Browser: sess}, strings.Join([]string{
		"/fetch " + srv.URL + "/pricing --select h1",
		// Typed as a person types a local server: no scheme, tried as http.
		"/fetch " + strings.TrimPrefix(srv.URL, "http://") + "/plans --select h1",
		`/call web_fetch {"url": "` + srv.URL + `/pricing", "select": "article p"}`,
		"/call web_fetch {}",
		"/mode",
		"/tools web_fetch",
		"",
	}, "\n"))
	if n := strings.Count(out, "# Prices"); n != 2 {
		t.Errorf("stdout has the page's heading %d times, want 2 (with and without http://):\n%s\nstderr:\n%s", n, out, errs)
	}
	for _, want := range []string{
		"# Prices",
		"The basic plan costs ten euros a month",
		"isolated: the tools drive browseragent's own Chromium",
		"web_fetch ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "error: web_fetch needs") {
		t.Errorf("web_fetch without url should fail as a tool error; stderr:\n%s", errs)
	}
	entries, err := guard.ReadAudit(dir+"/audit.jsonl", 10)
	if err != nil {
		t.Fatal(err)
	}
	var toolList []string
	for _, e := range entries {
		toolList = append(toolList, e.Tool)
	}
	if diff := cmp.Diff([]string{"web_fetch", "web_fetch", "web_fetch", "web_fetch"}, toolList); diff != "" {
		t.Errorf("audit log tools (-want +got)\n%s", diff)
	}
}
