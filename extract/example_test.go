package extract_test

import (
	"fmt"
	"strings"

	"github.com/browseragent/browseragent/extract"
)

// Extract finds a page's main content in HTML from anywhere (a file, a
// rendered DOM), with no network: the navigation and footer are left out.
func ExampleExtract() {
	page := []byte(`<html><head><title>Tides</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>The Tidal Clock</h1>
<p>Twice a day the sea rises and falls, pulled by the moon. Fishermen on this coast have read the lunar tide for centuries, long before tables were printed.</p>
<p>A tidal clock turns once every twelve hours and twenty-five minutes, the time between two high waters.</p></article>
<footer>© 2026 Coast Notes</footer></body></html>`)
	r, err := extract.Extract(page, "https://example.test/tides", nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Title)
	md := r.Markdown()
	fmt.Println(len(md) > 0, strings.Contains(md, "lunar tide"), strings.Contains(md, "Coast Notes"))
	// Output:
	// Tides
	// true true false
}
