package guard

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudgeFiles: any local file asks, in both modes. Reading one asks
// every time (it goes to the page or server: round three's --yes uploaded
// ./.env); a write may be allowed for good only inside the output folder
// the person chose, and asks every time elsewhere, the working directory
// included; writing an agent's, editor's, shell's, git's or build tool's
// settings (protectedPlaces), SSH settings, browseragent's own files or
// anything under $XDG_CONFIG_HOME is refused.
func TestJudgeFiles(t *testing.T) {
	root := t.TempDir()
	pl := Places{WorkDir: filepath.Join(root, "work"), TempDir: filepath.Join(root, "tmp"), Home: filepath.Join(root, "home"),
		ConfigHome: filepath.Join(root, "home", ".config"), StateHome: filepath.Join(root, "home", ".local", "state"),
		Outputs: []string{filepath.Join(root, "out")}}
	type row struct {
		Verdict Verdict
		Scopes  []Scope
		Yes     bool // --yes would run it
	}
	ask, askOnce, deny := row{Ask, []Scope{Once, ToolAlways}, true}, row{Ask, []Scope{Once}, false}, row{Deny, nil, false}
	tests := []struct {
		name string
		file File
		want row
	}{
		{"write in the output folder", File{Path: root + "/out/shot.png", Write: true}, ask},
		{"write in the working dir", File{Path: pl.WorkDir + "/shot.png", Write: true}, askOnce},
		{"write in the temp dir", File{Path: pl.TempDir + "/shot.png", Write: true}, askOnce},
		{"read in the output folder", File{Path: root + "/out/up.txt"}, askOnce},
		{"read in the working dir", File{Path: pl.WorkDir + "/.env"}, askOnce},
		{"read outside", File{Path: pl.Home + "/.env"}, askOnce},
		{"write outside", File{Path: "/srv/x.json", Write: true}, askOnce},
		{".mcp.json anywhere", File{Path: pl.WorkDir + "/.mcp.json", Write: true}, deny},
		{".mcp.json in the output folder", File{Path: root + "/out/.mcp.json", Write: true}, deny},
		{".bashrc", File{Path: pl.Home + "/.bashrc", Write: true}, deny},
		{".zshrc in the working dir", File{Path: pl.WorkDir + "/.zshrc", Write: true}, deny},
		{".profile", File{Path: pl.Home + "/.profile", Write: true}, deny},
		{"Claude Code's settings", File{Path: pl.WorkDir + "/.claude/settings.json", Write: true}, deny},
		{"Claude Code's user file", File{Path: pl.Home + "/.claude.json", Write: true}, deny},
		{"Cursor's MCP servers", File{Path: pl.WorkDir + "/.cursor/mcp.json", Write: true}, deny},
		{"VS Code's tasks", File{Path: pl.WorkDir + "/.vscode/tasks.json", Write: true}, deny},
		{"VS Code, upper case", File{Path: pl.WorkDir + "/.VSCode/mcp.json", Write: true}, deny},
		{"Gemini CLI", File{Path: pl.WorkDir + "/.gemini/settings.json", Write: true}, deny},
		{"Codex", File{Path: pl.Home + "/.codex/config.toml", Write: true}, deny},
		{"JetBrains", File{Path: pl.WorkDir + "/.idea/workspace.xml", Write: true}, deny},
		{"git config", File{Path: pl.WorkDir + "/.git/config", Write: true}, deny},
		{"git hook", File{Path: pl.WorkDir + "/.git/hooks/pre-commit", Write: true}, deny},
		{"a CI workflow", File{Path: pl.WorkDir + "/.github/workflows/ci.yml", Write: true}, deny},
		{"agent instructions", File{Path: pl.WorkDir + "/AGENTS.md", Write: true}, deny},
		{"direnv", File{Path: pl.WorkDir + "/.envrc", Write: true}, deny},
		{"npm settings", File{Path: pl.WorkDir + "/.npmrc", Write: true}, deny},
		{"package.json", File{Path: pl.WorkDir + "/package.json", Write: true}, deny},
		{"Makefile", File{Path: pl.WorkDir + "/sub/Makefile", Write: true}, deny},
		{"a program on the PATH", File{Path: pl.Home + "/.local/bin/git", Write: true}, deny},
		{"a file named like a directory's neighbour", File{Path: pl.WorkDir + "/.gitignore.txt", Write: true}, askOnce},
		{"package.json's neighbour", File{Path: root + "/out/package.json.txt", Write: true}, ask},
		{"$XDG_CONFIG_HOME", File{Path: pl.ConfigHome + "/fish/config.fish", Write: true}, deny},
		{"browseragent's config", File{Path: pl.ConfigHome + "/browseragent/mcp.json", Write: true}, deny},
		{"browseragent's audit log", File{Path: pl.StateHome + "/browseragent/audit.jsonl", Write: true}, deny},
		{"ssh keys", File{Path: pl.Home + "/.ssh/authorized_keys", Write: true}, deny},
		{"reading the config asks", File{Path: pl.ConfigHome + "/browseragent/config.yaml"}, askOnce},
	}
	for _, tt := range tests {
		for _, mode := range []Mode{Isolated, Shared} {
			p := NewPolicy(nil, &Options{Mode: mode, Places: pl})
			tt.file.Param = "filePath"
			c := Call{Tool: "mcp__chrome-devtools__take_screenshot", Server: "chrome-devtools", Name: "take_screenshot",
				PageURL: "https://example.test/", TabID: "t", Files: []File{tt.file}, Args: map[string]any{"filePath": tt.file.Path}}
			p.OwnTab("t")
			d := p.Check(c)
			got := row{d.Verdict, d.Scopes, d.Unattended(true).Verdict == Allow}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s, %s (-want +got):\n%s%s", tt.name, mode, diff, d.Reason)
			}
		}
	}
}

// TestFilesGrant: "always" for a tool covers its writes in the output
// folder only: a write elsewhere and any read still ask, and neither can
// be granted for good.
func TestFilesGrant(t *testing.T) {
	root := t.TempDir()
	pl := Places{WorkDir: root + "/w", TempDir: root + "/t", Home: root + "/h", Outputs: []string{root + "/o"}}
	p := NewPolicy(nil, &Options{Mode: Isolated, Places: pl})
	call := func(tool, path string, write bool) Call {
		return Call{Tool: "mcp__chrome-devtools__" + tool, Server: "chrome-devtools", Name: tool, TabID: "t",
			PageURL: "https://example.test/", Files: []File{{Param: "filePath", Path: path, Write: write}}, Args: map[string]any{"filePath": path}}
	}
	p.OwnTab("t")
	if err := p.Grant(call("take_snapshot", root+"/o/a.txt", true), ToolAlways); err != nil {
		t.Fatal(err)
	}
	if d := p.Check(call("take_snapshot", root+"/o/b.txt", true)); d.Verdict != Allow {
		t.Errorf("inside the output folder after always: %v %s", d.Verdict, d.Reason)
	}
	for _, path := range []string{root + "/w/b.txt", root + "/h/b.txt"} {
		if d := p.Check(call("take_snapshot", path, true)); d.Verdict != Ask || !d.Sensitive {
			t.Errorf("%s after always: %v %s", path, d.Verdict, d.Reason)
		}
	}
	up := call("upload_file", root+"/o/up.txt", false)
	if err := p.Grant(up, ToolAlways); !errors.Is(err, errNotGrantable) {
		t.Errorf("always for a file read: %v, want ErrNotGrantable", err)
	}
	if err := p.Grant(up, Once); err != nil {
		t.Fatal(err)
	}
	if d := p.Check(up); d.Verdict != Allow || d.DecidedBy != ByPerson {
		t.Errorf("a read approved once: %v by %s", d.Verdict, d.DecidedBy)
	}
	if d := p.Check(up); d.Verdict != Ask {
		t.Errorf("the once approval of a read was used twice: %v", d.Verdict)
	}
}

// TestWriteRefused: the list the tools' writes are refused by, as `fetch
// --out` asks it, through a link too.
func TestWriteRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, ".vscode", "tasks.json"), filepath.Join(dir, "notes.json")); err != nil {
		t.Fatal(err)
	}
	for path, refused := range map[string]bool{
		filepath.Join(dir, ".mcp.json"):         true,
		filepath.Join(dir, "notes.json"):        true,
		filepath.Join(dir, ".claude", "x.json"): true,
		filepath.Join(dir, "page.md"):           false,
	} {
		if got := WriteRefused(path) != ""; got != refused {
			t.Errorf("WriteRefused(%s) = %q, want refused %v", path, WriteRefused(path), refused)
		}
	}
}

func TestResolvePath(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(real, filepath.Join(dir, "link")))
	must(os.Symlink(filepath.Join(real, ".bashrc"), filepath.Join(dir, "dangling")))
	tests := map[string]string{
		filepath.Join(dir, "link", "new", "f.txt"): filepath.Join(real, "new", "f.txt"),
		filepath.Join(dir, "dangling"):             filepath.Join(real, ".bashrc"),
		filepath.Join(dir, "x", "..", "y"):         filepath.Join(dir, "y"),
	}
	for in, want := range tests {
		if got := resolvePath(in, ""); got != want {
			t.Errorf("resolvePath(%q) = %q, want %q", in, got, want)
		}
	}
}
