//go:build !windows

// Command browser-bench measures "open a local page and take a snapshot"
// through the native browser tools and through chrome-devtools-mcp driving
// the same browser, and the native snapshot of a 2000-element page. It
// prints medians and the ratio. Run it with:
//
//	go run ./bench/browser [-n 15]
//
// It needs Chromium and npx (chrome-devtools-mcp@1.11.0, from the npm cache
// or registry); every page is served on 127.0.0.1.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/tools"
)

const article = `<!doctype html><title>Bench Article</title><main><h1>Bench</h1>
<p>A paragraph of text for the benchmark.</p><a href="/a">A link</a><input placeholder="field"></main>`

func main() {
	n := flag.Int("n", 15, "iterations per measurement")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "browser-bench:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			var b strings.Builder
			b.WriteString("<title>Big</title><h1>Big page</h1><ul>")
			for i := range 1000 {
				fmt.Fprintf(&b, `<li><a href="/item/%d">Item %d</a> <input name="q%d" placeholder="qty %d"></li>`, i, i, i, i)
			}
			w.Write([]byte(b.String() + "</ul>"))
			return
		}
		w.Write([]byte(article))
	}))
	defer srv.Close()
	ctx := context.Background()
	b := browser.New(nil)
	defer b.Close()
	t0 := time.Now()
	ws, err := b.WSEndpoint(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("browser launch: %v\n", time.Since(t0).Round(time.Millisecond))

	native, err := measure(n, func() (time.Duration, error) { return nativeOpenSnapshot(ctx, b, srv.URL+"/") })
	if err != nil {
		return fmt.Errorf("native: %w", err)
	}
	if _, err := call(ctx, b, "browser_open", map[string]any{"url": srv.URL + "/big"}); err != nil {
		return err
	}
	big, err := measure(n, func() (time.Duration, error) {
		t := time.Now()
		_, err := call(ctx, b, "browser_snapshot", nil)
		return time.Since(t), err
	})
	if err != nil {
		return fmt.Errorf("native big: %w", err)
	}

	cs, stop, startup, err := startMCP(ctx, ws)
	if err != nil {
		return fmt.Errorf("chrome-devtools-mcp: %w", err)
	}
	defer stop()
	viaMCP, err := measure(n, func() (time.Duration, error) { return mcpOpenSnapshot(ctx, cs, srv.URL+"/") })
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}

	fmt.Printf("chrome-devtools-mcp start (npx, cached): %v\n", startup.Round(time.Millisecond))
	fmt.Printf("open page + snapshot, median of %d: native %v, chrome-devtools-mcp %v, ratio mcp/native %.1fx\n",
		n, native.Round(100*time.Microsecond), viaMCP.Round(100*time.Microsecond), float64(viaMCP)/float64(native))
	fmt.Printf("native snapshot of a 2000-element page, median of %d: %v (target < 100ms)\n", n, big.Round(100*time.Microsecond))
	return nil
}

// measure runs f n times after one warm-up and returns the median.
func measure(n int, f func() (time.Duration, error)) (time.Duration, error) {
	if _, err := f(); err != nil {
		return 0, err
	}
	var ds []time.Duration
	for range n {
		d, err := f()
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

// registries holds one registry per browser: a native tool runs the one
// way there is, through a registry (no rules, no locator: the guard's own
// cost is measured by guard's BenchmarkCheck).
var registries = map[*browser.Browser]*tools.Registry{}

func call(ctx context.Context, b *browser.Browser, name string, args any) (*tools.ToolResult, error) {
	raw, _ := json.Marshal(args)
	reg := registries[b]
	if reg == nil {
		rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "bench.yaml")
		if err != nil {
			return nil, err
		}
		reg = tools.NewRegistry(guard.NewPolicy(rules, nil), &tools.RegistryOptions{Yes: true})
		reg.Add(b.Provider())
		registries[b] = reg
	}
	r, err := reg.Call(ctx, name, raw, tools.OriginScript)
	if err == nil && r.IsError() {
		err = fmt.Errorf("%s: %s", name, r.Text)
	}
	return r, err
}

// nativeOpenSnapshot opens the page in a new tab, snapshots it and closes
// the tab; only open and snapshot are timed.
func nativeOpenSnapshot(ctx context.Context, b *browser.Browser, url string) (time.Duration, error) {
	t := time.Now()
	if _, err := call(ctx, b, "browser_open", map[string]any{"url": url}); err != nil {
		return 0, err
	}
	r, err := call(ctx, b, "browser_snapshot", nil)
	d := time.Since(t)
	if err != nil {
		return 0, err
	}
	if !strings.Contains(r.Text, "Bench") {
		return 0, fmt.Errorf("snapshot lacks the page: %s", r.Text)
	}
	_, err = call(ctx, b, "browser_close", nil)
	return d, err
}

func startMCP(ctx context.Context, ws string) (*mcp.ClientSession, func(), time.Duration, error) {
	args := append([]string{"-y", "chrome-devtools-mcp@1.11.0"}, browser.ChromeDevtoolsMCPArgs(ws)...)
	cmd := exec.Command("npx", args...)
	cmd.Env = append(os.Environ(), browser.ChromeDevtoolsMCPEnv()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t := time.Now()
	client := mcp.NewClient(&mcp.Implementation{Name: "browser-bench", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_pages", Arguments: map[string]any{}}); err != nil {
		cs.Close()
		return nil, nil, 0, err
	}
	startup := time.Since(t)
	stop := func() {
		cs.Close()
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	return cs, stop, startup, nil
}

// mcpOpenSnapshot does the same as nativeOpenSnapshot with new_page,
// take_snapshot and close_page.
func mcpOpenSnapshot(ctx context.Context, cs *mcp.ClientSession, url string) (time.Duration, error) {
	t := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "new_page", Arguments: map[string]any{"url": url}})
	if err != nil || res.IsError {
		return 0, fmt.Errorf("new_page: %v %s", err, text(res))
	}
	var pageID int
	for _, p := range browser.ParseListPages(text(res)) {
		if p.Selected {
			pageID = p.ID
		}
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "take_snapshot", Arguments: map[string]any{"pageId": pageID}})
	d := time.Since(t)
	if err != nil || res.IsError || !strings.Contains(text(res), "Bench") {
		return 0, fmt.Errorf("take_snapshot: %v %s", err, text(res))
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_page", Arguments: map[string]any{"pageId": pageID}})
	return d, err
}

func text(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text + "\n")
		}
	}
	return b.String()
}
