package browsercli

import (
	"fmt"
	"sync"

	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/browsercli/wire"
	"github.com/browseragent/browseragent/tools"
)

// cmdSnapshot is browser_snapshot for the command line: -i asks for the
// controls and headings only, --max caps the lines printed.
func cmdSnapshot(x *execution) *wire.Response {
	a := map[string]any{}
	if s := x.req.Flag("selector"); s != "" {
		a["selector"] = s
	}
	max := 0
	if m := x.req.Flag("max"); m != "" {
		n, err := strconv.Atoi(m)
		if err != nil || n <= 0 {
			return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("--max %q: give a number of lines", m)}
		}
		max = n
	}
	if x.req.On("interactive") {
		a["interactive"] = true // the controls and headings, one line each
	}
	res, fail := x.call("browser_snapshot", a)
	if fail != nil {
		return fail
	}
	lines := strings.Split(strings.TrimRight(cliWords(res.ForPerson()), "\n"), "\n")
	if max > 0 && len(lines) > max {
		n := len(lines)
		lines = append(lines[:max], fmt.Sprintf("[cut at %d of %d lines: -s SELECTOR outlines one part]", max, n))
	}
	text := strings.Join(lines, "\n")
	return &wire.Response{Text: text, Data: map[string]any{"snapshot": text, "elements": elementsOf(res, lines), "tab": res.Tab}}
}

// elementsOf is the snapshot's elements as the browser gives them as
// data, else as read from its lines.
func elementsOf(res *tools.ToolResult, lines []string) any {
	if s, ok := res.Data.(*browser.Snapshot); ok && s != nil && s.Elements != nil {
		return s.Elements
	}
	return elements(lines)
}

// element is one element of a snapshot with a ref, for --json.
type element struct {
	Ref string `json:"ref"`
	// Frame is the frame the element is in (f1, as its ref f1e3 says);
	// "" for the page itself.
	Frame   string `json:"frame,omitempty"`
	Role    string `json:"role"`
	Name    string `json:"name,omitempty"`
	Value   string `json:"value,omitempty"`
	Checked bool   `json:"checked,omitempty"`
	URL     string `json:"url,omitempty"`
}

var (
	lineRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*-?\s*([a-z]+)(?: ("(?:[^"\\]|\\.)*"))?(?: \[([^\]]*)\])?(?: -> (\S+))?(?: value=("(?:[^"\\]|\\.)*"))?`)
	})
	refAttr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|, )ref=([a-z]*[0-9]+(?:e[0-9]+)?)`) })
)

// elements reads the elements with refs out of the snapshot's lines.
func elements(lines []string) []element {
	out := []element{}
	for _, l := range lines {
		m := lineRE().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		r := refAttr().FindStringSubmatch(m[3])
		if r == nil {
			continue
		}
		e := element{Ref: r[1], Role: m[1], URL: m[4]}
		if f, _, ok := strings.Cut(e.Ref, "e"); ok && f != "" {
			e.Frame = f
		}
		e.Name, _ = strconv.Unquote(m[2])
		e.Value, _ = strconv.Unquote(m[5])
		for _, attr := range strings.Split(m[3], ", ") {
			e.Checked = e.Checked || attr == "checked"
		}
		out = append(out, e)
	}
	return out
}

// cmdGet reads the page: its text (browser_extract), or its URL and title
// from the tab list.
func cmdGet(x *execution) *wire.Response {
	what := x.req.Args[0]
	if what == "attr" {
		if len(x.req.Args) != 3 {
			return &wire.Response{Exit: wire.ExitUsage, Error: "usage: browseragent browser get attr NAME REF"}
		}
		return getHTML(x, "attr", x.req.Args[2], x.req.Args[1])
	}
	if len(x.req.Args) > 2 {
		return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("get %s takes at most one REF", what)}
	}
	if what == "html" {
		ref := ""
		if len(x.req.Args) == 2 {
			ref = x.req.Args[1]
		}
		return getHTML(x, "html", ref, "")
	}
	if len(x.req.Args) > 1 {
		return getOfRef(x, what, x.req.Args[1])
	}
	switch what {
	case "text":
		res, fail := x.call("browser_extract", map[string]any{})
		if fail != nil {
			return fail
		}
		text := strings.TrimSpace(res.ForPerson())
		return &wire.Response{Text: text, Data: map[string]any{"text": text, "tab": res.Tab}}
	case "url", "title":
		res, fail := x.call("browser_tabs", map[string]any{})
		if fail != nil {
			return fail
		}
		id, title, url, ok := currentTab(res.Text)
		if !ok {
			for _, t := range tabList(res.Text) {
				if t.Current && t.Withheld != "" {
					// There is a current tab, on a page a deny rule names.
					return &wire.Response{Exit: wire.ExitDenied, Error: fmt.Sprintf("the current tab %s shows %s: browseragent does not read it; open another page, pick another tab with `browseragent browser tab N`, or close it", t.ID, t.Withheld)}
				}
			}
			return &wire.Response{Exit: wire.ExitNoTab, Error: "no current tab: browseragent browser open URL opens one"}
		}
		v := url
		if what == "title" {
			v = title
		}
		return &wire.Response{Text: v, Data: map[string]any{what: v, "tab": id}}
	}
	return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("get %q: say text, html, url, title, value or attr", what)}
}

// getHTML is browser_html: the page's HTML, an element's (ref), or one of
// its attributes (name).
func getHTML(x *execution, what, arg, name string) *wire.Response {
	a := map[string]any{}
	ref := ""
	if arg != "" {
		var fail *wire.Response
		if ref, fail = refArg(arg); fail != nil {
			return fail
		}
		a["ref"] = ref
	}
	if name != "" {
		a["attr"] = name
	}
	res, fail := x.call("browser_html", a)
	if fail != nil {
		return fail
	}
	data := map[string]any{what: res.ForPerson(), "tab": res.Tab}
	if ref != "" {
		data["ref"] = ref
	}
	if name != "" {
		data["name"] = name
	}
	return &wire.Response{Text: res.ForPerson(), Data: data}
}

// getOfRef reads one element as the snapshot outlines it: its text (the
// name the page gives it) or its value (secret fields show as ••••).
func getOfRef(x *execution, what, arg string) *wire.Response {
	if what != "text" && what != "value" {
		return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("get %s REF: say text, value or html (get attr NAME REF reads an attribute)", what)}
	}
	ref, fail := refArg(arg)
	if fail != nil {
		return fail
	}
	res, fail := x.call("browser_snapshot", map[string]any{})
	if fail != nil {
		return fail
	}
	var list []element
	if s, ok := res.Data.(*browser.Snapshot); ok && s != nil {
		for _, e := range s.Elements {
			list = append(list, element{Ref: e.Ref, Role: e.Role, Name: e.Name, Value: e.Value})
		}
	} else {
		list = elements(strings.Split(res.Text, "\n"))
	}
	for _, e := range list {
		if e.Ref != ref {
			continue
		}
		v := e.Name
		if what == "value" {
			v = e.Value
		}
		return &wire.Response{Text: v, Data: map[string]any{what: v, "ref": ref, "role": e.Role, "tab": res.Tab}}
	}
	return &wire.Response{Exit: wire.ExitStale, Error: fmt.Sprintf("ref %s is not on the page any more (the page changed or navigated): take a new snapshot (browseragent browser snapshot)", ref)}
}

// tabEntry is one tab of browser_tabs' list, for --json.
type tabEntry struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	URL     string `json:"url,omitempty"`
	Current bool   `json:"current,omitempty"`
	Agent   bool   `json:"agent"` // the session opened it; false: the person's
	// Withheld is why the list does not show the tab's page (a deny rule
	// names it); its title and URL are left out then.
	Withheld string `json:"withheld,omitempty"`
}

// tabList reads browser_tabs' list as the result screen left it:
// `t1 [current, agent] "Title" https://…`, or for a tab whose page a deny
// rule names `t2 [person's] (a page the sensitive-site rule "…" denies)`.
func tabList(list string) []tabEntry {
	out := []tabEntry{}
	for _, l := range strings.Split(list, "\n") {
		id, rest, ok := strings.Cut(l, " [")
		flags, rest, ok2 := strings.Cut(rest, "] ")
		if !ok || !ok2 || strings.ContainsAny(id, " \"") {
			continue
		}
		t := tabEntry{ID: id}
		for _, f := range strings.Split(flags, ", ") {
			t.Current = t.Current || f == "current"
			t.Agent = t.Agent || f == "agent"
		}
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			t.Title, _ = strconv.Unquote(q)
			t.URL = strings.TrimSpace(rest[len(q):])
		} else {
			t.Withheld = strings.TrimSuffix(strings.TrimPrefix(rest, "("), ")")
		}
		out = append(out, t)
	}
	return out
}

// currentTab reads the current tab's line of browser_tabs.
func currentTab(list string) (id, title, url string, ok bool) {
	for _, t := range tabList(list) {
		if t.Current && t.Withheld == "" {
			return t.ID, t.Title, t.URL, true
		}
	}
	return "", "", "", false
}

// cmdTabs is browser_tabs; --json lists the tabs as data too.
func cmdTabs(x *execution) *wire.Response {
	res, fail := x.call("browser_tabs", map[string]any{})
	if fail != nil {
		return fail
	}
	r := textResponse(res)
	r.Data["tabs"] = tabList(res.Text)
	return r
}

// cmdScreenshot is browser_screenshot; with FILE the command line saves
// the image there (the daemon writes nothing of the person's).
func cmdScreenshot(x *execution) *wire.Response {
	a := map[string]any{}
	if x.req.On("full") {
		a["full_page"] = true
	}
	annotate := x.req.On("annotate")
	if annotate {
		a["annotate"] = true
	}
	file := ""
	if len(x.req.Args) == 1 {
		file = x.req.Args[0]
		switch strings.ToLower(filepath.Ext(file)) {
		case ".png":
			a["format"] = "png"
		case ".jpg", ".jpeg":
		default:
			return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("screenshot %s: name a .png or .jpg file", file)}
		}
	}
	res, fail := x.call("browser_screenshot", a)
	if fail != nil {
		return fail
	}
	data := map[string]any{"path": res.Path, "tab": res.Tab}
	var legend string
	if annotate {
		// the refs drawn, as the tool lists them after its first line
		_, legend, _ = strings.Cut(cliWords(res.ForPerson()), "\n")
		data["refs"] = legend
	}
	r := &wire.Response{Text: res.Path, Data: data}
	if file != "" && len(res.Images) > 0 {
		data["path"] = file
		r.Text, r.File = file, &wire.File{Path: file, Data: res.Images[0].Data}
	}
	if legend != "" {
		r.Text += "\n" + legend
	}
	return r
}

// cmdPDF is browser_pdf: the tool writes the file, judged as every file
// a tool writes (refused in the places browseragent never writes; asks
// outside the output folder, and inside it unless --yes or "always").
func cmdPDF(x *execution) *wire.Response {
	file := x.req.Args[0]
	if strings.ToLower(filepath.Ext(file)) != ".pdf" {
		return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("pdf %s: name a .pdf file", file)}
	}
	res, fail := x.call("browser_pdf", map[string]any{"path": file})
	if fail != nil {
		return fail
	}
	return &wire.Response{Text: res.Path, Data: map[string]any{"path": res.Path, "tab": res.Tab, "result": cliWords(res.ForPerson())}}
}
