package session

import (
	"cmp"
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
// every frame in it, the network requests the result shows and the pages
// a tab list in it names. It takes the call as the registry resolved and
// judged it, gathers those facts from the browser and asks the guard one
// question about all of them (Guard.Screen). Content of a page, frame or
// request a deny rule names is replaced by one sentence saying so; a page
// list keeps its other lines. The call itself was judged before it ran;
// this judges what it brought back.
func (s *Session) screen(ctx context.Context, c *tools.ResolvedCall, res *tools.ToolResult) {
	def := c.Def
	if res == nil || s.Browser == nil {
		return
	}
	browserTool := def.Source == tools.SourceBrowser || def.Source == tools.SourceMCP && s.isBrowserServer(def.Server)
	if !browserTool {
		return
	}
	tabID := c.Page.TabID
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
		if showsFrames(c) {
			if frames, err := s.Browser.FrameURLs(ctx, tabID); err == nil {
				urls = append(urls, frames...)
			}
			frameAddrs = s.Browser.FrameAddrs(tabID)
		}
	}
	urls = append(urls, browser.ParseRequestURLs(res.Text)...)

	// The one question: where the content came from, as the withheld
	// sentence names it, then the lines of a tab or page list.
	var q screening
	for i, u := range urls {
		q.add(u, "", u)
		if i == 0 && addr != "" {
			q.add(u, addr, u+" (served from "+addr+")")
		}
		if i == 0 {
			for _, fa := range frameAddrs {
				q.add(u, fa, "a frame of "+u+" served from "+fa)
			}
		}
	}
	from := len(q.from)
	var lines []string
	switch {
	case def.Source == tools.SourceMCP:
		lines = s.pageListLines(res.Text, &q)
	case def.Name == "browser_tabs":
		lines = s.tabListLines(res.Text, &q)
	}
	answers := c.ScreenResult(q.from) // what a snapshot in the result asked is not asked again

	for i, d := range answers[:from] {
		if d == nil {
			continue
		}
		// The page chose its address (a redirect, replaceState): the
		// model reads it as page text, the person as it is.
		u := q.names[i]
		withheld := "browseragent withheld the result of %s: it holds content of %s, which the sensitive-site rule %q denies (%s). Do not try to read it another way; tell the person if the task needs it."
		why := stoppedLines(cmp.Or(res.Display, res.Text))
		res.Text = fmt.Sprintf(withheld, def.Name, guard.UntrustedInline(guard.RedactURL(u)), d.Rule, d.Category)
		res.Display = fmt.Sprintf(withheld, def.Name, guard.RedactURL(u), d.Rule, d.Category)
		if why != "" {
			// The input's request there was stopped before it was sent:
			// the tab shows the browser's error page at that address, it
			// holds nothing of it. The refusal says what happened.
			res.Text, res.Display = why, why
		}
		if c.Entry.Effect == catalog.Open && res.Tab != "" {
			tab := fmt.Sprintf("\nTab %s stays open on that page: close it with browser_close.", res.Tab)
			res.Text, res.Display = res.Text+tab, res.Display+tab
		}
		removeWritten(c, res)
		res.Images, res.Path, res.Data, res.Outcome = nil, "", nil, tools.Withheld
		return
	}
	if c.Entry.Foreign&catalog.ForeignNetwork != 0 {
		// Request and response bodies: a sign-in form's password, a token
		// exchange's tokens, long after any field held them.
		res.Text = guard.RedactBody(res.Text)
	}
	if ours && web(urls) && (def.Source == tools.SourceMCP || c.Entry.Effect == catalog.Script) {
		res.Text = s.maskSecretValues(ctx, tabID, res.Text)
	}
	if lines != nil {
		res.Text = q.replaceLines(lines, answers)
	}
}

// screening is a result screen's question being built: what the result
// holds (guard.Frame: a URL and the address its document came from), how
// the withheld sentence names each, and for the lines of a list in the
// result, which line each is about and how that line reads when denied.
type screening struct {
	from  []guard.Frame
	names []string
	line  map[int]int                 // index in from → line of the list
	deny  map[int]func(string) string // index in from → the line's denied form, given the rule
}

func (q *screening) add(u, addr, name string) int {
	q.from = append(q.from, guard.Frame{URL: u, Addr: addr})
	q.names = append(q.names, name)
	return len(q.from) - 1
}

// addLine asks about u (from addr) for line i of a list: denied, the line
// reads as denied(rule).
func (q *screening) addLine(i int, u, addr string, denied func(rule string) string) {
	if q.line == nil {
		q.line, q.deny = map[int]int{}, map[int]func(string) string{}
	}
	k := q.add(u, addr, u)
	q.line[k], q.deny[k] = i, denied
}

// replaceLines returns lines joined, each line a deny answer names
// replaced by its denied form (the first answer about a line wins).
func (q *screening) replaceLines(lines []string, answers []*guard.Decision) string {
	done := map[int]bool{}
	for k, d := range answers {
		i, ok := q.line[k]
		if d == nil || !ok || done[i] {
			continue
		}
		lines[i], done[i] = q.deny[k](d.Rule), true
	}
	return strings.Join(lines, "\n")
}

// removeWritten deletes the files a withheld call saved (the screenshot
// it took, res.Path; what its catalogue file parameters wrote): they hold
// the denied page's content as much as the result did. Directories are
// left alone.
func removeWritten(c *tools.ResolvedCall, res *tools.ToolResult) {
	paths := []string{res.Path}
	for _, f := range c.Files {
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

// tabListLines splits browser_tabs' text into lines and asks q about the
// page of each tab it lists, by its URL and by where its document came
// from: a tab whose page a deny rule names keeps its id and state, not its
// title.
func (s *Session) tabListLines(text string, q *screening) []string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		m := tabListLineRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		denied := func(rule string) string {
			return fmt.Sprintf("%s [%s] (a page the sensitive-site rule %q denies)", m[1], m[2], rule)
		}
		q.addLine(i, m[4], "", denied)
		if addr := s.Browser.DocumentAddr(m[1]); addr != "" {
			q.addLine(i, m[4], addr, denied) // its title is the content of a page served from there
		}
	}
	return lines
}

// showsFrames reports whether a result can show what the page's frames
// hold, as the catalogue says (ForeignFrames): a screenshot, a script's
// answer, chrome-devtools-mcp's snapshots (its text snapshot covers every
// frame) and console messages. Native snapshots and browser_extract's
// text cover frames too, but leave out a denied frame's content themselves
// (browser.Options.FrameWithheld, framesWithheld), so the rest of the page
// still reads; waits see the top document only, and the other results
// name the top page.
func showsFrames(c *tools.ResolvedCall) bool {
	return c.Entry.Foreign&catalog.ForeignFrames != 0 && c.Entry.ForeignResult(c.Args)
}

var pageListLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d+): `)
})

// pageListLines splits an MCP result into lines and asks q about each
// line of chrome-devtools-mcp's page list ("N: title (url)"): a line whose
// page a deny rule names loses its title, which is that page's content.
// It returns nil for a text with no page list.
func (s *Session) pageListLines(text string, q *screening) []string {
	if !strings.Contains(text, "## Pages") && !strings.Contains(text, "## Opened pages") {
		return nil
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
			q.addLine(i, p.URL, "", func(rule string) string {
				return fmt.Sprintf("%s: (a page the sensitive-site rule %q denies)", m[1], rule)
			})
		}
	}
	return lines
}

// stoppedLines are the lines of a result that say a request of the call
// was stopped before it was sent (Session.downloadRefused), "" when none.
func stoppedLines(text string) string {
	var why []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, stoppedBeforeSent) {
			why = append(why, l)
		}
	}
	return strings.Join(why, "\n")
}
