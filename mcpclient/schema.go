package mcpclient

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// MaxDescriptionLen caps every description in a cleaned schema and tool.
const MaxDescriptionLen = 1000

// maxRefDepth bounds chains of $ref inside $ref; a $ref that refers to a
// definition being inlined (recursion) stops at once, as a plain object
// described as recursive.
const maxRefDepth = 10

// CleanSchema turns a tool's inputSchema into the subset of JSON Schema
// that every LLM tool API accepts: local $ref inlined and $defs removed,
// $schema/$id dropped, anyOf/oneOf collapsed into the first concrete type
// with the alternatives described, descriptions capped, and the top level
// always {"type":"object","properties":{...}}. The input is not modified.
func CleanSchema(schema any) map[string]any {
	root := toMap(schema)
	c := cleaner{defs: collectDefs(root), active: map[string]bool{}}
	out, _ := c.clean(root, 0).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	if out["type"] != "object" {
		out = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	if _, ok := out["properties"].(map[string]any); !ok {
		out["properties"] = map[string]any{}
	}
	return out
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
	defs   map[string]any
	active map[string]bool // refs being inlined on the current path
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
				out[k] = capText(s, MaxDescriptionLen)
			}
		case k == "properties" || k == "patternProperties":
			out[k] = c.cleanProperties(v, depth)
		case k == "type":
			out[k] = firstType(v)
		default:
			out[k] = c.clean(v, depth)
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
	if !ok || depth >= maxRefDepth || c.active[ref] {
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
	defer delete(c.active, ref)
	return c.cleanObject(merged, depth+1)
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
		out["description"] = capText(strings.TrimSpace(sentence(desc)+" "+strings.Join(notes, " ")), MaxDescriptionLen)
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
