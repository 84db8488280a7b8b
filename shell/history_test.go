package shell

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/tools"
)

// TestHistoryLine: what history keeps of a line, with and without a tool
// result that said the line typed into a password field.
func TestHistoryLine(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		secret bool
		want   string
	}{
		{"type into password field", "/type e2 hunter2secret", true, "/type e2 ****"},
		{"type with spaces", "/type e2 correct horse battery", true, "/type e2 ****"},
		{"type into ordinary field", "/type e1 alice", false, "/type e1 alice"},
		{"call typing into password field", `/call browser_type {"ref":"e2","text":"hunter2"}`, true, `/call browser_type {"ref":"e2","text":"[redacted]"}`},
		{"call with bad JSON", `/call browser_type {"text":hunter2`, true, "/call browser_type ****"},
		{"url password", "/fetch http://user:s3cr3t@host/x", false, "/fetch http://user:redacted@host/x"},
		{"url token", "/fetch http://host/x?token=abc&page=2", false, "/fetch http://host/x?token=redacted&page=2"},
		{"bare host password and token", "/open user:s3cr3t@host/x?token=abc", false, "/open user:redacted@host/x?token=redacted"},
		{"plain url kept as typed", "/fetch https://example.com/a?q=b&z=1 --select h1", false, "/fetch https://example.com/a?q=b&z=1 --select h1"},
		{"bearer token in a message", "use Bearer abcdefghijklmnop1234 for the api", false, "use [redacted] for the api"},
		{"question mark in prose", "what is this? an @mention", false, "what is this? an @mention"},
		{"url inside /call JSON", `/call web_fetch {"url":"http://h/x?token=abc"}`, false, `/call web_fetch {"url":"http://h/x?token=redacted"}`},
		{"url in a message", "summarise https://bob:pw@h.example/a, please", false, "summarise https://bob:redacted@h.example/a, please"},
		{"email address kept", "mail alice@example.com about it", false, "mail alice@example.com about it"},
		{"empty secret line", "", true, ""},
		{"task with a password", "log in to example.com as bob with password hunter2 and read my inbox", false, "log in to example.com as bob with password *** and read my inbox"},
		{"task with a colon", "sign in (user: bob, password: Tr0ub4dor&3) then check", false, "sign in (user: bob, password: ***) then check"},
		{"task saying is", "my PIN is 4711.", false, "my PIN is ***."},
		{"quoted passphrase", `use passphrase "correct horse battery" there`, false, "use passphrase *** there"},
		{"api key", "set the api key=abc123def", false, "set the api key=***"},
		{"password as a word", "find the password field and the reset link", false, "find the password field and the reset link"},
		{"call secret-named argument", `/call login {"password":"pw","user":"bob"}`, false, `/call login {"password":"***","user":"bob"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, historyLine(tt.line, tt.secret)); diff != "" {
				t.Errorf("historyLine(%q, %v) (-want +got)\n%s", tt.line, tt.secret, diff)
			}
		})
	}
}

// TestLineMark: a typing line is kept as typed only when a tool answered
// that it did not type a secret; with no answer it is masked.
func TestLineMark(t *testing.T) {
	tests := []struct {
		name string
		line string
		res  *tools.ToolResult // nil: no tool answered
		want bool
	}{
		{"secret result", "/type e2 pw", &tools.ToolResult{Secret: true}, true},
		{"plain result", "/type e1 alice", &tools.ToolResult{}, false},
		{"type that never reached a tool", "/type e1 alice", nil, true},
		{"mcp fill that never reached a tool", `/call mcp__chrome-devtools__fill {"uid":"1_2","value":"pw"}`, nil, true},
		{"not a typing line", "/fetch example.com", nil, false},
		{"secret result of any line", "/call login {}", &tools.ToolResult{Secret: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, mark := withLineMark(context.Background())
			markLine(ctx, tt.res)
			if got := mark.typedSecret(tt.line); got != tt.want {
				t.Errorf("typedSecret(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}
