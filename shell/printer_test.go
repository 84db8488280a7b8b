package shell

import (
	"bytes"
	"testing"

	prompt "github.com/c-bata/go-prompt"
	"github.com/google/go-cmp/cmp"
)

// TestDrawAbove checks the escape sequences that put background lines above
// the prompt: erase the drawn prompt (going up as many rows as it wrapped),
// print, and leave as many blank rows as go-prompt will move up before it
// redraws. A status line that is still the last line is replaced in place.
func TestDrawAbove(t *testing.T) {
	var out bytes.Buffer
	p := newPrinter(&out, &out, true)
	p.color = false
	injected := 0
	p.inject = func() bool { injected++; return true }
	p.setPromptActive(true)

	buf := prompt.NewBuffer()
	buf.InsertText("hello", false, true)
	steps := []struct {
		name string
		do   func()
		cols int
		want string
	}{
		{"first status", func() { p.Status("mcp: a … starting") }, 80, "\r\x1b[Jmcp: a … starting\r\n"},
		{"status replaced in place", func() { p.Status("mcp: a ✓ 3 tools") }, 80, "\x1b[1A\r\x1b[Jmcp: a ✓ 3 tools\r\n"},
		{"same status draws nothing", func() { p.Status("mcp: a ✓ 3 tools") }, 80, ""},
		{"notice below the status", func() { p.Notice("mcp a: resource updated") }, 80, "\r\x1b[Jmcp a: resource updated\r\n"},
		{"wrapped prompt", func() { p.Notice("n2") }, 8, "\x1b[1A\r\x1b[Jn2\r\n\r\n"},
	}
	for _, st := range steps {
		out.Reset()
		st.do()
		p.drawAbove(buf, "p> ", st.cols)
		if diff := cmp.Diff(st.want, out.String()); diff != "" {
			t.Errorf("%s (-want +got)\n%s", st.name, diff)
		}
	}
	if injected != 4 {
		t.Errorf("injected %d redraws, want 4", injected)
	}

	// While a command runs, notices print at once, queued ones flush.
	p.Notice("queued")
	out.Reset()
	p.setPromptActive(false)
	p.Notice("direct")
	if diff := cmp.Diff("queued\ndirect\n", out.String()); diff != "" {
		t.Errorf("prompt inactive (-want +got)\n%s", diff)
	}
}

func TestColorAllowed(t *testing.T) {
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "")
	if colorAllowed() {
		t.Error("NO_COLOR set (even empty) must turn colour off")
	}
}

func TestImageProtocol(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TERM": "xterm-kitty"}, "kitty"},
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, "iterm"},
		{map[string]string{"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/x"}, ""},
		{map[string]string{"TERM": "xterm-256color"}, ""},
	}
	for _, tt := range tests {
		got := imageProtocol(func(k string) string { return tt.env[k] })
		if got != tt.want {
			t.Errorf("imageProtocol(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
