package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/fetch"
)

// connectFlags choose the person's browser to attach to (shared mode).
type connectFlags struct {
	connect     bool
	wsEndpoint  string
	browserURL  string
	userDataDir string
}

func (c *connectFlags) addFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&c.connect, "connect", false, "use your running Chrome (shared mode) instead of an isolated browser")
	fl.StringVar(&c.wsEndpoint, "ws-endpoint", "", "with --connect: the browser's DevTools websocket URL (also a remote CDP pool)")
	fl.StringVar(&c.browserURL, "browser-url", "", "with --connect: http://host:port of a Chrome started with --remote-debugging-port")
	fl.StringVar(&c.userDataDir, "user-data-dir", "", "with --connect: the Chrome profile directory holding DevToolsActivePort")
}

// on reports whether shared mode was asked for; any target flag implies it.
func (c *connectFlags) on() bool {
	return c.connect || c.wsEndpoint != "" || c.browserURL != "" || c.userDataDir != ""
}

func (c *connectFlags) target() browser.Target {
	return browser.Target{WSEndpoint: c.wsEndpoint, BrowserURL: c.browserURL, UserDataDir: c.userDataDir}
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
	conn       connectFlags
}

func (r *renderFlags) addFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&r.on, "render", false, "render the page in a real browser first (JavaScript apps, logged-in pages)")
	fl.StringVar(&r.waitFor, "wait-for", "", "with --render: wait until this text or CSS selector is on the page")
	fl.StringVar(&r.screenshot, "screenshot", "", "with --render: save a full-page screenshot here (.jpg or .png)")
	fl.BoolVar(&r.headed, "headed", false, "with --render: show the browser window instead of running headless")
	r.conn.addFlags(fl)
}

// runRender is `fetch --render`: every URL is rendered in a tab of one
// browser, then printed (or written as JSON lines) like a plain fetch.
func runRender(ctx context.Context, s *streams, f *fetchFlags, urls []string, format fetch.Format) error {
	if !f.render.on {
		return exitCode(2, "--wait-for, --screenshot and --connect need --render")
	}
	b, err := f.render.conn.openBrowser(ctx, f.render.headed)
	if err != nil {
		return err
	}
	defer b.Close()
	do := func(i int, u string) fetched {
		o := browser.RenderOptions{WaitFor: f.render.waitFor, Select: f.selector, Links: f.links,
			Screenshot: shotPath(f.render.screenshot, i, len(urls))}
		if f.timeout > 0 {
			o.WaitTime = f.timeout
		}
		res, err := b.Render(ctx, u, o)
		return fetched{u, res, err}
	}
	workers := min(max(f.concurrency, 1), 4, len(urls))
	results := make([]chan fetched, len(urls))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, u := range urls {
		results[i] = make(chan fetched, 1)
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] <- do(i, u)
		})
	}
	defer wg.Wait()
	if f.input != "" || f.out != "" {
		return writeRenderBatch(s, f, results, format)
	}
	worst := 0
	for i, ch := range results {
		r := <-ch
		if len(urls) > 1 && format != fetch.FormatJSON {
			if i > 0 {
				fmt.Fprintln(s.out)
			}
			fmt.Fprintf(s.out, "==> %s <==\n", r.url)
		}
		worst = max(worst, printPage(s, f, r, format))
	}
	if worst != 0 {
		return exitCode(worst, "")
	}
	return nil
}

func writeRenderBatch(s *streams, f *fetchFlags, results []chan fetched, format fetch.Format) error {
	out, closeOut, err := batchOutput(s, f.out)
	if err != nil {
		return err
	}
	lines := make(chan fetched)
	go func() {
		for _, ch := range results {
			lines <- <-ch
		}
		close(lines)
	}()
	ok, failed, werr := writeLines(out, lines, format, newBar(s.err, len(results)))
	if err := closeOut(); err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("writing results: %w", werr)
	}
	fmt.Fprintf(s.err, "browseragent: rendered %d URLs: %d ok, %d failed%s\n", len(results), ok, failed, outName(f.out))
	return nil
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
		Short: "Look at the browser browseragent drives (your own Chrome with --connect)",
	}
	cmd.AddCommand(newBrowserTabsCmd(s))
	return cmd
}

func newBrowserTabsCmd(s *streams) *cobra.Command {
	var conn connectFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "tabs",
		Short: "List the tabs of your running Chrome (read-only: nothing is opened or closed)",
		Long: `List the tabs of your running Chrome. browseragent finds it through the
DevToolsActivePort file of your profile (allow remote debugging at
chrome://inspect/#remote-debugging first), or through --ws-endpoint,
--browser-url or --user-data-dir. It attaches, lists and detaches: no tab is
opened, changed or closed.`,
		Example: `  browseragent browser tabs
  browseragent browser tabs --user-data-dir ~/.config/chrome-work
  browseragent browser tabs --browser-url http://127.0.0.1:9222 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			conn.connect = true
			b, err := conn.openBrowser(cmd.Context(), false)
			if err != nil {
				return err
			}
			defer b.Close()
			tabs := b.Tabs()
			if asJSON {
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				return enc.Encode(tabs)
			}
			fmt.Fprintln(s.out, browser.FormatTabs(tabs, b.Mode()))
			return nil
		},
	}
	conn.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the tabs as JSON")
	return cmd
}
