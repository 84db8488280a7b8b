package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildBrowseragent builds the browseragent command into dir as the
// README says (CGO_ENABLED=0: a static binary) and returns the binary's
// path, for a bench that times it as a whole process. It runs from the
// module root, as the benches do.
func BuildBrowseragent(dir string) (string, error) {
	bin := filepath.Join(dir, "browseragent")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/browseragent")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build browseragent: %v\n%s", err, out)
	}
	return bin, nil
}
