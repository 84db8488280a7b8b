package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudgeFiles: any local file asks, in both modes; only a path inside
// the working or temporary directory may be allowed for good; writing an
// .mcp.json, a shell start-up file, SSH settings, browseragent's own files
// or anything under $XDG_CONFIG_HOME is refused.
func TestJudgeFiles(t *testing.T) {
	root := t.TempDir()
	pl := Places{WorkDir: filepath.Join(root, "work"), TempDir: filepath.Join(root, "tmp"), Home: filepath.Join(root, "home"),
		ConfigHome: filepath.Join(root, "home", ".config"), StateHome: filepath.Join(root, "home", ".local", "state")}
	type row struct {
		Verdict Verdict
		Scopes  []Scope
	}
	ask, askOnce, deny := row{Ask, []Scope{Once, ToolAlways}}, row{Ask, []Scope{Once}}, row{Deny, nil}
	tests := []struct {
		name  string
		file  File
		want  row
		modes []Mode
	}{
		{"write in the working dir", File{Path: pl.WorkDir + "/shot.png", Write: true}, ask, nil},
		{"read in the temp dir", File{Path: pl.TempDir + "/up.txt"}, ask, nil},
		{"read outside", File{Path: pl.Home + "/.env"}, askOnce, nil},
		{"write outside", File{Path: "/srv/x.json", Write: true}, askOnce, nil},
		{".mcp.json anywhere", File{Path: pl.WorkDir + "/.mcp.json", Write: true}, deny, nil},
		{".bashrc", File{Path: pl.Home + "/.bashrc", Write: true}, deny, nil},
		{".zshrc in the working dir", File{Path: pl.WorkDir + "/.zshrc", Write: true}, deny, nil},
		{".profile", File{Path: pl.Home + "/.profile", Write: true}, deny, nil},
		{"$XDG_CONFIG_HOME", File{Path: pl.ConfigHome + "/fish/config.fish", Write: true}, deny, nil},
		{"browseragent's config", File{Path: pl.ConfigHome + "/browseragent/mcp.json", Write: true}, deny, nil},
		{"browseragent's audit log", File{Path: pl.StateHome + "/browseragent/audit.jsonl", Write: true}, deny, nil},
		{"ssh keys", File{Path: pl.Home + "/.ssh/authorized_keys", Write: true}, deny, nil},
		{"reading the config asks", File{Path: pl.ConfigHome + "/browseragent/config.yaml"}, askOnce, nil},
	}
	for _, tt := range tests {
		for _, mode := range []Mode{Isolated, Shared} {
			p := NewPolicy(nil, &Options{Mode: mode, Places: pl})
			tt.file.Param = "filePath"
			c := Call{Tool: "mcp__chrome-devtools__take_screenshot", Server: "chrome-devtools", Name: "take_screenshot",
				PageURL: "https://example.test/", TabID: "t", Files: []File{tt.file}, Args: map[string]any{"filePath": tt.file.Path}}
			p.OwnTab("t")
			d := p.Check(c)
			if diff := cmp.Diff(tt.want, row{d.Verdict, d.Scopes}); diff != "" {
				t.Errorf("%s, %s (-want +got):\n%s%s", tt.name, mode, diff, d.Reason)
			}
		}
	}
}

// TestFilesGrant: "always" for a tool covers its files in the working and
// temporary directories only, and a file outside still asks.
func TestFilesGrant(t *testing.T) {
	root := t.TempDir()
	pl := Places{WorkDir: root + "/w", TempDir: root + "/t", Home: root + "/h"}
	p := NewPolicy(nil, &Options{Mode: Isolated, Places: pl})
	call := func(path string) Call {
		return Call{Tool: "mcp__chrome-devtools__take_snapshot", Server: "chrome-devtools", Name: "take_snapshot", TabID: "t",
			PageURL: "https://example.test/", Files: []File{{Param: "filePath", Path: path, Write: true}}, Args: map[string]any{"filePath": path}}
	}
	p.OwnTab("t")
	if err := p.Grant(call(root+"/w/a.txt"), ToolAlways); err != nil {
		t.Fatal(err)
	}
	if d := p.Check(call(root + "/w/b.txt")); d.Verdict != Allow {
		t.Errorf("inside the working dir after always: %v %s", d.Verdict, d.Reason)
	}
	if d := p.Check(call(root + "/h/b.txt")); d.Verdict != Ask {
		t.Errorf("outside after always: %v %s", d.Verdict, d.Reason)
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
		if got := ResolvePath(in, ""); got != want {
			t.Errorf("ResolvePath(%q) = %q, want %q", in, got, want)
		}
	}
}
