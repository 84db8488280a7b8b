package browser

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// newRegistry is the one path into the native tools, with no rules.
func newRegistry(t *testing.T, b *Browser) *tools.Registry {
	t.Helper()
	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := tools.NewRegistry(guard.NewPolicy(rules, nil), nil)
	r.Add(b.Provider())
	return r
}

// TestWaitAtItsMaximumDidNotAppear: browser_wait at its documented
// maximum (60 s) ends with "did not appear", the answer the model can act
// on. The browser's own 60 s limit on every call used to fire first, so
// the call failed with Go's "context deadline exceeded" instead; the
// registry's limit for the call (its catalogue entry) is now the only one.
func TestWaitAtItsMaximumDidNotAppear(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	b := newTestBrowser(t, nil)
	r := newRegistry(t, b)
	ctx := context.Background()
	call := func(name string, args map[string]any) (*tools.ToolResult, error) {
		raw, _ := json.Marshal(args)
		return r.Call(ctx, name, raw, tools.OriginScript)
	}
	if res, err := call("browser_open", map[string]any{"url": site.URL + "/article.html"}); err != nil || res.IsError() {
		t.Fatalf("open: %v %+v", err, res)
	}
	start := time.Now()
	res, err := call("browser_wait", map[string]any{"text": "words that never come", "timeout": 60})
	if err != nil {
		t.Fatalf("browser_wait at its maximum failed with a Go error after %s: %v", time.Since(start).Round(time.Second), err)
	}
	if diff := cmp.Diff(`text "words that never come" did not appear within 1m0s`, res.Text); diff != "" || !res.IsError() {
		t.Errorf("browser_wait result (error %v) (-want +got):\n%s", res.IsError(), diff)
	}
}

// TestProviderRunsOnlyJudgedCalls: the native tools cannot be driven from
// outside the registry: a call the registry did not judge is not run.
func TestProviderRunsOnlyJudgedCalls(t *testing.T) {
	testutil.Parallel(t)
	b := New(nil)
	p := b.Provider()
	var def tools.ToolDef
	for _, d := range p.Tools() {
		if d.Name == "browser_tabs" {
			def = d
		}
	}
	_, err := p.Call(context.Background(), &tools.ResolvedCall{Def: def, Entry: def.Entry, Raw: json.RawMessage(`{}`)})
	if !errors.Is(err, tools.ErrNotJudged) {
		t.Errorf("an unjudged call: err = %v, want tools.ErrNotJudged", err)
	}
	if b.Running() {
		t.Errorf("an unjudged call started the browser")
	}
}
