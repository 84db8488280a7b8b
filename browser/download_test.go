package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSafeFileName: what a server or page suggests becomes only a file
// name: no folder to climb out of, no hidden or startup file, nothing the
// terminal or a shell would read as more than a name.
func TestSafeFileName(t *testing.T) {
	long := strings.Repeat("é", 100) + ".pdf"
	tests := map[string]struct{ in, want string }{
		"plain":           {"invoice-2026-11.pdf", "invoice-2026-11.pdf"},
		"a folder part":   {"../../.ssh/authorized_keys", "authorized_keys"},
		"windows folders": {`C:\Users\x\evil.exe`, "evil.exe"},
		"a hidden file":   {".bashrc", "bashrc"},
		"dots and spaces": {" .. .profile. ", "profile"},
		"control":         {"a\x1b[31mb\x07.txt", "a_[31mb_.txt"},
		"bidi override":   {"cv\u202efdp.exe", "cv_fdp.exe"},
		"reserved":        {`re:port<1>|"x"?.csv`, "re_port_1___x__.csv"},
		"nothing left":    {"...", "download"},
		"empty":           {"", "download"},
		"too long":        {long, strings.Repeat("é", 58) + ".pdf"},
	}
	for name, tt := range tests {
		if got := safeFileName(tt.in); got != tt.want {
			t.Errorf("%s: safeFileName(%q) = %q, want %q", name, tt.in, got, tt.want)
		}
	}
}

// TestDefaultDownloadDir: the download folder the person chose wins, then
// their output folder for everything tools save, then the desktop's
// download folder, then ~/Downloads (these two under a folder of
// browseragent's own).
func TestDefaultDownloadDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	wd, _ := os.Getwd()
	tests := []struct{ chosen, output, xdg, want string }{
		{"/data/dl", "/out", "/x/Downloads", "/data/dl"},
		{"relative/dl", "", "/x/Downloads", filepath.Join(wd, "relative/dl")},
		{"", "/out", "/x/Downloads", "/out"},
		{"", "", "/x/Downloads", "/x/Downloads/browseragent"},
		{"", "", "", home + "/Downloads/browseragent"},
	}
	for _, tt := range tests {
		t.Setenv("BROWSERAGENT_DOWNLOAD_DIR", tt.chosen)
		t.Setenv("BROWSERAGENT_OUTPUT_DIR", tt.output)
		t.Setenv("XDG_DOWNLOAD_DIR", tt.xdg)
		if got := defaultDownloadDir(); got != tt.want {
			t.Errorf("BROWSERAGENT_DOWNLOAD_DIR=%q XDG_DOWNLOAD_DIR=%q: %q, want %q", tt.chosen, tt.xdg, got, tt.want)
		}
	}
}
