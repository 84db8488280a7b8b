package tools

import (
	"context"
	"errors"
)

// ApprovalRequest is what the person sees when a tool call needs approval.
type ApprovalRequest struct {
	Tool      string // name as the agent sees it
	Server    string // MCP server, "" for builtin/browser tools
	PageURL   string // live URL of the page the call acts on, if any
	Rule      string // matched sensitive-site rule, if any
	Reason    string // why approval is needed, readable by a person
	Args      string // argument summary, secrets masked
	Sensitive bool   // on a sensitive page only Once or Deny may be offered
	// Choices are the approvals the guard accepts for this call (AnswerOnce,
	// and AnswerTool/AnswerServer where a standing grant is allowed); Deny is
	// always possible. Empty means every answer on an ordinary page and only
	// AnswerOnce on a sensitive one.
	Choices []Answer
}

// Offers reports whether a is an answer the person may give.
func (r ApprovalRequest) Offers(a Answer) bool {
	if a == AnswerDeny || a == AnswerOnce {
		return true
	}
	if len(r.Choices) == 0 {
		return !r.Sensitive
	}
	for _, c := range r.Choices {
		if c == a {
			return true
		}
	}
	return false
}

// Answer is the person's decision on an ApprovalRequest.
type Answer int

const (
	AnswerDeny   Answer = iota // no
	AnswerOnce                 // yes, this call only
	AnswerTool                 // this tool always (until trust is reset)
	AnswerServer               // this server always (until trust is reset)
	// AnswerNone: nobody answered (end of input, or a script's next line
	// was not an answer). The call is refused like AnswerDeny, but the
	// audit log says nobody answered rather than that the person declined.
	AnswerNone
)

func (a Answer) String() string {
	switch a {
	case AnswerOnce:
		return "once"
	case AnswerTool:
		return "tool"
	case AnswerServer:
		return "server"
	case AnswerNone:
		return "no answer"
	}
	return "deny"
}

// Approver asks a person. The shell implements it with a prompt box;
// without one (non-interactive runs) the Registry decides by its Yes option.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Answer, error)
}

// CannotAsk is what an Approver returns when it has nobody to ask (an MCP
// client that cannot show a form). The registry then decides as for a run
// with nobody at a terminal: --yes approves ordinary pages, anything else
// is refused with the guard's reason followed by Why, the sentence that
// says what would allow it.
type CannotAsk struct {
	Why string
}

func (e *CannotAsk) Error() string { return "nobody can be asked: " + e.Why }

// cannotAsk reports whether err says the approver had nobody to ask.
func cannotAsk(err error) (*CannotAsk, bool) {
	var ca *CannotAsk
	ok := errors.As(err, &ca)
	return ca, ok
}
