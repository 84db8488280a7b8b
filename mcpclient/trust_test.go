package mcpclient

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProjectGate: what starts a project's servers (a remembered approval
// of exactly this content, --trust-project, a yes at the terminal) and what
// skips them, with the one line the person sees.
func TestProjectGate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".mcp.json")
	v1 := []byte(`{"mcpServers":{"b":{"command":"sh","args":["-c","echo hi; touch x"]},"a":{"url":"http://127.0.0.1:1/mcp"},"off":{"command":"x","disabled":true}}}`)
	if err := os.WriteFile(path, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ReadProjectFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a: http http://127.0.0.1:1/mcp", "b: sh -c 'echo hi; touch x'"}, p.Commands()); diff != "" {
		t.Errorf("commands shown (-want +got):\n%s", diff)
	}
	store := NewTrustStore(filepath.Join(dir, "state", "trusted-projects.json"))
	var notes []string
	var asked []bool
	gate := func(trustAll bool, answer *bool) *ProjectGate {
		g := &ProjectGate{Store: store, TrustAll: trustAll, Note: func(s string) { notes = append(notes, s) }}
		if answer != nil {
			g.Ask = func(_ ProjectFile, changed bool) (bool, error) { asked = append(asked, changed); return *answer, nil }
		}
		return g
	}
	yes, no := true, false
	steps := []struct {
		name    string
		gate    *ProjectGate
		file    ProjectFile
		want    bool
		notes   int
		asked   []bool
		trusted TrustState
	}{
		{"nobody at a terminal", gate(false, nil), p, false, 1, nil, Untrusted},
		{"--trust-project", gate(true, nil), p, true, 0, nil, Untrusted},
		{"person says no", gate(false, &no), p, false, 1, []bool{false}, Untrusted},
		{"person says yes", gate(false, &yes), p, true, 0, []bool{false}, Trusted},
		{"remembered", gate(false, nil), p, true, 0, nil, Trusted},
	}
	for _, s := range steps {
		notes, asked = nil, nil
		if got := s.gate.Allow(s.file); got != s.want {
			t.Errorf("%s: Allow = %v, want %v", s.name, got, s.want)
		}
		if len(notes) != s.notes || !cmp.Equal(asked, s.asked) {
			t.Errorf("%s: notes %q, asked %v; want %d notes, asked %v", s.name, notes, asked, s.notes, s.asked)
		}
		if st, _ := store.state(p.Path, p.Data); st != s.trusted {
			t.Errorf("%s: state %v, want %v", s.name, st, s.trusted)
		}
	}
	// The content changes: asked again, told it changed.
	changed := p
	changed.Data = append([]byte(nil), v1...)
	changed.Data[len(changed.Data)-3] = ' '
	notes, asked = nil, nil
	if gate(false, &no).Allow(changed) || !cmp.Equal(asked, []bool{true}) {
		t.Errorf("changed file: asked %v, want [true] and not allowed", asked)
	}
	notes = nil
	if gate(false, nil).Allow(changed) || len(notes) != 1 || !strings.Contains(notes[0], "the file changed since you trusted it") {
		t.Errorf("changed file without a terminal: notes %q", notes)
	}
	if had, err := store.Untrust(p.Path); !had || err != nil {
		t.Errorf("Untrust = %v, %v", had, err)
	}
	if st, _ := store.state(p.Path, p.Data); st != Untrusted {
		t.Errorf("after Untrust: %v", st)
	}
	// A file that starts nothing needs no trust.
	if !gate(false, nil).Allow(ProjectFile{Path: path, Data: []byte(`{}`)}) {
		t.Error("an empty project file was refused")
	}
	// A damaged store trusts nothing and says why.
	if err := os.WriteFile(store.Path(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	notes = nil
	if gate(false, nil).Allow(p) || len(notes) != 2 || !strings.Contains(notes[0], "is damaged") {
		t.Errorf("damaged store: notes %q", notes)
	}
	if err := store.Trust(p); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Errorf("Trust over a damaged store: %v", err)
	}
}

// TestLoadFilesGate: a gated file's servers are not merged, so the user's
// entry of the same name stays, and the file is listed as skipped.
func TestLoadFilesGate(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	project := filepath.Join(dir, ".mcp.json")
	os.WriteFile(user, []byte(`{"mcpServers":{"a":{"command":"user-a"}}}`), 0o600)
	os.WriteFile(project, []byte(`{"mcpServers":{"a":{"command":"evil"},"b":{"command":"evil-b"}}}`), 0o600)
	var seen []string
	gate := func(p ProjectFile) bool { seen = append(seen, p.Path); return false }
	cfg, err := LoadFiles([]ConfigFile{{Path: user}, {Path: project, Project: true, Gate: gate}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers["a"].Command != "user-a" || cfg.Servers["b"] != nil {
		t.Errorf("servers: a=%+v b=%+v", cfg.Servers["a"], cfg.Servers["b"])
	}
	if !cmp.Equal(seen, []string{project}) || !cmp.Equal(cfg.Skipped, []string{project}) {
		t.Errorf("gate saw %q, skipped %q", seen, cfg.Skipped)
	}
}
