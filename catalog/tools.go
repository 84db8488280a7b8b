package catalog

import "time"

// BrowserServer is the name of the MCP server that drives browseragent's
// own browser (chrome-devtools-mcp). It is the one answer to "is this the
// browser's MCP server": its tools are described by the DevTools entries,
// its pages are the browser's tabs.
const BrowserServer = "chrome-devtools"

// IsBrowserServer reports whether the MCP server called name is the one that
// drives browseragent's browser.
func IsBrowserServer(name string) bool { return name == BrowserServer }

// webFetch is the name of the builtin HTTP tool.
const webFetch = "web_fetch"

// DefaultTimeout bounds a call of a tool whose entry sets none.
const DefaultTimeout = 3 * time.Minute

var readOnly = Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true}
var writes = Annotations{OpenWorld: true}
var destroys = Annotations{Destructive: true, OpenWorld: true}

// native are web_fetch and browseragent's own browser_* tools (browser/tools.go).
var native = []Entry{
	// web_fetch's limit is the one its client is configured with (tools.NewWebFetch)
	{Name: webFetch, Kind: Builtin, Effect: Read, URL: "url", Annotations: readOnly},
	{Name: "browser_open", Effect: Open, URL: "url", Selects: true, Annotations: writes},
	{Name: "browser_navigate", Effect: Navigate, Tab: "tab", OnPage: true, URL: "url",
		History: []string{"back", "forward", "reload"}, Annotations: destroys},
	{Name: "browser_snapshot", Effect: Read, Tab: "tab", OnPage: true, Annotations: readOnly},
	{Name: "browser_click", Effect: Write, Input: true, Tab: "tab", OnPage: true, Element: "ref", Annotations: destroys},
	{Name: "browser_type", Effect: Write, Input: true, Tab: "tab", OnPage: true, Element: "ref", Types: []string{"text"}, Typing: ByRef, Annotations: destroys},
	{Name: "browser_hover", Effect: Write, Input: true, Tab: "tab", OnPage: true, Element: "ref", Annotations: Annotations{Idempotent: true, OpenWorld: true}},
	{Name: "browser_drag", Effect: Write, Input: true, Tab: "tab", OnPage: true, Element: "ref", Annotations: destroys},
	{Name: "browser_check", Effect: Write, Input: true, Tab: "tab", OnPage: true, Element: "ref", Annotations: destroys},
	// reads the person's files and hands them to the page
	{Name: "browser_upload", Effect: Write, Input: true, Tab: "tab", OnPage: true, Element: "ref", Files: []File{{Param: "paths", List: true}}, Annotations: destroys},
	// answers the page's dialog: OK or Cancel, a prompt's text. The answer
	// goes to whichever frame opened the dialog (a bank's iframe on an
	// ordinary page): like input it reaches past the page, and the locator
	// judges it by the frame the browser says opened the dialog.
	{Name: "browser_dialog", Effect: Write, Input: true, Tab: "tab", OnPage: true, Annotations: destroys},
	// writes a file into dir (its schema default when the call names none),
	// the one its url or its ref's link points to
	{Name: "browser_download", Effect: Write, Input: true, Tab: "tab", OnPage: true, Element: "ref", Link: true, URL: "url", Files: []File{{Param: "dir", Write: true}}, Annotations: destroys},
	{Name: "browser_select", Effect: Write, Tab: "tab", OnPage: true, Element: "ref", Types: []string{"value"}, Typing: ByRef, Annotations: destroys},
	{Name: "browser_press", Effect: Write, Input: true, Tab: "tab", OnPage: true, Types: []string{"key", "text"}, Typing: ByFocus, Annotations: destroys},
	{Name: "browser_scroll", Effect: Write, Tab: "tab", OnPage: true, Element: "ref", Annotations: Annotations{Idempotent: true, OpenWorld: true}},
	{Name: "browser_wait", Effect: Read, Tab: "tab", OnPage: true, Timeout: 70 * time.Second, Annotations: readOnly},
	{Name: "browser_screenshot", Effect: Read, Tab: "tab", OnPage: true, Foreign: ForeignFrames, Annotations: readOnly},
	{Name: "browser_extract", Effect: Read, Tab: "tab", OnPage: true, Annotations: readOnly},
	{Name: "browser_html", Effect: Read, Tab: "tab", OnPage: true, Element: "ref", Annotations: readOnly},
	// writes the page, printed, into path (forced to .pdf): its frames are
	// printed too
	{Name: "browser_pdf", Effect: Read, Tab: "tab", OnPage: true, Files: []File{{Param: "path", Write: true, Ext: ".pdf"}}, Foreign: ForeignFrames, Annotations: writes},
	{Name: "browser_tabs", Effect: Read, Annotations: Annotations{ReadOnly: true, Idempotent: true}},
	{Name: "browser_select_tab", Effect: Read, Tab: "tab", OnPage: true, Selects: true, Annotations: Annotations{Idempotent: true}},
	{Name: "browser_close", Effect: Close, Tab: "tab", OnPage: true, Annotations: Annotations{Destructive: true}},
	// served by `mcp serve` only: switch the browser the session drives
	{Name: "browser_connect", Effect: Write, Connects: []string{"ws_endpoint", "browser_url"}, Annotations: Annotations{Destructive: true}},
	{Name: "browser_disconnect", Effect: Write, Annotations: Annotations{Destructive: true}},
	{Name: "browser_eval", Effect: Script, Tab: "tab", OnPage: true, Script: []string{"js"}, Foreign: ForeignFrames, Annotations: destroys},
}

// includeSnapshot is chrome-devtools-mcp's switch for a snapshot after an
// input, taken wherever the input led.
const includeSnapshot = "includeSnapshot"

func input(name string, e Entry) Entry {
	e.Name, e.Effect, e.Annotations, e.Input = name, Write, destroys, true
	if e.Element == "" {
		e.Element = "uid"
	}
	e.Foreign, e.ForeignParam = ForeignSnapshot|ForeignFrames, includeSnapshot
	return e
}

// noSnapshot is an input whose result never carries a snapshot.
func noSnapshot(e Entry) Entry {
	e.Foreign, e.ForeignParam = 0, ""
	return e
}

func heapReader(name string, params ...string) Entry {
	if len(params) == 0 {
		params = []string{"filePath"}
	}
	e := Entry{Name: name, Effect: Read, DevOnly: true, Annotations: Annotations{ReadOnly: true, Idempotent: true}}
	for _, p := range params {
		e.Files = append(e.Files, File{Param: p})
	}
	return e
}

// saves is a file the tool writes, with the extension it forces.
func saves(param, ext string) File { return File{Param: param, Write: true, Ext: ext} }

// trace is a performance trace file: .json, or .gz kept as given.
var trace = File{Param: "filePath", Write: true, Ext: ".json", KeepExt: []string{".gz"}}

// devtools are chrome-devtools-mcp 1.11.0's tools, read from its
// build/src/tools/*.js (including the ones behind flags, and --slim's).
// The file parameters are the ones its verifyFilesSchema lists.
var devtools = []Entry{
	// pages
	{Name: "list_pages", Effect: Read, Annotations: readOnly},
	{Name: "select_page", Effect: Read, Selects: true, Annotations: Annotations{Idempotent: true}, Twin: "browser_select_tab"},
	{Name: "get_tab_id", Effect: Read, Annotations: readOnly},
	{Name: "new_page", Effect: Open, URL: "url", Selects: true, Foreign: ForeignSnapshot, Annotations: writes, Twin: "browser_open"},
	{Name: "navigate_page", Effect: Navigate, URL: "url", HistoryParam: "type", Script: []string{"initScript"},
		Foreign: ForeignSnapshot, Annotations: destroys, Twin: "browser_navigate"},
	{Name: "close_page", Effect: Close, Annotations: destroys, Twin: "browser_close"},
	{Name: "resize_page", Effect: Write, Annotations: writes},
	{Name: "handle_dialog", Effect: Write, Types: []string{"promptText"}, Typing: ByPage, Annotations: destroys, Twin: "browser_dialog"},
	// input
	input("click", Entry{Twin: "browser_click"}),
	input("click_at", Entry{Element: "-"}),
	input("hover", Entry{Twin: "browser_hover"}),
	input("drag", Entry{Element: "from_uid", Twin: "browser_drag"}),
	input("fill", Entry{Types: []string{"value"}, Typing: ByPage, Twin: "browser_type"}),
	input("fill_form", Entry{Element: "-", Types: []string{"elements"}, Typing: ByPage}),
	noSnapshot(input("type_text", Entry{Element: "-", Types: []string{"text"}, Typing: ByFocus})),
	input("press_key", Entry{Element: "-", Types: []string{"key"}, Typing: ByFocus, Twin: "browser_press"}),
	input("upload_file", Entry{Files: []File{{Param: "filePaths", List: true}}, Twin: "browser_upload"}),
	// inspection
	{Name: "take_snapshot", Effect: Read, Files: []File{saves("filePath", ".txt")}, Foreign: ForeignFrames, Annotations: writes, Twin: "browser_snapshot", MakesUIDs: true},
	{Name: "take_screenshot", Effect: Read, Files: []File{{Param: "filePath", Write: true, Ext: ".png", ExtParam: "format"}}, Foreign: ForeignFrames, Annotations: writes, Twin: "browser_screenshot"},
	{Name: "wait_for", Effect: Read, Foreign: ForeignSnapshot | ForeignFrames, Timeout: 70 * time.Second, Annotations: readOnly, Twin: "browser_wait"},
	{Name: "list_console_messages", Effect: Read, Foreign: ForeignFrames, DevOnly: true, Annotations: readOnly},
	{Name: "get_console_message", Effect: Read, Foreign: ForeignFrames, DevOnly: true, Annotations: readOnly},
	// The Network panel: a developer's tool, and the largest definitions
	// of all (1.7 KB of every request); devtools: true offers them.
	{Name: "list_network_requests", Effect: Read, Foreign: ForeignNetwork, DevOnly: true, Annotations: readOnly},
	{Name: "get_network_request", Effect: Read, Files: []File{saves("requestFilePath", ".network-request"), saves("responseFilePath", ".network-response")}, Foreign: ForeignNetwork, DevOnly: true, Annotations: writes},
	{Name: "get_css_styles", Effect: Read, Element: "uid", DevOnly: true, Annotations: readOnly},
	// scripts
	{Name: "evaluate_script", Effect: Script, Script: []string{"function"}, Element: "args", Files: []File{{Param: "sourcePath"}, saves("filePath", ".json")},
		Foreign: ForeignFrames, Annotations: destroys, Twin: "browser_eval"},
	// emulation, performance, audits, memory, screencasts
	{Name: "emulate", Effect: Write, DevOnly: true, Annotations: writes},
	{Name: "performance_start_trace", Effect: Write, Files: []File{trace}, Reload: true, ReloadParam: "reload", ReloadDefault: true, DevOnly: true, Annotations: writes},
	{Name: "performance_stop_trace", Effect: Read, Files: []File{trace}, DevOnly: true, Annotations: writes},
	{Name: "performance_analyze_insight", Effect: Read, DevOnly: true, Annotations: readOnly},
	{Name: "lighthouse_audit", Effect: Write, Files: []File{saves("outputDirPath", "")}, Reload: true, ReloadParam: "mode", ReloadIf: "navigation", ReloadDefault: true, DevOnly: true, Annotations: writes},
	{Name: "take_heapsnapshot", Effect: Read, Files: []File{saves("filePath", ".heapsnapshot")}, DevOnly: true, Annotations: writes},
	{Name: "screencast_start", Effect: Read, Files: []File{saves("filePath", ".mp4")}, DevOnly: true, Annotations: writes},
	{Name: "screencast_stop", Effect: Read, DevOnly: true, Annotations: writes},
	heapReader("get_heapsnapshot_summary"), heapReader("get_heapsnapshot_details"),
	heapReader("get_heapsnapshot_class_nodes"), heapReader("get_heapsnapshot_retainers"),
	heapReader("close_heapsnapshot"), heapReader("get_heapsnapshot_retaining_paths"),
	heapReader("get_heapsnapshot_edges"), heapReader("get_heapsnapshot_dominators"),
	heapReader("compare_heapsnapshots", "baseFilePath", "currentFilePath"),
	heapReader("get_heapsnapshot_duplicate_strings"), heapReader("get_heapsnapshot_object_details"),
	heapReader("query_heapsnapshot_objects"), heapReader("analyze_heapsnapshot_contexts"),
	// extensions and apps: each changes the browser itself
	{Name: "install_extension", Effect: Write, Files: []File{{Param: "path"}}, Annotations: destroys},
	{Name: "uninstall_extension", Effect: Write, Annotations: destroys},
	{Name: "reload_extension", Effect: Write, Annotations: writes},
	{Name: "trigger_extension_action", Effect: Write, Annotations: destroys},
	{Name: "list_extensions", Effect: Read, Annotations: readOnly},
	{Name: "install_pwa", Effect: Write, Files: []File{{Param: "installUrlOrBundleUrl"}}, Annotations: destroys},
	{Name: "uninstall_pwa", Effect: Write, Annotations: destroys},
	{Name: "launch_pwa", Effect: Open, URL: "url", Annotations: writes},
	{Name: "get_os_app_state", Effect: Read, Annotations: readOnly},
	// DevTools comments, page-provided tools
	{Name: "open_devtools", Effect: Read, DevOnly: true, Annotations: readOnly},
	{Name: "get_devtools_comments", Effect: Read, DevOnly: true, Annotations: readOnly},
	{Name: "reveal_in_devtools", Effect: Read, DevOnly: true, Annotations: readOnly},
	{Name: "resolve_devtools_comment", Effect: Write, DevOnly: true, Annotations: writes},
	{Name: "list_3p_developer_tools", Effect: Read, Annotations: readOnly},
	{Name: "execute_3p_developer_tool", Effect: Write, Annotations: destroys},
	{Name: "list_webmcp_tools", Effect: Read, Annotations: readOnly},
	{Name: "execute_webmcp_tool", Effect: Write, Annotations: destroys},
	// --slim
	{Name: "screenshot", Effect: Read, Foreign: ForeignFrames, Annotations: readOnly},
	{Name: "navigate", Effect: Navigate, URL: "url", Foreign: ForeignSnapshot, Annotations: destroys},
	{Name: "evaluate", Effect: Script, Script: []string{"script"}, Foreign: ForeignFrames, Annotations: destroys},
}

var nativeByName, devtoolsByName = index(native, Native), index(devtools, DevTools)

// pageless are chrome-devtools-mcp tools that take no pageId.
var pageless = map[string]bool{
	"list_pages": true, "new_page": true, "list_extensions": true, "install_extension": true,
	"uninstall_extension": true, "reload_extension": true, "install_pwa": true, "uninstall_pwa": true,
	"launch_pwa": true, "get_os_app_state": true, "close_heapsnapshot": true, "compare_heapsnapshots": true,
	"get_heapsnapshot_summary": true, "get_heapsnapshot_details": true, "get_heapsnapshot_class_nodes": true,
	"get_heapsnapshot_retainers": true, "get_heapsnapshot_retaining_paths": true, "get_heapsnapshot_edges": true,
	"get_heapsnapshot_dominators": true, "get_heapsnapshot_duplicate_strings": true,
	"get_heapsnapshot_object_details": true, "query_heapsnapshot_objects": true, "analyze_heapsnapshot_contexts": true,
}

func index(es []Entry, k Kind) map[string]Entry {
	m := make(map[string]Entry, len(es))
	for _, e := range es {
		if e.Kind == Unknown {
			e.Kind = k
		}
		if k != Builtin && e.Name != webFetch {
			e.Browser = true
		}
		if e.Element == "-" {
			e.Element = ""
		}
		if k == DevTools && !pageless[e.Name] {
			e.Tab, e.OnPage = "pageId", true
		}
		if e.Timeout == 0 {
			e.Timeout = DefaultTimeout
		}
		if _, dup := m[e.Name]; dup {
			panic("catalog: two entries for " + e.Name)
		}
		m[e.Name] = e
	}
	return m
}

// NativeTool returns the entry of web_fetch or a browser_* tool.
func NativeTool(name string) (Entry, bool) {
	e, ok := nativeByName[name]
	return e, ok
}

// MustNative is NativeTool for a tool defined at package level (web_fetch,
// mcp serve's browser_connect): it panics when name has no entry, so the
// program does not start with a tool nobody described.
func MustNative(name string) Entry {
	e, ok := NativeTool(name)
	if !ok {
		panic("catalog: native tool " + name + " has no entry in catalog/tools.go")
	}
	return e
}

// devToolsTool returns the entry of a chrome-devtools-mcp tool.
func devToolsTool(name string) (Entry, bool) {
	e, ok := devtoolsByName[name]
	return e, ok
}

// Entries lists every catalogued entry: the native tools, then
// chrome-devtools-mcp's.
func Entries() []Entry {
	out := make([]Entry, 0, len(native)+len(devtools))
	for _, e := range native {
		out = append(out, nativeByName[e.Name])
	}
	for _, e := range devtools {
		out = append(out, devtoolsByName[e.Name])
	}
	return out
}

// UnknownTool returns the entry of a tool nothing is known about: a write in
// the browser that may touch files, the most dangerous kind.
func UnknownTool(name string) Entry {
	return Entry{Name: name, Kind: Unknown, Effect: Write, Browser: true, Timeout: DefaultTimeout, Annotations: destroys}
}

// Hints are an MCP tool's own annotations (nil: not said).
type Hints struct {
	ReadOnly, Destructive, OpenWorld *bool
}

// Describe returns the entry of tool name on MCP server ("" for web_fetch
// and browser_* tools). A chrome-devtools-mcp tool the catalogue lacks and
// any other server's tool are described by Derive from hints and schema; a
// native tool the catalogue lacks is UnknownTool.
func Describe(server, name string, hints Hints, schema map[string]any) Entry {
	if server == "" {
		if e, ok := NativeTool(name); ok {
			return e
		}
		return UnknownTool(name)
	}
	if IsBrowserServer(server) {
		if e, ok := devToolsTool(name); ok {
			return e
		}
	}
	return Derive(server, name, hints, schema)
}
