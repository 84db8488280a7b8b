package browser

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// ChromeDevtoolsMCPArgs returns the arguments to add to the default
// chrome-devtools MCP server so it drives the browser at ws (ours, or the
// person's in shared mode) and sends nothing anywhere, plus
// chromeDevtoolsMCPSafetyArgs. On a mode switch the server must be
// restarted with the new endpoint.
func ChromeDevtoolsMCPArgs(ws string) []string {
	return append([]string{"--wsEndpoint", ws, "--no-performance-crux", "--no-usage-statistics"}, chromeDevtoolsMCPSafetyArgs()...)
}

// chromeDevtoolsMCPSafetyArgs are the arguments the browser's MCP server
// always gets, whatever browser its configuration names:
// --redactNetworkHeaders keeps cookies and authorization out of
// get_network_request (chrome-devtools-mcp 1.11 sends them unless told),
// and --experimentalInteropTools offers get_tab_id, which names the tab
// behind a pageId, so pages are matched to tabs by identity.
func chromeDevtoolsMCPSafetyArgs() []string {
	return []string{"--redactNetworkHeaders", "--experimentalInteropTools"}
}

// ChromeDevtoolsMCPEnv returns the environment settings that keep
// chrome-devtools-mcp from reporting usage, checking for updates or reading
// config files it finds on disk.
func ChromeDevtoolsMCPEnv() []string {
	return []string{
		"CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1",
		"CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS=1",
		"CHROME_DEVTOOLS_MCP_NO_CONFIG_DISCOVERY=1",
	}
}

// MCPPage is one page as chrome-devtools-mcp lists it.
type MCPPage struct {
	ID       int    `json:"id"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Selected bool   `json:"selected"`
	Opened   bool   `json:"-"` // listed under "## Opened pages": the call just opened it
}

var pageLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d+): (.*)$`)
})

// ParseListPages reads the page lines of a chrome-devtools-mcp result:
// "N: title (url) [selected]" under "## Pages" (list_pages and most tools)
// and under "## Opened pages" (a call that opened a popup or tab).
func ParseListPages(text string) []MCPPage {
	var out []MCPPage
	section := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimSpace(line[3:])
			continue
		}
		if section != "Pages" && section != "Opened pages" {
			continue
		}
		m := pageLineRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		id, _ := strconv.Atoi(m[1])
		p := parsePageLabel(m[2])
		p.ID, p.Opened = id, section == "Opened pages"
		out = append(out, p)
	}
	return out
}

// parsePageLabel splits "title (url) [selected] isolatedContext=x".
func parsePageLabel(s string) MCPPage {
	var p MCPPage
	if i := strings.LastIndex(s, " isolatedContext="); i >= 0 && !strings.Contains(s[i+1:], " ") {
		s = s[:i]
	}
	if t, ok := strings.CutSuffix(s, " [selected]"); ok {
		s, p.Selected = t, true
	}
	// The URL has no spaces; the title (cut to 50 chars) may hold parentheses.
	if strings.HasSuffix(s, ")") {
		if i := strings.LastIndex(s, " ("); i >= 0 && !strings.Contains(s[i+2:], " ") {
			p.Title, p.URL = s[:i], s[i+2:len(s)-1]
			return p
		}
	}
	p.URL = s
	return p
}

// MatchMCPPageByURL is the fallback when a chrome-devtools-mcp server
// cannot name the tab behind a page (no get_tab_id): it finds our tab for
// pages[i] by URL, but only when exactly one MCP page and exactly one of
// our tabs show that URL. n is 0 when none of our tabs shows it, and
// above 1 (tab "") when several pages or tabs do: list order is no identity (after a restart the server lists pages in
// another order), so an ambiguous page is never guessed.
func (b *Browser) MatchMCPPageByURL(pages []MCPPage, i int) (tab string, n int) {
	return matchByURL(pages, i, b.Tabs())
}

func matchByURL(pages []MCPPage, i int, tabs []Tab) (string, int) {
	same := 0
	for _, p := range pages {
		if sameURL(p.URL, pages[i].URL) {
			same++
		}
	}
	var found []string
	for _, t := range tabs {
		if sameURL(t.URL, pages[i].URL) {
			found = append(found, t.ID)
		}
	}
	switch {
	case same == 1 && len(found) == 1:
		return found[0], 1
	case len(found) == 0:
		return "", 0 // not one of our tabs
	}
	return "", max(same, len(found))
}

func sameURL(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// TabIDTool is chrome-devtools-mcp's tool that names the CDP tab target of
// a page (offered with --experimentalInteropTools); browseragent calls it
// itself and hides it from the model.
const TabIDTool = "get_tab_id"

var tabIDRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^Tab ID: ([0-9A-Fa-f]+)\s*$`)
})

// ParseTabID reads the tab target id from get_tab_id's text ("Tab ID: X").
func ParseTabID(text string) string {
	if m := tabIDRE().FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// MarkOwned records that the agent opened a tab through another path (an MCP
// new_page, or a page listed under "Opened pages" after an agent call).
func (b *Browser) MarkOwned(tabID string) bool {
	s, t := b.knownTab(tabID)
	if t == nil {
		return false
	}
	s.mu.Lock()
	t.owned = true
	s.mu.Unlock()
	return true
}

var (
	requestHeadRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^## Request (\S+)\s*$`)
	})
	requestLineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^reqid=\d+ [A-Z]+ (\S+)`)
	})
)

// ParseRequestURLs reads the URLs of the network requests a
// chrome-devtools-mcp result shows: the "## Request URL" heading of
// get_network_request and each "reqid=N METHOD URL" line of
// list_network_requests, so where their content came from can be judged.
func ParseRequestURLs(text string) []string {
	var urls []string
	for _, re := range []*regexp.Regexp{requestHeadRE(), requestLineRE()} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			urls = append(urls, m[1])
		}
	}
	return urls
}
