package mcpclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// golden compares got (as indented JSON) with testdata/name, or rewrites
// it under -update.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./mcpclient -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestCleanSchemaGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/schemas/*.input.json")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.json")
		t.Run(name, func(t *testing.T) {
			var schema any
			if err := json.Unmarshal(must(os.ReadFile(in)), &schema); err != nil {
				t.Fatal(err)
			}
			before := must(json.Marshal(schema))
			got := cleanSchema(schema)
			if !bytes.Equal(before, must(json.Marshal(schema))) {
				t.Error("cleanSchema modified its input")
			}
			assertLLMSafe(t, got)
			golden(t, "schemas/"+name+".golden.json", got)
		})
	}
}

// assertLLMSafe checks the promises cleanSchema makes, independent of the
// golden files.
func assertLLMSafe(t *testing.T, s map[string]any) {
	t.Helper()
	if s["type"] != "object" {
		t.Errorf("top-level type = %v", s["type"])
	}
	if _, ok := s["properties"].(map[string]any); !ok {
		t.Errorf("no properties object")
	}
	var walk func(v any, inProps bool)
	walk = func(v any, inProps bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if !inProps {
					switch k {
					case "$ref", "$defs", "definitions", "$schema", "$id", "anyOf", "oneOf":
						t.Errorf("keyword %s left in cleaned schema", k)
					case "description":
						if d, _ := e.(string); len(d) > maxDescriptionLen {
							t.Errorf("description of %d bytes", len(d))
						}
					case "type":
						if _, ok := e.(string); !ok {
							t.Errorf("type %v is not a single string", e)
						}
					}
				}
				walk(e, !inProps && k == "properties")
			}
		case []any:
			for _, e := range v {
				walk(e, false)
			}
		}
	}
	walk(s, false)
}

// TestChromeDevToolsTools converts the real tools/list of
// chrome-devtools-mcp 1.11.0 (captured from the running server into
// testdata) and checks it against the golden output.
func TestChromeDevToolsTools(t *testing.T) {
	var list struct{ Tools []*mcp.Tool }
	if err := json.Unmarshal(must(os.ReadFile("testdata/chrome-devtools-mcp-1.11.0.tools.json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 32 {
		t.Fatalf("captured %d tools, want 32", len(list.Tools))
	}
	tools := convertTools(DefaultServerName, defaultServer(), list.Tools)
	legal := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, tool := range tools {
		if !legal.MatchString(tool.Name) {
			t.Errorf("illegal name %q", tool.Name)
		}
		assertLLMSafe(t, tool.InputSchema)
	}
	golden(t, "chrome-devtools-mcp-1.11.0.cleaned.golden.json", tools)
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 5)
	tests := []struct{ server, tool, want string }{
		{"chrome-devtools", "take_snapshot", "mcp__chrome-devtools__take_snapshot"},
		{"fs", "read.file", "mcp__fs__read_file_" + hash8("mcp__fs__read.file")},
		{"my server", "tool", "mcp__my_server__tool_" + hash8("mcp__my server__tool")},
		{"s", long, ("mcp__s__" + long)[:55] + "_" + hash8("mcp__s__"+long)},
		{"s", "ünïcode", "mcp__s___n_code_" + hash8("mcp__s__ünïcode")},
	}
	legal := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	for _, tc := range tests {
		got := toolName(tc.server, tc.tool)
		if got != tc.want || !legal.MatchString(got) {
			t.Errorf("toolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	if toolName("fs", "a.b") == toolName("fs", "a_b") {
		t.Error("a.b and a_b map to the same name")
	}
}

// TestDeepToolOfferedWithWarning: a tool whose schema nests too deeply is
// still offered, cut, with a warning; its neighbour is untouched.
func TestDeepToolOfferedWithWarning(t *testing.T) {
	var deep any = map[string]any{"type": "string"}
	for range maxSchemaDepth + 5 {
		deep = map[string]any{"type": "object", "properties": map[string]any{"x": deep}}
	}
	tools, warnings := convertToolsDup("s", &ServerConfig{}, []*mcp.Tool{
		{Name: "deep", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"a": deep, "b": map[string]any{"type": "string"}}}},
		{Name: "flat", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}},
	})
	if len(tools) != 2 {
		t.Fatalf("%d tools offered, want 2", len(tools))
	}
	if _, ok := tools[0].InputSchema["properties"].(map[string]any)["b"]; !ok {
		t.Error("the shallow parameter of the deep tool was lost")
	}
	want := []string{fmt.Sprintf("tool %q has an input schema nested deeper than %d levels; it is offered without the deeper part", "deep", maxSchemaDepth)}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
