//go:build unix

package wire

import (
	"os"
	"path"
)

// The file paths of a session, with package path rather than path/filepath
// on Unix, where they are the same: path/filepath has package-level state
// to initialise, and Quick runs before it would be (see dial).

func joinPath(elem ...string) string { return path.Join(elem...) }
func isAbsPath(p string) bool        { return path.IsAbs(p) }

// absPath is filepath.Abs: p made absolute in the working folder, cleaned.
func absPath(p string) (string, error) {
	if path.IsAbs(p) {
		return path.Clean(p), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return path.Join(wd, p), nil
}
