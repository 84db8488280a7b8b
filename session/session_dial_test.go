package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSessionBrowserDialGuard: the isolated browser reaches the network
// only through the guard's dial check, so an address a deny rule names is
// never connected to, whatever in an allowed page asks for it — a script's
// fetch, an image, a frame — and no byte reaches it. (Before, only the
// tab's own navigations were judged, by URL: a page's script could read a
// cloud metadata address and show the answer on the allowed page.)
func TestSessionBrowserDialGuard(t *testing.T) {
	for _, k := range []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"} {
		t.Setenv(k, "") // a proxy of the environment resolves names itself: see envProxy
	}
	var hits atomic.Int64
	meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "METADATA-SECRET-TOKEN")
	}))
	defer meta.Close()
	site := newTestSite(t)
	site.page("/innocent", fmt.Sprintf(`<title>Innocent</title><h1>Innocent</h1><p id="out">waiting</p>
<img src="%[1]s/pixel.png"><iframe src="%[1]s/frame"></iframe>
<script>fetch('%[1]s/latest/meta-data/').then(r => r.text()).then(t => { out.textContent = 'got: ' + t })
  .catch(() => { out.textContent = 'fetch failed' })</script>`, meta.URL))
	port := meta.URL[strings.LastIndex(meta.URL, ":")+1:]
	s := newTestSession(t, false, fmt.Sprintf(`version: 1
rules:
  - name: local-metadata
    category: cloud-metadata
    hosts: ["127.0.0.1:%s"]
    action: deny
`, port))

	call(t, s, "browser_open", map[string]any{"url": site.URL + "/innocent"})
	var text string
	for range 50 {
		text = call(t, s, "browser_snapshot", map[string]any{}).Text
		if !strings.Contains(text, "waiting") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(text, "METADATA-SECRET") || !strings.Contains(text, "fetch failed") {
		t.Errorf("the page's script reached the denied address; the page says:\n%s", text)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the denied address got %d requests (the image, frame and fetch must never connect)", n)
	}
	// The page itself, on an address no rule names, still loads through it.
	if !strings.Contains(text, "Innocent") {
		t.Errorf("the allowed page did not load:\n%s", text)
	}
}
