package browser

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// ChromeDevtoolsMCPArgs returns the arguments to add to the default
// chrome-devtools MCP server so it drives the browser at ws (ours, or the
// person's in shared mode) and sends nothing anywhere. On a mode switch the
// server must be restarted with the new endpoint.
func ChromeDevtoolsMCPArgs(ws string) []string {
	return []string{"--wsEndpoint", ws, "--no-performance-crux", "--no-usage-statistics"}
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

var pageLineRE = regexp.MustCompile(`^(\d+): (.*)$`)

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
		m := pageLineRE.FindStringSubmatch(line)
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

// ParsePagesJSON reads the structured "pages" (and "openedPages") of a
// chrome-devtools-mcp result, when the client has structuredContent.
func ParsePagesJSON(structured []byte) ([]MCPPage, error) {
	var v struct {
		Pages       []MCPPage `json:"pages"`
		OpenedPages []MCPPage `json:"openedPages"`
	}
	if err := json.Unmarshal(structured, &v); err != nil {
		return nil, err
	}
	for i := range v.OpenedPages {
		v.OpenedPages[i].Opened = true
	}
	return append(v.Pages, v.OpenedPages...), nil
}

// MapMCPPages maps chrome-devtools-mcp page ids to our tab ids by URL, in
// order: both list pages in the order the browser made them, so the k-th
// MCP page with a URL is the k-th of our tabs with that URL. A page with no
// match maps to "" (the guard then asks the browser nothing and treats the
// page as unknown).
func (b *Browser) MapMCPPages(pages []MCPPage) map[int]string {
	return mapPages(pages, b.Tabs())
}

func mapPages(pages []MCPPage, tabs []Tab) map[int]string {
	used := map[string]bool{}
	out := map[int]string{}
	for _, p := range pages {
		out[p.ID] = ""
		for _, t := range tabs {
			if !used[t.ID] && sameURL(t.URL, p.URL) {
				used[t.ID] = true
				out[p.ID] = t.ID
				break
			}
		}
	}
	return out
}

func sameURL(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
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
