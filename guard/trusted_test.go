package guard

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/catalog"
)

// TestTrustedServers: a server configured with "trust": true (Gemini CLI)
// runs its tools without asking in isolated mode only, where the policy
// would otherwise ask; sensitive sites, local files and shared mode still
// ask, and a trust reset does not turn it into an ordinary grant.
func TestTrustedServers(t *testing.T) {
	work := t.TempDir()
	write := func(server, page string, files ...File) Call {
		c := Call{Tool: "mcp__" + server + "__save", Server: server, Name: "save", PageURL: page}
		if len(files) > 0 { // a tool whose schema names a file it writes
			e := catalog.Entry{Name: "save", Kind: catalog.MCP, Effect: catalog.Write, Files: []catalog.File{{Param: "path", Write: true}}}
			c.Entry, c.Files = &e, files
		}
		return c
	}
	tests := []struct {
		name string
		mode Mode
		call Call
		want string
	}{
		{"trusted, isolated", Isolated, write("gem", "https://example.com/"), "allow grant"},
		{"trusted, no page", Isolated, write("gem", ""), "allow grant"},
		{"not trusted", Isolated, write("other", "https://example.com/"), "ask policy"},
		{"trusted, shared mode", Shared, write("gem", "https://example.com/"), "ask policy"},
		{"trusted, sensitive site", Isolated, write("gem", "https://www.paypal.com/"), "ask rule"},
		{"trusted, a local file", Isolated, write("gem", "https://example.com/", File{Param: "path", Path: work + "/out.txt", Write: true}), "ask policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPolicy(defaultRules(t), &Options{Mode: tt.mode, TrustedServers: []string{"gem"}, Places: Places{WorkDir: work}})
			p.ResetTrust()
			d := p.Check(tt.call)
			if diff := cmp.Diff(tt.want, d.Verdict.String()+" "+d.DecidedBy); diff != "" {
				t.Errorf("(-want +got):\n%s\nreason: %s", diff, d.Reason)
			}
		})
	}
	p := NewPolicy(defaultRules(t), &Options{TrustedServers: []string{"gem"}})
	p.SetMode(Shared)
	if d := p.Check(write("gem", "https://example.com/")); d.Verdict != Ask {
		t.Errorf("after switching to shared mode the trusted server still runs without asking: %v", d.Reason)
	}
	p.SetMode(Isolated)
	if d := p.Check(write("gem", "https://example.com/")); d.Verdict != Allow {
		t.Errorf("back in isolated mode the trust is not honoured: %v", d.Reason)
	}
}
