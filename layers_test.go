package browseragent

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const openaiModule = "github.com/sashabaranov/go-openai"

// goList runs `go list args...` in the module root and returns its lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(gobin); err != nil {
		if gobin, err = exec.LookPath("go"); err != nil {
			t.Fatalf("no go command to list packages with: %v", err)
		}
	}
	out, err := exec.Command(gobin, append([]string{"list"}, args...)...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestOnePackageImportsTheLLMClient: the arrows point down (see
// docs/ARCHITECTURE.md). Only agent/ imports go-openai, so the registry,
// the wiring and `mcp serve` link no LLM code, and neither tools/ nor
// serve/ depends on it at all.
func TestOnePackageImportsTheLLMClient(t *testing.T) {
	var importers []string
	for _, line := range goList(t, "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if imp == openaiModule || strings.HasPrefix(imp, openaiModule+"/") {
				importers = append(importers, fields[0])
				break
			}
		}
	}
	if diff := cmp.Diff([]string{"github.com/browseragent/browseragent/agent"}, importers); diff != "" {
		t.Errorf("packages importing %s (-want +got):\n%s", openaiModule, diff)
	}
	for _, pkg := range []string{"./tools", "./serve", "./session", "./browsercli"} {
		for _, dep := range goList(t, "-deps", pkg) {
			if strings.HasPrefix(dep, openaiModule) || dep == "github.com/browseragent/browseragent/agent" {
				t.Errorf("%s depends on %s: the tool path must not link the LLM client", pkg, dep)
			}
		}
	}
}

// TestMediaImportsNothing: media is the leaf every result type shares, so
// it may import nothing of ours (nor anything else).
func TestMediaImportsNothing(t *testing.T) {
	if got := goList(t, "-f", `{{join .Imports " "}}`, "./media"); len(got) != 1 || got[0] != "" {
		t.Errorf("media imports %q; it must stay a leaf", got)
	}
}

// TestPackageMapIsTrue: the package map docs/ARCHITECTURE.md draws (its
// table after "<!-- package map: layers_test.go -->") is what the code
// imports. Every product package has a row (a sub-package belongs to its
// top package's row; internal/... to "internal"), and each of its imports
// of ours is one its row allows, so the map and the code cannot drift.
func TestPackageMapIsTrue(t *testing.T) {
	const module = "github.com/browseragent/browseragent/"
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "<!-- package map: layers_test.go -->")
	if !ok {
		t.Fatal("docs/ARCHITECTURE.md has no package map")
	}
	allowed := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 2 || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") || strings.TrimSpace(cells[0]) == "package" {
			continue
		}
		pkg := strings.Trim(strings.TrimSpace(cells[0]), "`")
		allowed[pkg] = map[string]bool{}
		for _, imp := range strings.Fields(cells[1]) {
			allowed[pkg][imp] = true
		}
	}
	// row is the map's row for a package path relative to the module.
	row := func(rel string) string {
		if strings.HasPrefix(rel, "internal/") {
			return "internal"
		}
		if _, ok := allowed[rel]; ok {
			return rel
		}
		top, _, _ := strings.Cut(rel, "/")
		return top
	}
	for _, line := range goList(t, "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...") {
		fields := strings.Fields(line)
		rel, ok := strings.CutPrefix(fields[0], module)
		if !ok || strings.HasPrefix(rel, "bench/") || strings.Contains(rel, "/internal/") || strings.HasSuffix(rel, "test") {
			continue // the module root, benchmarks and test helpers
		}
		r := row(rel)
		may, listed := allowed[r]
		if !listed {
			t.Errorf("%s has no row in docs/ARCHITECTURE.md's package map", rel)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours || may["any"] {
				continue
			}
			if d := row(dep); d != r && !may[d] {
				t.Errorf("%s imports %s, which its row in docs/ARCHITECTURE.md's package map does not allow", rel, dep)
			}
		}
	}
}

// TestExtractUsesNoNetwork: extract works on HTML from anywhere, so
// neither it nor any package of ours it depends on imports a network
// package (net, net/http and below; net/url, which only parses, is fine).
// Its libraries are not held to this: goquery and go-readability link
// net/http for helpers extract never calls.
func TestExtractUsesNoNetwork(t *testing.T) {
	const module = "github.com/browseragent/browseragent/"
	for _, line := range goList(t, "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./extract") {
		fields := strings.Fields(line)
		if !strings.HasPrefix(fields[0], module) {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == "net" || (strings.HasPrefix(imp, "net/") && imp != "net/url") {
				t.Errorf("%s imports %s: extract must use no network", strings.TrimPrefix(fields[0], module), imp)
			}
		}
	}
}
