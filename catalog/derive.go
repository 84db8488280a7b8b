package catalog

import (
	"regexp"
	"sort"
	"sync"
)

// fileName and fileWords recognise a parameter that names a local file:
// by its name (filePath, outputDir, path) or by what its description says.
var (
	fileName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(path|file|dir|folder)`)
	})
	fileWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(path|paths|file|files|filename|director(y|ies)|dir|folder)\b`)
	})
	saveWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(save|saves|saved|write|writes|written|output|export|destination|create|store)\b`)
	})
	urlName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^url$`)
	})
)

// Derive describes a tool of an MCP server that has no catalogue entry, from
// its annotations and input schema. It is a read only when the server says
// it is read-only and not destructive. A parameter whose name or
// description says path, file or directory is a file parameter, written
// unless the tool is read-only and its description says nothing of saving.
// On the browser's server a tool with a pageId acts on that page.
func Derive(server, name string, h Hints, schema map[string]any) Entry {
	e := Entry{Name: name, Kind: MCP, Effect: Write, Timeout: DefaultTimeout}
	ro := h.ReadOnly != nil && *h.ReadOnly && (h.Destructive == nil || !*h.Destructive)
	if ro {
		e.Effect = Read
	}
	e.Annotations = Annotations{ReadOnly: ro, Destructive: h.Destructive == nil || *h.Destructive,
		OpenWorld: h.OpenWorld == nil || *h.OpenWorld}
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for p := range props {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		ps, _ := props[p].(map[string]any)
		desc, _ := ps["description"].(string)
		typ, _ := ps["type"].(string)
		switch {
		case urlName().MatchString(p) && e.URL == "":
			e.URL = p
		case fileName().MatchString(p) || fileWords().MatchString(desc):
			e.Files = append(e.Files, File{Param: p, Write: !ro || saveWords().MatchString(desc), List: typ == "array"})
		}
	}
	if IsBrowserServer(server) {
		e.Browser = true
		if _, ok := props["pageId"]; ok {
			e.Tab, e.OnPage = "pageId", true
		}
	}
	return e
}
