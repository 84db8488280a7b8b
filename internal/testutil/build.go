package testutil

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// BuildBrowseragent builds the browseragent command into dir and returns
// the binary's path, for a bench that times it as a whole process. It
// runs from the module root, as the benches do.
func BuildBrowseragent(dir string) (string, error) {
	bin := filepath.Join(dir, "browseragent")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/browseragent").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build browseragent: %v\n%s", err, out)
	}
	return bin, nil
}
