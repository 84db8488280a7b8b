package cli

import (
	"strings"
	"testing"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// TestMCPHostFlags runs the reference server's elicitation, sampling and
// roots tools through `mcp call` with --elicit, --allow-sampling (against
// the scripted LLM) and --root, plus `mcp log-level`. Each step is the
// binary starting a server of its own, so the steps run in parallel.
func TestMCPHostFlags(t *testing.T) {
	t.Parallel()
	testutil.RequireProgram(t, "npx")
	llm := llmtest.New(t, llmtest.Rule{When: llmtest.LastUser("say hi"), Reply: llmtest.Text("hi from the scripted LLM")})
	e := newBinEnv(t, "OPENAI_BASE_URL="+llm.URL, "OPENAI_API_KEY=", "BROWSERAGENT_MODEL=test-model", npxInit)
	dir := e.dir
	extra := t.TempDir()
	ev := "npx -y @modelcontextprotocol/server-everything@2026.8.31"
	steps := []struct {
		name             string
		args             []string
		code             int
		out, err, notErr string
	}{
		{"elicitation declined by default", []string{"call", "--yes", "--cmd", ev, "trigger-elicitation-request"}, 0,
			"User declined", "browseragent: mcp adhoc: declined elicitation \"Please provide inputs for the following fields:\": declined: non-interactive run (use --elicit accept", ""},
		{"accept needs defaults for required fields", []string{"call", "--yes", "--elicit", "accept", "--cmd", ev, "trigger-elicitation-request"}, 0,
			"User declined", "required field(s) name have no default", ""},
		{"bad --elicit", []string{"call", "--elicit", "maybe", "--cmd", ev, "echo"}, 2, "", "want accept or decline", ""},
		{"sampling refused without --allow-sampling", []string{"call", "--yes", "--cmd", ev, "trigger-sampling-request", `{"prompt":"say hi"}`}, 1,
			"rejected", "use --allow-sampling", ""},
		{"sampling through the LLM", []string{"call", "--yes", "--allow-sampling", "--cmd", ev, "trigger-sampling-request", `{"prompt":"say hi"}`}, 0,
			"hi from the scripted LLM", "", "declined"},
		{"roots", []string{"call", "--yes", "--root", extra, "--cmd", ev, "get-roots-list"}, 0, "file://" + extra, "", ""},
		{"root must exist", []string{"call", "--root", dir + "/nope", "--cmd", ev, "get-roots-list"}, 2, "", "nope", ""},
		{"log level", []string{"log-level", "--cmd", ev, "debug"}, 0, "", "", "browseragent:"},
		{"bad log level", []string{"log-level", "--cmd", ev, "loud"}, 1, "", "unknown log level \"loud\": use one of debug, info", ""},
	}
	t.Cleanup(func() { // after every step; then newBinEnv's finds no process left
		if n := len(llm.Requests()); n != 1 {
			t.Errorf("%d LLM requests, want 1", n)
		}
	})
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			code, out, errs := e.run(t, "", append([]string{"mcp"}, st.args...)...)
			if code != st.code || !strings.Contains(out, st.out) || !strings.Contains(errs, st.err) || (st.notErr != "" && strings.Contains(errs, st.notErr)) {
				t.Errorf("%v: code %d, stdout %q, stderr %q; want %d, %q, %q", st.args, code, out, errs, st.code, st.out, st.err)
			}
		})
	}
}

func TestProgressLine(t *testing.T) {
	var b strings.Builder
	if p := newProgressLine(&b); p != nil {
		t.Fatal("a progress line on a non-terminal")
	}
	var nilLine *progressLine
	nilLine.show(mcpclient.Progress{Server: "s", Progress: 1})
	nilLine.clear()
	p := &progressLine{w: &b}
	p.clear() // nothing shown: nothing written
	p.show(mcpclient.Progress{Server: "everything", Progress: 2, Total: 5, Message: "copying"})
	p.show(mcpclient.Progress{Server: "everything", Progress: 3})
	p.clear()
	want := "\r\x1b[2Kmcp everything: copying 2/5\r\x1b[2Kmcp everything: 3\r\x1b[2K"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
}
