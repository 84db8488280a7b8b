//go:build !windows

// Command snapshot-bench measures what a model reads for one page: the
// bytes of browseragent's browser_snapshot (whole page, and interactive=true),
// of Playwright MCP's browser_snapshot and of agent-browser's snapshot
// (whole, and -i), on the same real pages served from 127.0.0.1, each with
// the interactive elements (links, buttons, fields) it keeps against the
// visible ones in the page's DOM. It prints one table, per page and in
// total. Run it with:
//
//	go run ./bench/snapshot [-n 20] [-dir ../shared/testdata/wcxb-dev]
//
// The peers come from npm, pinned, under ~/.cache/browseragent-npm:
//
//	npm install --prefix ~/.cache/browseragent-npm/_playwright_mcp_0.0.83 @playwright/mcp@0.0.83
//	npm install --prefix ~/.cache/browseragent-npm/agent-browser_0.41.2 agent-browser@0.41.2
//
// All three drive /usr/bin/chromium (or -chrome). The pages are served with
// a Content-Security-Policy that keeps every request on 127.0.0.1, so each
// tool sees the same document and nothing leaves the machine.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

func main() {
	home, _ := os.UserHomeDir()
	npm := filepath.Join(home, ".cache", "browseragent-npm")
	n := flag.Int("n", 20, "pages")
	dir := flag.String("dir", "../shared/testdata/wcxb-dev", "WCXB dev split (html/NNNN.html.gz, metadata.json)")
	chrome := flag.String("chrome", "/usr/bin/chromium", "browser every tool drives")
	pw := flag.String("playwright", filepath.Join(npm, "_playwright_mcp_0.0.83/node_modules/@playwright/mcp/cli.js"), "Playwright MCP's cli.js")
	ab := flag.String("agent-browser", filepath.Join(npm, "agent-browser_0.41.2/node_modules/agent-browser/bin/agent-browser-linux-x64"), "agent-browser binary")
	flag.Parse()
	if err := run(*n, *dir, *chrome, *pw, *ab); err != nil {
		fmt.Fprintln(os.Stderr, "snapshot-bench:", err)
		os.Exit(1)
	}
}

// page is one page of the set with what each tool made of it.
type page struct {
	id, kind string
	dom      int            // visible interactive elements in the DOM
	bytes    map[string]int // by tool
	kept     map[string]int
}

var toolNames = []string{"ours", "ours -i", "playwright", "agent-browser", "agent-browser -i"}

func run(n int, dir, chrome, pw, ab string) error {
	pages, err := pickPages(dir, n)
	if err != nil {
		return err
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/p/")
		html, err := readPage(dir, id)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self' 'unsafe-inline' data:")
		w.Write(html)
	}))
	defer srv.Close()
	ctx := context.Background()

	b := browser.New(&browser.Options{SnapshotLimit: 1 << 30, Launch: browser.LaunchOptions{ExecPath: chrome}})
	defer b.Close()
	for _, p := range pages {
		url := srv.URL + "/p/" + p.id
		if _, err := call(ctx, b, "browser_open", map[string]any{"url": url}); err != nil {
			return err
		}
		time.Sleep(300 * time.Millisecond)
		r, err := call(ctx, b, "browser_eval", map[string]any{"js": domCountJS})
		if err != nil {
			return err
		}
		fmt.Sscan(r.Text, &p.dom)
		for name, args := range map[string]map[string]any{"ours": {}, "ours -i": {"interactive": true}} {
			r, err := call(ctx, b, "browser_snapshot", args)
			if err != nil {
				return err
			}
			p.bytes[name], p.kept[name] = len(r.Text), kept(r.Text)
		}
		if _, err := call(ctx, b, "browser_close", nil); err != nil {
			return err
		}
	}

	if err := playwright(ctx, pw, chrome, srv.URL, pages); err != nil {
		return fmt.Errorf("playwright mcp: %w", err)
	}
	if err := agentBrowser(ab, chrome, srv.URL, pages); err != nil {
		return fmt.Errorf("agent-browser: %w", err)
	}
	report(pages)
	return nil
}

// domCountJS counts the page's links, buttons and fields a person can see
// and reach: visible, and not inside an aria-hidden or inert subtree (a
// form's hidden honeypot field).
const domCountJS = `(() => {
const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=checkbox], [role=textbox], [role=combobox]';
return Array.from(document.querySelectorAll(sel)).filter(e => e.checkVisibility({checkVisibilityCSS: true}) && !e.closest('[aria-hidden=true], [inert]')).length;
})()`

// keptRE finds an interactive element with a ref in any of the three
// outlines: `- link "Name" [ref=e5]`, `[cursor=pointer]`-style attribute
// groups between, and browseragent's `[checked, ref=e5]`.
var keptRE = regexp.MustCompile(`\b(link|button|textbox|searchbox|checkbox|radio|combobox|listbox|slider|spinbutton|switch|menuitem|menuitemcheckbox|menuitemradio|tab|treeitem)(?: "(?:[^"\\]|\\.)*")?(?: \[[^\]]*\])*? \[[^\]]*\bref=`)

func kept(s string) int { return len(keptRE.FindAllStringIndex(s, -1)) }

// pickPages takes the first pages of each page type in turn, n in all.
func pickPages(dir string, n int) ([]*page, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		return nil, err
	}
	var meta struct {
		Files map[string]struct {
			PageType string `json:"page_type"`
		} `json:"files"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, err
	}
	byType := map[string][]string{}
	for id, f := range meta.Files {
		byType[f.PageType] = append(byType[f.PageType], id)
	}
	var kinds []string
	for k, ids := range byType {
		sort.Strings(ids)
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var out []*page
	for i := 0; len(out) < n; i++ {
		for _, k := range kinds {
			if len(out) < n && i < len(byType[k]) {
				out = append(out, &page{id: byType[k][i], kind: k, bytes: map[string]int{}, kept: map[string]int{}})
			}
		}
	}
	slices.SortFunc(out, func(a, b *page) int { return strings.Compare(a.id, b.id) })
	return out, nil
}

func readPage(dir, id string) ([]byte, error) {
	f, err := os.Open(filepath.Join(dir, "html", filepath.Base(id)+".html.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}

// registries holds one registry per browser: a native tool runs the one
// way there is, through a registry (no rules, no locator).
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

// playwright runs Playwright MCP over stdio: browser_navigate, then
// browser_snapshot, whose whole text result is what the model reads.
func playwright(ctx context.Context, cli, chrome, base string, pages []*page) error {
	out, err := os.MkdirTemp("", "snapshot-bench-pw")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	cmd := exec.Command("node", cli, "--headless", "--isolated", "--no-sandbox", "--executable-path", chrome, "--output-dir", out)
	cmd.Dir = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	client := mcp.NewClient(&mcp.Implementation{Name: "snapshot-bench", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return err
	}
	defer func() {
		cs.Close()
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	for _, p := range pages {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": base + "/p/" + p.id}})
		if err != nil || res.IsError {
			return fmt.Errorf("browser_navigate %s: %v %s", p.id, err, text(res))
		}
		time.Sleep(300 * time.Millisecond)
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_snapshot", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			return fmt.Errorf("browser_snapshot %s: %v %s", p.id, err, text(res))
		}
		s := text(res)
		p.bytes["playwright"], p.kept["playwright"] = len(s), kept(s)
	}
	return nil
}

func text(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// agentBrowser drives agent-browser's CLI in a session of its own: open,
// then snapshot and snapshot -i, whose stdout is what the model reads.
func agentBrowser(bin, chrome, base string, pages []*page) error {
	home, err := os.MkdirTemp("", "snapshot-bench-ab")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	ab := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"--session", "bench"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "AGENT_BROWSER_HOME="+home)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		return out.String(), nil
	}
	defer endDaemons(home)
	defer ab("close", "--all")
	for i, p := range pages {
		args := []string{"open", base + "/p/" + p.id}
		if i == 0 {
			args = append(args, "--executable-path", chrome, "--args", "--no-sandbox")
		}
		if _, err := ab(args...); err != nil {
			return err
		}
		time.Sleep(300 * time.Millisecond)
		for name, args := range map[string][]string{"agent-browser": {"snapshot"}, "agent-browser -i": {"snapshot", "-i"}} {
			s, err := ab(args...)
			if err != nil {
				return err
			}
			p.bytes[name], p.kept[name] = len(s), kept(s)
		}
	}
	return nil
}

// endDaemons stops agent-browser's daemon of this run (close leaves it
// running, idle), found by the HOME it was given; its Chromium ends with
// it.
func endDaemons(home string) {
	for _, pid := range testutil.ProcessesWithEnv("HOME=" + home) {
		syscall.Kill(pid, syscall.SIGTERM)
	}
}

func report(pages []*page) {
	fmt.Printf("%-5s %-13s %5s", "page", "type", "DOM")
	for _, t := range toolNames {
		fmt.Printf(" | %18s", t+" B/kept")
	}
	fmt.Println()
	total := &page{bytes: map[string]int{}, kept: map[string]int{}}
	for _, p := range pages {
		fmt.Printf("%-5s %-13s %5d", p.id, p.kind, p.dom)
		total.dom += p.dom
		for _, t := range toolNames {
			fmt.Printf(" | %11d %6d", p.bytes[t], p.kept[t])
			total.bytes[t] += p.bytes[t]
			total.kept[t] += p.kept[t]
		}
		fmt.Println()
	}
	fmt.Printf("%-19s %5d", "total", total.dom)
	for _, t := range toolNames {
		fmt.Printf(" | %11d %6d", total.bytes[t], total.kept[t])
	}
	fmt.Println()
}
