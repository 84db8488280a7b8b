package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// mcpTools offers every ready MCP server's tools.
type mcpTools struct {
	m     *mcpclient.Manager
	pages *mcpPages
}

func (t mcpTools) Tools() []tools.ToolDef {
	toolList := t.m.Tools()
	defs := make([]tools.ToolDef, 0, len(toolList))
	for _, mt := range toolList {
		e := catalog.Describe(mt.Server, mt.RawName, catalog.Hints{ReadOnly: mt.ReadOnlyHint,
			Destructive: mt.DestructiveHint}, mt.InputSchema)
		defs = append(defs, tools.ToolDef{Name: mt.Name, RawName: mt.RawName, Server: mt.Server,
			Description: mt.Description, Parameters: mt.InputSchema, Source: tools.SourceMCP,
			ReadOnlyHint: mt.ReadOnlyHint, DestructiveHint: mt.DestructiveHint, Timeout: mt.CallTimeout, Entry: e})
	}
	return defs
}

func (t mcpTools) Call(ctx context.Context, c *tools.ResolvedCall) (*tools.ToolResult, error) {
	if err := c.Judged(); err != nil {
		return nil, err
	}
	judged := func() []string { return nil }
	if catalog.IsBrowserServer(c.Def.Server) && c.Entry.Input && c.Page.TabID != "" && !strings.HasPrefix(c.Page.TabID, "mcp:") {
		// In the person's Chrome its input's document requests are judged
		// as a native input's are (browser.JudgeInputRequests).
		judged = t.pages.b.JudgeInputRequests(ctx, c.Page.TabID, c)
	}
	r, err := t.m.CallTool(ctx, c.Def.Name, c.Raw)
	refused := judged()
	if ce := (*mcpclient.CallError)(nil); errors.As(err, &ce) {
		// Named as the registry names its own errors, by the tool's one
		// name, said once: not also as "mcp server/tool".
		return nil, fmt.Errorf("%s: %w", c.Def.Name, ce.Err)
	}
	if err != nil || r == nil {
		return nil, err
	}
	out := &tools.ToolResult{Text: r.Text, Images: r.Images}
	if r.IsError {
		out.Fail()
	}
	if len(refused) > 0 {
		out.Text = strings.Join(refused, "\n") + "\n" + out.Text
		out.Fail()
	}
	if catalog.IsBrowserServer(c.Def.Server) {
		// Belt and braces to --redactNetworkHeaders: no browser result
		// carries the person's cookies or tokens.
		out.Text = browser.RedactHeaders(out.Text)
	}
	if c.Entry.Kind == catalog.DevTools && c.Entry.Effect == catalog.Open && !r.IsError {
		t.pages.ownSelected(ctx, c.Def.Server)
	}
	return out, nil
}

// locator finds the page a call acts on: the browser's current or named tab
// for native tools, the pageId's page for chrome-devtools-mcp tools; and
// whether the call types into a secret field there.
type locator struct{ s *Session }

func (l locator) Locate(ctx context.Context, c *tools.ResolvedCall) (tools.Page, error) {
	page, err := l.page(ctx, c)
	if err != nil || page.TabID == "" {
		return page, err
	}
	page.Secret = l.secret(ctx, c, page)
	if !strings.HasPrefix(page.TabID, "mcp:") {
		page.Addr = l.s.Browser.DocumentAddr(page.TabID)
	}
	page.Frames = l.framesOf(ctx, c, page)
	l.link(ctx, c, page)
	return page, nil
}

// link reads where a call naming an element goes when that is the
// element's link (catalog.Entry.Link: browser_download of a ref), as the
// call's URL, asked again at every locate: the guard judges that address
// and the person's question names it.
func (l locator) link(ctx context.Context, c *tools.ResolvedCall, page tools.Page) {
	e := c.Entry
	ref, _ := c.Args[e.Element].(string)
	if !e.Link || ref == "" || c.Def.Source != tools.SourceBrowser || strings.HasPrefix(page.TabID, "mcp:") {
		return
	}
	if u, _ := c.Args[e.URL].(string); u != "" {
		return // the call names its address
	}
	href, err := l.s.Browser.LinkTarget(ctx, page.TabID, ref)
	if err != nil {
		href = "" // a stale ref: the tool says so
	}
	c.URL = href
}

// secret asks the live page whether the call types into a secret field.
// When the page cannot answer (a stale ref, a hung page, an MCP page that
// is not one of our browser's tabs) the answer is yes: redacting a
// harmless value costs little, logging a password cannot be undone. Pages
// that are not web pages (chrome://, extensions, file:) are not asked at
// all, since the guard may be about to refuse the call there.
func (l locator) secret(ctx context.Context, c *tools.ResolvedCall, page tools.Page) bool {
	how := c.Entry.Typing
	if how == catalog.NoTyping {
		return false
	}
	b, tab := l.s.Browser, page.TabID
	web := strings.HasPrefix(page.URL, "http://") || strings.HasPrefix(page.URL, "https://")
	if b == nil || strings.HasPrefix(tab, "mcp:") || !web {
		return true
	}
	var ok bool
	var err error
	switch how {
	case catalog.ByRef:
		ref, _ := c.Args[c.Entry.Element].(string)
		ok, err = b.SecretField(ctx, tab, ref)
	case catalog.ByFocus:
		ok, err = b.SecretField(ctx, tab, "")
	default:
		ok, err = b.PageHasSecretField(ctx, tab)
	}
	return ok || err != nil
}

func (l locator) page(ctx context.Context, c *tools.ResolvedCall) (tools.Page, error) {
	switch {
	case !c.Entry.OnPage:
		return tools.Page{}, nil
	case c.Def.Source == tools.SourceBrowser:
		id, alias := c.Page.TabID, c.Page.Alias
		if id == "" {
			named, _ := c.Args[c.Entry.Tab].(string)
			alias = l.s.Browser.TabFor(c.Def.Name, named)
			id = l.s.Browser.TargetOf(alias)
		}
		if id == "" || !l.s.Browser.Running() {
			return tools.Page{}, nil
		}
		u, err := l.s.Browser.CurrentURL(ctx, id)
		if err != nil {
			return tools.Page{}, err
		}
		return tools.Page{TabID: id, Alias: alias, URL: u, Owned: l.s.Browser.Owned(id)}, nil
	case c.Def.Source == tools.SourceMCP && l.s.pages != nil && catalog.IsBrowserServer(c.Def.Server) && c.Entry.Tab != "":
		page, id, err := l.s.pages.locate(ctx, c.Def.Server, c.Args[c.Entry.Tab])
		if err != nil || page.TabID == "" {
			return page, err
		}
		if _, named := c.Args[c.Entry.Tab]; !named {
			// Name the page that was judged, so the server acts on it even
			// if another one is selected meanwhile.
			c.Args[c.Entry.Tab] = id
			if err := c.Encode(); err != nil {
				return tools.Page{}, err
			}
		}
		return page, nil
	}
	return tools.Page{}, nil
}

// mcpPages maps chrome-devtools-mcp pageIds to live URLs (by asking the
// server's list_pages at the moment of the call) and remembers which pages
// the agent opened with new_page.
type mcpPages struct {
	mgr   *mcpclient.Manager
	b     *browser.Browser
	mu    sync.Mutex
	owned map[string]bool // "server/pageId"
}

func (p *mcpPages) list(ctx context.Context, server string) ([]browser.MCPPage, error) {
	r, err := p.mgr.CallServerTool(ctx, server, "list_pages", json.RawMessage(`{}`))
	if err != nil {
		return nil, fmt.Errorf("list pages: %w", err)
	}
	if r.IsError {
		return nil, fmt.Errorf("list pages: %s", r.Text)
	}
	return browser.ParseListPages(r.Text), nil
}

// locate finds the page pageID names (a JSON number), or the selected one
// when it is nil, and returns it with its id.
func (p *mcpPages) locate(ctx context.Context, server string, pageID any) (tools.Page, int, error) {
	pages, err := p.list(ctx, server)
	if err != nil {
		return tools.Page{}, 0, err
	}
	want, hasID := pageID.(float64)
	if pageID != nil && !hasID {
		return tools.Page{}, 0, fmt.Errorf("pageId must be a number (call list_pages)")
	}
	for _, pg := range pages {
		if (hasID && pg.ID == int(want)) || (!hasID && pg.Selected) {
			page, err := p.page(ctx, server, pg, pages)
			return page, pg.ID, err
		}
	}
	if hasID {
		return tools.Page{}, 0, fmt.Errorf("no page with pageId %d (call list_pages)", int(want))
	}
	return tools.Page{}, 0, nil
}

// page describes an MCP page as one of our browser's tabs when it is one,
// so native and MCP tools share one idea of which tabs the agent owns and
// the URL comes from our own browser; otherwise by its MCP id.
func (p *mcpPages) page(ctx context.Context, server string, pg browser.MCPPage, all []browser.MCPPage) (tools.Page, error) {
	tab, err := p.tabOf(ctx, server, pg, all)
	if err != nil {
		return tools.Page{}, err
	}
	if tab != "" {
		u, err := p.b.CurrentURL(ctx, tab)
		if err != nil {
			return tools.Page{}, err
		}
		owned := p.b.Owned(tab)
		if !owned {
			// Whatever the server does there, a script cannot close the
			// person's tab (window.close is taken away in it).
			if err := p.b.HoldOpen(ctx, tab); err != nil {
				return tools.Page{}, err
			}
		}
		return tools.Page{TabID: p.b.TargetOf(tab), URL: u, Owned: owned}, nil
	}
	key := fmt.Sprintf("%s/%d", server, pg.ID)
	p.mu.Lock()
	owned := p.owned[key]
	p.mu.Unlock()
	return tools.Page{TabID: "mcp:" + key, URL: pg.URL, Owned: owned}, nil
}

// tabOf finds which of our tabs MCP page pg is, by identity: the server's
// get_tab_id names the page's CDP tab target and the browser says which
// of its tabs that is. "" means none of ours (the server drives another
// browser). A server without get_tab_id (configured by hand) is matched by
// URL only when that is unambiguous; two tabs on one URL refuse the call
// rather than guess, since list order is no identity: after /connect
// restarted the server, a guess once closed the person's tab.
func (p *mcpPages) tabOf(ctx context.Context, server string, pg browser.MCPPage, all []browser.MCPPage) (string, error) {
	args, _ := json.Marshal(map[string]int{"pageId": pg.ID})
	r, err := p.mgr.CallServerTool(ctx, server, browser.TabIDTool, args)
	if err != nil && ctx.Err() != nil {
		return "", err
	}
	if err == nil && !r.IsError {
		if id := browser.ParseTabID(r.Text); id != "" {
			return p.b.TabOfTabTarget(ctx, id)
		}
	}
	for i := range all {
		if all[i].ID != pg.ID {
			continue
		}
		tab, n := p.b.MatchMCPPageByURL(all, i)
		if n > 1 {
			return "", fmt.Errorf("cannot tell which of %d tabs showing %s is pageId %d: this chrome-devtools-mcp does not name its tabs (%s), and browseragent refuses rather than guess; navigate one of them elsewhere, or start the server with --experimentalInteropTools", n, pg.URL, pg.ID, browser.TabIDTool)
		}
		return tab, nil
	}
	return "", nil
}

// ownSelected records the page new_page just opened (it becomes selected)
// as the agent's, in the browser's tab list too.
func (p *mcpPages) ownSelected(ctx context.Context, server string) {
	pages, err := p.list(ctx, server)
	if err != nil {
		return
	}
	for _, pg := range pages {
		if !pg.Selected && !pg.Opened {
			continue
		}
		if tab, err := p.tabOf(ctx, server, pg, pages); err == nil && tab != "" && p.b.MarkOwned(tab) {
			continue
		}
		p.mu.Lock()
		p.owned[fmt.Sprintf("%s/%d", server, pg.ID)] = true
		p.mu.Unlock()
	}
}

// closeOwned closes, through the server, the pages the agent opened that
// our browser never matched to a tab, and says how many it closed.
func (p *mcpPages) closeOwned(ctx context.Context) int {
	p.mu.Lock()
	keys := slices.Sorted(maps.Keys(p.owned))
	p.mu.Unlock()
	n := 0
	for _, key := range keys {
		server, id, _ := strings.Cut(key, "/")
		r, err := p.mgr.CallServerTool(ctx, server, "close_page", json.RawMessage(`{"pageId":`+id+`}`))
		if err == nil && !r.IsError {
			n++
		}
	}
	p.reset()
	return n
}

func (p *mcpPages) reset() {
	p.mu.Lock()
	p.owned = map[string]bool{}
	p.mu.Unlock()
}
