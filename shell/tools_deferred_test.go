package shell

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/agent"
	"github.com/browseragent/browseragent/tools"
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

// TestDialogCommand: /dialog answers the open dialog through browser_dialog
// (accept with a prompt's answer, dismiss), /hover calls browser_hover, and
// a result's advice on answering a dialog names /dialog, the shell's
// command, not the model's arguments.
func TestDialogCommand(t *testing.T) {
	toolList := newFakeTools()
	toolList.handlers["browser_click"] = func(context.Context, json.RawMessage) (*tools.ToolResult, error) {
		return &tools.ToolResult{Text: `A confirm dialog is open in tab t1: "Really delete?". The page is paused until it is answered: browser_dialog accept=true (OK) or accept=false (Cancel).`}, nil
	}
	out, errs, failed := runScriptResult(t, &Options{Tools: toolList},
		"/click e2\n/dialog dismiss\n/dialog accept Ada Lovelace\n/dialog maybe\n/hover e3\n")
	if failed != 1 || !strings.Contains(errs, "/dialog maybe: say accept") {
		t.Errorf("failed %d, want 1 (/dialog maybe)\nstderr: %s", failed, errs)
	}
	if want := "answered: /dialog accept (OK) or /dialog dismiss (Cancel)."; !strings.Contains(out, want) || strings.Contains(out, "accept=true") {
		t.Errorf("the dialog's advice is not the shell's words, want %q:\n%s", want, out)
	}
	var got []string
	for _, c := range toolList.got() {
		got = append(got, c.Name+" "+c.Args)
	}
	want := []string{`browser_click {"ref":"e2"}`, `browser_dialog {"accept":false}`,
		`browser_dialog {"accept":true,"text":"Ada Lovelace"}`, `browser_hover {"ref":"e3"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}
