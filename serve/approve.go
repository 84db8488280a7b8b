package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent"
)

// The sentences a client without elicitation gets with its refusal: why
// nobody was asked and what would allow the call.
const (
	whyNoFormSensitive = "This MCP client cannot show approval forms (it does not support elicitation), and --yes never covers sensitive pages: use a client that supports elicitation, or do it in browseragent's own shell."
	whyNoForm          = "This MCP client cannot show approval forms (it does not support elicitation): start the server with `browseragent mcp serve --yes` to allow writes on ordinary pages, or use a client that supports elicitation."
)

// Approve implements agent.Approver: it asks the person through the host
// of the session that made the call, as an elicitation form offering only
// the answers the guard accepts. A session that cannot show forms gets
// agent.CannotAsk, so the registry refuses with the reason (or --yes
// approves an ordinary page).
func (s *Server) Approve(ctx context.Context, req agent.ApprovalRequest) (agent.Answer, error) {
	c := clientFrom(ctx)
	if c == nil || !c.canElicit() {
		why := whyNoForm
		if req.Sensitive {
			why = whyNoFormSensitive
		}
		return agent.AnswerDeny, &agent.CannotAsk{Why: why}
	}
	answers := offered(req)
	res, err := c.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: approvalMessage(req), RequestedSchema: approvalSchema(answers)})
	if err != nil {
		if ctx.Err() != nil {
			return agent.AnswerDeny, ctx.Err()
		}
		return agent.AnswerDeny, fmt.Errorf("ask through %s: %w", c.name, err)
	}
	if res.Action != "accept" {
		return agent.AnswerDeny, nil // declined or dismissed: no
	}
	got, _ := res.Content["decision"].(string)
	for _, a := range answers {
		if a.String() == got {
			return a, nil
		}
	}
	return agent.AnswerDeny, errors.New("the approval form came back without a decision the guard accepts")
}

// offered lists the answers in the form: the guard's accepted approvals,
// then no.
func offered(req agent.ApprovalRequest) []agent.Answer {
	var out []agent.Answer
	for _, a := range []agent.Answer{agent.AnswerOnce, agent.AnswerTool, agent.AnswerServer} {
		if req.Offers(a) && (a != agent.AnswerServer || req.Server != "") {
			out = append(out, a)
		}
	}
	return append(out, agent.AnswerDeny)
}

var answerLabels = map[agent.Answer]string{
	agent.AnswerOnce:   "Allow this call once",
	agent.AnswerTool:   "Always allow this tool (until trust is reset)",
	agent.AnswerServer: "Always allow this server (until trust is reset)",
	agent.AnswerDeny:   "Deny",
}

// approvalSchema is a form of one required choice among answers.
func approvalSchema(answers []agent.Answer) map[string]any {
	values := make([]string, len(answers))
	labels := make([]string, len(answers))
	for i, a := range answers {
		values[i], labels[i] = a.String(), answerLabels[a]
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"decision": map[string]any{"type": "string", "title": "Decision", "enum": values, "enumNames": labels},
		},
		"required": []string{"decision"},
	}
}

// approvalMessage says what would run, on which page, under which rule,
// with which arguments.
func approvalMessage(req agent.ApprovalRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "browseragent asks before %s runs.\n", req.Tool)
	fmt.Fprintf(&b, "What: %s\n", req.Reason)
	if req.PageURL != "" {
		fmt.Fprintf(&b, "Page: %s\n", req.PageURL)
	}
	if req.Rule != "" {
		fmt.Fprintf(&b, "Rule: %s\n", req.Rule)
	}
	if req.Sensitive {
		b.WriteString("Sensitive: only this one call can be approved.\n")
	}
	if req.Args != "" {
		fmt.Fprintf(&b, "Arguments: %s\n", req.Args)
	}
	return strings.TrimRight(b.String(), "\n")
}
