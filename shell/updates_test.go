package shell

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/session"
)

// TestResourceUpdateFlood: a watched resource updated 5000 times in a
// burst is a handful of lines, not 5000: the first update at once, then
// one line per window with the count, and the counts add up. The server
// is a go-sdk server over in-memory transports; the shell's window is
// shortened to 500 ms, and a loaded machine that makes the burst last
// longer is allowed one line per window it lasted.
func TestResourceUpdateFlood(t *testing.T) {
	const updates = 5000
	rules, err := guard.LoadRules()
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "busy", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	srv.AddResource(&mcp.Resource{URI: "test://counter", Name: "counter", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://counter", Text: "1"}}}, nil
		})
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	var burst atomic.Int64 // how long the flood took, ns
	srv.AddTool(&mcp.Tool{Name: "flood", InputSchema: map[string]any{"type": "object"}, Annotations: ro},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			start := time.Now()
			defer func() { burst.Store(int64(time.Since(start))) }()
			for range updates {
				if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://counter"}); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "flooded"}}}, nil
		})
	// pause returns once the announcements have settled: the test
	// cannot know when the last update reached the shell, so it waits
	// for a line that counts all of them, bounded.
	var errb syncBuffer
	srv.AddTool(&mcp.Tool{Name: "pause", InputSchema: map[string]any{"type": "object"}, Annotations: ro},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if n, _ := countUpdates(errb.String()); n == updates {
					break
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "paused"}}}, nil
		})
	hooks := &Hooks{}
	mo := mcpclient.Options{OnEvent: hooks.MCPEvent, Dial: func(string, *mcpclient.ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	sess, err := session.NewSession(&session.SessionOptions{Rules: rules, AuditPath: t.TempDir() + "/audit.jsonl", Approver: hooks,
		MCP: &mcpclient.Config{Servers: map[string]*mcpclient.ServerConfig{"busy": {Name: "busy", Command: "unused"}}}, MCPOptions: mo})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sess.Start(context.Background())
	var out syncBuffer
	opts := &Options{HistoryFile: "-", Tools: sess.Registry, MCP: sess.MCP, Hooks: hooks, Stdin: strings.NewReader("/mcp watch busy test://counter\n/call mcp__busy__flood {}\n/call mcp__busy__pause {}\n"),
		Stdout: &out, Stderr: &errb}
	sh := New(opts)
	const window = 500 * time.Millisecond
	sh.updates.window = window
	if n := failures(t, sh.Run(context.Background())); n != 0 {
		t.Fatalf("failed %d\nstdout:\n%s\nstderr:\n%s", n, out.String(), errb.String())
	}
	total, lines := countUpdates(errb.String())
	took := time.Duration(burst.Load())
	maxLines := 2 + int(took/window) + 1 // the first, one per window the took lasted, the last window's
	if total != updates || lines > maxLines {
		t.Errorf("%d updates announced in %d lines, want all %d in at most %d (the took took %s):\n%s", total, lines, updates, maxLines, took, errb.String())
	}
	t.Logf("%d updates in %s: %d lines", updates, took, lines)
}

var (
	firstUpdate = regexp.MustCompile(`(?m)^mcp busy: resource updated: test://counter$`)
	moreUpdates = regexp.MustCompile(`(?m)^mcp busy: resource updated (\d+) more times? in 500ms: test://counter$`)
)

// countUpdates adds up the updates the announcement lines in errs report,
// and counts the lines.
func countUpdates(errs string) (total, lines int) {
	total = len(firstUpdate.FindAllString(errs, -1))
	lines = total
	for _, m := range moreUpdates.FindAllStringSubmatch(errs, -1) {
		n, _ := strconv.Atoi(m[1])
		total += n
		lines++
	}
	return total, lines
}
