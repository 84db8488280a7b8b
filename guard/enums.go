package guard

import "fmt"

// Mode is the browser mode the agent works in. It changes what a write on an
// ordinary page needs: nothing in the agent's own throwaway browser, the
// person's approval in the person's browser.
type Mode int

const (
	// Isolated is a Chromium that browseragent launched with a temporary
	// profile: no logins, no history, nothing of the person's.
	Isolated Mode = iota
	// Shared is the person's own running Chrome, with their logins.
	Shared
)

// String returns "isolated" or "shared".
func (m Mode) String() string {
	switch m {
	case Isolated:
		return "isolated"
	case Shared:
		return "shared"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads "isolated" or "shared".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "isolated":
		return Isolated, nil
	case "shared":
		return Shared, nil
	}
	return 0, fmt.Errorf("unknown mode %q: use shared or isolated", s)
}

// Verdict is what a [Decision] says about a call.
type Verdict int

const (
	Allow Verdict = iota // run it
	Ask                  // run it only after the person approves
	Deny                 // never run it
)

// String returns "allow", "ask" or "deny".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Scope is how far an approval reaches.
type Scope int

const (
	// Once approves this one call, on this page, with these arguments.
	Once Scope = iota
	// ToolAlways approves every later call of this tool on ordinary pages,
	// until the mode changes or the program exits.
	ToolAlways
	// ServerAlways approves every later call of this MCP server's tools on
	// ordinary pages, until the mode changes or the program exits.
	ServerAlways
)

// String returns "once", "tool" or "server".
func (s Scope) String() string {
	switch s {
	case Once:
		return "once"
	case ToolAlways:
		return "tool"
	case ServerAlways:
		return "server"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Who decided: the names written to the audit log.
const (
	ByRule   = "rule"   // a sensitive-site rule
	ByGrant  = "grant"  // an earlier "always" approval
	ByPolicy = "policy" // the mode's default
	ByPerson = "person" // the person, just now
	ByFlag   = "--yes"  // a non-interactive run with --yes
	// ByNoAnswer: the call needed approval and nobody gave an answer (no
	// terminal, end of input, a script line that was not an answer): it
	// was refused, but nobody declined it.
	ByNoAnswer = "no answer (nobody at a terminal)"
	// ByCannotAsk: the call needed approval and came from an MCP client of
	// `mcp serve` that cannot show an approval form: refused unasked.
	ByCannotAsk = "no answer (the MCP client cannot ask)"
)

// ByElicitation is who decided a call an MCP host of `mcp serve` answered
// through its approval form: "elicitation (client claude-code, session
// 3F2A…)". The host answered, under the name it gave itself; whether a
// person saw the form is the host's word, not browseragent's.
func ByElicitation(client, session string) string {
	return fmt.Sprintf("elicitation (client %s, session %s)", client, session)
}
