package textutil

import "testing"

func TestLines(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"first line", FirstLine("  dial failed\nstack…", 0), "dial failed"},
		{"first line cut", FirstLine("abcdef", 4), "abc…"},
		{"one line", OneLine("a\n  b\tc", 0), "a b c"},
		{"one line cut runes", OneLine("héllo wörld", 5), "héll…"},
		{"short kept", Cut("abc", 3), "abc"},
		{"labelled", Labelled("mcp__a__b", "boom"), "mcp__a__b: boom"},
		{"labelled once", Labelled("mcp__a__b", "mcp__a__b: find the page it acts on: gone"), "mcp__a__b: find the page it acts on: gone"},
		{"labelled sentence", Labelled("mcp__a__b", "mcp__a__b may change something"), "mcp__a__b may change something"},
		{"labelled longer name", Labelled("mcp__a__b", "mcp__a__bc: x"), "mcp__a__b: mcp__a__bc: x"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3},
		{"browser_clik", "browser_click", 1}, {"héllo", "hello", 1},
	}
	for _, tt := range tests {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestVisible(t *testing.T) {
	tests := []struct{ in, text, line string }{
		{"plain text", "plain text", "plain text"},
		{"npx -y x\r\x1b[2Kok", `npx -y x\x0d\x1b[2Kok`, `npx -y x\x0d\x1b[2Kok`},
		{"two\nlines\tand a tab", "two\nlines\tand a tab", `two\nlines\tand a tab`},
		{"evil\u202egnp.exe", `evil\u202egnp.exe`, `evil\u202egnp.exe`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`, `zero\u200bwidth\ufeff`},
		{"bell\a and del\x7f", `bell\x07 and del\x7f`, `bell\x07 and del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`, `c1 \u009b31m`},
		{"bad \xff byte", `bad \xff byte`, `bad \xff byte`},
		{"line\u2028sep", `line\u2028sep`, `line\u2028sep`},
		{"日本語 ok", "日本語 ok", "日本語 ok"},
	}
	for _, tt := range tests {
		if got := Visible(tt.in); got != tt.text {
			t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.text)
		}
		if got := VisibleLine(tt.in); got != tt.line {
			t.Errorf("VisibleLine(%q) = %q, want %q", tt.in, got, tt.line)
		}
	}
}
