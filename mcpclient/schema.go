package mcpclient

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// maxDescriptionLen caps every description in a cleaned schema and tool.
const maxDescriptionLen = 1000

// maxRefDepth bounds chains of $ref inside $ref; a $ref that refers to a
// definition being inlined (recursion) stops at once, as a plain object
// described as recursive.
const maxRefDepth = 10

// maxSchemaDepth is how deeply a cleaned schema may nest; a deeper part
// is replaced by a plain value described as omitted, and the tool is
// offered with a warning (see cleanSchemaReport).
const maxSchemaDepth = 32

// cleanSchema turns a tool's inputSchema into the subset of JSON Schema
// that every LLM tool API accepts: local $ref (to any JSON pointer, "#"
// included) inlined and $defs removed, $schema/$id dropped, anyOf/oneOf
// collapsed into the first concrete type with the alternatives described,
// a top-level allOf merged and a top-level anyOf/oneOf of objects merged
// into one object (no parameter lost), a missing top-level type taken as
// object, nesting cut at maxSchemaDepth, descriptions capped, and the top
// level always {"type":"object","properties":{...}}. The input is not
// modified.
func cleanSchema(schema any) map[string]any {
	out, _ := cleanSchemaReport(schema)
	return out
}

// cleanSchemaReport is cleanSchema that also says whether a part nested
// deeper than maxSchemaDepth was left out.
func cleanSchemaReport(schema any) (map[string]any, bool) {
	root := toMap(schema)
	c := cleaner{root: root, defs: collectDefs(root), active: map[string]bool{}}
	out, _ := c.clean(mergeTop(root), 0).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	if _, ok := out["type"]; !ok && (out["properties"] != nil || len(out) == 0 || out["required"] != nil) {
		out["type"] = "object"
	}
	if out["type"] != "object" {
		out = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	if _, ok := out["properties"].(map[string]any); !ok {
		out["properties"] = map[string]any{}
	}
	return out, c.truncated
}

// mergeTop folds a top-level allOf, anyOf or oneOf of object schemas into
// the top object, so every parameter stays offered: allOf keeps each
// part's required, anyOf/oneOf only those required by every alternative.
func mergeTop(root map[string]any) map[string]any {
	if root == nil {
		return nil
	}
	var key string
	var parts []any
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if p, ok := root[k].([]any); ok && len(p) > 0 {
			key, parts = k, p
			break
		}
	}
	if key == "" {
		return root
	}
	out := map[string]any{}
	for k, v := range root {
		if k != key {
			out[k] = v
		}
	}
	props := map[string]any{}
	if p, ok := out["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v
		}
	}
	required := map[string]int{}
	var order []string
	addReq := func(v any) {
		list, _ := v.([]any)
		for _, r := range list {
			if s, ok := r.(string); ok {
				if required[s] == 0 {
					order = append(order, s)
				}
				required[s]++
			}
		}
	}
	addReq(out["required"])
	base := required
	for _, p := range parts {
		pm := toMap(p)
		if ref, ok := pm["$ref"].(string); ok { // a part is often a $ref
			if target := resolvePointer(root, ref); target != nil {
				pm = toMap(target)
			}
		}
		if pp, ok := pm["properties"].(map[string]any); ok {
			for k, v := range pp {
				if _, dup := props[k]; !dup {
					props[k] = v
				}
			}
		}
		addReq(pm["required"])
		if d, ok := pm["description"].(string); ok && out["description"] == nil {
			out["description"] = d
		}
	}
	_ = base
	var req []any
	for _, r := range order {
		if key == "allOf" || required[r] >= len(parts) {
			req = append(req, r)
		}
	}
	out["type"] = "object"
	out["properties"] = props
	delete(out, "required")
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}

// resolvePointer follows a local JSON pointer ("#", "#/properties/x",
// "#/$defs/a~1b") in root; nil when it does not resolve.
func resolvePointer(root map[string]any, ref string) any {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	var cur any = root
	if frag == "" {
		return cur
	}
	if !strings.HasPrefix(frag, "/") {
		return nil // an anchor name, not a pointer
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}

// toMap normalises any schema value (map, struct, raw JSON) to map form.
func toMap(v any) map[string]any {
	switch t := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return t
	case json.RawMessage:
		var m map[string]any
		_ = json.Unmarshal(t, &m)
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

func collectDefs(root map[string]any) map[string]any {
	defs := map[string]any{}
	for _, key := range []string{"definitions", "$defs"} {
		if d, ok := root[key].(map[string]any); ok {
			for k, v := range d {
				defs["#/"+key+"/"+k] = v
			}
		}
	}
	return defs
}

type cleaner struct {
	root      map[string]any
	defs      map[string]any
	active    map[string]bool // refs being inlined on the current path
	truncated bool            // a part deeper than maxSchemaDepth was left out
	refDepth  int             // $refs being inlined, nested
}

var droppedKeys = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "definitions": true,
	"$comment": true, "$anchor": true, "$dynamicRef": true, "$dynamicAnchor": true,
}

func (c *cleaner) clean(v any, depth int) any {
	switch t := v.(type) {
	case map[string]any:
		return c.cleanObject(t, depth)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = c.clean(e, depth)
		}
		return out
	case string:
		return t
	default:
		return t
	}
}

func (c *cleaner) cleanObject(m map[string]any, depth int) map[string]any {
	if depth > maxSchemaDepth {
		c.truncated = true
		out := map[string]any{"description": fmt.Sprintf("(nested deeper than %d levels: not shown)", maxSchemaDepth)}
		if t, ok := firstType(m["type"]).(string); ok {
			out["type"] = t
		} else {
			out["type"] = "object"
		}
		return out
	}
	if ref, ok := m["$ref"].(string); ok {
		return c.inlineRef(m, ref, depth)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 {
			return c.collapse(m, key, alts, depth)
		}
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case droppedKeys[k]:
		case k == "description":
			if s, ok := v.(string); ok {
				out[k] = capText(s, maxDescriptionLen)
			}
		case k == "properties" || k == "patternProperties":
			out[k] = c.cleanProperties(v, depth+1)
		case k == "type":
			out[k] = firstType(v)
		default:
			out[k] = c.clean(v, depth+1)
		}
	}
	return out
}

// cleanProperties cleans each property schema; property names are data,
// not keywords, so "description" or "$id" as a property name survive.
func (c *cleaner) cleanProperties(v any, depth int) any {
	props, ok := v.(map[string]any)
	if !ok {
		return map[string]any{}
	}
	out := make(map[string]any, len(props))
	for name, p := range props {
		out[name] = c.clean(p, depth)
	}
	return out
}

func (c *cleaner) inlineRef(m map[string]any, ref string, depth int) map[string]any {
	target, ok := c.defs[ref]
	if !ok {
		target = resolvePointer(c.root, ref)
		ok = target != nil
	}
	if !ok || c.refDepth >= maxRefDepth || c.active[ref] {
		out := map[string]any{"type": "object"}
		if !ok {
			out["description"] = fmt.Sprintf("(schema %s not resolvable)", ref)
		} else {
			out["description"] = "(recursive structure, nested the same way)"
		}
		return out
	}
	merged := map[string]any{}
	for k, v := range toMap(target) {
		merged[k] = v
	}
	for k, v := range m { // siblings of $ref (description, default) win
		if k != "$ref" {
			merged[k] = v
		}
	}
	c.active[ref] = true
	c.refDepth++
	defer func() { delete(c.active, ref); c.refDepth-- }()
	return c.cleanObject(merged, depth)
}

// collapse replaces anyOf/oneOf by its first concrete (non-null)
// alternative and describes the others, since several LLM APIs reject
// union schemas.
func (c *cleaner) collapse(m map[string]any, key string, alts []any, depth int) map[string]any {
	var cleaned []map[string]any
	for _, a := range alts {
		if am, ok := c.clean(a, depth).(map[string]any); ok {
			cleaned = append(cleaned, am)
		}
	}
	base := map[string]any{}
	var others []string
	nullable := false
	for _, a := range cleaned {
		if a["type"] == "null" {
			nullable = true
			continue
		}
		if len(base) == 0 {
			base = a
			continue
		}
		others = append(others, describeSchema(a))
	}
	if len(base) == 0 {
		base = map[string]any{"type": "string"}
	}
	rest := map[string]any{}
	for k, v := range m {
		if k != key {
			rest[k] = v
		}
	}
	out := c.cleanObject(rest, depth)
	for k, v := range base {
		if _, ok := out[k]; !ok || k == "type" {
			out[k] = v
		}
	}
	var notes []string
	if len(others) > 0 {
		notes = append(notes, "May also be: "+strings.Join(others, "; ")+".")
	}
	if nullable {
		notes = append(notes, "May be null.")
	}
	if len(notes) > 0 {
		desc, _ := out["description"].(string)
		out["description"] = capText(strings.TrimSpace(sentence(desc)+" "+strings.Join(notes, " ")), maxDescriptionLen)
	}
	return out
}

// sentence ends s with a full stop unless it already has punctuation.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:") {
		return s
	}
	return s + "."
}

// describeSchema is a short human description of one alternative.
func describeSchema(s map[string]any) string {
	t, _ := s["type"].(string)
	if t == "" {
		t = "value"
	}
	if e, ok := s["enum"].([]any); ok {
		b, _ := json.Marshal(e)
		return t + " one of " + string(b)
	}
	if t == "array" {
		if it, ok := s["items"].(map[string]any); ok {
			return "array of " + describeSchema(it)
		}
	}
	if t == "object" {
		if p, ok := s["properties"].(map[string]any); ok && len(p) > 0 {
			keys := make([]string, 0, len(p))
			for k := range p {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return "object with " + strings.Join(keys, ", ")
		}
	}
	if d, ok := s["description"].(string); ok && d != "" {
		return t + " (" + capText(d, 80) + ")"
	}
	return t
}

// firstType turns ["string","null"] into "string".
func firstType(v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	for _, t := range list {
		if s, ok := t.(string); ok && s != "null" {
			return s
		}
	}
	if len(list) > 0 {
		return list[0]
	}
	return "string"
}

// capText cuts s to n bytes at a rune boundary, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
