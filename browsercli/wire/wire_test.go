package wire

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"default", true}, {"shop-2", true}, {"a.b_c", true},
		{"", false}, {"..", false}, {"a/b", false}, {"../x", false}, {"a..b", false},
		{".hidden", false}, {"-flag", false}, {"sp ace", false},
	} {
		if err := CheckName(tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// TestDirRefusesOthersFolder: the sessions' folder must be the person's
// own and closed to others, or no socket is made in it.
func TestDirRefusesOthersFolder(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	dir, err := sessionsDir()
	if err != nil || dir != filepath.Join(rt, "browseragent") {
		t.Fatalf("Dir() = %q, %v", dir, err)
	}
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("sessions folder mode %v, want 0700", fi.Mode().Perm())
	}
	os.Chmod(dir, 0o755)
	if _, err := sessionsDir(); err == nil {
		t.Error("Dir() accepted a folder others may enter")
	}
}
