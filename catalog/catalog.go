package catalog

import (
	"fmt"
	"time"
)

// Effect is what a call does to the page or the world it acts on.
type Effect int

const (
	// Read looks and changes nothing: snapshots, screenshots, text.
	Read Effect = iota
	// Write changes something: clicks, typing, dialogs, emulation.
	// Anything unknown is a write.
	Write
	// Navigate loads another address in an existing tab.
	Navigate
	// Open loads an address in a new tab, which the agent then owns.
	Open
	// Close closes a tab.
	Close
	// Script runs code the agent wrote inside a page: a write that can
	// do anything the page can, including navigate or close its tab.
	Script
)

// String returns "read", "write", "navigate", "open", "close" or "script".
func (e Effect) String() string {
	switch e {
	case Read:
		return "read"
	case Write:
		return "write"
	case Navigate:
		return "navigate"
	case Open:
		return "open"
	case Close:
		return "close"
	case Script:
		return "script"
	}
	return fmt.Sprintf("Effect(%d)", int(e))
}

// Kind says where a tool comes from.
type Kind int

const (
	// Unknown: nothing is known about the tool; it is judged as the most
	// dangerous kind.
	Unknown Kind = iota
	// Builtin is web_fetch.
	Builtin
	// Native is one of browseragent's own browser_* tools.
	Native
	// DevTools is a chrome-devtools-mcp tool on the browser's MCP server.
	DevTools
	// MCP is a tool of another MCP server, described from its annotations
	// and input schema (Derive).
	MCP
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Builtin:
		return "builtin"
	case Native:
		return "native"
	case DevTools:
		return "devtools"
	case MCP:
		return "mcp"
	}
	return "unknown"
}

// File is a parameter that names a local file or directory.
type File struct {
	// Param is the argument's name.
	Param string
	// Write is set when the tool writes there (else it reads it).
	Write bool
	// List is set when the argument is an array of paths.
	List bool
	// Ext is the extension the tool puts on the name, replacing the one
	// it has (chrome-devtools-mcp's ensureExtension: "x/.mcp" and
	// "x/.mcp.txt" are both written as "x/.mcp.json"); "" for none.
	// ExtParam, when set, names an argument whose value is the extension
	// instead (take_screenshot's format), and KeepExt are extensions the
	// tool keeps as given.
	Ext      string
	ExtParam string
	KeepExt  []string
}

// WrittenName is the name the tool writes when asked for path with args:
// path with f's extension in place of its own, as node's path.extname sees
// it (a leading dot starts no extension).
func (f File) WrittenName(path string, args map[string]any) string {
	ext := f.Ext
	if v, ok := args[f.ExtParam].(string); ok && f.ExtParam != "" && v != "" {
		ext = "." + v
		if v == "jpg" {
			ext = ".jpeg"
		}
	}
	if ext == "" {
		return path
	}
	cur := extname(path)
	for _, k := range f.KeepExt {
		if cur == k {
			return path
		}
	}
	return path[:len(path)-len(cur)] + ext
}

// extname is node's path.extname on POSIX paths.
func extname(p string) string {
	base := p
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			base = p[i+1:]
			break
		}
	}
	i := -1
	for j := len(base) - 1; j >= 0; j-- {
		if base[j] == '.' {
			i = j
			break
		}
	}
	lead := 0
	for lead < len(base) && base[lead] == '.' {
		lead++
	}
	if i <= 0 || i < lead || base == ".." {
		return ""
	}
	return base[i:]
}

// Typing says how the field a typing tool types into is found, so the
// registry can ask the live page whether it is a password field.
type Typing int

const (
	// NoTyping: the tool types nothing.
	NoTyping Typing = iota
	// ByRef: the element named by the Element parameter.
	ByRef
	// ByFocus: the element that has the focus (a key press).
	ByFocus
	// ByPage: an element only the tool's server can resolve (an MCP uid),
	// so the whole page is asked.
	ByPage
)

// Foreign says how a result can carry content of pages other than the one
// the call was judged on.
type Foreign int

const (
	// ForeignSnapshot: the result includes a page snapshot taken after
	// the call, which may have navigated (redirects, clicks).
	ForeignSnapshot Foreign = 1 << iota
	// ForeignFrames: the result includes the content of the page's
	// frames, which may come from other sites.
	ForeignFrames
	// ForeignNetwork: the result includes network requests and their
	// bodies and headers, to and from any site.
	ForeignNetwork
)

// Annotations are the MCP tool annotations a tool is served with. They are
// true statements about the tool: ReadOnly only when no argument can make
// it change anything, OpenWorld when it reaches sites the caller names.
type Annotations struct {
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
}

// Entry describes one tool.
type Entry struct {
	// Name is the tool's own name at its source ("click", "browser_click",
	// "web_fetch").
	Name string
	Kind Kind
	// Effect is what a call does when none of its parameters changes that
	// (a file parameter with a value, a script URL).
	Effect Effect
	// Browser is set when the tool acts in the browser.
	Browser bool
	// Tab is the parameter naming the tab it acts on ("tab", "pageId");
	// "" when it acts on no tab, or on the current one without a way to
	// name another.
	Tab string
	// OnPage is set when the tool acts on a tab (named by Tab, or the
	// current one); unset for tools that act on none or open a new one.
	OnPage bool
	// Selects is set when a call that succeeds makes the tab it acts on,
	// or the one it opens, the current tab.
	Selects bool
	// URL is the parameter holding where the call goes (a navigation's
	// target, web_fetch's address); "" for none.
	URL string
	// Connects are parameters naming an address browseragent itself
	// connects to (browser_connect's endpoint): a deny rule refuses them,
	// as it refuses a URL.
	Connects []string
	// History are URL values that move in the tab's history instead of
	// loading an address ("back", "forward", "reload"); HistoryParam, when
	// set, is a parameter whose value other than "url" means such a move
	// (navigate_page's type).
	History      []string
	HistoryParam string
	// Reload is set when the call reloads the tab it acts on (whatever
	// was typed there is lost), as a navigation would: always when
	// ReloadParam is "", else when that argument is ReloadIf (a boolean
	// argument: true), or is absent and ReloadDefault is set.
	Reload        bool
	ReloadParam   string
	ReloadIf      string
	ReloadDefault bool
	// Files are the parameters naming local files.
	Files []File
	// Script are the parameters carrying script source the page will run.
	Script []string
	// Types are the parameters carrying text typed into fields, and
	// Typing how the field is found.
	Types  []string
	Typing Typing
	// Element is the parameter naming the element acted on ("ref", "uid"),
	// so the frame holding it can be judged.
	Element string
	// Link is set when a call naming its Element goes where that
	// element's link points (a download's file): the registry's locator
	// reads the link's address as the call's URL, so the one judgement
	// of the call judges it and the person's question names it.
	Link bool
	// Input is set when the tool acts by sending mouse or keyboard input
	// (a click at the element's centre, keys to the focused element): the
	// page decides what is under the pointer or has the focus when the
	// input arrives, so it may land in any of the page's frames.
	Input bool
	// Foreign says how the result can carry other pages' content;
	// ForeignParam, when set, is a boolean parameter that turns it on
	// (includeSnapshot), else it always can.
	Foreign      Foreign
	ForeignParam string
	// Timeout bounds one call (0: the registry's default).
	Timeout time.Duration
	// Annotations are what the tool is served with over MCP.
	Annotations Annotations
	// DevOnly marks chrome-devtools-mcp tools for developing a site, not
	// for doing a task on it; the model is offered them only on request.
	DevOnly bool
	// Twin is the native tool doing the same job on the same browser; when
	// it is offered this tool is left out (unless MakesUIDs, and a tool
	// offered takes its uids).
	Twin string
	// MakesUIDs marks the tool whose result names the elements its
	// server's other tools take as uid (chrome-devtools-mcp's
	// take_snapshot): a uid-taking tool is offered only beside it.
	MakesUIDs bool
}

// Known reports whether the entry comes from the catalogue or a server's
// own description, rather than from nothing.
func (e Entry) Known() bool { return e.Kind != Unknown }

// fileParam returns the file parameter named p.
func (e Entry) fileParam(p string) (File, bool) {
	for _, f := range e.Files {
		if f.Param == p {
			return f, true
		}
	}
	return File{}, false
}

// IsScript reports whether parameter p carries script.
func (e Entry) IsScript(p string) bool {
	for _, s := range e.Script {
		if s == p {
			return true
		}
	}
	return false
}

// TypesText reports whether the tool types text into a field.
func (e Entry) TypesText() bool { return e.Typing != NoTyping }

// ForeignResult reports whether a call with args can return content of
// pages other than the one judged.
func (e Entry) ForeignResult(args map[string]any) bool {
	if e.Foreign == 0 {
		return false
	}
	if e.ForeignParam == "" {
		return true
	}
	on, _ := args[e.ForeignParam].(bool)
	return on
}

// Reloads reports whether a call with args reloads the tab it acts on.
func (e Entry) Reloads(args map[string]any) bool {
	if !e.Reload {
		return false
	}
	if e.ReloadParam == "" {
		return true
	}
	switch v := args[e.ReloadParam].(type) {
	case nil:
		return e.ReloadDefault
	case bool:
		return v && e.ReloadIf == ""
	case string:
		return e.ReloadIf != "" && v == e.ReloadIf
	}
	return true // an argument of another type: assume the worst
}

// IsHistoryMove reports whether a navigation with args moves in the tab's
// history rather than loading an address.
func (e Entry) IsHistoryMove(args map[string]any) bool {
	if e.HistoryParam != "" {
		if t, ok := args[e.HistoryParam].(string); ok && t != "" && t != "url" {
			return true
		}
	}
	if e.URL == "" || len(e.History) == 0 {
		return false
	}
	u, _ := args[e.URL].(string)
	for _, h := range e.History {
		if equalFoldTrim(u, h) {
			return true
		}
	}
	return false
}

func equalFoldTrim(a, b string) bool {
	for len(a) > 0 && (a[0] == ' ' || a[0] == '\t') {
		a = a[1:]
	}
	for len(a) > 0 && (a[len(a)-1] == ' ' || a[len(a)-1] == '\t') {
		a = a[:len(a)-1]
	}
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
