package words

import (
	"regexp"
	"strings"
	"sync"
)

// The person's wording of a failed call names the shell's slash commands
// (/snapshot, /tabs, /connect), which a `run` or `mcp call` cannot take:
// there the agent (or the script) goes on with tools and flags. ForScript
// says the same thing in those words.
var runWordsFixed = strings.NewReplacer(
	"take a new /snapshot", "take a new snapshot (browser_snapshot)",
	"(/snapshot shows the page)", "(browser_snapshot shows the page)",
	"/snapshot shows what has rendered so far", "browser_snapshot shows what has rendered so far",
	"/snapshot shows the fields", "browser_snapshot shows the fields",
	"/snapshot again in a moment", "browser_snapshot again in a moment",
	"/snapshot CSS outlines one part", "browser_snapshot with a selector outlines one part",
	`/call browser_snapshot {"from_line"`, `browser_snapshot {"from_line"`,
	"run /connect again", "run again with --connect",
	"/connect attaches again", "--connect attaches again",
	"tell them to run /connect", "run again with --connect",
	"/tabs lists them", "browser_tabs lists them",
	"/tabs lists the tabs", "browser_tabs lists the tabs",
	"/tab N picks one", "browser_select_tab picks one",
	"/open URL opens one", "browser_open opens one",
	"/navigate URL loads a page in it", "browser_navigate loads a page in it",
	", then /snapshot", ", then browser_snapshot",
)

var (
	runWordsClose = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/close \d+ closes it`) })
	runWordsTab   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/tab \d+ makes it the current one`) })
	runWordsOpen  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/open (\S+?),? then`) })
)

// ForScript rewords text for `run`, `mcp call` and `mcp serve`: tools and
// flags instead of the shell's slash commands.
func ForScript(text string) string {
	text = runWordsFixed.Replace(text)
	text = runWordsClose().ReplaceAllString(text, "browser_close closes it")
	text = runWordsTab().ReplaceAllString(text, "browser_select_tab makes it the current one")
	text = runWordsOpen().ReplaceAllString(text, "browser_open $1, then")
	return text
}
