package wire

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestQuickRequest: Quick takes on a command only in the forms the full
// command line would read the same way, and leaves everything else to it
// (a flag it does not know, help, start-up flags, bad usage, a local
// command, a screenshot).
func TestQuickRequest(t *testing.T) {
	t.Setenv(SessionEnv, "")
	for _, tc := range []struct {
		args    string
		want    *Request // nil: left to the full command line
		session string
		json    bool
	}{
		{"browser open http://127.0.0.1/", &Request{Command: "open", Args: []string{"http://127.0.0.1/"}}, DefaultSession, false},
		{"browser --session s1 --json snapshot -i --max 5", &Request{Command: "snapshot", Flags: map[string]string{"interactive": "true", "max": "5"}}, "s1", true},
		{"browser snapshot --selector=main --session=s2 -y", &Request{Command: "snapshot", Yes: true, Flags: map[string]string{"selector": "main"}}, "s2", false},
		{"browser click @e3 --double", &Request{Command: "click", Args: []string{"@e3"}, Flags: map[string]string{"double": "true"}}, DefaultSession, false},
		{"browser fill @e1 -- -5", nil, "", false},
		{"browser fill @e1", nil, "", false},  // too few arguments: cobra says so
		{"browser click a b", nil, "", false}, // too many
		{"browser click @e3 --bogus", nil, "", false},
		{"browser click @e3 --double=false", nil, "", false},
		{"browser --help", nil, "", false},
		{"browser open -h", nil, "", false},
		{"browser --headed open x", nil, "", false},
		{"browser --connect open x", nil, "", false},
		{"browser -iy snapshot", nil, "", false},
		{"browser --session ../x get url", nil, "", false},
		{"browser close --all", nil, "", false},
		{"browser screenshot a.png", nil, "", false},
		{"browser tabs", nil, "", false},
		{"browser sessions", nil, "", false},
		{"browser daemon", nil, "", false},
		{"browser", nil, "", false},
		{"fetch http://x/", nil, "", false},
		{"browser snapshot --max", nil, "", false},
	} {
		t.Run(tc.args, func(t *testing.T) {
			req, session, asJSON, ok := quickRequest(strings.Fields(tc.args))
			if tc.want == nil {
				if ok {
					t.Fatalf("took on %q: %+v", tc.args, req)
				}
				return
			}
			if !ok {
				t.Fatalf("left %q to the full command line", tc.args)
			}
			if tc.want.Flags == nil {
				tc.want.Flags = map[string]string{}
			}
			tc.want.Binary = req.Binary
			if diff := cmp.Diff(tc.want, req); diff != "" || session != tc.session || asJSON != tc.json {
				t.Errorf("(-want +got)\n%s session %q json %v", diff, session, asJSON)
			}
		})
	}
}
