package shell

import (
	"context"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/agent"
)

// deferringAgent is an Agent whose last request left some tools out.
type deferringAgent struct{ deferred []string }

func (deferringAgent) Turn(context.Context, string, agent.Events) (string, error) { return "", nil }
func (deferringAgent) SetModel(string)                                            {}
func (deferringAgent) Settings() agent.Settings                                   { return agent.Settings{} }
func (deferringAgent) Reset()                                                     {}
func (a deferringAgent) DeferredTools() []string                                  { return a.deferred }

// TestToolsSaysDeferred: /tools marks the tools the agent's requests leave
// behind tool_search, and says how many.
func TestToolsSaysDeferred(t *testing.T) {
	tools := newFakeTools()
	out, _ := runScript(t, &Options{Tools: tools, Agent: deferringAgent{deferred: []string{"web_fetch"}}}, "/tools\n")
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "web_fetch ") {
			line = l
		}
	}
	if !strings.Contains(line, "(deferred) the web_fetch tool") {
		t.Errorf("web_fetch line = %q, want it marked deferred", line)
	}
	if !strings.Contains(out, "1 deferred: too many to send with every request, the agent finds them with tool_search") {
		t.Errorf("no count of deferred tools:\n%s", out)
	}
}
