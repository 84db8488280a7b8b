package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestRenderBatchWithheldIsRefused: a page the browser lands on that a deny
// rule names (a redirect, a script moving the tab) has its result withheld
// by the guard. In a --render batch that was a "browser" failure, tried
// again with --retries: each try made the browser load the denied page once
// more (4 requests for one URL listed), and the line said error_kind
// "browser". It is a refusal, as one made before the load: one request,
// error_kind "refused", no retry.
func TestRenderBatchWithheldIsRefused(t *testing.T) {
	t.Parallel()
	testutil.Require(t, "chromium", browser.FindChrome)
	var adminHits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/admin/", func(w http.ResponseWriter, r *http.Request) {
		adminHits.Add(1)
		fmt.Fprint(w, "<title>Admin</title><p>ADMIN-SECRET of the console</p>")
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/admin/console", http.StatusFound)
	})
	mux.HandleFunc("/script", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Moving</title><p>moving on</p><script>location.href = "/admin/console?by=script"</script>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Plain</title><h1>Plain</h1><p>An ordinary page with an ordinary paragraph of text.</p>")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	e := newBinEnv(t)
	sites := filepath.Join(e.dir, "sites.yaml")
	os.WriteFile(sites, []byte("version: 1\nrules:\n  - name: local-admin\n    category: admin console\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/admin/*\"]\n    action: deny\n"), 0o644)

	tests := []struct{ name, path, kind string }{
		{"a redirect into a deny rule", "/redirect", "refused"},
		{"a script moving the tab there", "/script", "refused"},
		{"an ordinary page", "/plain", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := adminHits.Load()
			out := filepath.Join(e.dir, strings.Trim(tc.path, "/")+".jsonl")
			code, _, stderr := e.run(t, srv.URL+tc.path+"\n", "fetch", "--render", "--sites", sites, "--retries", "3", "-i", "-", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			lines := readBatchOut(t, out)
			if len(lines) != 1 {
				t.Fatalf("want one line, got %+v", lines)
			}
			if diff := cmp.Diff(tc.kind, lines[0].ErrorKind); diff != "" {
				t.Errorf("error_kind (-want +got)\n%s\nline: %+v", diff, lines[0])
			}
			if tc.kind != "" && !strings.Contains(lines[0].Error, `withheld the result`) {
				t.Errorf("error: %q", lines[0].Error)
			}
			if strings.Contains(stderr, "retries") {
				t.Errorf("a refused page was tried again: %s", stderr)
			}
			if n := adminHits.Load() - before; tc.kind != "" && n > 1 {
				t.Errorf("the denied page was requested %d times for one URL listed", n)
			}
		})
	}
}
