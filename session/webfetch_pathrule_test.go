package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/tools"
)

// TestWebFetchAddressPathRule: a deny rule naming an address with paths
// (a loopback admin port's /admin) is judged at every request's
// connection, so a name that resolves to that address does not reach the
// path: the connection check alone could not (a connection has no path),
// and the URL named another host. The first request, a redirect over the
// same kept-alive connection and any case of the path are refused before a
// byte of the request is sent; other paths there are fetched.
func TestWebFetchAddressPathRule(t *testing.T) {
	var adminHits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := strings.ToLower(r.URL.Path); {
		case strings.HasPrefix(p, "/admin"):
			adminHits.Add(1)
			fmt.Fprint(w, "ADMIN-SECRET")
		case p == "/go":
			http.Redirect(w, r, "/admin/users", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "public page %s", r.URL.Path)
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	resolver := startDNS(t, map[string][]netip.Addr{"admin.trick.test.": {netip.MustParseAddr("127.0.0.1")}})
	rules, err := guard.ParseRules([]byte("version: 1\nrules:\n  - name: admin-pages\n    category: admin console\n    hosts: [\"127.0.0.1:"+port+"\"]\n    paths: [\"/admin\"]\n    action: deny\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := openSessionWith(t, &SessionOptions{Rules: rules, Fetch: &fetch.Options{Resolver: resolver}})
	byName := "http://admin.trick.test:" + port
	tests := []struct {
		name, url string
		wantErr   bool
		want      string
	}{
		{"another path of the address, by name", byName + "/public", false, "public page /public"},
		{"the denied path, by name", byName + "/admin/", true, `refused by rule "admin-pages"`},
		{"the denied path in capitals", byName + "/ADMIN/x", true, `refused by rule "admin-pages"`},
		{"a redirect there over the kept-alive connection", byName + "/go", true, `refused by rule "admin-pages"`},
		{"the denied path by address", srv.URL + "/admin", true, `deny rule "admin-pages"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"url": tc.url})
			res, err := s.Registry.Call(context.Background(), tools.WebFetchName, args, tools.OriginScript)
			if err != nil && !tc.wantErr {
				t.Fatal(err)
			}
			if res.IsError() != tc.wantErr || !strings.Contains(res.Text, tc.want) || strings.Contains(res.Text, "ADMIN-SECRET") {
				t.Errorf("IsError=%v text=%q\nwant IsError=%v and %q", res.IsError(), res.Text, tc.wantErr, tc.want)
			}
			if n := adminHits.Load(); n != 0 {
				t.Errorf("the admin pages received %d requests", n)
			}
		})
	}
}
