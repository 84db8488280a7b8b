package browsercli

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/browsercli/wire"
)

// runs are what the daemon does for each command it runs, by name
// (wire.Commands lists them all).
var runs = map[string]func(x *execution) *wire.Response{
	"open":     cmdOpen,
	"back":     history("back"),
	"forward":  history("forward"),
	"reload":   history("reload"),
	"snapshot": cmdSnapshot,
	"click": onRef("browser_click", func(x *execution, a map[string]any) {
		if x.req.On("double") {
			a["count"] = 2
		}
		if x.req.On("right") {
			a["button"] = "right"
		}
	}),
	"hover":   onRef("browser_hover", nil),
	"drag":    onRef("browser_drag", func(x *execution, a map[string]any) { a["to"] = strings.TrimPrefix(x.req.Args[1], "@") }),
	"upload":  onRef("browser_upload", func(x *execution, a map[string]any) { a["paths"] = x.req.Args[1:] }),
	"check":   onRef("browser_check", func(x *execution, a map[string]any) { a["checked"] = true }),
	"uncheck": onRef("browser_check", func(x *execution, a map[string]any) { a["checked"] = false }),
	"dialog":  cmdDialog,
	"download": onRef("browser_download", func(x *execution, a map[string]any) {
		if len(x.req.Args) > 1 {
			a["dir"] = x.req.Args[1]
		}
	}),
	"fill":       cmdFill,
	"type":       tool("browser_press", func(x *execution, a map[string]any) { a["text"] = x.req.Args[0] }),
	"press":      cmdPress,
	"select":     onRef("browser_select", func(x *execution, a map[string]any) { a["value"] = x.req.Args[1] }),
	"scroll":     cmdScroll,
	"wait":       cmdWait,
	"get":        cmdGet,
	"screenshot": cmdScreenshot,
	"pdf":        cmdPDF,
	"eval":       tool("browser_eval", func(x *execution, a map[string]any) { a["js"] = x.req.Args[0] }),
	"tabs":       cmdTabs,
	"tab":        tool("browser_select_tab", func(x *execution, a map[string]any) { a["tab"] = tabID(x.req.Args[0]) }),
	"close":      cmdClose,
}

// execution is one command being run in the daemon.
type execution struct {
	ctx context.Context
	d   *daemon
	req *wire.Request
}

// execute runs req's command: it must be one the daemon runs.
func (d *daemon) execute(ctx context.Context, req *wire.Request) *wire.Response {
	run, ok := runs[req.Command]
	if !ok {
		return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("unknown browser command %q", req.Command)}
	}
	x := &execution{ctx: ctx, d: d, req: req}
	var notice string
	if req.Connect != nil {
		r := x.connect(*req.Connect)
		if r.Exit != wire.ExitOK {
			return r
		}
		notice = r.Notice
	}
	resp := run(x)
	if notice != "" && resp.Notice == "" {
		resp.Notice = notice
	}
	return resp
}

// tool is a command that is one tool call, with arguments set by fill.
func tool(name string, fill func(x *execution, a map[string]any)) func(x *execution) *wire.Response {
	return func(x *execution) *wire.Response {
		a := map[string]any{}
		if fill != nil {
			fill(x, a)
		}
		return x.do(name, a)
	}
}

// onRef is a tool call on the element the first argument names.
func onRef(name string, fill func(x *execution, a map[string]any)) func(x *execution) *wire.Response {
	return func(x *execution) *wire.Response {
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
func refArg(s string) (string, *wire.Response) {
	ref := strings.TrimPrefix(strings.TrimSpace(s), "@")
	if !refRE().MatchString(ref) {
		return "", &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("%q is not a ref: refs look like e3 (or @e3), from `browser snapshot`", s)}
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

func history(move string) func(x *execution) *wire.Response {
	return tool("browser_navigate", func(x *execution, a map[string]any) { a["url"] = move })
}

// cmdOpen loads the URL in the current tab when the session opened it,
// else in a new one: when there is none (the session's first open), when
// the current tab is one of the person's (with --connect: loading a page
// there would leave theirs behind, which asks every time) or when
// --new-tab says so.
func cmdOpen(x *execution) *wire.Response {
	url := x.req.Args[0]
	if x.req.On("new-tab") || !currentIsOurs(x.d.s.Browser.Tabs()) {
		return x.do("browser_open", map[string]any{"url": url})
	}
	return x.do("browser_navigate", map[string]any{"url": url})
}

// currentIsOurs reports whether the current tab is one the session opened.
func currentIsOurs(tabs []browser.Tab) bool {
	for _, t := range tabs {
		if t.Current {
			return t.Owned
		}
	}
	return false
}

func cmdFill(x *execution) *wire.Response {
	return onRef("browser_type", func(x *execution, a map[string]any) {
		a["text"] = x.req.Args[1]
		if x.req.On("submit") {
			a["submit"] = true
		}
	})(x)
}

func cmdPress(x *execution) *wire.Response {
	return x.do("browser_press", map[string]any{"key": x.req.Args[0]})
}

func cmdScroll(x *execution) *wire.Response {
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

func cmdWait(x *execution) *wire.Response {
	a := map[string]any{}
	if t := x.req.Flag("timeout"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("--timeout %q: give a whole number of seconds", t)}
		}
		a["timeout"] = n
	}
	if x.req.On("load") {
		a["load"] = true
	}
	switch {
	case x.req.On("load") && x.req.Flag("text") == "" && x.req.Flag("selector") == "" && len(x.req.Args) == 0:
	case x.req.Flag("text") != "":
		a["text"] = x.req.Flag("text")
	case x.req.Flag("selector") != "":
		a["selector"] = x.req.Flag("selector")
	case len(x.req.Args) == 0:
		return &wire.Response{Exit: wire.ExitUsage, Error: "wait for what? give TEXT, a CSS SELECTOR, a number of milliseconds, --text or --selector"}
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
func (x *execution) sleep(d time.Duration) *wire.Response {
	select {
	case <-time.After(d):
	case <-x.ctx.Done():
		return &wire.Response{Exit: wire.ExitFailed, Error: "the session ended during the wait"}
	}
	return &wire.Response{Text: fmt.Sprintf("Waited %d ms.", d.Milliseconds()), Data: map[string]any{"waited_ms": d.Milliseconds()}}
}

func cmdDialog(x *execution) *wire.Response {
	a := map[string]any{}
	switch x.req.Args[0] {
	case "accept":
		a["accept"] = true
	case "dismiss":
		a["accept"] = false
	default:
		return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("dialog %q: say accept or dismiss", x.req.Args[0])}
	}
	if len(x.req.Args) > 1 {
		a["text"] = x.req.Args[1]
	}
	return x.do("browser_dialog", a)
}

func cmdClose(x *execution) *wire.Response {
	a := map[string]any{}
	if len(x.req.Args) == 1 {
		a["tab"] = tabID(x.req.Args[0])
	}
	return x.do("browser_close", a)
}
