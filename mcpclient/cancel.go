package mcpclient

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// When a caller gives up on a request (Ctrl-C of `mcp call`, a turn
// interrupted in the shell), the SDK retires the call at once and sends
// notifications/cancelled from a goroutine. A one-shot command then closes
// the session at once: over Streamable HTTP and SSE the notification lost
// the race with the close (and with the cancelled connection context), so
// the server kept running a call nobody waited for. Each connection is
// therefore wrapped in a callTracker that knows which requests were sent
// and neither answered nor cancelled, and the attempt's shutdown sends
// notifications/cancelled for those before it closes anything.

// cancelFlushTimeout bounds the notifications sent at shutdown.
const cancelFlushTimeout = time.Second

// closingReason is the reason given for requests abandoned at shutdown.
const closingReason = "browseragent stopped waiting for this request (interrupted or closing)"

// trackTransport wraps a transport's connection in a callTracker.
type trackTransport struct {
	mcp.Transport
	a *attempt
}

func (t trackTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c := &callTracker{Connection: conn, open: map[jsonrpc.ID]bool{}}
	t.a.mu.Lock()
	t.a.calls = c
	if p := t.a.proc; p != nil {
		c.answered = p.answered
	}
	t.a.mu.Unlock()
	return c, nil
}

// callTracker is an mcp.Connection that remembers the outgoing requests
// still open: written, not answered, not cancelled; and the cancellations
// being written, so shutdown can wait for the SDK's own.
type callTracker struct {
	mcp.Connection
	mu      sync.Mutex
	open    map[jsonrpc.ID]bool
	sending int           // notifications/cancelled being written
	drained chan struct{} // closed when sending drops to 0; nil at 0
	// answered, when set, is told each answer to a server's request
	// (process.answered: a stdio server).
	answered func(jsonrpc.ID)
	// lists are the open tools/list requests; taskOnly the tools their
	// answers said require task augmentation (see noteTaskTools).
	lists    map[jsonrpc.ID]bool
	taskOnly map[string]bool
}

func (c *callTracker) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && c.answered != nil {
		c.answered(resp.ID)
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		switch {
		case req.IsCall():
			c.mu.Lock()
			c.open[req.ID] = true
			if req.Method == "tools/list" {
				if c.lists == nil {
					c.lists = map[jsonrpc.ID]bool{}
				}
				c.lists[req.ID] = true
			}
			c.mu.Unlock()
		case req.Method == "notifications/cancelled":
			c.forget(cancelledID(req.Params))
			c.begin()
			defer c.end()
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *callTracker) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.noteTaskTools(resp)
		c.forget(resp.ID)
	}
	return msg, err
}

// noteTaskTools reads, in an answer to tools/list, which tools require
// task augmentation (SEP-1686: "execution": {"taskSupport": "required"}).
// The go-sdk drops that field when it decodes a tool, and browseragent
// cannot call such a tool (it does not run tasks), so listTools leaves
// them out and says why.
func (c *callTracker) noteTaskTools(resp *jsonrpc.Response) {
	c.mu.Lock()
	list := c.lists[resp.ID]
	delete(c.lists, resp.ID)
	c.mu.Unlock()
	if !list || resp.Error != nil {
		return
	}
	var res struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(resp.Result, &res) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.taskOnly == nil {
		c.taskOnly = map[string]bool{}
	}
	for _, t := range res.Tools {
		c.taskOnly[t.Name] = t.Execution.TaskSupport == "required"
	}
}

// requiresTask reports whether the server said its tool name can only be
// called as a task.
func (c *callTracker) requiresTask(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.taskOnly[name]
}

func (c *callTracker) forget(id jsonrpc.ID) {
	if !id.IsValid() {
		return
	}
	c.mu.Lock()
	delete(c.open, id)
	c.mu.Unlock()
}

// cancelledID is the requestId of a notifications/cancelled (MakeID takes
// a number as JSON decodes it, float64).
func cancelledID(params json.RawMessage) jsonrpc.ID {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc.ID{}
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}

// cancelOpen sends notifications/cancelled for every open request, each
// once, and waits for them, and for those the SDK is sending, to be
// written (bounded by cancelFlushTimeout).
func (c *callTracker) cancelOpen() {
	c.mu.Lock()
	ids := make([]jsonrpc.ID, 0, len(c.open))
	for id := range c.open {
		ids = append(ids, id)
	}
	clear(c.open)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), cancelFlushTimeout)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.waitSent(ctx)
	}()
	for _, id := range ids {
		params, err := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": closingReason})
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Connection.Write(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
		}()
	}
	wg.Wait()
}

// tracker is the attempt's callTracker, nil before it connected.
func (a *attempt) tracker() *callTracker {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// cancelOpen tells the server about the attempt's abandoned requests.
func (a *attempt) cancelOpen() {
	if c := a.tracker(); c != nil {
		c.cancelOpen()
	}
}

// cancelOpen runs each server's cancelOpen, in parallel; Close calls it
// before it cancels anything.
func (m *Manager) cancelOpen() {
	var wg sync.WaitGroup
	for _, s := range m.list() {
		if a := s.currentAttempt(); a != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a.cancelOpen()
			}()
		}
	}
	wg.Wait()
}

func (c *callTracker) begin() {
	c.mu.Lock()
	if c.sending == 0 {
		c.drained = make(chan struct{})
	}
	c.sending++
	c.mu.Unlock()
}

func (c *callTracker) end() {
	c.mu.Lock()
	if c.sending--; c.sending == 0 {
		close(c.drained)
		c.drained = nil
	}
	c.mu.Unlock()
}

// waitSent waits until no notifications/cancelled is being written, or ctx
// ends.
func (c *callTracker) waitSent(ctx context.Context) {
	c.mu.Lock()
	ch := c.drained
	c.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}
