package browsercli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/browsercli/wire"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/words"
	"github.com/browseragent/browseragent/tools"
)

// call runs one tool call through the session's registry, the one path
// every entry point uses. A failure comes back as the Response to print.
func (x *execution) call(name string, args map[string]any) (*tools.ToolResult, *wire.Response) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, &wire.Response{Exit: wire.ExitUsage, Error: err.Error()}
	}
	res, err := x.d.s.Registry.Call(x.ctx, name, raw, tools.OriginScript)
	switch {
	case errors.Is(err, guard.ErrDenied):
		msg := err.Error()
		if res != nil {
			msg = res.ForPerson()
		}
		return nil, &wire.Response{Exit: wire.ExitDenied, Error: oneLine(cliWords(msg))}
	case errors.Is(err, browser.ErrLost):
		return nil, &wire.Response{Exit: wire.ExitLost, Error: "the session's browser went away (closed or crashed): the next command starts a fresh one; its tabs and refs are gone"}
	case err != nil:
		return nil, &wire.Response{Exit: wire.ExitFailed, Error: oneLine(cliWords(words.Error(err)))}
	case res.IsError():
		msg := cliWords(res.ForPerson())
		return nil, &wire.Response{Exit: failureCode(res.Text), Error: oneLine(msg)}
	}
	return res, nil
}

// do is a command that is one tool call and prints what the tool said.
func (x *execution) do(name string, args map[string]any) *wire.Response {
	res, fail := x.call(name, args)
	if fail != nil {
		return fail
	}
	return textResponse(res)
}

func textResponse(res *tools.ToolResult) *wire.Response {
	text := cliWords(res.ForPerson())
	r := &wire.Response{Text: text, Data: map[string]any{"result": text}}
	if res.Tab != "" {
		r.Data["tab"] = res.Tab
	}
	return r
}

// failureCode tells a tool's failure apart by what the browser said: a
// ref that is not on the page (unknown, or the page changed), a tab that
// is gone, or anything else.
func failureCode(text string) int {
	switch {
	case strings.Contains(text, "is not on the page any more"), strings.Contains(text, "take a new browser_snapshot"):
		return wire.ExitStale
	case strings.Contains(text, "no current tab"), strings.HasPrefix(text, "no tab "),
		strings.Contains(text, "closed after it was checked"):
		return wire.ExitNoTab
	}
	return wire.ExitFailed
}

// cliCommands rewords the shell's commands in a tool's words for the
// person as this command line's.
var cliCommands = strings.NewReplacer(
	"take a new /snapshot", "take a new snapshot (browseragent browser snapshot)",
	"(/snapshot shows the fields)", "(browseragent browser snapshot shows the fields)",
	"(/snapshot shows the page)", "(browseragent browser snapshot shows the page)",
	"/snapshot shows what has rendered so far", "browseragent browser snapshot shows what has rendered so far",
	"/open URL opens one", "browseragent browser open URL opens one",
	"/tabs lists them and /tab N picks one", "browseragent browser tabs lists them and browseragent browser tab N picks one",
	"/tabs lists them", "browseragent browser tabs lists them",
	"/tabs lists the tabs", "browseragent browser tabs lists the tabs",
	"/navigate URL loads a page in it", "browseragent browser open URL loads a page in it",
	"/close ", "browseragent browser close ",
)

// cliDialog rewords a tool's advice on answering a dialog as this command
// line's commands.
var cliDialog = browser.DialogAnswers("browseragent browser dialog accept", "browseragent browser dialog dismiss")

func cliWords(s string) string { return cliDialog.Replace(cliCommands.Replace(s)) }

// oneLine joins a message's lines: errors are one line on stderr.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// connect attaches the session to the person's Chrome, as /connect does
// (trust reset, tabs of the person's never closed), unless it already is.
func (x *execution) connect(t wire.Target) *wire.Response {
	if x.d.s.Mode() == guard.Shared {
		return &wire.Response{}
	}
	msg, err := x.d.s.Connect(x.ctx, browser.Target{WSEndpoint: t.WSEndpoint, BrowserURL: t.BrowserURL, UserDataDir: t.UserDataDir})
	if err != nil {
		return &wire.Response{Exit: wire.ExitFailed, Error: oneLine(words.Error(err))}
	}
	_ = x.d.saveState()
	return &wire.Response{Notice: strings.TrimSpace(fmt.Sprintf("Session %s now drives your Chrome (shared mode). %s", x.d.p.Name, msg))}
}

// commandLine is req as the person typed it, for messages.
func commandLine(req *wire.Request) string {
	parts := append([]string{req.Command}, req.Args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\"'") {
			parts[i] = fmt.Sprintf("%q", p)
		}
	}
	return strings.Join(parts, " ")
}
