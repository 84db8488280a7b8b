package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// rawSession is a short-lived DevTools session with one target over our
// own browser connection, in the non-flattened mode: commands go out as
// Target.sendMessageToTarget and replies and events come back as
// Target.receivedMessageFromTarget browser events. It reaches targets
// chromedp has no executor for (a tab target, a cross-site iframe running
// in another process) and changes nothing in them.
type rawSession struct {
	br   *chromedp.Browser
	id   target.SessionID
	msgs <-chan jsonv2.Value
	stop func()
	next int
}

// errNoTarget means the target is gone (or never was).
var errNoTarget = errors.New("no such target")

// openRaw attaches to targetID. Close it when done.
func (s *session) openRaw(ctx context.Context, targetID target.ID) (*rawSession, error) {
	br := chromedp.FromContext(s.root).Browser
	msgs, stop := br.Subscribe("Target.receivedMessageFromTarget")
	att, err := cdp.Call(ctx, br, target.AttachToTarget, target.AttachToTargetParams{TargetID: targetID, Flatten: new(false)})
	if err != nil {
		stop()
		if strings.Contains(err.Error(), "No target with given id") {
			return nil, errNoTarget
		}
		return nil, err
	}
	return &rawSession{br: br, id: att.SessionID, msgs: msgs, stop: stop}, nil
}

// close detaches; the target stays as it was.
func (r *rawSession) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = r.br.Call(ctx, target.DetachFromTarget.Method, target.DetachFromTargetParams{SessionID: r.id}, nil)
	r.stop()
}

// rawMessage is one message of the target: a reply (ID) or an event.
type rawMessage struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// call sends method and waits for its reply, or, when until is not nil,
// for the first event until accepts (a failed reply still ends the wait).
func (r *rawSession) call(ctx context.Context, method string, params any, until func(rawMessage) bool) (json.RawMessage, error) {
	r.next++
	id := r.next
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	msg, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": json.RawMessage(p)})
	if err := r.br.Call(ctx, "Target.sendMessageToTarget", map[string]any{"sessionId": r.id, "message": string(msg)}, nil); err != nil {
		return nil, err
	}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case raw, ok := <-r.msgs:
			if !ok {
				return nil, ErrLost
			}
			var outer struct {
				SessionID target.SessionID `json:"sessionId"`
				Message   string           `json:"message"`
			}
			if jsonv2.Unmarshal(raw, &outer) != nil || outer.SessionID != r.id {
				continue
			}
			var m rawMessage
			if json.Unmarshal([]byte(outer.Message), &m) != nil {
				continue
			}
			switch {
			case m.ID == id && m.Error != nil:
				return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
			case m.ID == id && until == nil:
				return m.Result, nil
			case m.ID == 0 && until != nil && until(m):
				return m.Params, nil
			}
		}
	}
}

// chromedpErrorf is chromedp's error log minus the complaint about a
// session it did not make (a rawSession's, when it detaches).
func chromedpErrorf(format string, v ...any) {
	if strings.HasPrefix(format, "executor for ") {
		return
	}
	log.Printf("ERROR: "+format, v...)
}
