package browser

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/internal/testutil"
)

func TestToolSchemas(t *testing.T) {
	testutil.Parallel(t)
	b := New(nil)
	seen := map[string]bool{}
	for _, tool := range b.listTools() {
		if seen[tool.Name] {
			t.Errorf("duplicate tool %s", tool.Name)
		}
		seen[tool.Name] = true
		if tool.run == nil {
			t.Errorf("%s has no handler", tool.Name)
		}
		if !tool.Entry.Known() || tool.Entry.Name != tool.Name {
			t.Errorf("%s carries entry %+v", tool.Name, tool.Entry)
		}
		if tool.Parameters["type"] != "object" {
			t.Errorf("%s: parameters are not an object schema", tool.Name)
		}
		props, _ := tool.Parameters["properties"].(map[string]any)
		req, _ := tool.Parameters["required"].([]string)
		for _, r := range req {
			if _, ok := props[r]; !ok {
				t.Errorf("%s requires %q, which is not a property", tool.Name, r)
			}
		}
		if _, err := json.Marshal(tool.Parameters); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
		if len(tool.Description) > 200 {
			t.Errorf("%s: description of %d characters is not tight", tool.Name, len(tool.Description))
		}
	}
	if len(seen) != len(byName) {
		t.Errorf("%d tools described, %d registered", len(seen), len(byName))
	}
}

func TestTabForWithoutBrowser(t *testing.T) {
	testutil.Parallel(t)
	b := New(nil)
	tests := []struct {
		name, tab, want string
	}{
		{"browser_open", "", ""},
		{"browser_tabs", "", ""},
		{"browser_select_tab", "t3", "t3"},
		{"browser_close", "t2", "t2"},
		{"browser_click", "", ""}, // no browser yet, so no current tab
	}
	for _, tt := range tests {
		if got := b.TabFor(tt.name, tt.tab); got != tt.want {
			t.Errorf("TabFor(%s, %q) = %q, want %q", tt.name, tt.tab, got, tt.want)
		}
	}
	if b.Running() {
		t.Errorf("TabFor started a browser")
	}
}

func TestParseKey(t *testing.T) {
	testutil.Parallel(t)
	tests := []struct {
		in    string
		key   string
		mods  int
		isErr bool
	}{
		{"Enter", "\r", 0, false},
		{"escape", "\u001b", 0, false},
		{"Control+a", "a", 1, false},
		{"Control+Shift+ArrowDown", "\u0301", 2, false},
		{"Control++", "+", 1, false},
		{"x", "x", 0, false},
		{"Hyper+x", "", 0, true},
		{"F13", "", 0, true},
	}
	for _, tt := range tests {
		key, mods, err := parseKey(tt.in)
		if (err != nil) != tt.isErr || key != tt.key || len(mods) != tt.mods {
			t.Errorf("parseKey(%q) = %q, %d mods, %v", tt.in, key, len(mods), err)
		}
	}
}

func TestSnapshotFormat(t *testing.T) {
	testutil.Parallel(t)
	s := &Snapshot{Title: "T", URL: "http://x/", Lines: []string{"- a", "- b", "- c", "- d"}}
	tests := []struct {
		name        string
		from, limit int
		want        string
	}{
		{"all", 0, 1000, "Page: T\nURL: http://x/\n- a\n- b\n- c\n- d\n"},
		{"cut", 0, 29, "Page: T\nURL: http://x/\n- a\n[3 more lines (0 more refs): call browser_snapshot with from_line=2 for them, or with interactive=true or selector for less; browser_extract gives the text]\n"},
		{"from", 3, 1000, "Page: T\nURL: http://x/\n- c\n- d\n"},
		{"past end", 9, 1000, "Page: T\nURL: http://x/\n(from_line 9 is past the end: the snapshot has 4 lines)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, s.format(tt.from, tt.limit)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	empty := (&Snapshot{Title: "E"}).format(0, 100)
	if !strings.Contains(empty, "still be loading") {
		t.Errorf("empty page: %q", empty)
	}
}

func TestRedactHeaders(t *testing.T) {
	testutil.Parallel(t)
	for _, tc := range []struct{ in, want string }{
		{"### Request Headers\n- cookie: session=abc; other=1\n- accept: */*", "### Request Headers\n- cookie: <redacted>\n- accept: */*"},
		{"Set-Cookie: id=42; HttpOnly\r\nAuthorization: Bearer xyz\r\n", "Set-Cookie: <redacted>\r\nAuthorization: <redacted>\r\n"},
		{"  Proxy-Authorization:Basic dXNlcg==", "  Proxy-Authorization:<redacted>"},
		{`{"Cookie":"a=\"b\"","x":"cookie: a header in a string","authorization": "t"}`, `{"Cookie":"<redacted>","x":"cookie: <redacted>","authorization": "<redacted>"}`},
		{"The cookie: a recipe\nno header here", "The cookie: a recipe\nno header here"},
		{"cookies: plural is not a header", "cookies: plural is not a header"},
		{`"Authorization: Bearer t\"k\nSet-Cookie: x=1\nok: 2"`, `"Authorization: <redacted>\nSet-Cookie: <redacted>\nok: 2"`},
	} {
		if diff := cmp.Diff(tc.want, RedactHeaders(tc.in)); diff != "" {
			t.Errorf("RedactHeaders(%q) (-want +got)\n%s", tc.in, diff)
		}
	}
}

// TestSnapshotWords: a cut snapshot tells the model how to read on with the
// tool and the person with the shell's commands; an uncut one has one
// wording.
func TestSnapshotWords(t *testing.T) {
	testutil.Parallel(t)
	s := &Snapshot{Title: "T", URL: "http://x/", Lines: []string{"- a", "- b", "- c", "- d"}}
	tests := []struct {
		name          string
		snap          *Snapshot
		limit         int
		model, person string // the last line of each
	}{
		{"cut", s, 29, "[3 more lines (0 more refs): call browser_snapshot with from_line=2 for them, or with interactive=true or selector for less; browser_extract gives the text]",
			`[3 more lines (0 more refs): /call browser_snapshot {"from_line": 2} shows them, /snapshot -i only the controls, /snapshot CSS one part]`},
		{"empty", &Snapshot{Title: "E"}, 100, "(the page shows no text or controls yet: it may still be loading; try browser_wait)",
			"(the page shows no text or controls yet: it may still be loading; /snapshot again in a moment)"},
		{"whole", s, 1000, "- d", ""},
	}
	last := func(s string) string {
		if s == "" {
			return ""
		}
		l := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return l[len(l)-1]
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.snap.result(0, tt.limit)
			if diff := cmp.Diff([]string{tt.model, tt.person}, []string{last(r.Text), last(r.Display)}); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestAddToolNeedsCatalogueEntry: a native tool nothing in the catalogue
// describes cannot be registered (it used to be judged by a fallback).
func TestAddToolNeedsCatalogueEntry(t *testing.T) {
	testutil.Parallel(t)
	h := func(context.Context, *call, noArgs) (*Result, error) { return &Result{}, nil }
	if _, err := newTool("browser_undescribed", "x", h); err == nil || !strings.Contains(err.Error(), "no catalogue entry") {
		t.Errorf("newTool(browser_undescribed) = %v, want a missing-entry error", err)
	}
	if err := addTool("browser_click", "again", h); err == nil || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("a second browser_click: %v, want an error", err)
	}
	if _, err := newTool("browser_tabs", "x", func(context.Context, *call, string) (*Result, error) { return nil, nil }); err == nil {
		t.Errorf("a tool whose arguments are a string: no error")
	}
}
