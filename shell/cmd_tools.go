package shell

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	runewidth "github.com/mattn/go-runewidth"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/media"
	"github.com/browseragent/browseragent/tools"
)

func browserCommands() []*command {
	return []*command{
		{name: "connect", args: "[--user-data-dir D | --browser-url U | --ws-endpoint W]",
			summary: "attach to your running Chrome (shared mode)",
			help: "With no flag, finds Chrome through DevToolsActivePort in the default profiles: allow remote\n" +
				"debugging at chrome://inspect/#remote-debugging first. In shared mode every write (click, type,\n" +
				"key, JavaScript) asks first, on your tabs and the agent's own alike; on sensitive sites no\n" +
				"standing grant applies, each write needs a fresh yes.",
			flags: []flagSpec{
				{"user-data-dir", "DIR", "the Chrome profile directory whose DevToolsActivePort to read"},
				{"browser-url", "URL", "http://127.0.0.1:9222 of a Chrome started with --remote-debugging-port"},
				{"ws-endpoint", "WS", "ws://... the browser's DevTools websocket"},
			},
			run: cmdConnect},
		{name: "disconnect", summary: "leave your Chrome and go back to the isolated browser", run: cmdDisconnect},
		{name: "mode", summary: "say which browser the tools drive", run: cmdMode},
		{name: "tabs", summary: "list the browser's tabs", run: toolCmd("browser_tabs", nil)},
		{name: "tab", args: "N", summary: "make tab N the one tools act on", minArgs: 1,
			run: cmdTab, complete: completeTabs},
		{name: "open", args: "URL", summary: "open URL in a new tab", minArgs: 1,
			run: cmdOpen},
		{name: "navigate", args: "URL", summary: "load URL in the current tab", minArgs: 1,
			run: cmdNavigate},
		{name: "back", summary: "go back one page in the current tab",
			run: toolCmd("browser_navigate", func(*call) map[string]any { return map[string]any{"url": "back"} })},
		{name: "close", args: "[TAB]", summary: "close tab TAB (from /tabs), or the current one", run: cmdClose, complete: completeTabs,
			help: "Goes through the guard like the agent's browser_close. In your own Chrome (/connect) only the\n" +
				"tabs the agent opened can be closed: yours are refused, whoever asks; close them in Chrome."},
		{name: "snapshot", args: "[-i] [CSS]", summary: "text outline of the page, with refs for /click and /type (-i: only the controls)",
			run: toolCmd("browser_snapshot", func(c *call) map[string]any {
				args := map[string]any{}
				for _, a := range c.args {
					if a == "-i" {
						args["interactive"] = true
					} else {
						args["selector"] = a
					}
				}
				return args
			})},
		{name: "screenshot", args: "[FILE]", summary: "screenshot of the page, saved to FILE (png or jpeg)", run: cmdScreenshot},
		{name: "click", args: "REF", summary: "click the element REF (from /snapshot)", minArgs: 1,
			run: toolCmd("browser_click", func(c *call) map[string]any { return map[string]any{"ref": c.args[0]} })},
		{name: "type", args: "REF TEXT", summary: "replace the text of field REF with TEXT", minArgs: 2, rawArgs: true,
			run: cmdType},
		{name: "hover", args: "REF", summary: "move the pointer onto REF and leave it there (menus that open on hover)", minArgs: 1,
			run: toolCmd("browser_hover", func(c *call) map[string]any { return map[string]any{"ref": c.args[0]} })},
		{name: "dialog", args: "accept|dismiss [TEXT]", summary: "answer the page's open alert, confirm or prompt (TEXT: a prompt's answer)", minArgs: 1, rawArgs: true,
			help: "Goes through the guard like the agent's browser_dialog: on a sensitive page, and in a tab you\n" +
				"opened in your own Chrome, it asks first. A dialog is never answered for you.",
			run: cmdDialog},
		{name: "fetch", args: "URL [--select CSS]", summary: "fetch a page over HTTP as markdown (web_fetch)", minArgs: 1,
			flags: []flagSpec{{"select", "CSS", "only the parts matching a CSS selector"}},
			run:   cmdFetch},
	}
}

func toolCommands() []*command {
	return []*command{
		{name: "tools", args: "[FILTER]", summary: "list the tools the agent has", run: cmdTools},
		{name: "call", args: "TOOL [JSON]", summary: "call any tool by its full name, through the guard", minArgs: 1, rawArgs: true,
			help: "Example: /call web_fetch {\"url\": \"https://example.com\"}\nThe same approvals and audit log apply as for the agent.",
			run:  cmdCall, complete: completeToolNames},
	}
}

// cmdDialog answers the open dialog: /dialog accept [TEXT] or /dialog dismiss.
func cmdDialog(ctx context.Context, s *Shell, c *call) error {
	verb, text, _ := strings.Cut(strings.TrimSpace(c.rest), " ")
	args := map[string]any{}
	switch strings.ToLower(verb) {
	case "accept", "ok", "yes":
		args["accept"] = true
		if text = strings.TrimSpace(text); text != "" {
			args["text"] = text
		}
	case "dismiss", "cancel", "no":
		args["accept"] = false
	default:
		return fmt.Errorf("/dialog %s: say accept (OK, with a prompt's answer after it) or dismiss (Cancel)", verb)
	}
	return s.callTool(ctx, "browser_dialog", args)
}

// toolCmd makes a command that calls one tool with arguments built from the line.
func toolCmd(tool string, build func(*call) map[string]any) func(context.Context, *Shell, *call) error {
	return func(ctx context.Context, s *Shell, c *call) error {
		var args map[string]any
		if build != nil {
			args = build(c)
		}
		return s.callTool(ctx, tool, args)
	}
}

// callTool runs tool through the one tool-call path and prints its result.
func (s *Shell) callTool(ctx context.Context, tool string, args map[string]any) error {
	if args == nil {
		args = map[string]any{}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	return s.callRaw(ctx, tool, raw)
}

func (s *Shell) callRaw(ctx context.Context, tool string, raw json.RawMessage) error {
	s.p.SpinStart(tool)
	res, err := s.opts.Tools.Call(ctx, tool, raw, tools.OriginCommand)
	s.p.SpinStop()
	markLine(ctx, res) // a Secret result keeps the typed value out of history
	if err != nil && !errors.Is(err, guard.ErrDenied) {
		return err
	}
	return s.printResult(res)
}

// shellWords rewords a tool's advice on answering a dialog as this shell's
// command: the person answers with /dialog, not with the model's arguments.
var shellWords = browser.DialogAnswers("/dialog accept", "/dialog dismiss")

// printResult shows a tool result: text, then where images were saved.
func (s *Shell) printResult(res *tools.ToolResult) error {
	if res == nil {
		return nil
	}
	if res.IsError() {
		return errors.New(strings.TrimSpace(shellWords.Replace(res.ForPerson())))
	}
	s.p.Text(textutil.Visible(shellWords.Replace(res.ForPerson()))) // a page or a server chose it
	for i, img := range res.Images {
		path := res.Path
		if path == "" || i > 0 {
			var err error
			if path, err = s.saveImage("", img); err != nil {
				return err
			}
		}
		if !strings.Contains(res.Text, path) {
			s.p.Hint("saved %s (%s, %d KB)", path, img.MIME, (len(img.Data)+1023)/1024)
		}
		s.showImage(img)
	}
	if len(res.Images) == 0 && res.Path != "" && !strings.Contains(res.Text, res.Path) {
		s.p.Hint("saved %s", res.Path)
	}
	return nil
}

// saveImage writes img to file, or to a new name in ScreenshotDir (by
// default where the browser keeps its screenshots), never in the working
// directory.
func (s *Shell) saveImage(file string, img media.Image) (string, error) {
	if file == "" {
		ext := ".png"
		if strings.Contains(img.MIME, "jpeg") {
			ext = ".jpg"
		}
		dir := s.opts.ScreenshotDir
		if dir == "" {
			dir = defaultScreenshotDir()
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("save image: %w", err)
		}
		file = filepath.Join(dir, "screenshot-"+time.Now().Format("20060102-150405.000")+ext)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(abs, img.Data, 0o644); err != nil {
		return "", fmt.Errorf("save screenshot: %w", err)
	}
	return abs, nil
}

// defaultScreenshotDir is $TMPDIR/browseragent-screenshots, where the
// browser saves screenshots too.
func defaultScreenshotDir() string {
	return filepath.Join(os.TempDir(), "browseragent-screenshots")
}

func cmdScreenshot(ctx context.Context, s *Shell, c *call) error {
	args := map[string]any{}
	file := ""
	if len(c.args) > 0 {
		file = c.args[0]
		switch ext := strings.ToLower(filepath.Ext(file)); ext {
		case ".png":
			args["format"] = "png"
		case ".jpg", ".jpeg", "":
			args["format"] = "jpeg"
		default:
			// The file's name must say what is in it: a JPEG named .gif
			// opens as a broken image.
			return &hintError{msg: fmt.Sprintf("/screenshot %s: screenshots are PNG or JPEG, not %s", file, ext),
				hint: "name the file .png or .jpg, e.g. /screenshot page.png"}
		}
	}
	raw, _ := json.Marshal(args)
	s.p.SpinStart("browser_screenshot")
	res, err := s.opts.Tools.Call(ctx, "browser_screenshot", raw, tools.OriginCommand)
	s.p.SpinStop()
	if err != nil && !errors.Is(err, guard.ErrDenied) {
		return err
	}
	if file == "" || res.IsError() || len(res.Images) == 0 {
		return s.printResult(res)
	}
	path, err := s.saveImage(file, res.Images[0])
	if err != nil {
		return err
	}
	s.p.Hint("saved %s", path)
	s.showImage(res.Images[0])
	return nil
}

// cmdType: /type REF TEXT, TEXT being the rest of the line as typed.
func cmdType(ctx context.Context, s *Shell, c *call) error {
	ref, text, ok := strings.Cut(c.rest, " ")
	if !ok || strings.TrimSpace(text) == "" {
		return &hintError{msg: "/type: missing TEXT", hint: "usage: /type REF TEXT, e.g. /type e12 hello world"}
	}
	return s.callTool(ctx, "browser_type", map[string]any{"ref": ref, "text": strings.TrimSpace(text)})
}

func cmdTab(ctx context.Context, s *Shell, c *call) error {
	id, err := tabArg(c, c.args[0])
	if err != nil {
		return err
	}
	return s.callTool(ctx, "browser_select_tab", map[string]any{"tab": id})
}

// cmdClose: /close [TAB], the current tab without one.
func cmdClose(ctx context.Context, s *Shell, c *call) error {
	args := map[string]any{}
	if len(c.args) > 0 {
		id, err := tabArg(c, c.args[0])
		if err != nil {
			return err
		}
		args["tab"] = id
	}
	return s.callTool(ctx, "browser_close", args)
}

// tabArg is a tab as typed ("2" or "t2", as /tabs lists them) as the
// tools name it ("t2").
func tabArg(c *call, typed string) (string, error) {
	n := strings.TrimPrefix(typed, "t")
	if v, err := strconv.Atoi(n); err != nil || v < 1 {
		return "", &hintError{msg: fmt.Sprintf("/%s %s: TAB must be a tab number from /tabs", c.name, typed),
			hint: fmt.Sprintf("e.g. /%s 2 (Tab completes the open tabs)", c.name)}
	}
	return "t" + n, nil
}

// cmdOpen opens a page, once the address reads as one: "/open notaurl"
// must not become https://notaurl and an empty tab.
func cmdOpen(ctx context.Context, s *Shell, c *call) error {
	u, err := webAddress(c.args[0])
	if err != nil {
		return err
	}
	return s.callTool(ctx, "browser_open", map[string]any{"url": u})
}

// cmdNavigate loads a page in the current tab, once the address reads as
// one (as /open).
func cmdNavigate(ctx context.Context, s *Shell, c *call) error {
	u, err := webAddress(c.args[0])
	if err != nil {
		return err
	}
	return s.callTool(ctx, "browser_navigate", map[string]any{"url": u})
}

func cmdFetch(ctx context.Context, s *Shell, c *call) error {
	u, err := webAddress(c.args[0])
	if err != nil {
		return err
	}
	args := map[string]any{"url": u}
	if sel, ok := c.flags["select"]; ok {
		args[s.paramName("web_fetch", "select", "selector")] = sel
	}
	return s.callTool(ctx, "web_fetch", args)
}

// paramName returns the first of names that tool's schema has, else names[0].
func (s *Shell) paramName(tool string, names ...string) string {
	for _, d := range s.opts.Tools.Tools() {
		if d.Name != tool {
			continue
		}
		props, _ := d.Parameters["properties"].(map[string]any)
		for _, n := range names {
			if _, ok := props[n]; ok {
				return n
			}
		}
	}
	return names[0]
}

// webAddress is normalizeURL for commands that load a page: a bare word
// with no scheme and no dot (not localhost, not an IP address) is refused
// in fetch's words, instead of becoming https://word.
func webAddress(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if hasScheme(s) {
		return s, nil
	}
	host, _ := splitBareHost(s)
	if strings.Contains(host, ".") || isLoopbackName(host) || net.ParseIP(host) != nil {
		return normalizeURL(s), nil
	}
	return "", &hintError{msg: fmt.Sprintf("%q is not a web address: it has no scheme and no domain", raw),
		hint: "write it as https://example.com/page (or http://" + s + "/ for a name on your network)"}
}

// normalizeURL adds a scheme to a bare host, as people type them and as a
// browser's address bar does: http:// for a loopback host (a server on
// this machine rarely speaks TLS) and for a host:port (a development
// server, unless the port is 443), https:// for the rest.
func normalizeURL(u string) string {
	if hasScheme(u) {
		return u
	}
	host, port := splitBareHost(u)
	if (port != "" && port != "443") || isLoopbackName(host) || isLoopbackIP(host) {
		return "http://" + u
	}
	return "https://" + u
}

func hasScheme(u string) bool {
	return strings.Contains(u, "://") || strings.HasPrefix(u, "about:") || strings.HasPrefix(u, "data:")
}

// splitBareHost returns the host (brackets removed from an IPv6 address)
// and port of an address typed without a scheme.
func splitBareHost(u string) (host, port string) {
	host, _, _ = strings.Cut(u, "/")
	host, _, _ = strings.Cut(host, "?")
	host, _, _ = strings.Cut(host, "#")
	if h, p, err := net.SplitHostPort(host); err == nil {
		return h, p
	}
	return strings.Trim(host, "[]"), ""
}

func isLoopbackName(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

func isLoopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func cmdCall(ctx context.Context, s *Shell, c *call) error {
	tool, args, _ := strings.Cut(c.rest, " ")
	args = strings.TrimSpace(args)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return &hintError{msg: fmt.Sprintf("/call %s: the arguments are not valid JSON", tool),
			hint: `usage: /call TOOL {"name": "value"}; /tools ` + tool + ` shows its parameters`}
	}
	if !s.hasTool(tool) {
		msg := fmt.Sprintf("no tool %q", tool)
		if near := didYouMean(tool, s.toolNames()); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		return &hintError{msg: msg, hint: "/tools lists them (MCP tools appear once their server is ready: /mcp)"}
	}
	return s.callRaw(ctx, tool, json.RawMessage(args))
}

func (s *Shell) hasTool(name string) bool {
	for _, d := range s.opts.Tools.Tools() {
		if d.Name == name {
			return true
		}
	}
	return false
}

func (s *Shell) toolNames() []string {
	var out []string
	for _, d := range s.opts.Tools.Tools() {
		out = append(out, d.Name)
	}
	return out
}

// listedTools are the tools /tools lists: what the agent offers the model
// (and those it deferred behind tool_search), or without an agent every
// registered tool.
func (s *Shell) listedTools() []tools.ToolDef {
	o, ok := s.opts.Agent.(toolOfferer)
	if !ok {
		return s.opts.Tools.Tools()
	}
	defs := o.Offered()
	td, ok := s.opts.Agent.(ToolDeferrer)
	if !ok {
		return defs
	}
	all := s.opts.Tools.Tools()
	for _, name := range td.DeferredTools() {
		if i := slices.IndexFunc(all, func(d tools.ToolDef) bool { return d.Name == name }); i >= 0 {
			defs = append(defs, all[i])
		}
	}
	return defs
}

// cmdTools lists tools, filtered by a substring of name or description;
// a filter that names one tool exactly shows its parameters.
func cmdTools(_ context.Context, s *Shell, c *call) error {
	defs := s.listedTools()
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	filter := strings.ToLower(strings.Join(c.args, " "))
	deferred := map[string]bool{}
	if td, ok := s.opts.Agent.(ToolDeferrer); ok {
		for _, name := range td.DeferredTools() {
			deferred[name] = true
		}
	}
	var shown []tools.ToolDef
	for _, d := range defs {
		if filter == "" || strings.Contains(strings.ToLower(d.Name+" "+d.Description), filter) {
			shown = append(shown, d)
		}
	}
	width := s.width()
	nameW := 0
	for _, d := range shown {
		nameW = max(nameW, len(d.Name))
	}
	nameW = min(nameW, width/2)
	var b strings.Builder
	n, nDeferred := len(shown), 0
	for _, d := range shown {
		desc := d.Description
		if deferred[d.Name] {
			nDeferred++
			desc = "(deferred) " + desc
		}
		b.WriteString(fitLine(fmt.Sprintf("%-*s  %s", nameW, d.Name, textutil.OneLine(desc, 0)), width) + "\n")
		if strings.EqualFold(d.Name, filter) {
			b.WriteString(paramsText(d.Parameters, width))
		}
	}
	if n == 0 {
		return &hintError{msg: fmt.Sprintf("no tool matches %q", filter), hint: "/tools lists all; /mcp shows servers still starting"}
	}
	s.p.Text(b.String())
	if nDeferred > 0 {
		s.p.Hint("%s; %d deferred: too many to send with every request, the agent finds them with tool_search", plural(n, "tool"), nDeferred)
		return nil
	}
	s.p.Hint("%s", plural(n, "tool"))
	return nil
}

// width is how many columns the shell's output may use: the terminal's;
// off a terminal $COLUMNS, else 100.
func (s *Shell) width() int {
	if s.tty != nil {
		return s.tty.cols()
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n >= 20 {
		return n
	}
	return 100
}

// fitLine cuts line to width terminal columns, the last one "…", so it
// never wraps.
func fitLine(line string, width int) string {
	if runewidth.StringWidth(line) <= width {
		return line
	}
	return runewidth.Truncate(line, width, "…")
}

// paramsText lists a schema's properties, required ones marked, each line
// cut to width.
func paramsText(schema map[string]any, width int) string {
	props, _ := schema["properties"].(map[string]any)
	req := map[string]bool{}
	if r, ok := schema["required"].([]string); ok {
		for _, n := range r {
			req[n] = true
		}
	}
	if r, ok := schema["required"].([]any); ok {
		for _, n := range r {
			req[fmt.Sprint(n)] = true
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		typ, _ := p["type"].(string)
		desc, _ := p["description"].(string)
		if req[n] {
			typ += " (required)"
		}
		b.WriteString(fitLine(fmt.Sprintf("    %s %s  %s", n, typ, textutil.OneLine(desc, 0)), width) + "\n")
	}
	return b.String()
}
