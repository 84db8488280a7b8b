package early

import "os"

// DefaultSession is the session a command uses without --session or
// BROWSERAGENT_SESSION.
const DefaultSession = "default"

// SessionEnv names the session when --session is not given.
const SessionEnv = "BROWSERAGENT_SESSION"

// Parsed is a command line as Parse reads it.
type Parsed struct {
	Command string
	Args    []string
	Flags   map[string]string // the command's own flags, as given ("true" for a bool)
	Yes     bool              // --yes (-y)
	Session string            // --session, else $BROWSERAGENT_SESSION, else DefaultSession
	JSON    bool              // --json
}

// quickNot are the commands Parse leaves to the full command line: the
// ones it answers itself, and screenshot, whose file it saves where the
// guard allows.
var quickNot = map[string]bool{"tabs": true, "screenshot": true, "sessions": true, "skill": true}

// Parse reads the command line (the program's arguments after its name) as
// cobra would for the forms a script's command takes: `browser`, then
// --session NAME, --json and --yes (-y) anywhere, the command, its own
// flags as its table names them, and its arguments. ok is false for
// anything else: another subcommand, --help, a flag it does not know, a
// start-up flag, a local command, a screenshot, `close --all`, a bad
// session name or bad usage, which the full command line reports.
func Parse(args []string) (p Parsed, ok bool) {
	if len(args) < 2 || args[0] != "browser" {
		return p, false
	}
	p.Flags = map[string]string{}
	var c Command
	for i := 1; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := cutByte(trimDashes(a), '=')
		switch {
		case a == "--session" && i+1 < len(args):
			i++
			p.Session = args[i]
		case hasPrefix(a, "--session="):
			p.Session = value
		case a == "--json":
			p.JSON = true
		case a == "--yes" || a == "-y":
			p.Yes = true
		case len(a) < 2 || a[0] != '-':
			if p.Command == "" {
				var found bool
				if c, found = Lookup(a); !found || c.Local || quickNot[a] {
					return p, false
				}
				p.Command = a
				continue
			}
			p.Args = append(p.Args, a)
		case p.Command == "" || a == "--":
			return p, false
		default:
			f, found := c.FlagNamed(name, hasPrefix(a, "--"))
			switch {
			case !found || f.Bool && hasValue:
				return p, false
			case f.Bool:
				p.Flags[f.Name] = "true"
			case hasValue:
				p.Flags[f.Name] = value
			case i+1 < len(args):
				i++
				p.Flags[f.Name] = args[i]
			default:
				return p, false
			}
		}
	}
	if p.Command == "" || len(p.Args) < c.MinArgs || c.MaxArgs >= 0 && len(p.Args) > c.MaxArgs || p.Command == "close" && p.Flags["all"] == "true" {
		return p, false
	}
	if p.Session == "" {
		p.Session = os.Getenv(SessionEnv)
	}
	if p.Session == "" {
		p.Session = DefaultSession
	}
	return p, SessionName(p.Session)
}

// SessionName reports whether name is a session's name: 1 to 64 letters,
// digits, '_', '.' and '-', starting with a letter or digit, without "..".
// It names a socket and a state file, so "/" or ".." would reach outside
// their folder.
func SessionName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		word := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !word && (i == 0 || c != '_' && c != '.' && c != '-') {
			return false
		}
		if c == '.' && i+1 < len(name) && name[i+1] == '.' {
			return false
		}
	}
	return true
}

// Binary names the program file this process runs: its path, size and
// modification time. Two processes of one file run the same code; a
// rebuilt or upgraded file is another. "" when the system does not say.
func Binary() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return exe + " " + itoa(st.Size()) + " " + itoa(st.ModTime().UnixNano())
}

// DescribePending is a parked call as the person reads it.
func DescribePending(id, command, reason, args string) string {
	s := id + ": `" + command + "` waits for approval: " + reason
	if args != "" {
		s += " (" + args + ")"
	}
	return s
}

// PendingError is a command's one-line failure when its call was parked
// for approval: what waits, and how the person approves or drops it.
func PendingError(id, command, reason, args string) string {
	return DescribePending(id, command, reason, args) +
		". The person approves it in their own terminal with `browseragent browser confirm " + id +
		"` (it shows the call and asks; it cannot be confirmed without a terminal), or drops it with `browseragent browser deny " + id + "`"
}

// The string helpers package strings would give: it imports unicode,
// which Go initialises late (it sorts late), and early would wait for it.

func trimDashes(s string) string {
	for len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	return s
}

func cutByte(s string, c byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	neg := v < 0
	u := uint64(v)
	if neg {
		u = uint64(-v)
	}
	var b [20]byte
	i := len(b)
	for u > 0 {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
