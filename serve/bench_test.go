package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

// BenchmarkWebFetch measures what serving costs one web_fetch of a local
// page: the registry called directly (the peer), through an MCP client
// over in-memory transports, and over Streamable HTTP on loopback. Compare
// ns/op within one run.
func BenchmarkWebFetch(b *testing.B) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Bench</title><article><h1>Bench</h1><p>A paragraph of text long enough to count as the main content of this page.</p></article>`)
	}))
	defer page.Close()
	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, Approver: Approver{}, AuditPath: filepath.Join(b.TempDir(), "audit.jsonl")})
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	srv := New(sess.Registry, &Options{})
	defer srv.Close()
	args := map[string]any{"url": page.URL + "/"}
	raw, _ := json.Marshal(args)
	ctx := context.Background()

	b.Run("registry", func(b *testing.B) {
		for b.Loop() {
			if res, err := sess.Registry.Call(ctx, "web_fetch", raw, tools.OriginMCP); err != nil || res.IsError() {
				b.Fatal(err, res)
			}
		}
	})
	call := func(b *testing.B, cs *mcp.ClientSession) {
		for b.Loop() {
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "web_fetch", Arguments: args}); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	}
	b.Run("mcp-inmemory", func(b *testing.B) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		call(b, cs)
	})
	b.Run("mcp-http", func(b *testing.B) {
		hs := httptest.NewServer(srv.Handler(nil))
		defer hs.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + Path}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		call(b, cs)
	})
}
