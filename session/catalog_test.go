package session

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/tools"
)

// TestNativeToolsCatalogued: the catalogue's native entries are exactly the
// tools the browser and web_fetch offer (round one classified six browser_*
// tools that never existed), and every parameter an entry names is one of
// the tool's.
func TestNativeToolsCatalogued(t *testing.T) {
	var offered []string
	for _, d := range append(browser.New(nil).Provider().Tools(), tools.NewWebFetch(nil).Tools()...) {
		offered = append(offered, d.Name)
		e := tools.EntryOf(d)
		if !e.Known() {
			t.Errorf("%s has no catalogue entry", d.Name)
			continue
		}
		props, _ := d.Parameters["properties"].(map[string]any)
		named := append(append([]string{e.Tab, e.URL, e.Element}, e.Script...), e.Types...)
		for _, f := range e.Files {
			named = append(named, f.Param)
		}
		for _, p := range named {
			if _, ok := props[p]; p != "" && !ok {
				t.Errorf("%s: entry names parameter %q, which the tool does not have", d.Name, p)
			}
		}
	}
	var catalogued []string
	for _, e := range catalog.Entries() {
		if (e.Kind == catalog.Native || e.Kind == catalog.Builtin) && e.Name != "browser_connect" && e.Name != "browser_disconnect" { // those two are mcp serve's
			catalogued = append(catalogued, e.Name)
		}
	}
	sort.Strings(offered)
	sort.Strings(catalogued)
	if diff := cmp.Diff(offered, catalogued); diff != "" {
		t.Errorf("offered tools vs catalogue (-offered +catalogued):\n%s", diff)
	}
}
