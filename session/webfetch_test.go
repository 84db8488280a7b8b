package session

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/tools"
)

// TestWebFetchJudgesEveryRedirect: a redirect cannot carry web_fetch to a
// page a deny rule forbids, however the first URL looked.
func TestWebFetchJudgesEveryRedirect(t *testing.T) {
	var vault atomic.Int32
	site := newTestSite(t)
	site.handle("/go", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/hop", http.StatusFound) })
	site.handle("/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/vault/keys", http.StatusMovedPermanently)
	})
	site.handle("/ok", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/page", http.StatusFound) })
	plain := func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/vault") {
			vault.Add(1)
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("page " + r.URL.Path))
	}
	site.handle("/page", plain)
	site.handle("/vault", plain)
	site.handle("/vault/", plain)
	rules, err := guard.ParseRules([]byte("version: 1\nrules:\n  - name: local-vault\n    category: password-manager\n    hosts: [\"127.0.0.1\"]\n    paths: [\"/vault*\"]\n    action: deny\n"), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := openSessionWith(t, &SessionOptions{Rules: rules})
	tests := []struct {
		path    string
		wantErr bool
		want    string
	}{
		{"/ok", false, "page /page"},
		{"/go", true, `to ` + site.URL + `/vault/keys refused`},
	}
	for _, tc := range tests {
		args, _ := json.Marshal(map[string]string{"url": site.URL + tc.path})
		res, err := s.Registry.Call(context.Background(), tools.WebFetchName, args, tools.OriginAgent)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError() != tc.wantErr || !strings.Contains(res.Text, tc.want) {
			t.Errorf("%s: IsError=%v text=%q, want IsError=%v and %q", tc.path, res.IsError(), res.Text, tc.wantErr, tc.want)
		}
	}
	if n := vault.Load(); n != 0 {
		t.Errorf("the vault was requested %d times through a redirect", n)
	}
}
