package browseragent

import (
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
