package shell

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeyReader(t *testing.T) {
	tests := []struct {
		name   string
		reads  []string
		want   []string
		pastes map[string]string // placeholder → text after expand
	}{
		{"one key", []string{"a"}, []string{"a"}, nil},
		{"text and enter in one read", []string{"/help\r"}, []string{"/help", "\r"}, nil},
		{"two lines typed ahead", []string{"a\rb\r"}, []string{"a", "\r", "b", "\r"}, nil},
		{"arrows together", []string{"\x1b[A\x1b[A"}, []string{"\x1b[A", "\x1b[A"}, nil},
		{"escape split across reads", []string{"\x1b[", "B"}, []string{"\x1b[B"}, nil},
		{"lone escape", []string{"\x1b"}, []string{"\x1b"}, nil},
		{"unknown sequences dropped", []string{"x\x1b[I\x1bfy"}, []string{"x", "y"}, nil},
		{"tab is a key", []string{"/he\t"}, []string{"/he", "\t"}, nil},
		{"utf-8 text", []string{"héllo ✓\r"}, []string{"héllo ✓", "\r"}, nil},
		{"pasted command runs", []string{"\x1b[200~/tabs\n\x1b[201~"}, []string{"/tabs", "\r"}, nil},
		{"pasted text without newline waits", []string{"\x1b[200~hello\x1b[201~"}, []string{"hello"}, nil},
		{"paste tab and controls cleaned", []string{"\x1b[200~a\tb\x07c\x1b[201~"}, []string{"a bc"}, nil},
		{"multi-line paste is one placeholder", []string{"\x1b[200~line one\r\nline two\r\n\x1b[201~"},
			[]string{"[pasted text #1, 2 lines]"}, map[string]string{"[pasted text #1, 2 lines]": "line one\nline two"}},
		{"paste split across reads", []string{"\x1b[200~ab", "c\nd\x1b[2", "01~x"},
			[]string{"[pasted text #1, 2 lines]", "x"}, map[string]string{"[pasted text #1, 2 lines]": "abc\nd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := keyReader{pastes: &pasteStore{}}
			var got []string
			for _, r := range tt.reads {
				k.feed([]byte(r))
				for {
					tok, ok := k.next()
					if !ok {
						break
					}
					got = append(got, string(tok))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tokens (-want +got)\n%s", diff)
			}
			for ph, text := range tt.pastes {
				if got := k.pastes.expand("say: " + ph); got != "say: "+text {
					t.Errorf("expand = %q, want %q", got, "say: "+text)
				}
			}
		})
	}
}

func TestTTYParserGatesAfterEnter(t *testing.T) {
	// After Enter, go-prompt's reader goroutine may read once more before
	// it stops; that key must wait for the next line, not be lost.
	p := &ttyParser{keys: keyReader{pastes: &pasteStore{}}}
	p.keys.feed([]byte("a\rb"))
	var got []string
	for i := 0; i < 4; i++ {
		tok, err := p.Read()
		if err == nil {
			got = append(got, string(tok))
		}
	}
	if diff := cmp.Diff([]string{"a", "\r"}, got); diff != "" {
		t.Fatalf("first line (-want +got)\n%s", diff)
	}
	p.mu.Lock()
	p.gated = false // what Setup does for the next line
	p.mu.Unlock()
	tok, err := p.Read()
	if err != nil || string(tok) != "b" {
		t.Fatalf("next line got %q, %v; want \"b\"", tok, err)
	}
}
