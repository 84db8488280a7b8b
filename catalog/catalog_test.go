package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// capture is chrome-devtools-mcp 1.11.0's tools/list, as mcpclient captured
// it from the running server.
func capture(t *testing.T) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile("../mcpclient/testdata/chrome-devtools-mcp-1.11.0.tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tl := range list.Tools {
		props, _ := tl.InputSchema["properties"].(map[string]any)
		out[tl.Name] = props
	}
	return out
}

// TestDevToolsEntriesMatchServer: every tool the real server lists has an
// entry, and every parameter an entry names is one of that tool's.
func TestDevToolsEntriesMatchServer(t *testing.T) {
	tools := capture(t)
	if len(tools) < 30 {
		t.Fatalf("capture holds %d tools", len(tools))
	}
	for name, props := range tools {
		e, ok := devToolsTool(name)
		if !ok {
			t.Errorf("chrome-devtools-mcp tool %q has no entry", name)
			continue
		}
		for _, p := range e.params() {
			if _, ok := props[p]; !ok {
				t.Errorf("%s: entry names parameter %q, which the tool does not have", name, p)
			}
		}
		for p, schema := range props {
			desc, _ := schema.(map[string]any)["description"].(string)
			if looksLikeFile(p, desc) {
				if _, ok := e.fileParam(p); !ok {
					t.Errorf("%s: parameter %q (%q) names a file but the entry does not say so", name, p, desc)
				}
			}
		}
	}
}

// looksLikeFile: a path on this machine, as the server's own descriptions
// put it. pageId and uid are not.
func looksLikeFile(p, _ string) bool {
	return regexp.MustCompile(`(?i)(path|dir)`).MatchString(p)
}

func (e Entry) params() []string {
	var ps []string
	add := func(p string) {
		if p != "" {
			ps = append(ps, p)
		}
	}
	add(e.Tab)
	add(e.URL)
	add(e.HistoryParam)
	add(e.Element)
	add(e.ForeignParam)
	for _, f := range e.Files {
		add(f.Param)
	}
	ps = append(ps, e.Script...)
	ps = append(ps, e.Types...)
	return ps
}

// TestDevToolsEntriesCoverPackage reads the tool names out of the
// chrome-devtools-mcp 1.11.0 package in the npx cache (also the tools behind
// flags, which the capture lacks): each has an entry, and no entry names a
// tool the package does not have.
func TestDevToolsEntriesCoverPackage(t *testing.T) {
	home, _ := os.UserHomeDir()
	dirs, _ := filepath.Glob(filepath.Join(home, ".npm", "_npx", "*", "node_modules", "chrome-devtools-mcp"))
	if d := os.Getenv("CHROME_DEVTOOLS_MCP_DIR"); d != "" {
		dirs = []string{d}
	}
	var dir string
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "package.json"))
		var pkg struct{ Version string }
		if err == nil && json.Unmarshal(b, &pkg) == nil && pkg.Version == "1.11.0" {
			dir = d
		}
	}
	if dir == "" {
		if os.Getenv("BROWSERAGENT_REQUIRE_BROWSER") != "" {
			t.Fatal("chrome-devtools-mcp 1.11.0 is not in the npx cache")
		}
		t.Skip("chrome-devtools-mcp 1.11.0 is not in the npx cache (npx -y chrome-devtools-mcp@1.11.0 --help puts it there)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "build", "src", "tools", "*.js"))
	slim, _ := filepath.Glob(filepath.Join(dir, "build", "src", "tools", "slim", "*.js"))
	nameRE := regexp.MustCompile(`(?m)^\s+name: '([a-z0-9_]+)',|^const [A-Z0-9_]+_TOOL_NAME = '([a-z0-9_]+)';`)
	found := map[string]bool{}
	for _, f := range append(files, slim...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range nameRE.FindAllStringSubmatch(string(b), -1) {
			found[m[1]+m[2]] = true
		}
	}
	var missing, extra []string
	for n := range found {
		if _, ok := devToolsTool(n); !ok {
			missing = append(missing, n)
		}
	}
	for _, e := range devtools {
		if !found[e.Name] {
			extra = append(extra, e.Name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("tools without an entry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), extra); diff != "" {
		t.Errorf("entries for tools the package does not have (-want +got):\n%s", diff)
	}
}

func TestDerive(t *testing.T) {
	yes, no := true, false
	schema := func(props map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": props}
	}
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	tests := []struct {
		name   string
		server string
		hints  Hints
		schema map[string]any
		want   Entry
	}{
		{"no annotations: a write", "fs", Hints{}, schema(map[string]any{"q": str("query")}),
			Entry{Name: "t", Kind: MCP, Effect: Write, Timeout: DefaultTimeout, Annotations: Annotations{Destructive: true, OpenWorld: true}}},
		{"read-only with a path: reads it", "fs", Hints{ReadOnly: &yes, Destructive: &no},
			schema(map[string]any{"path": str("file to read")}),
			Entry{Name: "t", Kind: MCP, Effect: Read, Files: []File{{Param: "path"}}, Timeout: DefaultTimeout, Annotations: Annotations{ReadOnly: true, OpenWorld: true}}},
		{"read-only but says it saves: writes", "x", Hints{ReadOnly: &yes, Destructive: &no},
			schema(map[string]any{"out": str("Where to save the report file")}),
			Entry{Name: "t", Kind: MCP, Effect: Read, Files: []File{{Param: "out", Write: true}}, Timeout: DefaultTimeout, Annotations: Annotations{ReadOnly: true, OpenWorld: true}}},
		{"a write: its directory is written", "x", Hints{ReadOnly: &no},
			schema(map[string]any{"target": str("destination directory"), "sources": map[string]any{"type": "array", "description": "files to copy"}}),
			Entry{Name: "t", Kind: MCP, Effect: Write, Files: []File{{Param: "sources", Write: true, List: true}, {Param: "target", Write: true}}, Timeout: DefaultTimeout, Annotations: Annotations{Destructive: true, OpenWorld: true}}},
		{"read-only and destructive: a write", "x", Hints{ReadOnly: &yes, Destructive: &yes}, schema(nil),
			Entry{Name: "t", Kind: MCP, Effect: Write, Timeout: DefaultTimeout, Annotations: Annotations{Destructive: true, OpenWorld: true}}},
		{"browser server, tool not catalogued", BrowserServer, Hints{},
			schema(map[string]any{"pageId": map[string]any{"type": "number"}, "url": str("where")}),
			Entry{Name: "t", Kind: MCP, Effect: Write, Browser: true, Tab: "pageId", OnPage: true, URL: "url", Timeout: DefaultTimeout, Annotations: Annotations{Destructive: true, OpenWorld: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Derive(tt.server, "t", tt.hints, tt.schema)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	type row struct {
		Kind   Kind
		Effect Effect
		Files  int
	}
	tests := map[string]struct {
		server, name string
		want         row
	}{
		"native":                      {"", "browser_eval", row{Native, Script, 0}},
		"builtin":                     {"", webFetch, row{Builtin, Read, 0}},
		"native tool without entry":   {"", "browser_teleport", row{Unknown, Write, 0}},
		"upload reads its files":      {"", "browser_upload", row{Native, Write, 1}},
		"download writes its folder":  {"", "browser_download", row{Native, Write, 1}},
		"devtools":                    {BrowserServer, "take_screenshot", row{DevTools, Read, 1}},
		"devtools name on other host": {"other", "take_screenshot", row{MCP, Write, 1}},
	}
	for name, tt := range tests {
		e := Describe(tt.server, tt.name, Hints{}, map[string]any{"properties": map[string]any{"filePath": map[string]any{"type": "string"}}})
		if diff := cmp.Diff(tt.want, row{e.Kind, e.Effect, len(e.Files)}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

func TestIsHistoryMove(t *testing.T) {
	nav, _ := NativeTool("browser_navigate")
	dnav, _ := devToolsTool("navigate_page")
	tests := []struct {
		e    Entry
		args map[string]any
		want bool
	}{
		{nav, map[string]any{"url": " Back "}, true},
		{nav, map[string]any{"url": "https://back.example/"}, false},
		{dnav, map[string]any{"type": "reload"}, true},
		{dnav, map[string]any{"type": "url", "url": "https://a.example/"}, false},
		{dnav, map[string]any{"url": "https://a.example/"}, false},
	}
	for _, tt := range tests {
		if got := tt.e.IsHistoryMove(tt.args); got != tt.want {
			t.Errorf("%s %v: history move = %v, want %v", tt.e.Name, tt.args, got, tt.want)
		}
	}
}
