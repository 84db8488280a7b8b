package serve

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/session"
)

// TestConnectEndpointDenied: browser_connect makes browseragent itself
// connect to the endpoint an MCP client names (a GET of browser_url's
// /json/version, a websocket to ws_endpoint). An address a deny rule names
// is refused before anything is asked or sent, as a URL there is: before,
// it was judged as a write on no page, asked, and once the person said yes
// the request went out.
func TestConnectEndpointDenied(t *testing.T) {
	var hits atomic.Int32
	admin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `{"Browser":"admin console"}`)
	}))
	defer admin.Close()
	_, port, _ := net.SplitHostPort(admin.Listener.Addr().String())
	rules, err := guard.ParseRules([]byte("version: 1\nrules:\n  - name: local-admin\n    category: admin console\n    hosts: [\"127.0.0.1:"+port+"\"]\n    action: deny\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, AuditPath: filepath.Join(t.TempDir(), "audit.jsonl"), Approver: Approver{}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	srv := New(sess.Registry, &Options{Version: "test", Modes: sess})
	defer srv.Close()
	f := &fixture{sess: sess, srv: srv}
	host := &answering{}
	cs := f.connect(t, "connector", &mcp.ClientOptions{ElicitationHandler: host.handle})

	tests := []struct {
		name string
		args map[string]any
	}{
		{"browser_url", map[string]any{"browser_url": "http://127.0.0.1:" + port}},
		{"browser_url, another spelling of loopback", map[string]any{"browser_url": "http://localhost:" + port + "/"}},
		{"ws_endpoint", map[string]any{"ws_endpoint": "ws://127.0.0.1:" + port + "/devtools/browser/x"}},
		{"ws_endpoint in decimal", map[string]any{"ws_endpoint": "ws://2130706433:" + port + "/devtools/browser/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			host.answers = []string{"once"} // the person would say yes: nobody may be asked
			forms := len(host.forms)
			text, isErr := callTool(t, cs, "browser_connect", tc.args)
			if !isErr || !strings.Contains(text, `deny rule "local-admin"`) || !strings.Contains(text, "would connect to") {
				t.Errorf("browser_connect: want refused by the deny rule, got isError=%v %q", isErr, text)
			}
			if n := len(host.forms) - forms; n != 0 {
				t.Errorf("the person was asked %d times about a denied address", n)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the denied address received %d requests", n)
			}
		})
	}
}

// countingListener is a loopback listener that counts the connections made
// to it and closes each at once.
func countingListener(t *testing.T) (port string, conns *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = &atomic.Int32{}
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
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, conns
}

// TestConnectProfileEndpointDenied: browser_connect with user_data_dir
// reads the endpoint from the profile's DevToolsActivePort; when a deny
// rule names it, the connection is refused before it is dialled (before,
// only ws_endpoint and browser_url were judged, and the profile's address
// was connected to).
func TestConnectProfileEndpointDenied(t *testing.T) {
	port, conns := countingListener(t)
	profile := t.TempDir()
	if err := os.WriteFile(filepath.Join(profile, "DevToolsActivePort"), []byte(port+"\n/devtools/browser/x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rules, err := guard.ParseRules([]byte("version: 1\nrules:\n  - name: local-admin\n    category: admin console\n    hosts: [\"127.0.0.1:"+port+"\"]\n    action: deny\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, AuditPath: filepath.Join(t.TempDir(), "audit.jsonl"), Approver: Approver{}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	srv := New(sess.Registry, &Options{Version: "test", Modes: sess})
	defer srv.Close()
	f := &fixture{sess: sess, srv: srv}
	host := &answering{answers: []string{"once"}} // the person says yes to the switch itself
	cs := f.connect(t, "connector", &mcp.ClientOptions{ElicitationHandler: host.handle})
	text, isErr := callTool(t, cs, "browser_connect", map[string]any{"user_data_dir": profile})
	if !isErr || !strings.Contains(text, `rule "local-admin"`) {
		t.Errorf("browser_connect: want refused by the deny rule, got isError=%v %q", isErr, text)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the denied address was connected to %d times", n)
	}
}
