//go:build !unix

package wire

import "path/filepath"

func joinPath(elem ...string) string   { return filepath.Join(elem...) }
func isAbsPath(p string) bool          { return filepath.IsAbs(p) }
func absPath(p string) (string, error) { return filepath.Abs(p) }
