package browsercli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/browseragent/browseragent/browsercli/wire"
	"github.com/browseragent/browseragent/tools"
)

// pendingTTL is how long a parked call waits for `browser confirm` before
// it is dropped as unanswered.
const pendingTTL = 10 * time.Minute

// client is the command being run, as the approver sees it.
type client struct {
	w   *wire.Wire
	req *wire.Request
	// terminal: the command's process reads from a terminal (the kernel
	// says so, not the client) and its client asks there, so a person
	// answers; otherwise nobody does.
	terminal bool
	parked   *parked // set once the call was parked: the client has left
	// conn is the command's connection and ending the daemon's life: a
	// question still open when the session ends (close --all, a signal,
	// an upgrade) is withdrawn by closing conn, so the session does not
	// wait for a person who may never answer.
	conn   io.Closer
	ending context.Context
}

type clientKey struct{}

func clientFrom(ctx context.Context) *client {
	c, _ := ctx.Value(clientKey{}).(*client)
	return c
}

// parked is a call waiting for `browser confirm ID` or `browser deny ID`.
type parked struct {
	info   wire.Pending
	answer chan tools.Answer   // one answer
	done   chan *wire.Response // the command's outcome once answered
}

// approver is the registry's approver in a daemon: it asks at the
// command's terminal when there is one; otherwise --yes decides what it
// covers (by the registry's own unattended rule) and everything else is
// parked until the person confirms or denies it.
type approver struct{ d *daemon }

func (a approver) Approve(ctx context.Context, req tools.ApprovalRequest) (tools.Answer, error) {
	cl := clientFrom(ctx)
	switch {
	case cl == nil || cl.parked != nil:
		// Nobody left to ask: a second question in a parked command.
		return tools.AnswerNone, &tools.CannotAsk{Why: "Run the step again as its own command."}
	case cl.terminal:
		return cl.ask(req)
	case cl.req.Yes && !req.Sensitive:
		return tools.AnswerNone, &tools.CannotAsk{} // --yes, judged by the registry as in `run`
	}
	return a.d.park(ctx, cl, req)
}

// ask puts the question to the command's terminal and waits for the
// answer; a client that went away answered nothing.
func (cl *client) ask(req tools.ApprovalRequest) (tools.Answer, error) {
	return cl.put(&wire.Ask{Tool: req.Tool, Page: req.PageURL, Reason: req.Reason, Args: req.Args, Sensitive: !req.Offers(tools.AnswerTool)}), nil
}

// put sends q to the client's terminal and returns the person's answer:
// AnswerNone when the client went away without one.
func (cl *client) put(q *wire.Ask) tools.Answer {
	if cl.ending != nil {
		defer context.AfterFunc(cl.ending, func() { cl.conn.Close() })()
	}
	if err := cl.w.Send(wire.Message{Type: "ask", Ask: q}); err != nil {
		return tools.AnswerNone
	}
	m, err := cl.w.Recv()
	if err != nil || m.Type != "answer" {
		return tools.AnswerNone
	}
	switch m.Answer {
	case "once":
		return tools.AnswerOnce
	case "always":
		if !q.Sensitive {
			return tools.AnswerTool
		}
		return tools.AnswerOnce
	}
	return tools.AnswerDeny
}

// park tells the client the call waits for approval under a new id, lets
// other commands run meanwhile, and waits for `browser confirm` or `browser
// deny` (pendingTTL at most).
func (d *daemon) park(ctx context.Context, cl *client, req tools.ApprovalRequest) (tools.Answer, error) {
	p := &parked{answer: make(chan tools.Answer, 1), done: make(chan *wire.Response, 1), info: wire.Pending{
		ID: newID(), Command: commandLine(cl.req), Tool: req.Tool, Page: req.PageURL, Reason: req.Reason, Args: req.Args,
		Sensitive: !req.Offers(tools.AnswerTool)}}
	d.mu.Lock()
	d.pending[p.info.ID] = p
	d.mu.Unlock()
	cl.parked = p
	_ = cl.w.Send(wire.Message{Type: "pending", Pending: &p.info})
	d.busy.Unlock()
	defer d.busy.Lock()
	timer := time.NewTimer(pendingTTL)
	defer timer.Stop()
	select {
	case a := <-p.answer:
		return a, nil
	case <-timer.C:
	case <-ctx.Done():
	}
	d.mu.Lock()
	delete(d.pending, p.info.ID)
	d.mu.Unlock()
	return tools.AnswerNone, nil
}

// resolve answers a parked call: confirm shows it at the confirming
// command's terminal and, when the person says yes there, runs it and
// returns what it did; deny drops it. A confirm from a process without a
// terminal is refused and the call stays pending: the program that was
// told to wait — a script, a coding agent — must not approve itself.
func (d *daemon) resolve(ctx context.Context, cl *client) *wire.Response {
	req := cl.req
	id := req.ID
	if id == "" && len(req.Args) > 0 {
		id = req.Args[0]
	}
	refused := req.Command == "confirm" && !cl.terminal
	d.mu.Lock()
	p := d.pending[id]
	if !refused {
		delete(d.pending, id)
	}
	d.mu.Unlock()
	switch {
	case p == nil:
		return &wire.Response{Exit: wire.ExitFailed, Error: fmt.Sprintf("no pending approval %q in session %s (it ran, was denied, or waited more than %s): `browser pending` lists them", id, d.p.Name, pendingTTL)}
	case refused:
		return &wire.Response{Exit: wire.ExitUsage, Error: fmt.Sprintf("confirm needs the person at a terminal: %s still waits; run `browseragent browser confirm %s` in your own terminal, where it shows the call and asks (a script or coding agent cannot approve it; `browser deny` works anywhere)", id, id)}
	}
	answer := tools.AnswerDeny
	if req.Command == "confirm" {
		i := p.info
		answer = cl.put(&wire.Ask{Command: i.Command, Tool: i.Tool, Page: i.Page, Reason: i.Reason, Args: i.Args, Sensitive: i.Sensitive})
		if answer == tools.AnswerNone { // the confirming command went away: the call still waits
			d.mu.Lock()
			d.pending[id] = p
			d.mu.Unlock()
			return nil
		}
	}
	if answer == tools.AnswerDeny {
		p.answer <- tools.AnswerDeny
		<-p.done // the call ends refused; nothing ran
		return &wire.Response{Text: fmt.Sprintf("Dropped %s: `%s` did not run.", p.info.ID, p.info.Command),
			Data: map[string]any{"id": p.info.ID, "command": p.info.Command, "ran": false}}
	}
	p.answer <- answer
	select {
	case resp := <-p.done:
		return resp
	case <-ctx.Done():
		return &wire.Response{Exit: wire.ExitLost, Error: "the session ended before the confirmed command finished"}
	}
}

// listPending is `browser pending`.
func (d *daemon) listPending() *wire.Response {
	d.mu.Lock()
	ids := slices.Sorted(maps.Keys(d.pending))
	list := make([]wire.Pending, 0, len(ids))
	for _, id := range ids {
		list = append(list, d.pending[id].info)
	}
	d.mu.Unlock()
	resp := &wire.Response{Data: map[string]any{"pending": list}}
	if len(list) == 0 {
		resp.Text = "No command waits for approval."
	}
	for _, p := range list {
		resp.Text += wire.DescribePending(p) + "\n"
	}
	return resp
}

func newID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return "p" + hex.EncodeToString(b)
}
