package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server may refuse a call until the person has opened a URL (an
// authorization page, a consent screen): it answers with error -32042,
// "URL elicitation required" (MCP 2025-11-25), whose data lists the URLs
// with a message each. The manager shows them through Options.Elicit
// (URL mode, Retry set): when the person says they opened every one, the
// call is sent once more. Otherwise — a script, `mcp call`, a refusal —
// the call fails with a URLElicitationError that names the URLs, and
// nothing is ever opened on its own.

// errURLElicitationRequired is wrapped by URLElicitationError.
var errURLElicitationRequired = errors.New("the server needs the person to open a URL first")

// URLElicitation is one URL the server wants the person to open.
type URLElicitation struct {
	ID, URL, Message string
}

// URLElicitationError is the error of a call refused with -32042.
type URLElicitationError struct {
	Server, Tool string
	// Reason is the error's own message.
	Reason string
	URLs   []URLElicitation
}

// Error says what the person is to do; the agent gets the same text.
func (e *URLElicitationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mcp %s/%s: %v", e.Server, e.Tool, errURLElicitationRequired)
	if e.Reason != "" {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	b.WriteString(": the person must open ")
	for i, u := range e.URLs {
		if i > 0 {
			b.WriteString(", and ")
		}
		b.WriteString(u.URL)
		if u.Message != "" {
			fmt.Fprintf(&b, " (%s)", u.Message)
		}
	}
	b.WriteString(" in a browser, then the call can be made again")
	return b.String()
}

func (e *URLElicitationError) Unwrap() error { return errURLElicitationRequired }

// urlElicitation returns the URLElicitationError err carries, or nil.
// Only URLs with a scheme and no control characters are kept (a message
// or URL is printed on the person's terminal).
func urlElicitation(server, tool string, err error) *URLElicitationError {
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != mcp.CodeURLElicitationRequired {
		return nil
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	_ = json.Unmarshal(we.Data, &data)
	// The TypeScript SDK puts "MCP error -32042: " in front of the message.
	reason := strings.TrimPrefix(printable(we.Message), fmt.Sprintf("MCP error %d: ", mcp.CodeURLElicitationRequired))
	ue := &URLElicitationError{Server: server, Tool: tool, Reason: reason}
	for _, p := range data.Elicitations {
		if p == nil || (p.Mode != "" && p.Mode != "url") || !strings.Contains(p.URL, "://") {
			continue
		}
		ue.URLs = append(ue.URLs, URLElicitation{ID: printable(p.ElicitationID), URL: printable(p.URL), Message: printable(p.Message)})
	}
	if len(ue.URLs) == 0 {
		return nil // nothing a person could open: the plain error says more
	}
	return ue
}

// printable turns control characters (terminal escapes, newlines) into
// spaces and runs of spaces into one.
func printable(s string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)), " ")
}

// openURLs asks the person, through Options.Elicit, to open each URL; it
// reports whether they said they did, for every one.
func (s *server) openURLs(ctx context.Context, ue *URLElicitationError) bool {
	if s.m.opts.Elicit == nil {
		return false
	}
	for _, u := range ue.URLs {
		msg := u.Message
		if msg == "" {
			msg = ue.Reason
		}
		res, err := s.m.opts.Elicit(ctx, &Elicitation{Server: s.name, Mode: "url", Message: msg, URL: u.URL, ID: u.ID, Retry: true})
		if err != nil || res == nil || res.Action != "accept" {
			return false
		}
	}
	return true
}
