package textutil

import (
	"io"
	"os"
)

// ForTerminal is text a page, a server or a model chose as it goes to w:
// at a terminal it is Visible, so a page's "\x1b]0;…" or "\r\x1b[2K"
// cannot retitle the window, erase a line or fake one of browseragent's;
// into a pipe or a file it is unchanged, the bytes the script asked for.
func ForTerminal(w io.Writer, s string) string {
	if f, ok := w.(*os.File); ok && IsTerminal(f) {
		return Visible(s)
	}
	return s
}
