package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"regexp"
	"strings"
)

// MaxToolNameLen is the longest tool name LLM APIs accept.
const MaxToolNameLen = 64

var legalName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ToolName returns the name the LLM sees for tool on server:
// mcp__<server>__<tool> when that is legal, otherwise the illegal characters
// replaced by "_", cut to fit, and an 8-hex-digit hash of the real name
// appended, so the result is legal, stable across runs, and distinct for
// distinct real names. Manager keeps the map back.
func ToolName(server, tool string) string {
	full := "mcp__" + server + "__" + tool
	if legalName.MatchString(full) {
		return full
	}
	sum := sha256.Sum256([]byte(full))
	suffix := "_" + hex.EncodeToString(sum[:4])
	var b strings.Builder
	for _, r := range full {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > MaxToolNameLen-len(suffix) {
		s = s[:MaxToolNameLen-len(suffix)]
	}
	return s + suffix
}

// toolAllowed applies includeTools then excludeTools. Patterns are
// path.Match globs on the server's own tool name ("list_*").
func toolAllowed(sc *ServerConfig, raw string) bool {
	if len(sc.IncludeTools) > 0 && !matchAny(sc.IncludeTools, raw) {
		return false
	}
	return !matchAny(sc.ExcludeTools, raw)
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}
