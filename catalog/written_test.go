package catalog

import "testing"

// TestWrittenName: chrome-devtools-mcp replaces a path's extension with its
// own, so "./.mcp" and "./.mcp.txt" are written as ./.mcp.json; the guard
// judges the name that is written.
func TestWrittenName(t *testing.T) {
	eval, _ := devToolsTool("evaluate_script")
	shot, _ := devToolsTool("take_screenshot")
	trace, _ := devToolsTool("performance_stop_trace")
	ef, _ := eval.fileParam("filePath")
	sf, _ := shot.fileParam("filePath")
	tf, _ := trace.fileParam("filePath")
	tests := []struct {
		f    File
		path string
		args map[string]any
		want string
	}{
		{ef, "./.mcp", nil, "./.mcp.json"},
		{ef, "/w/.mcp.txt", nil, "/w/.mcp.json"},
		{ef, "/home/p/.bashrc", nil, "/home/p/.bashrc.json"},
		{ef, "out", nil, "out.json"},
		{ef, "a.b/out", nil, "a.b/out.json"},
		{sf, "s.txt", nil, "s.png"},
		{sf, "s", map[string]any{"format": "jpeg"}, "s.jpeg"},
		{tf, "t.json.gz", nil, "t.json.gz"},
		{tf, "t.txt", nil, "t.json"},
		{File{Param: "p"}, "keep.txt", nil, "keep.txt"},
	}
	for _, tt := range tests {
		if got := tt.f.WrittenName(tt.path, tt.args); got != tt.want {
			t.Errorf("WrittenName(%q, %v) = %q, want %q", tt.path, tt.args, got, tt.want)
		}
	}
}
