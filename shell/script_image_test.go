package shell

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/media"
	"github.com/browseragent/browseragent/tools"
)

// TestScriptCallImageSaved: an image in a /call result is saved where the
// browser keeps screenshots ($TMPDIR/browseragent-screenshots), its path
// printed, and nothing is written to the working directory.
func TestScriptCallImageSaved(t *testing.T) {
	tmp, work := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Chdir(work)
	toolList := newFakeTools()
	toolList.handlers["mcp__git__status"] = func(context.Context, json.RawMessage) (*tools.ToolResult, error) {
		return &tools.ToolResult{Text: "a tiny image", Images: []media.Image{{MIME: "image/png", Data: []byte("\x89PNG tiny")}}}, nil
	}
	stdout, stderr := runScript(t, &Options{Tools: toolList}, "/call mcp__git__status {}\n")
	saved, _ := filepath.Glob(filepath.Join(tmp, "browseragent-screenshots", "screenshot-*.png"))
	if len(saved) != 1 || !strings.Contains(stdout+stderr, "saved "+saved[0]) {
		t.Fatalf("saved %v\nstdout:\n%s\nstderr:\n%s", saved, stdout, stderr)
	}
	if b, err := os.ReadFile(saved[0]); err != nil || string(b) != "\x89PNG tiny" {
		t.Errorf("saved image = %q, %v", b, err)
	}
	if left, _ := os.ReadDir(work); len(left) != 0 {
		t.Errorf("the working directory got %v", left)
	}
}
