package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEditConfig(t *testing.T) {
	tests := []struct {
		name, in string
		values   []ConfigValue
		want     string
	}{
		{"empty file", "", []ConfigValue{{"model", "qwen3"}}, "model: qwen3\n"},
		{"only a comment", "# my settings\n", []ConfigValue{{"provider", "ollama"}}, "# my settings\n\nprovider: ollama\n"},
		{"replaced, comments and order kept",
			"# LLM\nmodel: old # the old one\nmax_steps: 12\n\n# browser\ndevtools: true\n",
			[]ConfigValue{{"model", "new"}},
			"# LLM\nmodel: new # the old one\nmax_steps: 12\n# browser\ndevtools: true\n"},
		{"nested made",
			"max_steps: 12\n",
			[]ConfigValue{{"provider", "ollama"}, {"providers.ollama.model", "qwen3:8b"}},
			"max_steps: 12\nprovider: ollama\nproviders:\n  ollama:\n    model: qwen3:8b\n"},
		{"nested kept",
			"providers:\n  mine:\n    base_url: http://127.0.0.1:9/v1 # my box\n    model: a\n",
			[]ConfigValue{{"providers.mine.model", "b"}},
			"providers:\n  mine:\n    base_url: http://127.0.0.1:9/v1 # my box\n    model: b\n"},
		{"a value that looks like another type stays a string", "", []ConfigValue{{"model", "1.5"}}, "model: \"1.5\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := editConfig([]byte(tt.in), tt.values...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"- a list\n", "providers: 3\nmodel: x\n", "model: [unclosed\n"} {
		if _, err := editConfig([]byte(bad), ConfigValue{"providers.x.model", "m"}); err == nil {
			t.Errorf("EditConfig(%q) = nil error", bad)
		}
	}
}

// TestSaveConfigNamesTheFile: a file that cannot be written (its folder is
// a file) or parsed is named in the error, and a broken file is left as
// it was.
func TestSaveConfigNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "blocker")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "config.yaml")
	if err := saveConfig(path, ConfigValue{"model", "m"}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("SaveConfig under a file: %v, want an error naming %s", err, path)
	}
	broken := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(broken, []byte("model: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := saveConfig(broken, ConfigValue{"model", "m"}); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("SaveConfig of a broken file: %v, want an error naming %s", err, broken)
	}
	if b, _ := os.ReadFile(broken); string(b) != "model: [\n" {
		t.Errorf("the broken file became %q", b)
	}
}
