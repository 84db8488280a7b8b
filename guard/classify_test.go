package guard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEffect(t *testing.T) {
	p := NewPolicy(nil, nil)
	cases := []struct {
		tool string
		args map[string]any
		ro   *bool
		want Effect
	}{
		{"web_fetch", map[string]any{"url": "https://a.b"}, nil, Read},
		{"browser_open", nil, nil, Open},
		{"browser_navigate", nil, nil, Navigate},
		{"browser_snapshot", nil, nil, Read},
		{"browser_screenshot", nil, nil, Read},
		{"browser_screenshot", map[string]any{"path": "/tmp/a.png"}, nil, Read}, // no such parameter: it saves where browseragent says
		{"browser_extract", nil, nil, Read},
		{"browser_tabs", nil, nil, Read},
		{"browser_wait", nil, nil, Read},
		{"browser_select_tab", nil, nil, Read},
		{"browser_click", nil, nil, Write},
		{"browser_type", nil, nil, Write},
		{"browser_select", nil, nil, Write},
		{"browser_press", nil, nil, Write},
		{"browser_scroll", nil, nil, Write},
		{"browser_eval", nil, nil, Script},
		{"browser_close", nil, nil, Close},
		{"browser_something_new", nil, nil, Write},
		{"mcp__chrome-devtools__take_snapshot", nil, nil, Read},
		{"mcp__chrome-devtools__take_snapshot", map[string]any{"filePath": "/tmp/s.txt"}, nil, Read}, // its file is judged apart
		{"mcp__chrome-devtools__evaluate_script", nil, nil, Script},
		{"mcp__chrome-devtools__take_screenshot", map[string]any{"filePath": ""}, nil, Read},
		{"mcp__chrome-devtools__get_network_request", map[string]any{"responseFilePath": "/tmp/r"}, nil, Read},
		{"mcp__chrome-devtools__get_heapsnapshot_summary", map[string]any{"filePath": "/tmp/h"}, nil, Read},
		{"mcp__chrome-devtools__navigate_page", map[string]any{"url": "https://a.b"}, nil, Navigate},
		{"mcp__chrome-devtools__navigate_page", map[string]any{"url": "https://a.b", "initScript": "x=1"}, nil, Script},
		{"mcp__chrome-devtools__new_page", map[string]any{"url": "https://a.b"}, nil, Open},
		{"mcp__chrome-devtools__close_page", nil, nil, Close},
		{"mcp__chrome-devtools__handle_dialog", nil, nil, Write},
		{"mcp__chrome-devtools__upload_file", nil, nil, Write},
		{"mcp__chrome-devtools__emulate", nil, nil, Write},
		{"mcp__chrome-devtools__resize_page", nil, nil, Write},
		{"mcp__chrome-devtools__click_at", nil, nil, Write},
		{"mcp__chrome-devtools__select_page", nil, nil, Read},
		{"mcp__chrome-devtools__a_future_tool", nil, ptr(true), Read},
		{"mcp__chrome-devtools__a_future_tool", nil, nil, Write},
		{"mcp__fs__read_file", nil, ptr(true), Read},
		{"mcp__fs__read_file", map[string]any{"path": "/etc/x"}, ptr(true), Read},
		{"mcp__fs__write_file", nil, ptr(false), Write},
		{"mcp__fs__whatever", nil, nil, Write},
		{"mcp__other__click", nil, nil, Write},
		{"mcp__other__list_pages", nil, nil, Write},
	}
	for _, c := range cases {
		server, name := SplitToolName(c.tool)
		got := p.Effect(Call{Tool: c.tool, Server: server, Name: name, Args: c.args, ReadOnlyHint: c.ro})
		if got != c.want {
			t.Errorf("Effect(%s %v ro=%v) = %v, want %v", c.tool, c.args, c.ro, got, c.want)
		}
	}
	destructiveRead := Call{Tool: "mcp__x__y", Server: "x", Name: "y", ReadOnlyHint: ptr(true), DestructiveHint: ptr(true)}
	if p.Effect(destructiveRead) != Write {
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
