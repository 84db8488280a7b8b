package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/tools"
)

// screen checks, after a browser tool ran and before its result goes
// anywhere, where the result's content came from: the tab as it is now
// (the call may have navigated it: a click, a redirect during wait_for),
// every frame in it, and the network requests the result shows. Content
// of a page, frame or request a deny rule names is replaced by one
// sentence saying so; a page list keeps its other lines. The call itself
// was judged before it ran; this judges what it brought back.
func (s *Session) screen(ctx context.Context, def tools.ToolDef, args map[string]any, tabID string, res *tools.ToolResult) {
	if res == nil || s.Browser == nil {
		return
	}
	browserTool := def.Source == tools.SourceBrowser || def.Source == tools.SourceMCP && s.isBrowserServer(def.Server)
	if !browserTool {
		return
	}
	if tabID == "" && def.Source == tools.SourceBrowser {
		tabID = res.Tab // the tab it opened, or the current one it acted on
	}
	var urls, frameAddrs []string
	var addr string
	ours := tabID != "" && !strings.HasPrefix(tabID, "mcp:") && s.Browser.Running()
	if ours {
		if u, err := s.Browser.CurrentURL(ctx, tabID); err == nil {
			urls = append(urls, u)
		}
		addr = s.Browser.DocumentAddr(tabID)
		if showsFrames(def, args) {
			if frames, err := s.Browser.FrameURLs(ctx, tabID); err == nil {
				urls = append(urls, frames...)
			}
			frameAddrs = s.Browser.FrameAddrs(tabID)
		}
	}
	urls = append(urls, browser.ParseRequestURLs(res.Text)...)
	for i, u := range urls {
		d := s.deniedRead(u)
		if i == 0 && d == nil {
			d, u = s.deniedServed(u, addr, frameAddrs)
		}
		if d != nil {
			// The page chose its address (a redirect, replaceState): the
			// model reads it as page text, the person as it is.
			withheld := "browseragent withheld the result of %s: it holds content of %s, which the sensitive-site rule %q denies (%s). Do not try to read it another way; tell the person if the task needs it."
			res.Text = fmt.Sprintf(withheld, def.Name, guard.UntrustedInline(guard.RedactURL(u)), d.Rule, d.Category)
			res.Display = fmt.Sprintf(withheld, def.Name, guard.RedactURL(u), d.Rule, d.Category)
			if def.Name == "browser_open" && res.Tab != "" {
				tab := fmt.Sprintf("\nTab %s stays open on that page: close it with browser_close.", res.Tab)
				res.Text, res.Display = res.Text+tab, res.Display+tab
			}
			removeWritten(def, args, res)
			res.Images, res.Path, res.Data, res.Outcome = nil, "", nil, tools.Withheld
			return
		}
	}
	if tools.EntryOf(def).Foreign&catalog.ForeignNetwork != 0 {
		// Request and response bodies: a sign-in form's password, a token
		// exchange's tokens, long after any field held them.
		res.Text = guard.RedactBody(res.Text)
	}
	if ours && web(urls) && (def.Source == tools.SourceMCP || def.Name == "browser_eval") {
		res.Text = s.maskSecretValues(ctx, tabID, res.Text)
	}
	switch {
	case def.Source == tools.SourceMCP:
		res.Text = s.screenPageList(res.Text)
	case def.Name == "browser_tabs":
		res.Text = s.screenTabList(res.Text)
	}
}

// removeWritten deletes the files a withheld call saved (the screenshot
// it took, res.Path; what its catalogue file parameters wrote): they hold
// the denied page's content as much as the result did. Directories are
// left alone.
func removeWritten(def tools.ToolDef, args map[string]any, res *tools.ToolResult) {
	paths := []string{res.Path}
	for _, f := range guard.FilesOf(tools.EntryOf(def), args, "") {
		if f.Write {
			paths = append(paths, f.Path)
		}
	}
	for _, p := range paths {
		if fi, err := os.Lstat(p); p != "" && err == nil && fi.Mode().IsRegular() {
			_ = os.Remove(p)
		}
	}
}

// web reports whether the tab's current address (the first of urls) is a
// web page, whose fields can be asked.
func web(urls []string) bool {
	return len(urls) > 0 && (strings.HasPrefix(urls[0], "http://") || strings.HasPrefix(urls[0], "https://"))
}

// maskSecretValues hides, in a result of chrome-devtools-mcp or of a
// script, what the tab's secret fields hold now (passwords, card numbers
// and codes, in any frame: browser.SecretValues): chrome-devtools-mcp's
// snapshot shows a card number's or a shown password's value, a request
// body or a console message may carry it. Each value is replaced as
// written, URL-encoded and JSON-escaped. A page that cannot answer leaves
// the text as it is (the call itself was judged).
func (s *Session) maskSecretValues(ctx context.Context, tabID, text string) string {
	if strings.TrimSpace(text) == "" {
		return text
	}
	values, err := s.Browser.SecretValues(ctx, tabID)
	if err != nil {
		return text
	}
	// Longer values first: at each place the first match wins, so a CVC
	// inside a card number does not leave the rest of the number.
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, v := range values {
		if len(strings.TrimSpace(v)) < 3 {
			continue
		}
		forms := []string{v, url.QueryEscape(v), url.PathEscape(v)}
		if b, err := json.Marshal(v); err == nil {
			forms = append(forms, string(b[1:len(b)-1]))
		}
		for _, f := range forms {
			pairs = append(pairs, f, secretMask)
		}
	}
	if len(pairs) == 0 {
		return text
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// secretMask stands for a secret field's value, as Chrome shows a password.
const secretMask = "••••"

var tabListLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(t\d+) \[([^\]]*)\] "(.*)" (\S+)$`)
})

// screenTabList hides the title of a tab in browser_tabs whose page a
// deny rule names.
func (s *Session) screenTabList(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if m := tabListLineRE().FindStringSubmatch(line); m != nil {
			d := s.deniedRead(m[4])
			if addr := s.Browser.DocumentAddr(m[1]); d == nil && addr != "" {
				d = s.deniedAt(m[4], addr) // its title is the content of a page served from there
			}
			if d != nil {
				lines[i] = fmt.Sprintf("%s [%s] (a page the sensitive-site rule %q denies)", m[1], m[2], d.Rule)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// showsFrames reports whether a result can show what the page's frames
// hold, as the catalogue says (ForeignFrames): a screenshot, a script's
// answer, chrome-devtools-mcp's snapshots (its text snapshot covers every
// frame) and console messages. Native snapshots and browser_extract's
// text cover frames too, but leave out a denied frame's content themselves
// (browser.Options.FrameWithheld, frameWithheld), so the rest of the page
// still reads; waits see the top document only, and the other results
// name the top page.
func showsFrames(def tools.ToolDef, args map[string]any) bool {
	e := tools.EntryOf(def)
	return e.Foreign&catalog.ForeignFrames != 0 && e.ForeignResult(args)
}

// deniedServed judges the page u by where its document (addr) and the
// documents of its frames (frames) came from: the page's name is not the
// rule's, but the address may be. It returns the denial and the page as the
// withheld result names it, or nil and u.
func (s *Session) deniedServed(u, addr string, frames []string) (*guard.Decision, string) {
	if addr != "" {
		if d := s.deniedAt(u, addr); d != nil {
			return d, u + " (served from " + addr + ")"
		}
	}
	for _, fa := range frames {
		if d := s.deniedAt(u, fa); d != nil {
			return d, "a frame of " + u + " served from " + fa
		}
	}
	return nil, u
}

// deniedAt returns the guard's decision when reading the page u whose
// document came from addr is denied.
func (s *Session) deniedAt(u, addr string) *guard.Decision {
	d := s.Policy.Peek(guard.Call{Tool: "browser_snapshot", Name: "browser_snapshot", PageURL: u, PageAddr: addr})
	if d.Verdict != guard.Deny {
		return nil
	}
	return &d
}

// deniedRead returns the guard's decision when reading u is denied.
func (s *Session) deniedRead(u string) *guard.Decision {
	if u == "" {
		return nil
	}
	d := s.Policy.Peek(guard.Call{Tool: "browser_snapshot", Name: "browser_snapshot", PageURL: u})
	if d.Verdict != guard.Deny {
		return nil
	}
	return &d
}

var pageListLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d+): `)
})

// screenPageList replaces the lines of chrome-devtools-mcp's page list
// ("N: title (url)") whose page a deny rule names: its title is that
// page's content.
func (s *Session) screenPageList(text string) string {
	if !strings.Contains(text, "## Pages") && !strings.Contains(text, "## Opened pages") {
		return text
	}
	lines := strings.Split(text, "\n")
	section := ""
	for i, line := range lines {
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimSpace(line[3:])
			continue
		}
		if section != "Pages" && section != "Opened pages" {
			continue
		}
		m := pageListLineRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, p := range browser.ParseListPages("## Pages\n" + line) {
			if d := s.deniedRead(p.URL); d != nil {
				lines[i] = fmt.Sprintf("%s: (a page the sensitive-site rule %q denies)", m[1], d.Rule)
			}
		}
	}
	return strings.Join(lines, "\n")
}
