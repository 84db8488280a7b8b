package guard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// parseFile reads a sensitive-sites YAML file into rules. It walks the YAML
// node tree itself so that every error carries a line number and the rule's
// name, and so that unknown fields are refused.
//
// Schema:
//
//	version: 1
//	rules:
//	  - name: paypal            # required, unique in the file
//	    category: payment       # optional, free text
//	    hosts: [paypal.com, "*.paypal.com"]
//	    paths: ["/signin"]      # optional globs
//	    schemes: [https]        # optional, default http https ws wss
//	    action: ask             # ask | deny
//	    note: why               # optional
//	    disabled: true          # optional: removes an earlier rule of this name
func parseFile(data []byte, source string) ([]*Rule, error) {
	if err := checkText(data, source); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // an empty file has no rules
		}
		return nil, &ruleError{Source: source, Line: yamlErrLine(err), Msg: "not valid YAML: " + yamlErrMsg(err)}
	}
	if err := extraDocument(dec, source); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	top := doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		return nil, nil // only comments
	}
	if top.Kind != yaml.MappingNode {
		return nil, &ruleError{Source: source, Line: top.Line, Msg: "expected a mapping with version and rules"}
	}
	var rules []*Rule
	version := 0
	var errs []error
	seen := map[string]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if first, dup := seen[k.Value]; dup {
			errs = append(errs, &ruleError{Source: source, Line: k.Line,
				Msg: fmt.Sprintf("%q is given a second time (first at line %d); YAML would keep only one: put everything under one %q", k.Value, first, k.Value)})
			continue
		}
		seen[k.Value] = k.Line
		switch k.Value {
		case "version":
			if err := v.Decode(&version); err != nil || version != 1 {
				errs = append(errs, &ruleError{Source: source, Line: v.Line, Msg: fmt.Sprintf("version %q is not supported: use version: 1", v.Value)})
				version = -1
			}
		case "rules":
			var err []error
			rules, err = parseRuleList(v, source)
			errs = append(errs, err...)
		default:
			errs = append(errs, &ruleError{Source: source, Line: k.Line, Msg: fmt.Sprintf("unknown field %q (expected version, rules)", k.Value)})
		}
	}
	if version == 0 {
		errs = append(errs, &ruleError{Source: source, Line: top.Line, Msg: "missing version: 1"})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return rules, nil
}

// extraDocument refuses a second YAML document ("---" then more rules):
// only the first would be read, and the rules after it lost. An empty one
// (a trailing "---") holds nothing to lose.
func extraDocument(dec *yaml.Decoder, source string) error {
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &ruleError{Source: source, Line: yamlErrLine(err), Msg: "not valid YAML: " + yamlErrMsg(err)}
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null" {
			continue
		}
		return &ruleError{Source: source, Line: doc.Content[0].Line,
			Msg: "a second YAML document starts here (after ---); only one is read: put every rule in the first document"}
	}
}

func parseRuleList(n *yaml.Node, source string) ([]*Rule, []error) {
	if n.Kind != yaml.SequenceNode {
		if n.Tag == "!!null" {
			return nil, nil
		}
		return nil, []error{&ruleError{Source: source, Line: n.Line, Msg: "rules must be a list (each item starting with -)"}}
	}
	var rules []*Rule
	var errs []error
	seen := make(map[string]int, len(n.Content))
	for _, item := range n.Content {
		r, err := parseRule(item, source)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if line, dup := seen[r.Name]; dup {
			errs = append(errs, &ruleError{Source: source, Line: r.Line, Rule: r.Name,
				Msg: fmt.Sprintf("name already used at line %d; names must be unique in a file", line)})
			continue
		}
		seen[r.Name] = r.Line
		rules = append(rules, r)
	}
	return rules, errs
}

// ruleFields are the fields a rule may have.
var ruleFields = []string{"name", "category", "hosts", "paths", "schemes", "action", "note", "disabled"}

func parseRule(n *yaml.Node, source string) (*Rule, error) {
	r := &Rule{Source: source, Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return nil, &ruleError{Source: source, Line: n.Line, Msg: "each rule must be a mapping with name, hosts and action"}
	}
	r.Name = findName(n)
	fail := func(line int, format string, a ...any) error {
		return &ruleError{Source: source, Line: line, Rule: r.Name, Msg: fmt.Sprintf(format, a...)}
	}
	var action string
	disabled := false
	var seen [8]int // line of each of ruleFields, 0 until given
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if f := slices.Index(ruleFields, k.Value); f >= 0 {
			if first := seen[f]; first != 0 {
				return nil, fail(k.Line, "field %q is given twice (first at line %d); keep one", k.Value, first)
			}
			seen[f] = k.Line
		}
		var err error
		switch k.Value {
		case "name", "category", "note", "action":
			var s string
			err = decodeScalar(v, &s)
			switch k.Value {
			case "category":
				r.Category = s
			case "note":
				r.Note = s
			case "action":
				action = s
			}
		case "hosts":
			err = decodeList(v, &r.Hosts)
		case "paths":
			err = decodeList(v, &r.Paths)
		case "schemes":
			err = decodeList(v, &r.Schemes)
		case "disabled":
			err = v.Decode(&disabled)
		default:
			return nil, fail(k.Line, "unknown field %q (expected one of %s)", k.Value, strings.Join(ruleFields, ", "))
		}
		if err != nil {
			return nil, fail(v.Line, "%s: %v", k.Value, err)
		}
	}
	if err := r.compile(action, disabled); err != nil {
		return nil, fail(r.Line, "%v", err)
	}
	return r, nil
}

func findName(n *yaml.Node) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "name" && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}

func decodeScalar(v *yaml.Node, s *string) error {
	if v.Kind != yaml.ScalarNode {
		return errors.New("expected a single value")
	}
	*s = v.Value
	return nil
}

func decodeList(v *yaml.Node, out *[]string) error {
	if v.Kind == yaml.ScalarNode {
		*out = []string{v.Value}
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		return errors.New("expected a list like [a, b]")
	}
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: expected a string", it.Line)
		}
		*out = append(*out, it.Value)
	}
	return nil
}

// compile checks a parsed rule and fills its normalised fields.
func (r *Rule) compile(action string, disabled bool) error {
	if r.Name == "" {
		return errors.New("missing name")
	}
	if !ruleName().MatchString(r.Name) {
		return errors.New("name must be lower-case letters, digits, '.', '_' or '-' (at most 64)")
	}
	if disabled {
		return nil // Action 0: removes the rule of this name
	}
	switch action {
	case "ask":
		r.Action = ActionAsk
	case "deny":
		r.Action = ActionDeny
	case "":
		return errors.New("missing action: ask or deny")
	default:
		return fmt.Errorf("action %q: use ask (every write needs approval) or deny (never)", action)
	}
	if len(r.Hosts) == 0 {
		return errors.New("missing hosts")
	}
	for i, h := range r.Hosts {
		c, err := compileHost(strings.TrimSpace(h))
		if err != nil {
			return fmt.Errorf("hosts: %v", err)
		}
		r.Hosts[i] = c
	}
	for _, p := range r.Paths {
		c, err := compilePath(p)
		if err != nil {
			return fmt.Errorf("paths: %v", err)
		}
		r.patterns = append(r.patterns, c)
	}
	if len(r.Schemes) == 0 {
		r.Schemes = slices.Clone(defaultSchemes)
	}
	for i, s := range r.Schemes {
		s = strings.ToLower(strings.TrimSuffix(s, ":"))
		if _, _, ok := splitScheme(s + ":x"); !ok || wrapperSchemes[s] || slices.Contains([]string{"javascript", "data", "about"}, s) {
			return fmt.Errorf("schemes: %q cannot be matched (it has no host)", s)
		}
		r.Schemes[i] = s
	}
	return nil
}

// checkText finds what the YAML parser rejects without saying where: a
// byte that is not UTF-8 (a file saved as Latin-1) or a control character
// (a NUL), with its line and column.
func checkText(data []byte, source string) error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return &ruleError{Source: source, Line: line, Msg: fmt.Sprintf("byte 0x%02X at column %d is not UTF-8 text: save the file as UTF-8", data[i], col)}
		case r == '\n':
			line, col = line+1, 0
		case r < 0x20 && r != '\t' && r != '\r', r == 0x7f:
			return &ruleError{Source: source, Line: line, Msg: fmt.Sprintf("control character 0x%02X at column %d: a rules file is plain text", r, col)}
		}
		i += n
		col++
	}
	return nil
}

// yamlErrLine pulls the line number out of a yaml.v3 error ("yaml: line 3: ...").
func yamlErrLine(err error) int {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	var line int
	if i := strings.Index(msg, "line "); i >= 0 {
		fmt.Sscanf(msg[i:], "line %d", &line)
	}
	return line
}

func yamlErrMsg(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "line ") {
		msg = msg[i+2:]
	}
	return msg
}
