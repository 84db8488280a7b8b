package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/tools"
)

// The sentences a client without elicitation gets with its refusal: why
// nobody was asked and what would allow the call.
const (
	whyNoFormSensitive = "This MCP client cannot show approval forms (it does not support elicitation), and --yes never covers a call that needs a fresh approval each time (a sensitive page, a file read, a write outside the output folder): use a client that supports elicitation, or do it in browseragent's own shell."
	whyNoForm          = "This MCP client cannot show approval forms (it does not support elicitation): start the server with `browseragent mcp serve --yes` to allow writes on ordinary pages, or use a client that supports elicitation."
)

// Approver is the approver of the registry a Server serves: give it to the
// registry when it is made (session.SessionOptions.Approver). It needs no
// server of its own: each call's ctx carries the MCP session that made it,
// and the person is asked through that session's host. The zero value is
// the one to use.
type Approver struct{}

var _ tools.Approver = Approver{}

// Approve implements tools.Approver: it asks the person through the host
// of the session that made the call, as an elicitation form offering only
// the answers the guard accepts. A session that cannot show forms, or a
// call that came from no session of a Server, gets tools.CannotAsk, so the
// registry refuses with the reason (or --yes approves an ordinary page).
func (Approver) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Answer, error) {
	c := clientFrom(ctx)
	if c == nil || !c.canElicit() {
		why := whyNoForm
		if req.Sensitive {
			why = whyNoFormSensitive
		}
		return tools.AnswerDeny, &tools.CannotAsk{Why: why}
	}
	answers := offered(req)
	res, err := c.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: approvalMessage(req), RequestedSchema: approvalSchema(answers)})
	if err != nil {
		if ctx.Err() != nil {
			return tools.AnswerDeny, ctx.Err()
		}
		return tools.AnswerDeny, fmt.Errorf("ask through %s: %w", c.name, err)
	}
	if res.Action != "accept" {
		return tools.AnswerDeny, nil // declined or dismissed: no
	}
	got, _ := res.Content["decision"].(string)
	for _, a := range answers {
		if a.String() == got {
			return a, nil
		}
	}
	return tools.AnswerDeny, errors.New("the approval form came back without a decision the guard accepts")
}

// offered lists the answers in the form: the guard's accepted approvals,
// then no.
func offered(req tools.ApprovalRequest) []tools.Answer {
	var out []tools.Answer
	for _, a := range []tools.Answer{tools.AnswerOnce, tools.AnswerTool, tools.AnswerServer} {
		if req.Offers(a) && (a != tools.AnswerServer || req.Server != "") {
			out = append(out, a)
		}
	}
	return append(out, tools.AnswerDeny)
}

var answerLabels = map[tools.Answer]string{
	tools.AnswerOnce:   "Allow this call once",
	tools.AnswerTool:   "Always allow this tool (until trust is reset)",
	tools.AnswerServer: "Always allow this server (until trust is reset)",
	tools.AnswerDeny:   "Deny",
}

// approvalSchema is a form of one required choice among answers.
func approvalSchema(answers []tools.Answer) map[string]any {
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
func approvalMessage(req tools.ApprovalRequest) string {
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
