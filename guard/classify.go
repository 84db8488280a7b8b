package guard

import "strings"

// DefaultBrowserServer is the MCP server name whose tools are classified by
// the chrome-devtools-mcp table.
const DefaultBrowserServer = "chrome-devtools"

// devtoolsTools classifies chrome-devtools-mcp 1.11 tools (read from its
// build/src/tools/*.js). Tools missing here fall back to their MCP
// annotations, and unknown ones are writes. Some reads turn into writes when
// they are asked to save a file (see fileArgs).
var devtoolsTools = map[string]Effect{
	// pages
	"list_pages": Read, "select_page": Read, "get_tab_id": Read,
	"new_page": Open, "navigate_page": Navigate, "close_page": Close,
	"resize_page": Write, "handle_dialog": Write,
	// input
	"click": Write, "click_at": Write, "hover": Write, "fill": Write,
	"type_text": Write, "drag": Write, "fill_form": Write,
	"upload_file": Write, "press_key": Write,
	// inspection
	"take_snapshot": Read, "take_screenshot": Read, "wait_for": Read,
	"list_console_messages": Read, "get_console_message": Read,
	"list_network_requests": Read, "get_network_request": Read,
	"get_css_styles": Read, "performance_analyze_insight": Read,
	"performance_stop_trace": Read,
	"list_extensions":        Read, "get_os_app_state": Read,
	"list_webmcp_tools": Read, "list_3p_developer_tools": Read,
	"open_devtools": Read, "get_devtools_comments": Read, "reveal_in_devtools": Read,
	// these read a heap snapshot file the agent names; they change nothing
	"get_heapsnapshot_summary": Read, "get_heapsnapshot_details": Read,
	"get_heapsnapshot_class_nodes": Read, "get_heapsnapshot_retainers": Read,
	"close_heapsnapshot": Read, "get_heapsnapshot_retaining_paths": Read,
	"get_heapsnapshot_edges": Read, "get_heapsnapshot_dominators": Read,
	"compare_heapsnapshots": Read, "get_heapsnapshot_duplicate_strings": Read,
	"get_heapsnapshot_object_details": Read, "query_heapsnapshot_objects": Read,
	"analyze_heapsnapshot_contexts": Read,
	// writes: scripts, emulation, files, extensions, apps
	"evaluate_script": Write, "emulate": Write, "lighthouse_audit": Write,
	"performance_start_trace": Write, "take_heapsnapshot": Write,
	"screencast_start": Write, "screencast_stop": Write,
	"install_extension": Write, "uninstall_extension": Write,
	"reload_extension": Write, "trigger_extension_action": Write,
	"install_pwa": Write, "uninstall_pwa": Write, "launch_pwa": Write,
	"resolve_devtools_comment": Write, "execute_3p_developer_tool": Write,
	"execute_webmcp_tool": Write,
	// --slim mode
	"screenshot": Read, "navigate": Navigate, "evaluate": Write,
}

// nativeTools classifies browseragent's own browser_* tools and builtins.
var nativeTools = map[string]Effect{
	"web_fetch":    Read,
	"browser_open": Open, "browser_navigate": Navigate,
	"browser_back": Navigate, "browser_forward": Navigate, "browser_reload": Navigate,
	"browser_snapshot": Read, "browser_screenshot": Read, "browser_extract": Read,
	"browser_tabs": Read, "browser_wait": Read, "browser_select_tab": Read,
	"browser_click": Write, "browser_type": Write, "browser_select": Write,
	"browser_press": Write, "browser_scroll": Write, "browser_eval": Write,
	"browser_hover": Write, "browser_fill": Write, "browser_upload": Write,
	"browser_close": Close,
}

// fileArgs are argument names that make a tool write a file on the person's
// disk. Any of them with a value turns a read into a write.
var fileArgs = []string{
	"filePath", "requestFilePath", "responseFilePath", "outputDirPath",
	"outputPath", "savePath", "downloadPath", "path", "file",
}

// fileReaders name tools whose filePath is an input, not an output.
var fileReaders = map[string]bool{}

func init() {
	for name := range devtoolsTools {
		if strings.Contains(name, "heapsnapshot") && devtoolsTools[name] == Read {
			fileReaders[name] = true
		}
	}
}

// classify returns what c does. browser says whether c.Server is a
// chrome-devtools-mcp server.
func classify(c Call, browser bool) Effect {
	var e Effect
	var known bool
	switch {
	case c.Server == "":
		e, known = nativeTools[c.Tool]
	case browser:
		e, known = devtoolsTools[c.Name]
	}
	if !known {
		e = fromAnnotations(c)
	}
	if e == Read && writesFile(c, browser) {
		e = Write
	}
	if (e == Navigate || e == Open) && argString(c.Args, "initScript") != "" {
		e = Write // a script injected into every document it loads
	}
	return e
}

func fromAnnotations(c Call) Effect {
	if c.ReadOnlyHint != nil && *c.ReadOnlyHint && (c.DestructiveHint == nil || !*c.DestructiveHint) {
		return Read
	}
	return Write
}

func writesFile(c Call, browser bool) bool {
	if browser && fileReaders[c.Name] {
		return false
	}
	if c.Server != "" && !browser {
		return false // other servers: their annotations already said read
	}
	for _, k := range fileArgs {
		if argString(c.Args, k) != "" {
			return true
		}
	}
	return false
}

func argString(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

// SplitToolName splits the name the agent sees, "mcp__server__tool", into
// server and tool. Names without the prefix are builtins: server "".
func SplitToolName(name string) (server, tool string) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", name
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok {
		return "", name
	}
	return server, tool
}
