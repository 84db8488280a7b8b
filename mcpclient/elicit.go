package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is one elicitation/create request, checked and parsed, as
// Options.Elicit sees it.
type Elicitation struct {
	Server string
	// Mode is "form" or "url".
	Mode    string
	Message string
	// Fields are the form's fields in a stable order (required first, then
	// by name); empty in URL mode.
	Fields []ElicitField
	// URL and ID are set in URL mode: the person opens URL; the server
	// tells us when it is done.
	URL, ID string
	// Retry is set when a call was refused until the person opens URL
	// (error -32042): accepting means they have opened it, and the call
	// is sent again.
	Retry bool
}

// ElicitField is one field of a form elicitation. The MCP spec allows only
// a flat object of primitives: string (with format), number, integer,
// boolean, a single-choice enum, or a multi-choice array of enum values.
type ElicitField struct {
	Name        string
	Title       string
	Description string
	// Type is string, number, integer, boolean or array (multi-choice).
	Type     string
	Format   string // email, uri, date, date-time (strings only)
	Required bool
	// Default is the schema's default, nil when none.
	Default any
	// Choices are the allowed values of an enum (single or multi); Labels
	// their display titles when the schema gives them.
	Choices []string
	Labels  []string
	// Min and Max bound numbers (or string length, item count), NaN when unset.
	Min, Max float64
}

// Choice reports whether the field is a choice among Choices.
func (f ElicitField) Choice() bool { return len(f.Choices) > 0 }

// errBadSchema marks an elicitation whose schema is not a flat object of
// primitives; the request is declined.
var errBadSchema = errors.New("elicitation schema not supported")

// parseElicitSchema checks a form elicitation's requestedSchema and returns
// its fields.
func parseElicitSchema(schema any) ([]ElicitField, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadSchema, err)
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || string(raw) == "null" {
		return nil, fmt.Errorf("%w: requestedSchema must be a JSON object", errBadSchema)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("%w: requestedSchema must have \"type\": \"object\", got %q", errBadSchema, s.Type)
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; !ok {
			return nil, fmt.Errorf("%w: required field %q is not among the properties", errBadSchema, r)
		}
		required[r] = true
	}
	var fields []ElicitField
	for name, p := range s.Properties {
		f, err := parseField(name, p)
		if err != nil {
			return nil, err
		}
		f.Required = required[name]
		fields = append(fields, f)
	}
	sort.Slice(fields, func(i, j int) bool {
		if fields[i].Required != fields[j].Required {
			return fields[i].Required
		}
		return fields[i].Name < fields[j].Name
	})
	return fields, nil
}

type wireField struct {
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Format      string         `json:"format"`
	Default     any            `json:"default"`
	Enum        []any          `json:"enum"`
	EnumNames   []string       `json:"enumNames"`
	OneOf       []constChoice  `json:"oneOf"`
	AnyOf       []constChoice  `json:"anyOf"`
	Items       *wireField     `json:"items"`
	Properties  map[string]any `json:"properties"`
	Minimum     *float64       `json:"minimum"`
	Maximum     *float64       `json:"maximum"`
	MinLength   *float64       `json:"minLength"`
	MaxLength   *float64       `json:"maxLength"`
	MinItems    *float64       `json:"minItems"`
	MaxItems    *float64       `json:"maxItems"`
}

type constChoice struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

func parseField(name string, raw json.RawMessage) (ElicitField, error) {
	var w wireField
	if err := json.Unmarshal(raw, &w); err != nil {
		return ElicitField{}, fmt.Errorf("%w: field %q: %v", errBadSchema, name, err)
	}
	f := ElicitField{Name: name, Title: w.Title, Description: w.Description, Type: w.Type, Format: w.Format, Default: w.Default, Min: math.NaN(), Max: math.NaN()}
	if len(w.Properties) > 0 {
		return f, fmt.Errorf("%w: field %q is a nested object; only flat fields are allowed", errBadSchema, name)
	}
	var err error
	switch w.Type {
	case "string":
		f.Choices, f.Labels, err = choices(name, w)
		f.Min, f.Max = bound(w.MinLength), bound(w.MaxLength)
	case "number", "integer":
		f.Min, f.Max = bound(w.Minimum), bound(w.Maximum)
	case "boolean":
	case "array":
		if w.Items == nil {
			return f, fmt.Errorf("%w: array field %q has no \"items\"", errBadSchema, name)
		}
		if f.Choices, f.Labels, err = choices(name, *w.Items); err == nil && len(f.Choices) == 0 {
			err = fmt.Errorf("%w: array field %q must be a multi-choice enum", errBadSchema, name)
		}
		f.Min, f.Max = bound(w.MinItems), bound(w.MaxItems)
	default:
		return f, fmt.Errorf("%w: field %q has type %q; allowed: string, number, integer, boolean, enum", errBadSchema, name, w.Type)
	}
	if err != nil {
		return f, err
	}
	if f.Default != nil {
		if _, derr := f.Check(f.Default); derr != nil {
			return f, fmt.Errorf("%w: field %q: default %v: %v", errBadSchema, name, f.Default, derr)
		}
	}
	return f, nil
}

// choices reads enum (with legacy enumNames) or oneOf/anyOf consts.
func choices(name string, w wireField) (vals, labels []string, err error) {
	for _, e := range w.Enum {
		s, ok := e.(string)
		if !ok {
			return nil, nil, fmt.Errorf("%w: field %q: enum values must be strings", errBadSchema, name)
		}
		vals = append(vals, s)
	}
	if len(w.EnumNames) > 0 {
		if len(w.EnumNames) != len(vals) {
			return nil, nil, fmt.Errorf("%w: field %q has %d enum values but %d enumNames", errBadSchema, name, len(vals), len(w.EnumNames))
		}
		labels = w.EnumNames
	}
	for _, c := range append(w.OneOf, w.AnyOf...) {
		s, ok := c.Const.(string)
		if !ok {
			return nil, nil, fmt.Errorf("%w: field %q: choice consts must be strings", errBadSchema, name)
		}
		vals, labels = append(vals, s), append(labels, c.Title)
	}
	return vals, labels, nil
}

func bound(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// Check validates a value for the field (as JSON would decode it) and
// returns it in the type the server expects.
func (f ElicitField) Check(v any) (any, error) {
	switch f.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want text")
		}
		if f.Choice() && !contains(f.Choices, s) {
			return nil, fmt.Errorf("choose one of %s", strings.Join(f.Choices, ", "))
		}
		return s, f.inRange(float64(len([]rune(s))), "characters")
	case "number", "integer":
		n, ok := toFloat(v)
		if !ok {
			return nil, fmt.Errorf("want a number")
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, fmt.Errorf("want a whole number")
		}
		return n, f.inRange(n, "")
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("want true or false")
		}
		return b, nil
	case "array":
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want a list of choices")
		}
		out := make([]any, 0, len(list))
		for _, e := range list {
			s, ok := e.(string)
			if !ok || !contains(f.Choices, s) {
				return nil, fmt.Errorf("choose among %s", strings.Join(f.Choices, ", "))
			}
			out = append(out, s)
		}
		return out, f.inRange(float64(len(out)), "choices")
	}
	return nil, fmt.Errorf("unsupported type %q", f.Type)
}

func (f ElicitField) inRange(n float64, unit string) error {
	if unit != "" {
		unit = " " + unit
	}
	if !math.IsNaN(f.Min) && n < f.Min {
		return fmt.Errorf("at least %v%s", f.Min, unit)
	}
	if !math.IsNaN(f.Max) && n > f.Max {
		return fmt.Errorf("at most %v%s", f.Max, unit)
	}
	return nil
}

// Parse turns what a person typed into the field's value: numbers,
// yes/no for booleans, comma-separated choices for multi-choice fields; a
// choice may also be given by its 1-based number or its label.
func (f ElicitField) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	switch f.Type {
	case "number", "integer":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("want a number")
		}
		return f.Check(n)
	case "boolean":
		switch strings.ToLower(text) {
		case "y", "yes", "true", "1", "on":
			return true, nil
		case "n", "no", "false", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("answer yes or no")
	case "array":
		var list []any
		for _, part := range strings.Split(text, ",") {
			if part = strings.TrimSpace(part); part != "" {
				list = append(list, f.choiceValue(part))
			}
		}
		return f.Check(list)
	}
	if f.Choice() {
		return f.Check(f.choiceValue(text))
	}
	return f.Check(text)
}

func (f ElicitField) choiceValue(s string) string {
	if i, err := strconv.Atoi(s); err == nil && i >= 1 && i <= len(f.Choices) && !contains(f.Choices, s) {
		return f.Choices[i-1]
	}
	for i, l := range f.Labels {
		if l != "" && strings.EqualFold(l, s) {
			return f.Choices[i]
		}
	}
	return s
}

// defaultContent fills every field that has a default. A required field
// without one is an error naming it: the caller declines.
func defaultContent(fields []ElicitField) (map[string]any, error) {
	out := map[string]any{}
	var missing []string
	for _, f := range fields {
		switch {
		case f.Default != nil:
			v, err := f.Check(f.Default)
			if err != nil {
				return nil, fmt.Errorf("field %q: default %v: %v", f.Name, f.Default, err)
			}
			out[f.Name] = v
		case f.Required:
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("required field(s) %s have no default, so they cannot be filled without a person", strings.Join(missing, ", "))
	}
	return out, nil
}

// AutoElicit answers elicitations without a person, for scripts: accept
// fills each form with its defaults (declining when a required field has
// none, or for URL mode, which needs a person); otherwise it declines.
// The returned error, when the answer is a decline, says why; the manager
// reports it through Options.OnLog.
func AutoElicit(accept bool) func(context.Context, *Elicitation) (*mcp.ElicitResult, error) {
	return func(_ context.Context, e *Elicitation) (*mcp.ElicitResult, error) {
		if !accept {
			return nil, fmt.Errorf("%w: non-interactive run (use --elicit accept to fill in defaults)", ErrDeclined)
		}
		if e.Mode == "url" {
			return nil, fmt.Errorf("%w: URL elicitation (%s) needs a person to open it", ErrDeclined, e.URL)
		}
		content, err := defaultContent(e.Fields)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDeclined, err)
		}
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	}
}

// ErrDeclined is returned by the Elicit and Sample hooks to refuse a
// server's request with a reason.
var ErrDeclined = errors.New("declined")

// elicit handles elicitation/create: check the request, ask the hook,
// check the answer. A bad schema or a hook error is a decline whose reason
// goes to the server's log (and OnLog); the host stays up.
func (s *server) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := req.Params
	e := &Elicitation{Server: s.name, Mode: p.Mode, Message: p.Message, URL: p.URL, ID: p.ElicitationID}
	if e.Mode == "" {
		e.Mode = "form"
	}
	if e.Mode == "form" {
		fields, err := parseElicitSchema(p.RequestedSchema)
		if err != nil {
			s.notice("warning", fmt.Sprintf("declined elicitation %q: %v", capText(p.Message, 80), err))
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		e.Fields = fields
	}
	res, err := s.m.opts.Elicit(ctx, e)
	if err != nil || res == nil {
		if ctx.Err() != nil { // the server or the call gave up
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if err == nil {
			err = errors.New("no answer")
		}
		s.notice("info", fmt.Sprintf("declined elicitation %q: %v", capText(p.Message, 80), err))
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	if res.Action == "accept" && e.Mode == "form" {
		if err := checkContent(e.Fields, res.Content); err != nil {
			s.notice("warning", fmt.Sprintf("declined elicitation %q: the answer was invalid: %v", capText(p.Message, 80), err))
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
	}
	return res, nil
}

// checkContent validates an accepted form against its fields.
func checkContent(fields []ElicitField, content map[string]any) error {
	for _, f := range fields {
		v, ok := content[f.Name]
		if !ok {
			if f.Required {
				return fmt.Errorf("required field %q is missing", f.Name)
			}
			continue
		}
		if _, err := f.Check(v); err != nil {
			return fmt.Errorf("field %q: %v", f.Name, err)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
