package guard

import (
	"strings"

	"github.com/browseragent/browseragent/catalog"
)

// entry is the catalogue's description of c: the one the registry resolved,
// or, for a call built by hand (`sites check`, Recheck), the catalogue's.
func entry(c Call) catalog.Entry {
	if c.Entry != nil {
		return *c.Entry
	}
	name := c.Name
	if name == "" || c.Server == "" {
		name = c.Tool
	}
	return catalog.Describe(c.Server, name, catalog.Hints{ReadOnly: c.ReadOnlyHint, Destructive: c.DestructiveHint}, nil)
}

// classify returns what c does before its URLs are looked at: the
// catalogue's effect, a script write when a script parameter has a value.
func classify(c Call, e catalog.Entry) catalog.Effect {
	eff := e.Effect
	if eff == catalog.Navigate || eff == catalog.Open {
		for _, p := range e.Script {
			if argString(c.Args, p) != "" {
				return catalog.Script // a script injected into every document it loads
			}
		}
	}
	return eff
}

func argString(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

// SplitToolName splits the name the agent sees, "mcp__server__tool", into
// server and tool. Names without the prefix are builtins: server "".
func SplitToolName(name string) (server, tool string) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", name
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok {
		return "", name
	}
	return server, tool
}
