package guard

import (
	"github.com/browseragent/browseragent/catalog"

	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEffect(t *testing.T) {
	p := NewPolicy(nil, nil)
	cases := []struct {
		tool string
		args map[string]any
		ro   *bool
		want catalog.Effect
	}{
		{"web_fetch", map[string]any{"url": "https://a.b"}, nil, catalog.Read},
		{"browser_open", nil, nil, catalog.Open},
		{"browser_navigate", nil, nil, catalog.Navigate},
		{"browser_snapshot", nil, nil, catalog.Read},
		{"browser_screenshot", nil, nil, catalog.Read},
		{"browser_screenshot", map[string]any{"path": "/tmp/a.png"}, nil, catalog.Read}, // no such parameter: it saves where browseragent says
		{"browser_extract", nil, nil, catalog.Read},
		{"browser_tabs", nil, nil, catalog.Read},
		{"browser_wait", nil, nil, catalog.Read},
		{"browser_select_tab", nil, nil, catalog.Read},
		{"browser_click", nil, nil, catalog.Write},
		{"browser_type", nil, nil, catalog.Write},
		{"browser_select", nil, nil, catalog.Write},
		{"browser_press", nil, nil, catalog.Write},
		{"browser_scroll", nil, nil, catalog.Write},
		{"browser_eval", nil, nil, catalog.Script},
		{"browser_close", nil, nil, catalog.Close},
		{"browser_something_new", nil, nil, catalog.Write},
		{"mcp__chrome-devtools__take_snapshot", nil, nil, catalog.Read},
		{"mcp__chrome-devtools__take_snapshot", map[string]any{"filePath": "/tmp/s.txt"}, nil, catalog.Read}, // its file is judged apart
		{"mcp__chrome-devtools__evaluate_script", nil, nil, catalog.Script},
		{"mcp__chrome-devtools__take_screenshot", map[string]any{"filePath": ""}, nil, catalog.Read},
		{"mcp__chrome-devtools__get_network_request", map[string]any{"responseFilePath": "/tmp/r"}, nil, catalog.Read},
		{"mcp__chrome-devtools__get_heapsnapshot_summary", map[string]any{"filePath": "/tmp/h"}, nil, catalog.Read},
		{"mcp__chrome-devtools__navigate_page", map[string]any{"url": "https://a.b"}, nil, catalog.Navigate},
		{"mcp__chrome-devtools__navigate_page", map[string]any{"url": "https://a.b", "initScript": "x=1"}, nil, catalog.Script},
		{"mcp__chrome-devtools__new_page", map[string]any{"url": "https://a.b"}, nil, catalog.Open},
		{"mcp__chrome-devtools__close_page", nil, nil, catalog.Close},
		{"mcp__chrome-devtools__handle_dialog", nil, nil, catalog.Write},
		{"mcp__chrome-devtools__upload_file", nil, nil, catalog.Write},
		{"mcp__chrome-devtools__emulate", nil, nil, catalog.Write},
		{"mcp__chrome-devtools__resize_page", nil, nil, catalog.Write},
		{"mcp__chrome-devtools__click_at", nil, nil, catalog.Write},
		{"mcp__chrome-devtools__select_page", nil, nil, catalog.Read},
		{"mcp__chrome-devtools__a_future_tool", nil, ptr(true), catalog.Read},
		{"mcp__chrome-devtools__a_future_tool", nil, nil, catalog.Write},
		{"mcp__fs__read_file", nil, ptr(true), catalog.Read},
		{"mcp__fs__read_file", map[string]any{"path": "/etc/x"}, ptr(true), catalog.Read},
		{"mcp__fs__write_file", nil, ptr(false), catalog.Write},
		{"mcp__fs__whatever", nil, nil, catalog.Write},
		{"mcp__other__click", nil, nil, catalog.Write},
		{"mcp__other__list_pages", nil, nil, catalog.Write},
	}
	for _, c := range cases {
		server, name := SplitToolName(c.tool)
		got := p.effect(Call{Tool: c.tool, Server: server, Name: name, Args: c.args, ReadOnlyHint: c.ro})
		if got != c.want {
			t.Errorf("Effect(%s %v ro=%v) = %v, want %v", c.tool, c.args, c.ro, got, c.want)
		}
	}
	destructiveRead := Call{Tool: "mcp__x__y", Server: "x", Name: "y", ReadOnlyHint: ptr(true), DestructiveHint: ptr(true)}
	if p.effect(destructiveRead) != catalog.Write {
		t.Errorf("a tool marked both read-only and destructive must count as a write")
	}
}

func TestSplitToolName(t *testing.T) {
	type pair struct{ S, T string }
	got := []pair{}
	for _, n := range []string{"mcp__chrome-devtools__click", "browser_click", "mcp__bad", "mcp__a__b__c"} {
		s, tl := SplitToolName(n)
		got = append(got, pair{s, tl})
	}
	want := []pair{{"chrome-devtools", "click"}, {"", "browser_click"}, {"", "mcp__bad"}, {"a", "b__c"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
