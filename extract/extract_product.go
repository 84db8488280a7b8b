package extract

import (
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A product page often shows its name and price in widgets built by script
// and keeps its description in a tab the markup hides; its JSON-LD Product
// says all of them. What the page's text lacks of it is put first.

// ldProduct is what a JSON-LD Product says a reader wants.
type ldProduct struct {
	Name, Brand, Description, Price, Currency, SKU string
}

// productFacts finds the first JSON-LD Product among the page's scripts.
func productFacts(ps *pageScripts) *ldProduct {
	if ps == nil {
		return nil
	}
	for _, sc := range ps.scripts {
		if t, _ := attr(sc, "type"); !strings.EqualFold(strings.TrimSpace(t), "application/ld+json") {
			continue
		}
		var v any
		if json.Unmarshal([]byte(strings.TrimSpace(textOf(sc))), &v) != nil {
			continue
		}
		if p := findProduct(v, 0); p != nil {
			return p
		}
	}
	return nil
}

func findProduct(v any, depth int) *ldProduct {
	if depth > 5 {
		return nil
	}
	switch t := v.(type) {
	case []any:
		for _, c := range t {
			if p := findProduct(c, depth+1); p != nil {
				return p
			}
		}
	case map[string]any:
		if isType(t["@type"], "product") {
			p := &ldProduct{Name: str(t["name"]), Description: str(t["description"]), SKU: str(t["sku"])}
			if b, ok := t["brand"].(map[string]any); ok {
				p.Brand = str(b["name"])
			} else {
				p.Brand = str(t["brand"])
			}
			p.Price, p.Currency = offerPrice(t["offers"])
			return p
		}
		for _, k := range []string{"@graph", "mainEntity", "itemListElement"} {
			if p := findProduct(t[k], depth+1); p != nil {
				return p
			}
		}
	}
	return nil
}

func offerPrice(v any) (price, currency string) {
	switch t := v.(type) {
	case []any:
		if len(t) > 0 {
			return offerPrice(t[0])
		}
	case map[string]any:
		price = firstNonEmpty(str(t["price"]), str(t["lowPrice"]))
		return price, str(t["priceCurrency"])
	}
	return "", ""
}

func isType(v any, want string) bool {
	switch t := v.(type) {
	case string:
		return strings.EqualFold(t, want)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && strings.EqualFold(s, want) {
				return true
			}
		}
	}
	return false
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(html.UnescapeString(t))
	case float64:
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", t), "0"), ".")
	}
	return ""
}

// addProductFacts puts the product's name, price and description first in
// r's content, each only when the content's text does not hold it.
func (r *Result) addProductFacts(ps *pageScripts) {
	p := productFacts(ps)
	if p == nil {
		return
	}
	var text strings.Builder
	for _, n := range r.nodes {
		text.WriteString(textOf(n))
	}
	have := normSpaceLower(text.String())
	missing := func(s string) bool { return s != "" && !strings.Contains(have, normSpaceLower(s)) }
	block := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	add := func(tag atom.Atom, s string) {
		el := &html.Node{Type: html.ElementNode, Data: tag.String(), DataAtom: tag}
		el.AppendChild(&html.Node{Type: html.TextNode, Data: s})
		block.AppendChild(el)
	}
	if missing(p.Name) {
		add(atom.H1, p.Name)
	}
	if p.Price != "" && missing(p.Price) {
		add(atom.P, strings.TrimSpace("Price: "+p.Price+" "+p.Currency))
	}
	if missing(p.Description) {
		for _, para := range strings.Split(p.Description, "\n") {
			if para = strings.TrimSpace(para); para != "" {
				add(atom.P, para)
			}
		}
	}
	if block.FirstChild != nil {
		r.nodes = append([]*html.Node{block}, r.nodes...)
	}
}

func normSpaceLower(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
