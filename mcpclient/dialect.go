package mcpclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Dialect is which client's configuration a file is, so each field is
// read as that client means it.
type Dialect int

const (
	// DialectClaude is Claude Code's .mcp.json and ~/.claude.json, Claude
	// Desktop's claude_desktop_config.json and browseragent's own mcp.json:
	// {"mcpServers": {...}}, ${VAR}, "url" is Streamable HTTP unless "type"
	// says sse.
	DialectClaude Dialect = iota
	// DialectGemini is Gemini CLI's settings.json: "httpUrl" is Streamable
	// HTTP, "url" is SSE, "timeout" bounds each request, $VAR and ${VAR}.
	DialectGemini
	// DialectVSCode is VS Code's and Cursor's mcp.json: {"servers": {...}}
	// with "inputs".
	DialectVSCode
)

func (d Dialect) String() string {
	return [...]string{"Claude", "Gemini CLI", "VS Code"}[d]
}

// detectDialect tells the dialect from the file's name and top level.
func detectDialect(file string, top map[string]json.RawMessage) Dialect {
	base, dir := filepath.Base(file), filepath.Base(filepath.Dir(file))
	_, servers := top["servers"]
	_, mcpServers := top["mcpServers"]
	switch {
	case base == "settings.json" || dir == ".gemini":
		return DialectGemini
	case servers && !mcpServers:
		return DialectVSCode
	}
	return DialectClaude
}

// quietTop are files whose other top-level fields are the client's own
// settings (a theme, a history): not worth a warning.
func quietTop(file string, d Dialect) bool {
	base := filepath.Base(file)
	return d == DialectGemini || base == ".claude.json" || base == "claude_desktop_config.json" || base == "settings.json"
}

// dialectFields are the fields a dialect adds to knownFields.
var dialectFields = map[Dialect]map[string]bool{
	DialectGemini: {"httpUrl": true, "trust": true, "description": true},
	DialectVSCode: {"envFile": true, "description": true},
}

// elsewhere are fields of another client's dialect, or common slips: in
// a file of this dialect they mean nothing, so the warning says what to
// write instead.
var elsewhere = map[string]string{
	"httpUrl":   `"httpUrl" is Gemini CLI's (settings.json); in this file write "type": "http" and "url"`,
	"trust":     `"trust" is read only in Gemini CLI's settings.json; here each call is judged by the guard`,
	"transport": `"transport" is not a field; write "type": "stdio", "http" or "sse"`,
	"envFile":   `"envFile" is VS Code's, and is not read; put the variables in "env"`,
	"serverUrl": `"serverUrl" is not read; write "url" (Streamable HTTP unless "type": "sse")`,
}

// unknownField is the warning for field k, which dialect d does not read.
func unknownField(d Dialect, k string) string {
	if msg, ok := elsewhere[k]; ok {
		return msg + "; ignored"
	}
	return fmt.Sprintf("unknown field %q ignored", k)
}

// fieldLine is the line of the first `"key":` inside the object body
// found in data, for warnings that point at the spot.
func fieldLine(data, body []byte, key string) int {
	start := bytes.Index(data, body)
	if start < 0 {
		return 0
	}
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `"\s*:`)
	loc := re.FindIndex(body)
	if loc == nil {
		return 0
	}
	line, _ := lineCol(data, start+loc[0]+1)
	return line
}

// where is "file:line" when the line is known, else "file".
func where(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// applyGemini reads Gemini CLI's fields as Gemini means them.
func applyGemini(sc *ServerConfig, fields map[string]json.RawMessage, file string, line func(string) int) []string {
	var warns []string
	if raw, ok := fields["httpUrl"]; ok {
		var u string
		if json.Unmarshal(raw, &u) == nil {
			sc.URL = u
			if sc.Type == "" {
				sc.Type = TypeHTTP
			}
		}
	} else if sc.URL != "" && sc.Type == "" {
		sc.Type = TypeSSE // Gemini CLI's "url" is an SSE endpoint
	}
	if sc.Timeout > 0 { // Gemini: per request, not startup
		sc.CallTimeout, sc.Timeout = sc.Timeout, 0
	}
	if raw, ok := fields["trust"]; ok {
		if err := json.Unmarshal(raw, &sc.Trust); err != nil {
			warns = append(warns, fmt.Sprintf("%s: server %q: field trust: want true or false; ignored", where(file, line("trust")), sc.Name))
		}
	}
	return warns
}

var bareVarRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`)
})

// expandBare turns Gemini CLI's $VAR into ${VAR} so expand handles both.
func expandBare(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range bareVarRE().FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		b.WriteString("${" + s[m[2]:m[3]] + "}")
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// bareServer turns $VAR into ${VAR} in every field that is expanded.
func bareServer(sc *ServerConfig) {
	sc.eachExpandable(func(_ string, s *string) { *s = expandBare(*s) })
}

// vscodeInputs are the ids of a VS Code file's "inputs", whose
// ${input:id} values are asked for once.
func vscodeInputs(raw json.RawMessage) map[string]vscodeInput {
	var list []vscodeInput
	_ = json.Unmarshal(raw, &list)
	out := map[string]vscodeInput{}
	for _, in := range list {
		if in.ID != "" {
			out[in.ID] = in
		}
	}
	return out
}

type vscodeInput struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Password    bool   `json:"password"`
}

// PromptInput asks the person for a VS Code "inputs" value (a key, a
// path) the first time a file uses ${input:id}; the answer is kept for the
// rest of the process. Nil (scripts, tests): such a server reports which
// input it needs.
var PromptInput func(file, id, description string, password bool) (string, error)

var (
	inputMu    sync.Mutex
	inputCache = map[string]string{}
)

var inputRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{input:([^}]+)\}`)
})

// fillInputs replaces ${input:id} in every field that is expanded.
func (p parser) fillInputs(sc *ServerConfig) error {
	var first error
	fill := func(s string) string {
		return inputRE().ReplaceAllStringFunc(s, func(m string) string {
			id := inputRE().FindStringSubmatch(m)[1]
			v, err := p.input(id)
			if err != nil && first == nil {
				first = err
			}
			return v
		})
	}
	sc.eachExpandable(func(_ string, s *string) { *s = fill(*s) })
	return first
}

func (p parser) input(id string) (string, error) {
	in, ok := p.inputs[id]
	if !ok {
		return "", fmt.Errorf("${input:%s} is not declared in \"inputs\"", id)
	}
	key := p.file + "\x00" + id
	inputMu.Lock()
	defer inputMu.Unlock()
	if v, ok := inputCache[key]; ok {
		return v, nil
	}
	if PromptInput == nil {
		return "", fmt.Errorf("needs input %q (%s), which is asked for in the shell", id, in.Description)
	}
	v, err := PromptInput(p.file, id, in.Description, in.Password)
	if err != nil {
		return "", fmt.Errorf("input %q: %w", id, err)
	}
	inputCache[key] = v
	return v, nil
}

// workspaceLookup adds VS Code's ${workspaceFolder}: the folder that holds
// .vscode (or .cursor).
func workspaceLookup(file string, lookup func(string) (string, bool)) func(string) (string, bool) {
	folder := filepath.Dir(filepath.Dir(absPath(file)))
	return func(name string) (string, bool) {
		if name == "workspaceFolder" {
			return folder, true
		}
		return lookup(name)
	}
}
