package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
