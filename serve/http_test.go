package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGuardHTTP: a request reaches the MCP handler only with a loopback
// (or named) Host, no Origin or a loopback (or named) one, and the token
// when one is set; everything else is refused before it.
func TestGuardHTTP(t *testing.T) {
	reached := 0
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ })
	plain := httptest.NewServer(guardHTTP(ok, HTTPOptions{}))
	t.Cleanup(plain.Close)
	named := httptest.NewServer(guardHTTP(ok, HTTPOptions{Token: "s3cret", Hosts: []string{"mybox.lan"}, Origins: []string{"https://app.example"}}))
	t.Cleanup(named.Close)

	for _, tc := range []struct {
		name   string
		srv    *httptest.Server
		host   string
		origin string
		auth   string
		want   int
	}{
		{"loopback host", plain, "127.0.0.1:8931", "", "", http.StatusOK},
		{"localhost", plain, "localhost:8931", "", "", http.StatusOK},
		{"ipv6 loopback", plain, "[::1]:8931", "", "", http.StatusOK},
		{"rebound name", plain, "evil.example:8931", "", "", http.StatusForbidden},
		{"rebound name without port", plain, "evil.example", "", "", http.StatusForbidden},
		{"private address as host", plain, "192.168.1.5:8931", "", "", http.StatusForbidden},
		{"page on another origin", plain, "127.0.0.1:8931", "http://evil.example", "", http.StatusForbidden},
		{"page on a loopback origin", plain, "127.0.0.1:8931", "http://localhost:3000", "", http.StatusOK},
		{"null origin", plain, "127.0.0.1:8931", "null", "", http.StatusForbidden},
		{"token missing", named, "mybox.lan:8931", "", "", http.StatusUnauthorized},
		{"token wrong", named, "mybox.lan:8931", "", "Bearer nope", http.StatusUnauthorized},
		{"token right, named host", named, "mybox.lan:8931", "", "Bearer s3cret", http.StatusOK},
		{"token right, named origin", named, "127.0.0.1", "https://app.example", "Bearer s3cret", http.StatusOK},
		{"token right, other host", named, "evil.example", "", "Bearer s3cret", http.StatusForbidden},
		{"token as basic auth", named, "127.0.0.1", "", "Basic s3cret", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, tc.srv.URL+Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			before := reached
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got := []int{resp.StatusCode, reached - before}
			want := []int{tc.want, 0}
			if tc.want == http.StatusOK {
				want[1] = 1
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[status, handler reached] (-want +got):\n%s", diff)
			}
		})
	}
}
