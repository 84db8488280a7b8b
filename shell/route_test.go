package shell

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want *call
		err  string
	}{
		{"no args", "/tabs", &call{name: "tabs", flags: map[string]string{}}, ""},
		{"positional", "/open example.com", &call{name: "open", args: []string{"example.com"}, flags: map[string]string{}, rest: "example.com"}, ""},
		{"flag with space", "/fetch https://a.test/ --select h1", &call{name: "fetch", args: []string{"https://a.test/"}, flags: map[string]string{"select": "h1"}, rest: "https://a.test/ --select h1"}, ""},
		{"flag with =", "/fetch u --select=div.x", &call{name: "fetch", args: []string{"u"}, flags: map[string]string{"select": "div.x"}, rest: "u --select=div.x"}, ""},
		{"quoted value", `/fetch u --select "div > p"`, &call{name: "fetch", args: []string{"u"}, flags: map[string]string{"select": "div > p"}, rest: `u --select "div > p"`}, ""},
		{"unknown flag", "/fetch u --sel h1", nil, "/fetch: unknown flag --sel"},
		{"flag missing value", "/fetch u --select", nil, "/fetch: --select needs a value (CSS)"},
		{"unclosed quote", `/open "x`, nil, "unclosed quote \""},
		{"raw args keep flags", `/call t {"a": "--x"}`, &call{name: "call", args: []string{"t", "{a:", "--x}"}, flags: map[string]string{}, rest: `t {"a": "--x"}`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.line[1:]
			if i := indexSpace(name); i >= 0 {
				name = name[:i]
			}
			got, err := parseLine(tt.line, lookup(name))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(call{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func indexSpace(s string) int {
	for i, r := range s {
		if r == ' ' {
			return i
		}
	}
	return -1
}

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"hepl", []string{"help"}},
		{"scrren", []string{"screen"}},
		{"snap", []string{"snapshot"}},
		{"tab", []string{"tab", "tabs"}},
		{"xyzzy", nil},
	}
	names := []string{"help", "screen", "snapshot", "tab", "tabs", "open"}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, didYouMean(tt.in, names)); diff != "" {
			t.Errorf("didYouMean(%q) (-want +got)\n%s", tt.in, diff)
		}
	}
}

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a b  c", []string{"a", "b", "c"}},
		{`"a b" 'c d' e"f g"`, []string{"a b", "c d", "ef g"}},
		{`""`, []string{""}},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitWords(%q) (-want +got)\n%s", tt.in, diff)
		}
	}
}

func TestRedactLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/open example.com", "/open example.com"},
		{`/call web_fetch {"url": "x"}`, `/call web_fetch {"url": "x"}`},
		{`/call browser_login {"user": "me", "password": "hunter2"}`, `/call browser_login {"password":"***","user":"me"}`},
		{`/call t {"form": {"api_key": "k", "n": 1}}`, `/call t {"form":{"api_key":"***","n":1}}`},
		{`/call t password=hunter2`, `/call t ***`},
		{"tell me my password", "tell me my password"},
	}
	for _, tt := range tests {
		if got := redactLine(tt.in); got != tt.want {
			t.Errorf("redactLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
