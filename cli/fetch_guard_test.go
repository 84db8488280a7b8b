package cli

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/browseragent/browseragent/guard"
)

// TestFetchGoesThroughTheGuard: the fetch subcommand is an entry point like
// any other, so a deny rule refuses the URL before any request is made, and
// every URL lands in the audit log.
func TestFetchGoesThroughTheGuard(t *testing.T) {
	var vaultHits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/vault") {
			vaultHits.Add(1)
		}
		if r.URL.Path == "/go" { // an open redirect into the vault
			http.Redirect(w, r, "/vault/items", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<html><head><title>Notes</title></head><body><article><p>` +
			strings.Repeat("Plain words about tea and the weather, written for people. ", 12) + `</p></article></body></html>`))
	}))
	defer srv.Close()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	rules := filepath.Join(t.TempDir(), "sites.yaml")
	if err := os.WriteFile(rules, []byte("version: 1\nrules:\n  - name: local-vault\n    category: password-manager\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/vault*\"]\n    action: deny\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantOut    string
		wantStderr string
	}{
		{"ordinary page", []string{"fetch", "--sites", rules, srv.URL + "/notes"}, 0, "Plain words about tea", ""},
		{"deny rule", []string{"fetch", "--sites", rules, srv.URL + "/vault/items"}, 1, "", `deny rule "local-vault"`},
		{"redirect into a deny rule", []string{"fetch", "--sites", rules, srv.URL + "/go"}, 1, "", `redirect from ` + srv.URL + `/go to ` + srv.URL + `/vault/items refused`},
		{"deny rule in a batch line", []string{"fetch", "--sites", rules, "-i", "-"}, 0, `deny rule \"local-vault\"`, "1 failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runMainIn(srv.URL+"/vault/x\n"+srv.URL+"/notes\n", tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, errOut)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("stdout lacks %q:\n%s", tc.wantOut, out)
			}
			if !strings.Contains(errOut, tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, errOut)
			}
		})
	}
	if n := vaultHits.Load(); n != 0 {
		t.Errorf("the denied URL was requested %d times", n)
	}
	entries, err := guard.ReadAudit(filepath.Join(state, "browseragent", "audit.jsonl"), 0)
	if err != nil {
		t.Fatal(err)
	}
	var denied int
	for _, e := range entries {
		if e.Tool == "web_fetch" && e.Decision == "deny" && e.Rule == "local-vault" {
			denied++
		}
	}
	var targets int
	for _, e := range entries {
		if e.TargetURL != "" {
			targets++
		}
	}
	if len(entries) != 5 || denied != 2 || targets != 5 {
		t.Errorf("audit has %d entries, %d denials, %d with a target URL; want 5, 2, 5: %+v", len(entries), denied, targets, entries)
	}
}

// TestFetchProxyJudgesThePage: with --proxy the connection is the proxy's,
// so the guard's address check saw only the proxy and a name of a denied
// address (this machine's name, for a rule naming 127.0.0.1:PORT) came
// back through it. The page's own host is now resolved here and judged
// before the proxy is asked; the proxy never sees the request.
func TestFetchProxyJudgesThePage(t *testing.T) {
	// A name of 127.0.0.1 that is not a spelling of localhost, which the
	// guard's URL check already knows.
	name, err := os.Hostname()
	if err != nil {
		t.Skip("no host name")
	}
	if addrs, err := net.LookupHost(name); err != nil || len(addrs) == 0 || !slices.Contains(addrs, "127.0.0.1") {
		t.Skipf("this machine's name %q does not resolve to 127.0.0.1 (%v %v)", name, addrs, err)
	}
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<html><head><title>Admin</title></head><body><article><p>` +
			strings.Repeat("The secret admin page, which a deny rule names by its address. ", 8) + `</p></article></body></html>`))
	}))
	defer target.Close()
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	port := target.URL[strings.LastIndex(target.URL, ":")+1:]
	rules := filepath.Join(t.TempDir(), "sites.yaml")
	if err := os.WriteFile(rules, []byte("version: 1\nrules:\n  - name: admin-box\n    category: admin\n    hosts: [\"127.0.0.1:"+port+"\"]\n    action: deny\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runMainIn("", "fetch", "--sites", rules, "--proxy", proxy.URL, "-f", "text", "http://"+name+":"+port+"/")
	if code != 1 || strings.Contains(out, "secret") || !strings.Contains(errOut, `refused by rule "admin-box"`) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and the deny rule named", code, out, errOut)
	}
	if n := proxied.Load(); n != 0 {
		t.Errorf("the proxy was asked %d times for a denied page", n)
	}
	// An allowed page goes through the proxy.
	code, out, errOut = runMainIn("", "fetch", "--proxy", proxy.URL, "-f", "text", "http://"+name+":"+port+"/")
	if code != 0 || !strings.Contains(out, "secret admin page") || proxied.Load() != 1 {
		t.Errorf("without the rule: exit %d, proxied %d, stdout %q, stderr %q", code, proxied.Load(), out, errOut)
	}
}
