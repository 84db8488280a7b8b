package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/browsercli/wire"
	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/render"
)

// connectFlags choose the person's browser to attach to (shared mode).
type connectFlags struct {
	connect     bool
	wsEndpoints []string // several: a pool of browsers for fetch --render batches
	browserURL  string
	userDataDir string
}

func (c *connectFlags) addFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&c.connect, "connect", false, "use your running Chrome (shared mode) instead of an isolated browser")
	fl.StringArrayVar(&c.wsEndpoints, "ws-endpoint", nil, "the browser's DevTools websocket URL (browserless, Selenium Grid, Chromium with remote debugging); repeat it for a pool in a fetch --render batch")
	fl.StringVar(&c.browserURL, "browser-url", "", "with --connect: http://host:port of a Chrome started with --remote-debugging-port")
	fl.StringVar(&c.userDataDir, "user-data-dir", "", "with --connect: the Chrome profile directory holding DevToolsActivePort")
}

// on reports whether shared mode was asked for; any target flag implies it.
func (c *connectFlags) on() bool {
	return c.connect || len(c.wsEndpoints) > 0 || c.browserURL != "" || c.userDataDir != ""
}

func (c *connectFlags) target() browser.Target {
	t := browser.Target{BrowserURL: c.browserURL, UserDataDir: c.userDataDir}
	if len(c.wsEndpoints) > 0 {
		t.WSEndpoint = c.wsEndpoints[0]
	}
	return t
}

// openBrowser returns an isolated browser, or the person's when asked. The
// caller must Close it (which never closes the person's browser).
func (c *connectFlags) openBrowser(ctx context.Context, headed bool) (*browser.Browser, error) {
	b := browser.New(&browser.Options{Launch: browser.LaunchOptions{Headed: headed}})
	if c.on() {
		if err := b.Connect(ctx, c.target()); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// renderFlags are the browser flags of `browseragent fetch`.
type renderFlags struct {
	on         bool
	waitFor    string
	screenshot string
	headed     bool
	sites      string
	conn       connectFlags
}

func (r *renderFlags) addFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&r.on, "render", false, "render the page in a real browser first (JavaScript apps, logged-in pages)")
	fl.StringVar(&r.waitFor, "wait-for", "", "with --render: wait until this text is on the page, or this CSS selector (one starting with # . [ or holding > :) matches")
	fl.StringVar(&r.screenshot, "screenshot", "", "with --render: save a full-page screenshot here (.jpg or .png)")
	fl.BoolVar(&r.headed, "headed", false, "with --render: show the browser window instead of running headless")
	fl.StringVar(&r.sites, "sites", "", "extra sensitive-sites rules `FILE`, layered over the built-in and user rules")
	r.conn.addFlags(fl)
}

// wanted reports whether any browser flag was given: all of them need
// --render, which runRender checks.
func (r *renderFlags) wanted() bool {
	return r.on || r.waitFor != "" || r.screenshot != "" || r.headed || r.conn.on()
}

// runRender is `fetch --render`. Every step is a tool call through the
// session's registry, the one path the shell and the LLM use, so the guard
// judges it like any other call (a deny-rule page is refused, also when a
// redirect lands there) and the audit log records it. Up to --concurrency
// URLs render at once, each in its own tab: every call names its tab, so
// none depends on which tab is current.
func runRender(ctx context.Context, s *streams, f *fetchFlags, urls []string, format extract.Format) error {
	if !f.render.on {
		return exitCode(exitUsage, "--wait-for, --screenshot, --sites and --connect need --render")
	}
	if len(f.render.conn.wsEndpoints) > 1 {
		return exitCode(exitUsage, "several --ws-endpoint browsers are a pool for batches: add -i FILE or --out FILE")
	}
	o, err := f.renderOptions()
	if err != nil {
		return err
	}
	r, err := render.New(ctx, o)
	if err != nil {
		return err
	}
	defer r.Close()
	results := make([]chan fetched, len(urls))
	for i := range urls {
		results[i] = make(chan fetched, 1)
	}
	var wg sync.WaitGroup
	defer wg.Wait() // before the session closes
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // an early return stops the renders still to come
	var next atomic.Int64
	for range min(f.concurrency, len(urls)) {
		wg.Go(func() {
			// URLs are taken in order, so a long batch prints steadily.
			for i := int(next.Add(1)) - 1; i < len(urls); i = int(next.Add(1)) - 1 {
				res, err := r.Render(ctx, urls[i], shotPath(f.render.screenshot, i, len(urls)))
				results[i] <- fetched{urls[i], res, err}
			}
		})
	}
	return printInOrder(s, f, results, format)
}

// shotPath numbers the screenshot file when several URLs are rendered.
func shotPath(path string, i, n int) string {
	if path == "" || n == 1 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(path, ext), i+1, ext)
}

func newBrowserCmd(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "browser",
		Short: "Drive a persistent, guarded browser one command at a time (your own Chrome with --connect)",
		Long: `Drive a browser one command at a time, from a script or a coding agent:
open a page, take a snapshot whose interactive elements carry refs (e3),
act on a ref. The first command starts the session's daemon, which keeps
the browser (and its tabs and refs) until its idle timeout or close --all.
Every command is a tool call through the same guard as the shell: a call
that needs approval is asked at the terminal, or waits for
'browseragent browser confirm ID'. See docs/browser-cli.md.`,
		Example: `  browseragent browser open https://example.com
  browseragent browser snapshot -i
  browseragent browser click @e3
  browseragent browser fill e5 "ada@example.com"
  browseragent browser close --all`,
	}
	var f browserCLIFlags
	addBrowserCLI(cmd, s, &f)
	cmd.AddCommand(newBrowserTabsCmd(s, &f))
	return cmd
}

func newBrowserTabsCmd(s *streams, f *browserCLIFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tabs",
		Short: "List the session's tabs; with --connect, --user-data-dir, --browser-url or --ws-endpoint, your Chrome's (read-only)",
		Long: `List the session's tabs. With --connect, --user-data-dir, --browser-url or
--ws-endpoint it lists the tabs of your running Chrome instead, without a
session: browseragent finds Chrome through the DevToolsActivePort file of
your profile (allow remote debugging at chrome://inspect/#remote-debugging
first), attaches, lists and detaches: no tab is opened, changed or closed.`,
		Example: `  browseragent browser tabs
  browseragent browser tabs --connect
  browseragent browser tabs --user-data-dir ~/.config/chrome-work
  browseragent browser tabs --browser-url http://127.0.0.1:9222 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !f.conn.on() {
				c, _ := wire.Lookup("tabs")
				return runBrowserCLI(cmd, s, f, c, args)
			}
			conn := f.conn
			conn.connect = true
			b, err := conn.openBrowser(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer b.Close()
			tabs := b.Tabs()
			if f.json {
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				return enc.Encode(tabs)
			}
			fmt.Fprintln(s.out, textutil.ForTerminal(s.out, browser.FormatTabs(tabs, b.Mode()))) // pages chose titles and URLs
			return nil
		},
	}
	return cmd
}
