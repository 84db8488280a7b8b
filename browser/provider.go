package browser

import (
	"context"

	"github.com/browseragent/browseragent/tools"
)

// Provider is the native tools as the registry's tool provider: the one way
// into them from outside this package. It runs only calls the registry
// judged (tools.ResolvedCall.Judged), on the tab they were judged on, so
// nothing drives a page without the guard having seen the call.
func (b *Browser) Provider() tools.ToolProvider { return provider{b} }

type provider struct{ b *Browser }

func (p provider) Tools() []tools.ToolDef {
	list := p.b.listTools() // with browser_download's default folder
	defs := make([]tools.ToolDef, 0, len(list))
	for _, t := range list {
		ro := t.Entry.Annotations.ReadOnly
		defs = append(defs, tools.ToolDef{Name: t.Name, RawName: t.Name, Description: t.Description,
			Parameters: t.Parameters, Source: tools.SourceBrowser, ReadOnlyHint: &ro, Entry: t.Entry})
	}
	return defs
}

func (p provider) Call(ctx context.Context, c *tools.ResolvedCall) (*tools.ToolResult, error) {
	if err := c.Judged(); err != nil {
		return nil, err
	}
	tab := c.Page.TabID
	if !c.Entry.OnPage {
		tab = ""
	}
	r, err := p.b.runFor(ctx, c, c.Def.Name, tab, c.Raw)
	if err != nil || r == nil {
		return nil, err
	}
	out := &tools.ToolResult{Text: RedactHeaders(r.Text), Path: r.Path, Tab: r.Tab, Images: r.Images, Data: r.Data}
	if r.IsError {
		out.Fail()
	}
	if r.Display != "" {
		out.Display = RedactHeaders(r.Display)
	}
	return out, nil
}
