package shell

import (
	"context"
	"encoding/json"
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
	toolList := newFakeTools()
	out, _ := runScript(t, &Options{Tools: toolList, Agent: deferringAgent{deferred: []string{"web_fetch"}}}, "/tools\n")
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

// TestOpenRefusesNonAddress: /open and /fetch of a bare word say it is not
// a web address and call no tool (it used to open https://notaurl, an
// empty tab); a bare domain, localhost and an IP with a port still open (this machine
// as http://, as a browser's address bar does).
func TestOpenRefusesNonAddress(t *testing.T) {
	toolList := newFakeTools()
	out, errs, failed := runScriptResult(t, &Options{Tools: toolList}, "/open notaurl\n/fetch notaurl\n/open example.com/a\n/open localhost:8080/x\n/open 127.0.0.1:9/y\n")
	const want = `error: "notaurl" is not a web address: it has no scheme and no domain`
	if failed != 2 || strings.Count(errs, want) != 2 || !strings.Contains(errs+out, "write it as https://example.com/page (or http://notaurl/ for a name on your network)") {
		t.Errorf("failed %d\nstdout: %s\nstderr: %s", failed, out, errs)
	}
	var urls []string
	for _, c := range toolList.got() {
		var a struct{ URL string }
		json.Unmarshal([]byte(c.Args), &a)
		urls = append(urls, c.Name+" "+a.URL)
	}
	wantCalls := []string{"browser_open https://example.com/a", "browser_open http://localhost:8080/x", "browser_open http://127.0.0.1:9/y"}
	if strings.Join(urls, "\n") != strings.Join(wantCalls, "\n") {
		t.Errorf("tool calls:\n%s\nwant:\n%s", strings.Join(urls, "\n"), strings.Join(wantCalls, "\n"))
	}
}

// TestScreenshotFormatFollowsName: .png asks for PNG, .jpg for JPEG, and a
// name that is neither (.gif) is refused before any screenshot is taken.
func TestScreenshotFormatFollowsName(t *testing.T) {
	toolList := newFakeTools()
	dir := t.TempDir()
	_, errs, failed := runScriptResult(t, &Options{Tools: toolList, ScreenshotDir: dir},
		"/screenshot "+dir+"/a.png\n/screenshot "+dir+"/b.jpg\n/screenshot "+dir+"/c.gif\n")
	if failed != 1 || !strings.Contains(errs, "screenshots are PNG or JPEG, not .gif") {
		t.Errorf("failed %d, stderr:\n%s", failed, errs)
	}
	var formats []string
	for _, c := range toolList.got() {
		var a struct{ Format string }
		json.Unmarshal([]byte(c.Args), &a)
		formats = append(formats, c.Name+" "+a.Format)
	}
	if got, want := strings.Join(formats, ","), "browser_screenshot png,browser_screenshot jpeg"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
}
