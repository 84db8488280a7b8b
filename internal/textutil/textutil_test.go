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
