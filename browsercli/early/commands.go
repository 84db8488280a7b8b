package early

// Command is one `browseragent browser` subcommand: its usage and flags
// (what the daemon does for it is the daemon's).
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

// FlagNamed finds the command's flag by its name (long) or its one letter.
func (c Command) FlagNamed(name string, long bool) (Flag, bool) {
	for _, f := range c.Flags {
		if long && f.Name == name || !long && f.Short != "" && f.Short == name {
			return f, true
		}
	}
	return Flag{}, false
}

// FileArgs are the arguments that name local files, by command: from
// this index on (the client makes them absolute; the daemon's guard
// judges them).
var FileArgs = map[string]int{"upload": 1, "download": 1, "pdf": 0}

var commands = []Command{
	{Name: "open", Use: "open URL", Short: "Load URL in the current tab (the first one opens a tab)", MinArgs: 1, MaxArgs: 1,
		Flags: []Flag{{Name: "new-tab", Bool: true, Usage: "open it in a new tab"}}},
	{Name: "back", Use: "back", Short: "Go back in the current tab's history"},
	{Name: "forward", Use: "forward", Short: "Go forward in the current tab's history"},
	{Name: "reload", Use: "reload", Short: "Reload the current tab"},
	{Name: "snapshot", Use: "snapshot", Short: "Outline the page; interactive elements carry refs (e3) for the other commands",
		Flags: []Flag{{Name: "interactive", Short: "i", Bool: true, Usage: "only the controls (with refs) and headings, one line each"},
			{Name: "selector", Short: "s", Usage: "outline only the part this CSS `SELECTOR` matches"},
			{Name: "max", Usage: "print at most `N` lines"}}},
	{Name: "click", Use: "click REF", Short: "Click an element by ref", MinArgs: 1, MaxArgs: 1,
		Flags: []Flag{{Name: "double", Bool: true, Usage: "double click"}, {Name: "right", Bool: true, Usage: "right click (a context menu)"}}},
	{Name: "hover", Use: "hover REF", Short: "Move the pointer onto an element (opens hover menus)", MinArgs: 1, MaxArgs: 1},
	{Name: "drag", Use: "drag REF TARGET", Short: "Drag an element onto another (a ref, or the drop zone's text)", MinArgs: 2, MaxArgs: 2},
	{Name: "upload", Use: "upload REF FILE...", Short: "Choose files for a file input (or the button that opens the chooser)", MinArgs: 2, MaxArgs: -1},
	{Name: "check", Use: "check REF", Short: "Check a checkbox, radio or switch", MinArgs: 1, MaxArgs: 1},
	{Name: "uncheck", Use: "uncheck REF", Short: "Uncheck a checkbox or switch", MinArgs: 1, MaxArgs: 1},
	{Name: "dialog", Use: "dialog accept|dismiss [TEXT]", Short: "Answer the open alert, confirm or prompt (TEXT: a prompt's answer)", MinArgs: 1, MaxArgs: 2},
	{Name: "download", Use: "download REF [DIR]", Short: "Save what a link downloads (into DIR, default your downloads folder)", MinArgs: 1, MaxArgs: 2},
	{Name: "fill", Use: "fill REF TEXT", Short: "Replace the text of a field", MinArgs: 2, MaxArgs: 2,
		Flags: []Flag{{Name: "submit", Bool: true, Usage: "press Enter afterwards"}}},
	{Name: "type", Use: "type TEXT", Short: "Type text into the element that has the focus (fill types into a ref)", MinArgs: 1, MaxArgs: 1},
	{Name: "press", Use: "press KEY", Short: "Press a key (Enter, Tab, Escape, ArrowDown, Control+a)", MinArgs: 1, MaxArgs: 1},
	{Name: "select", Use: "select REF VALUE", Short: "Choose an option of a <select> by value or label", MinArgs: 2, MaxArgs: 2},
	{Name: "scroll", Use: "scroll [down|up|top|bottom|REF]", Short: "Scroll the page, or an element into view", MaxArgs: 1},
	{Name: "wait", Use: "wait [TEXT|SELECTOR|MS]", Short: "Wait for text, a CSS selector, the page's load (--load), or a number of milliseconds", MaxArgs: 1,
		Flags: []Flag{{Name: "text", Usage: "wait until this `TEXT` shows"}, {Name: "selector", Usage: "wait until this CSS `SELECTOR` matches a visible element"},
			{Name: "load", Bool: true, Usage: "wait until the page has loaded and its network is quiet (500 ms without a request)"},
			{Name: "timeout", Usage: "give up after this many `SECONDS` (default 10, at most 60)"}}},
	{Name: "get", Use: "get text|html|url|title | get text|value|html REF | get attr NAME REF", Short: "Print the page's text (markdown), HTML, URL or title, or an element's text, value, HTML or attribute", MinArgs: 1, MaxArgs: 3},
	{Name: "screenshot", Use: "screenshot [FILE]", Short: "Save a screenshot (.png or .jpg)", MaxArgs: 1,
		Flags: []Flag{{Name: "full", Bool: true, Usage: "the whole page, not only the viewport"},
			{Name: "annotate", Bool: true, Usage: "draw each control's ref on the image, and list them"}}},
	{Name: "pdf", Use: "pdf FILE", Short: "Print the page to a .pdf file (a file write: it asks, as download does)", MinArgs: 1, MaxArgs: 1},
	{Name: "eval", Use: "eval JS", Short: "Run JavaScript in the page and print its JSON result", MinArgs: 1, MaxArgs: 1},
	{Name: "tabs", Use: "tabs", Short: "List the session's tabs"},
	{Name: "tab", Use: "tab N", Short: "Make tab N current", MinArgs: 1, MaxArgs: 1},
	{Name: "close", Use: "close [N]", Short: "Close the current tab (or tab N); --all ends every session", MaxArgs: 1,
		Flags: []Flag{{Name: "all", Bool: true, Usage: "end every session: close their browsers, stop their daemons"}}},
	{Name: "pending", Use: "pending", Short: "List the commands waiting for approval"},
	{Name: "confirm", Use: "confirm ID", Short: "Approve a command that waits for approval, and run it", MinArgs: 1, MaxArgs: 1},
	{Name: "deny", Use: "deny ID", Short: "Drop a command that waits for approval", MinArgs: 1, MaxArgs: 1},
	{Name: "sessions", Use: "sessions", Short: "List the running sessions", Local: true},
	{Name: "skill", Use: "skill", Short: "Print a SKILL.md that teaches a coding agent these commands", Local: true},
}
