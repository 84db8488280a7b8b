package cli

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestFetchNeverReachesDevTools: `browseragent fetch` refuses a browser's
// DevTools paths on loopback (a Chrome with --remote-debugging-port lists
// its tabs at /json/list and closes them at /json/close/<id>) with no rules
// file saying so, and `fetch --render` of an ordinary page whose script
// asks for them, or opens a DevTools WebSocket, reaches nothing: the
// isolated browser's proxy judges each request. The server playing the
// DevTools endpoint is asked only the ordinary path.
func TestFetchNeverReachesDevTools(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	devtools := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, `[{"title": "Bank - balance", "id": "ABC"}]`)
	}))
	defer devtools.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Notes</title><p id="out">waiting</p><script>
const log = [];
const done = () => { if (log.length === 3) out.textContent = 'done: ' + log.sort().join(' ') };
fetch('%[1]s/json/list').then(r => r.text()).then(t => log.push('list=' + t), () => log.push('list=failed')).then(done);
fetch('%[1]s/ok').then(r => r.text()).then(() => log.push('ok=read'), () => log.push('ok=failed')).then(done);
const ws = new WebSocket('%[2]s/devtools/page/ABC');
ws.onopen = () => { log.push('ws=open'); done() };
ws.onerror = () => { log.push('ws=failed'); done() };
</script>`, devtools.URL, strings.Replace(devtools.URL, "http:", "ws:", 1))
	}))
	defer page.Close()
	e := newBinEnv(t)

	code, out, errOut := e.run(t, "", "fetch", devtools.URL+"/json/list")
	if code != 1 || strings.Contains(out, "Bank") || !strings.Contains(errOut, `deny rule "browser-devtools"`) {
		t.Errorf("fetch of /json/list: want exit 1 naming the rule, got %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	testutil.Require(t, "chromium", browser.FindChrome)
	code, out, errOut = e.run(t, "", "fetch", "--render", "--wait-for", "done:", "--format", "text", page.URL+"/")
	if code != 0 || !strings.Contains(out, "done: list=failed ok=read ws=failed") {
		t.Errorf("fetch --render: want the DevTools requests refused and the ordinary one read, got %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "/ok" {
		t.Errorf("the DevTools server was asked %v, want only /ok", asked)
	}
}

// TestFetchRenderDeniedEndpoint: `fetch --render --ws-endpoint` to an
// address a deny rule names is refused before it is dialled, with the
// rule in the message (before, the websocket handshake was sent there).
func TestFetchRenderDeniedEndpoint(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	e := newBinEnv(t)
	sites := filepath.Join(e.dir, "sites.yaml")
	if err := os.WriteFile(sites, []byte("version: 1\nrules:\n  - name: local-admin\n    hosts: [\"127.0.0.1:"+port+"\"]\n    action: deny\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := e.run(t, "", "fetch", "--render", "--sites", sites, "--ws-endpoint", "ws://localhost:"+port+"/devtools/browser/x", "http://127.0.0.1:1/")
	if code == 0 || !strings.Contains(errOut, `rule "local-admin"`) {
		t.Errorf("want a refusal naming the rule, got %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the denied endpoint was connected to %d times", n)
	}
}
