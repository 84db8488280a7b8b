package mcpclient

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"regexp"
	"strings"
	"sync"
)

// maxToolNameLen is the longest tool name LLM APIs accept.
const maxToolNameLen = 64

var legalName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
})

// toolName returns the name the LLM sees for tool on server:
// mcp__<server>__<tool> when that is legal. When it is too long but legal,
// a long server name is shortened first (its start and an 8-hex-digit hash
// of it), so the tool's own name survives. Otherwise the illegal
// characters are replaced by "_", the name cut to fit, and an 8-hex-digit
// hash of the real name appended. The result is legal, stable across runs,
// and distinct for distinct real names. Manager keeps the map back; names
// that two servers would share get a further suffix (see Manager.Tools).
func toolName(server, tool string) string {
	full := "mcp__" + server + "__" + tool
	if legalName().MatchString(full) {
		return full
	}
	if legalName().MatchString(server) && legalName().MatchString(tool) {
		// Room for the server: at least 4 of its characters and its hash.
		room := maxToolNameLen - len("mcp____") - len(tool)
		if room >= 4+9 && room < len(server) {
			return "mcp__" + server[:room-9] + "_" + hash8(server) + "__" + tool
		}
	}
	suffix := "_" + hash8(full)
	var b strings.Builder
	for _, r := range full {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > maxToolNameLen-len(suffix) {
		s = s[:maxToolNameLen-len(suffix)]
	}
	return s + suffix
}

func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// collisionName is the name of a tool whose toolName another server's
// tool also has ("a__b"+"c" and "a"+"b__c"): a suffix from its own server
// and tool, the same on every run, so neither is routed at random.
func collisionName(base, server, tool string) string {
	suffix := "_" + hash8(server+"\x00"+tool)
	if len(base) > maxToolNameLen-len(suffix) {
		base = base[:maxToolNameLen-len(suffix)]
	}
	return base + suffix
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

// Mentioned returns the configured servers that text names, sorted: an
// "@name" mention (also "@name:uri") or the name as a whole word, in any
// case. `run` waits for these before its first step and for no other.
func (m *Manager) Mentioned(text string) []string {
	var out []string
	for _, s := range m.list() {
		if Mentions(text, s.name) {
			out = append(out, s.name)
		}
	}
	return out
}

// Mentions reports whether text names server name: as "@name" or as a
// whole word, in any case, not inside a longer name of letters, digits,
// "_" or "-".
func Mentions(text, name string) bool {
	if name == "" {
		return false
	}
	lt, ln := strings.ToLower(text), strings.ToLower(name)
	for i := 0; ; {
		j := strings.Index(lt[i:], ln)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(ln)
		if (start == 0 || !nameByte(lt[start-1])) && (end == len(lt) || !nameByte(lt[end])) {
			return true
		}
		i = start + 1
	}
}

func nameByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 0x80
}
