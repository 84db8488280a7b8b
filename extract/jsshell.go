package extract

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// appRootIDs are the mount points of common single-page-app frameworks.
var appRootIDs = map[string]bool{
	"root": true, "app": true, "__next": true, "__nuxt": true, "___gatsby": true,
	"svelte": true, "app-root": true, "main-app": true, "q-app": true, "ember-app": true,
}

// shellStats is what detectJSShell measures.
type shellStats struct {
	visible     int    // letters and digits of text a reader would see
	scripts     int    // executable <script> elements
	root        string // "#root", "app-root", ... when an app mount point exists
	rootVisible int    // visible letters and digits inside that mount point
	noscriptJS  bool   // a <noscript> asks to enable JavaScript
}

// detectJSShell reports whether doc looks like a page whose content is drawn
// by JavaScript (little visible text, an empty app root, many scripts), with
// a hint telling the reader to use the browser.
func detectJSShell(doc *html.Node) (bool, string) {
	st := measureShell(doc)
	var shell bool
	switch {
	case st.visible < 200 && (st.root != "" || st.scripts >= 3 || st.noscriptJS):
		shell = true
	case st.root != "" && st.rootVisible < 50 && st.visible < 1000 && st.scripts >= 1:
		shell = true
	}
	if !shell {
		return false, ""
	}
	var why []string
	why = append(why, fmt.Sprintf("%d characters of text", st.visible))
	if st.root != "" {
		why = append(why, "an empty app root "+st.root)
	}
	if st.scripts > 0 {
		why = append(why, plural(st.scripts, "script"))
	}
	return true, "This page looks like a JavaScript app shell (" + strings.Join(why, ", ") +
		"): its content is drawn by scripts, which plain HTTP does not run."
}

func measureShell(doc *html.Node) shellStats {
	var st shellStats
	var rootNode *html.Node
	walk(doc, func(n *html.Node) bool {
		switch n.Type {
		case html.TextNode:
			st.visible += countVisible(n.Data)
		case html.ElementNode:
			return st.element(n, &rootNode)
		}
		return true
	})
	walk(doc, func(n *html.Node) bool { // scripts count wherever they are, <head> too
		if n.Type == html.ElementNode && n.DataAtom == atom.Script && isExecutable(n) {
			st.scripts++
		}
		return true
	})
	if rootNode != nil {
		walk(rootNode, func(n *html.Node) bool {
			if n.Type == html.ElementNode && hiddenText[n.DataAtom] {
				return false
			}
			if n.Type == html.TextNode {
				st.rootVisible += countVisible(n.Data)
			}
			return true
		})
	}
	return st
}

// element updates st for one element and says whether to look inside it.
func (st *shellStats) element(n *html.Node, rootNode **html.Node) bool {
	switch n.DataAtom {
	case atom.Noscript:
		st.noscriptJS = st.noscriptJS || strings.Contains(strings.ToLower(textOf(n)), "javascript")
		return false
	}
	if hiddenText[n.DataAtom] {
		return false
	}
	if *rootNode == nil {
		if id, _ := attr(n, "id"); appRootIDs[strings.ToLower(id)] {
			*rootNode, st.root = n, "#"+id
		} else if n.Data == "app-root" {
			*rootNode, st.root = n, "app-root"
		} else if _, ok := attr(n, "ng-app"); ok {
			*rootNode, st.root = n, "[ng-app]"
		}
	}
	return true
}

var hiddenText = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Head: true, atom.Svg: true,
}

func isExecutable(script *html.Node) bool {
	t, _ := attr(script, "type")
	t = strings.ToLower(strings.TrimSpace(t))
	return t == "" || t == "module" || strings.Contains(t, "javascript") || t == "text/babel"
}

func countVisible(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}
