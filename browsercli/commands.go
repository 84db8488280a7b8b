package browsercli

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Command is one `browseragent browser` subcommand: its usage, flags and,
// for the ones the daemon runs, what it does there.
type Command struct {
	Name    string
	Use     string // "click REF"
	Short   string
	MinArgs int
	MaxArgs int // -1: any number
	Flags   []Flag
	// Local: run by the command line itself (sessions, skill, close --all),
	// never through a session's daemon.
	Local bool
	run   func(x *execution) *Response
}

// Flag is one of a command's own flags; every value travels as a string
// ("true" for a boolean that was given).
type Flag struct {
	Name, Short, Usage string
	Bool               bool
}

// Commands lists every subcommand in the order `browser --help` shows them.
func Commands() []Command { return commands }

// Lookup finds a command by name.
func Lookup(name string) (Command, bool) {
	for _, c := range commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

var commands = []Command{
	{Name: "open", Use: "open URL", Short: "Load URL in the current tab (the first one opens a tab)", MinArgs: 1, MaxArgs: 1,
		Flags: []Flag{{Name: "new-tab", Bool: true, Usage: "open it in a new tab"}}, run: cmdOpen},
	{Name: "back", Use: "back", Short: "Go back in the current tab's history", run: history("back")},
	{Name: "forward", Use: "forward", Short: "Go forward in the current tab's history", run: history("forward")},
	{Name: "reload", Use: "reload", Short: "Reload the current tab", run: history("reload")},
	{Name: "snapshot", Use: "snapshot", Short: "Outline the page; interactive elements carry refs (e3) for the other commands",
		Flags: []Flag{{Name: "interactive", Short: "i", Bool: true, Usage: "only the controls (with refs) and headings, one line each"},
			{Name: "selector", Short: "s", Usage: "outline only the part this CSS `SELECTOR` matches"},
			{Name: "max", Usage: "print at most `N` lines"}}, run: cmdSnapshot},
	{Name: "click", Use: "click REF", Short: "Click an element by ref", MinArgs: 1, MaxArgs: 1,
		Flags: []Flag{{Name: "double", Bool: true, Usage: "double click"}, {Name: "right", Bool: true, Usage: "right click (a context menu)"}},
		run: onRef("browser_click", func(x *execution, a map[string]any) {
			if x.req.on("double") {
				a["count"] = 2
			}
			if x.req.on("right") {
				a["button"] = "right"
			}
		})},
	{Name: "hover", Use: "hover REF", Short: "Move the pointer onto an element (opens hover menus)", MinArgs: 1, MaxArgs: 1, run: onRef("browser_hover", nil)},
	{Name: "drag", Use: "drag REF TARGET", Short: "Drag an element onto another (a ref, or the drop zone's text)", MinArgs: 2, MaxArgs: 2,
		run: onRef("browser_drag", func(x *execution, a map[string]any) { a["to"] = strings.TrimPrefix(x.req.Args[1], "@") })},
	{Name: "upload", Use: "upload REF FILE...", Short: "Choose files for a file input (or the button that opens the chooser)", MinArgs: 2, MaxArgs: -1,
		run: onRef("browser_upload", func(x *execution, a map[string]any) { a["paths"] = x.req.Args[1:] })},
	{Name: "check", Use: "check REF", Short: "Check a checkbox, radio or switch", MinArgs: 1, MaxArgs: 1,
		run: onRef("browser_check", func(x *execution, a map[string]any) { a["checked"] = true })},
	{Name: "uncheck", Use: "uncheck REF", Short: "Uncheck a checkbox or switch", MinArgs: 1, MaxArgs: 1,
		run: onRef("browser_check", func(x *execution, a map[string]any) { a["checked"] = false })},
	{Name: "dialog", Use: "dialog accept|dismiss [TEXT]", Short: "Answer the open alert, confirm or prompt (TEXT: a prompt's answer)", MinArgs: 1, MaxArgs: 2, run: cmdDialog},
	{Name: "download", Use: "download REF [DIR]", Short: "Save what a link downloads (into DIR, default your downloads folder)", MinArgs: 1, MaxArgs: 2,
		run: onRef("browser_download", func(x *execution, a map[string]any) {
			if len(x.req.Args) > 1 {
				a["dir"] = x.req.Args[1]
			}
		})},
	{Name: "fill", Use: "fill REF TEXT", Short: "Replace the text of a field", MinArgs: 2, MaxArgs: 2,
		Flags: []Flag{{Name: "submit", Bool: true, Usage: "press Enter afterwards"}}, run: cmdFill},
	{Name: "type", Use: "type TEXT", Short: "Type text into the element that has the focus (fill types into a ref)", MinArgs: 1, MaxArgs: 1,
		run: tool("browser_press", func(x *execution, a map[string]any) { a["text"] = x.req.Args[0] })},
	{Name: "press", Use: "press KEY", Short: "Press a key (Enter, Tab, Escape, ArrowDown, Control+a)", MinArgs: 1, MaxArgs: 1, run: cmdPress},
	{Name: "select", Use: "select REF VALUE", Short: "Choose an option of a <select> by value or label", MinArgs: 2, MaxArgs: 2,
		run: onRef("browser_select", func(x *execution, a map[string]any) { a["value"] = x.req.Args[1] })},
	{Name: "scroll", Use: "scroll [down|up|top|bottom|REF]", Short: "Scroll the page, or an element into view", MaxArgs: 1, run: cmdScroll},
	{Name: "wait", Use: "wait [TEXT|SELECTOR|MS]", Short: "Wait for text, a CSS selector, the page's load (--load), or a number of milliseconds", MaxArgs: 1,
		Flags: []Flag{{Name: "text", Usage: "wait until this `TEXT` shows"}, {Name: "selector", Usage: "wait until this CSS `SELECTOR` matches a visible element"},
			{Name: "load", Bool: true, Usage: "wait until the page has loaded and its network is quiet (500 ms without a request)"},
			{Name: "timeout", Usage: "give up after this many `SECONDS` (default 10, at most 60)"}}, run: cmdWait},
	{Name: "get", Use: "get text|html|url|title | get text|value|html REF | get attr NAME REF", Short: "Print the page's text (markdown), HTML, URL or title, or an element's text, value, HTML or attribute", MinArgs: 1, MaxArgs: 3, run: cmdGet},
	{Name: "screenshot", Use: "screenshot [FILE]", Short: "Save a screenshot (.png or .jpg)", MaxArgs: 1,
		Flags: []Flag{{Name: "full", Bool: true, Usage: "the whole page, not only the viewport"},
			{Name: "annotate", Bool: true, Usage: "draw each control's ref on the image, and list them"}}, run: cmdScreenshot},
	{Name: "pdf", Use: "pdf FILE", Short: "Print the page to a .pdf file (a file write: it asks, as download does)", MinArgs: 1, MaxArgs: 1, run: cmdPDF},
	{Name: "eval", Use: "eval JS", Short: "Run JavaScript in the page and print its JSON result", MinArgs: 1, MaxArgs: 1,
		run: tool("browser_eval", func(x *execution, a map[string]any) { a["js"] = x.req.Args[0] })},
	{Name: "tabs", Use: "tabs", Short: "List the session's tabs", run: tool("browser_tabs", nil)},
	{Name: "tab", Use: "tab N", Short: "Make tab N current", MinArgs: 1, MaxArgs: 1,
		run: tool("browser_select_tab", func(x *execution, a map[string]any) { a["tab"] = tabID(x.req.Args[0]) })},
	{Name: "close", Use: "close [N]", Short: "Close the current tab (or tab N); --all ends every session", MaxArgs: 1,
		Flags: []Flag{{Name: "all", Bool: true, Usage: "end every session: close their browsers, stop their daemons"}}, run: cmdClose},
	{Name: "pending", Use: "pending", Short: "List the commands waiting for approval"},
	{Name: "confirm", Use: "confirm ID", Short: "Approve a command that waits for approval, and run it", MinArgs: 1, MaxArgs: 1},
	{Name: "deny", Use: "deny ID", Short: "Drop a command that waits for approval", MinArgs: 1, MaxArgs: 1},
	{Name: "sessions", Use: "sessions", Short: "List the running sessions", Local: true},
	{Name: "skill", Use: "skill", Short: "Print a SKILL.md that teaches a coding agent these commands", Local: true},
}

// execution is one command being run in the daemon.
type execution struct {
	ctx context.Context
	d   *daemon
	req *Request
}

// execute runs req's command: it must be one the daemon runs.
func (d *daemon) execute(ctx context.Context, req *Request) *Response {
	c, ok := Lookup(req.Command)
	if !ok || c.run == nil {
		return &Response{Exit: ExitUsage, Error: fmt.Sprintf("unknown browser command %q", req.Command)}
	}
	x := &execution{ctx: ctx, d: d, req: req}
	var notice string
	if req.Connect != nil {
		r := x.connect(*req.Connect)
		if r.Exit != ExitOK {
			return r
		}
		notice = r.Notice
	}
	resp := c.run(x)
	if notice != "" && resp.Notice == "" {
		resp.Notice = notice
	}
	return resp
}

// tool is a command that is one tool call, with arguments set by fill.
func tool(name string, fill func(x *execution, a map[string]any)) func(x *execution) *Response {
	return func(x *execution) *Response {
		a := map[string]any{}
		if fill != nil {
			fill(x, a)
		}
		return x.do(name, a)
	}
}

// onRef is a tool call on the element the first argument names.
func onRef(name string, fill func(x *execution, a map[string]any)) func(x *execution) *Response {
	return func(x *execution) *Response {
		ref, err := refArg(x.req.Args[0])
		if err != nil {
			return err
		}
		a := map[string]any{"ref": ref}
		if fill != nil {
			fill(x, a)
		}
		return x.do(name, a)
	}
}

var refRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z]*[0-9]+(?:e[0-9]+)?$`) })

// refArg takes a ref as snapshots print it (e3) or as agent-browser's
// users write it (@e3).
func refArg(s string) (string, *Response) {
	ref := strings.TrimPrefix(strings.TrimSpace(s), "@")
	if !refRE().MatchString(ref) {
		return "", &Response{Exit: ExitUsage, Error: fmt.Sprintf("%q is not a ref: refs look like e3 (or @e3), from `browser snapshot`", s)}
	}
	return ref, nil
}

// tabID takes a tab as `browser tabs` lists it (t2) or as a number (2).
func tabID(s string) string {
	if _, err := strconv.Atoi(s); err == nil {
		return "t" + s
	}
	return s
}

func history(move string) func(x *execution) *Response {
	return tool("browser_navigate", func(x *execution, a map[string]any) { a["url"] = move })
}

// cmdOpen loads the URL in the current tab, or in a new one when there is
// none (the session's first open) or --new-tab says so.
func cmdOpen(x *execution) *Response {
	url := x.req.Args[0]
	if x.req.on("new-tab") || x.d.s.Browser.CurrentTab() == "" {
		return x.do("browser_open", map[string]any{"url": url})
	}
	return x.do("browser_navigate", map[string]any{"url": url})
}

func cmdFill(x *execution) *Response {
	return onRef("browser_type", func(x *execution, a map[string]any) {
		a["text"] = x.req.Args[1]
		if x.req.on("submit") {
			a["submit"] = true
		}
	})(x)
}

func cmdPress(x *execution) *Response {
	return x.do("browser_press", map[string]any{"key": x.req.Args[0]})
}

func cmdScroll(x *execution) *Response {
	a := map[string]any{}
	if len(x.req.Args) == 1 {
		switch arg := x.req.Args[0]; arg {
		case "down", "up", "top", "bottom":
			a["direction"] = arg
		default:
			ref, err := refArg(arg)
			if err != nil {
				return err
			}
			a["ref"] = ref
		}
	}
	return x.do("browser_scroll", a)
}

// looksLikeSelector is fetch --wait-for's rule: a CSS selector starts with
// # . [ or holds > or :.
func looksLikeSelector(s string) bool {
	return strings.HasPrefix(s, "#") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "[") || strings.ContainsAny(s, ">:")
}

func cmdWait(x *execution) *Response {
	a := map[string]any{}
	if t := x.req.flag("timeout"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return &Response{Exit: ExitUsage, Error: fmt.Sprintf("--timeout %q: give a whole number of seconds", t)}
		}
		a["timeout"] = n
	}
	if x.req.on("load") {
		a["load"] = true
	}
	switch {
	case x.req.on("load") && x.req.flag("text") == "" && x.req.flag("selector") == "" && len(x.req.Args) == 0:
	case x.req.flag("text") != "":
		a["text"] = x.req.flag("text")
	case x.req.flag("selector") != "":
		a["selector"] = x.req.flag("selector")
	case len(x.req.Args) == 0:
		return &Response{Exit: ExitUsage, Error: "wait for what? give TEXT, a CSS SELECTOR, a number of milliseconds, --text or --selector"}
	default:
		arg := x.req.Args[0]
		if ms, err := strconv.Atoi(arg); err == nil && ms >= 0 {
			return x.sleep(time.Duration(ms) * time.Millisecond)
		}
		if looksLikeSelector(arg) {
			a["selector"] = arg
		} else {
			a["text"] = arg
		}
	}
	return x.do("browser_wait", a)
}

// sleep is `wait MS`: it touches no page, so it is no tool call.
func (x *execution) sleep(d time.Duration) *Response {
	select {
	case <-time.After(d):
	case <-x.ctx.Done():
		return &Response{Exit: ExitFailed, Error: "the session ended during the wait"}
	}
	return &Response{Text: fmt.Sprintf("Waited %d ms.", d.Milliseconds()), Data: map[string]any{"waited_ms": d.Milliseconds()}}
}

func cmdDialog(x *execution) *Response {
	a := map[string]any{}
	switch x.req.Args[0] {
	case "accept":
		a["accept"] = true
	case "dismiss":
		a["accept"] = false
	default:
		return &Response{Exit: ExitUsage, Error: fmt.Sprintf("dialog %q: say accept or dismiss", x.req.Args[0])}
	}
	if len(x.req.Args) > 1 {
		a["text"] = x.req.Args[1]
	}
	return x.do("browser_dialog", a)
}

func cmdClose(x *execution) *Response {
	a := map[string]any{}
	if len(x.req.Args) == 1 {
		a["tab"] = tabID(x.req.Args[0])
	}
	return x.do("browser_close", a)
}
