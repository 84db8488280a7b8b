package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A network server's session can end under a live host: the server
// restarts or expires it (404 on a request carrying Mcp-Session-Id), a
// proxy drops the event stream, a request gets a 500 that the SDK treats
// as fatal. healTransport keeps one mcp.ClientSession alive across all of
// that: it wraps the SDK's client connection, and when the inner one is
// lost it dials a new one, replays the initialize handshake the session
// made at the start, and swaps it in. The ClientSession above never sees
// the change; the manager is told (reconnecting, healed) so it can show
// "reconnecting (n)" and refresh what a new session forgets.
//
// For Streamable HTTP the standalone GET stream is ours too (the SDK's
// gives up after 5 attempts without a new event, so an idle shell behind
// a proxy with an idle timeout lost its server): it reconnects forever
// with capped exponential backoff and jitter, reset on every successful
// reconnect.

// Backoff bounds; variables so tests in this package can shorten them.
var (
	healBaseDelay = 500 * time.Millisecond
	healMaxDelay  = 30 * time.Second
	// healInitTimeout bounds one re-initialize.
	healInitTimeout = 30 * time.Second
)

// backoff is the delay before reconnect attempt n (n ≥ 1): exponential
// from healBaseDelay, capped at healMaxDelay, with jitter in [d/2, d].
func backoff(n int) time.Duration {
	d := healBaseDelay
	for i := 1; i < n && d < healMaxDelay; i++ {
		d *= 2
	}
	d = min(d, healMaxDelay)
	return d/2 + rand.N(d/2+1)
}

// healHooks tell the server what its connection is doing.
type healHooks struct {
	// reconnecting reports n > 0 while the connection heals (attempt n,
	// with the reason), and 0 when it is whole again.
	reconnecting func(n int, err error)
	// healed runs after a new session replaced a lost one.
	healed func()
}

// healTransport is an mcp.Transport for a network server.
type healTransport struct {
	kind   string                                            // TypeHTTP or TypeSSE
	dial   func(ctx context.Context) (mcp.Connection, error) // a new SDK connection
	url    string                                            // for our GET stream (Streamable HTTP)
	client *http.Client                                      // likewise
	life   context.Context                                   // the attempt: ends every connection
	hooks  healHooks
	// protocol is the negotiated revision, sent as MCP-Protocol-Version
	// by protocolHeader (the SDK learns it only for connections it hands
	// to a session itself).
	protocol *atomic.Value
}

// Connect dials the first connection; later ones are dialled on loss.
func (t *healTransport) Connect(context.Context) (mcp.Connection, error) {
	inner, err := t.dial(t.life)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(t.life)
	c := &healConn{t: t, ctx: ctx, cancel: cancel, in: make(chan jsonrpc.Message, 16),
		inner: inner, pending: map[jsonrpc.ID]int{}, internal: map[jsonrpc.ID]chan *jsonrpc.Response{}}
	go c.pump(inner, 0, nil)
	return c, nil
}

// protocolHeader adds MCP-Protocol-Version when the SDK did not.
type protocolHeader struct {
	base     http.RoundTripper
	protocol *atomic.Value
}

func (p protocolHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	if v, _ := p.protocol.Load().(string); v != "" && r.Header.Get("Mcp-Protocol-Version") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Mcp-Protocol-Version", v)
	}
	return p.base.RoundTrip(r)
}

// healConn is the connection the ClientSession holds.
type healConn struct {
	t      *healTransport
	ctx    context.Context
	cancel context.CancelFunc
	in     chan jsonrpc.Message

	mu       sync.Mutex
	inner    mcp.Connection
	gen      int                // which inner connection is current
	live     bool               // the handshake is done: losses heal from now on
	closed   bool               //
	healing  chan struct{}      // non-nil while a heal runs; closed when it ends
	healN    int                // the attempt it is on
	healErr  error              // why
	initReq  *jsonrpc.Request   // the session's initialize, replayed on heal
	initNote *jsonrpc.Request   // its notifications/initialized
	pending  map[jsonrpc.ID]int // calls written and not answered, by generation
	internal map[jsonrpc.ID]chan *jsonrpc.Response
	stream   context.CancelFunc // the current GET stream
}

// errHealing is returned for requests sent while the connection heals.
var errHealing = errors.New("reconnecting")

// rejected marks err as a failure of one request, not of the connection:
// the SDK's JSON-RPC layer breaks the whole session on any other write
// error (it checks for code -32005, "rejected by transport").
func rejected(err error) error {
	return fmt.Errorf("%w (%w)", err, &jsonrpc.Error{Code: -32005, Message: "rejected by transport"})
}

func isRejected(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == -32005
}

func (c *healConn) SessionID() string {
	c.mu.Lock()
	inner := c.inner
	c.mu.Unlock()
	return inner.SessionID()
}

func (c *healConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.in:
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, io.EOF
	}
}

func (c *healConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	inner := c.inner
	c.mu.Unlock()
	err := inner.Close() // sends DELETE for a live session; before cancel, which would abort it
	c.cancel()
	return err
}

// pump forwards what inner reads to the session. Responses to our own
// requests (a replayed initialize) go to their waiter; messages of a
// generation that has been replaced are dropped. dead is closed when inner
// ends.
func (c *healConn) pump(inner mcp.Connection, gen int, dead chan struct{}) {
	if dead != nil {
		defer close(dead)
	}
	for {
		msg, err := inner.Read(c.ctx)
		if err != nil {
			c.mu.Lock()
			live := c.live
			c.mu.Unlock()
			switch {
			case c.ctx.Err() != nil:
			case !live && gen == 0:
				_ = c.Close() // lost during the handshake: let Connect fail now
			default:
				c.lost(gen, err)
			}
			return
		}
		if !c.deliver(msg, gen) {
			return
		}
	}
}

// deliver hands msg to the session unless it belongs to a replaced
// generation; false when the connection is closed.
func (c *healConn) deliver(msg jsonrpc.Message, gen int) bool {
	c.mu.Lock()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if ch, ok := c.internal[resp.ID]; ok {
			delete(c.internal, resp.ID)
			c.mu.Unlock()
			ch <- resp
			return true
		}
		if g, ok := c.pending[resp.ID]; ok && g == gen {
			delete(c.pending, resp.ID)
		}
		if gen == 0 && c.initReq != nil && resp.ID == c.initReq.ID {
			c.learnProtocol(resp.Result)
		}
	}
	stale := gen != c.gen
	c.mu.Unlock()
	if stale {
		return true
	}
	select {
	case c.in <- msg:
		return true
	case <-c.ctx.Done():
		return false
	}
}

func (c *healConn) learnProtocol(result json.RawMessage) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) == nil && r.ProtocolVersion != "" {
		c.t.protocol.Store(r.ProtocolVersion)
	}
}

// current returns the connection to write on, waiting for a heal that is
// on its first attempt; a heal that already failed once fails the request
// at once, so nobody waits out an outage.
func (c *healConn) current(ctx context.Context) (mcp.Connection, int, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, 0, mcp.ErrConnectionClosed
		}
		if c.healing == nil {
			inner, gen := c.inner, c.gen
			c.mu.Unlock()
			return inner, gen, nil
		}
		ch, n, herr := c.healing, c.healN, c.healErr
		c.mu.Unlock()
		if n > 1 {
			return nil, 0, fmt.Errorf("%w (attempt %d): %v", errHealing, n, herr)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

func (c *healConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, _ := msg.(*jsonrpc.Request)
	c.mu.Lock()
	live := c.live
	if req != nil && !live {
		switch req.Method {
		case "initialize":
			c.initReq = req
		case "notifications/initialized":
			c.initNote = req
		}
	}
	c.mu.Unlock()
	if !live { // the handshake: nothing to heal yet
		inner, _, err := c.current(ctx)
		if err != nil {
			return err
		}
		if err := inner.Write(ctx, msg); err != nil {
			return err
		}
		if req != nil && req.Method == "notifications/initialized" {
			c.mu.Lock()
			c.live = true
			c.mu.Unlock()
			// Wait for the GET stream to be answered before the first
			// request: a server may send a request of its own (an
			// elicitation during the first tool call) on that stream only,
			// and drops it if the stream is not open yet (conformance
			// elicitation-sep1034-client-defaults). Bounded, for a server
			// that holds the GET's headers back.
			select {
			case <-c.startStream(inner, 0):
			case <-time.After(firstStreamWait):
			case <-ctx.Done():
			}
		}
		return nil
	}
	call := req != nil && req.IsCall()
	for try := 0; ; try++ {
		inner, gen, err := c.current(ctx)
		if err != nil {
			if !call {
				return nil // a notification or reply for a session that is gone
			}
			return rejected(err)
		}
		if call {
			c.mu.Lock()
			c.pending[req.ID] = gen
			c.mu.Unlock()
		}
		err = inner.Write(ctx, msg)
		if err == nil {
			return nil
		}
		if call {
			c.mu.Lock()
			delete(c.pending, req.ID)
			c.mu.Unlock()
		}
		switch {
		case ctx.Err() != nil:
			return err
		case sessionGone(err):
			// The server never handled it: start a new session and, for
			// a request, send it once more there.
			c.lost(gen, err)
			if !call {
				return nil
			}
			if try == 0 {
				continue
			}
			return rejected(fmt.Errorf("the server ended the new session too: %w", err))
		case isRejected(err):
			return err // this request failed; the connection is fine
		default:
			c.lost(gen, err)
			if !call {
				return nil
			}
			return rejected(fmt.Errorf("%w; the request may have reached the server, so it is not sent again (reconnecting)", err))
		}
	}
}

// sessionGone says whether err means the server no longer knows the
// session, so the request was not handled: 404 (the spec's signal), or the
// 400 "No valid session ID" that the TypeScript SDK's examples answer.
func sessionGone(err error) bool {
	if errors.Is(err, mcp.ErrSessionMissing) {
		return true
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && strings.Contains(strings.ToLower(we.Message), "session") &&
		strings.Contains(err.Error(), "Bad Request") {
		return true
	}
	return strings.Contains(err.Error(), "failed to write: 404") // legacy SSE
}

// lost starts healing when gen is still the current connection.
func (c *healConn) lost(gen int, cause error) {
	c.mu.Lock()
	if c.closed || !c.live || gen != c.gen || c.healing != nil {
		c.mu.Unlock()
		return
	}
	c.healing = make(chan struct{})
	c.healN, c.healErr = 1, cause
	old, stream := c.inner, c.stream
	c.stream = nil
	c.mu.Unlock()
	if stream != nil {
		stream()
	}
	go func() { _ = old.Close() }()
	go c.heal(gen, cause)
}

// heal dials and re-initializes until it works or the connection closes.
func (c *healConn) heal(gen int, cause error) {
	for n := 1; ; n++ {
		c.mu.Lock()
		c.healN, c.healErr = n, cause
		c.mu.Unlock()
		if c.t.hooks.reconnecting != nil {
			c.t.hooks.reconnecting(n, cause)
		}
		if n > 1 {
			select {
			case <-time.After(backoff(n - 1)):
			case <-c.ctx.Done():
				c.endHeal()
				return
			}
		}
		inner, err := c.reinit(gen + 1)
		if err == nil {
			c.swap(inner, gen+1)
			return
		}
		if c.ctx.Err() != nil {
			c.endHeal()
			return
		}
		cause = err
	}
}

func (c *healConn) endHeal() {
	c.mu.Lock()
	if c.healing != nil {
		close(c.healing)
		c.healing = nil
	}
	c.mu.Unlock()
}

// reinit dials a new connection and replays the handshake on it.
func (c *healConn) reinit(gen int) (mcp.Connection, error) {
	ctx, cancel := context.WithTimeout(c.ctx, healInitTimeout)
	defer cancel()
	type dialed struct {
		conn mcp.Connection
		err  error
	}
	got := make(chan dialed, 1)
	go func() { // the SSE transport ties its stream to this context: the connection's, not the timeout's
		conn, err := c.t.dial(c.ctx)
		got <- dialed{conn, err}
	}()
	var inner mcp.Connection
	select {
	case d := <-got:
		if d.err != nil {
			return nil, d.err
		}
		inner = d.conn
	case <-ctx.Done():
		go func() {
			if d := <-got; d.conn != nil {
				_ = d.conn.Close()
			}
		}()
		return nil, fmt.Errorf("connect: %w", ctx.Err())
	}
	dead := make(chan struct{})
	go c.pump(inner, gen, dead)
	fail := func(err error) (mcp.Connection, error) {
		_ = inner.Close()
		return nil, err
	}
	id, _ := jsonrpc.MakeID(fmt.Sprintf("browseragent-reinit-%d", gen))
	answer := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	c.internal[id] = answer
	initParams, note := c.initReq.Params, c.initNote
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.internal, id)
		c.mu.Unlock()
	}()
	if err := inner.Write(ctx, &jsonrpc.Request{ID: id, Method: "initialize", Params: initParams}); err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	select {
	case resp := <-answer:
		if resp.Error != nil {
			return fail(fmt.Errorf("initialize: %w", resp.Error))
		}
		c.learnProtocol(resp.Result)
	case <-dead:
		return fail(errors.New("initialize: the connection closed"))
	case <-ctx.Done():
		return fail(fmt.Errorf("initialize: %w", ctx.Err()))
	}
	if err := inner.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: note.Params}); err != nil {
		return fail(fmt.Errorf("initialized: %w", err))
	}
	return inner, nil
}

// inFlightLost is the answer to a call that was in flight on a session
// that ended: it may or may not have run.
const inFlightLost = "the connection to the server was lost while this request was in flight; it may have run on the server (browseragent reconnected: check before sending it again)"

// swap makes inner current and answers the calls lost with the old one.
func (c *healConn) swap(inner mcp.Connection, gen int) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = inner.Close()
		c.endHeal()
		return
	}
	c.inner, c.gen = inner, gen
	var lost []jsonrpc.ID
	for id, g := range c.pending {
		if g < gen {
			lost = append(lost, id)
			delete(c.pending, id)
		}
	}
	c.mu.Unlock()
	c.endHeal()
	for _, id := range lost {
		c.deliver(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32000, Message: inFlightLost}}, gen)
	}
	c.startStream(inner, gen)
	if c.t.hooks.reconnecting != nil {
		c.t.hooks.reconnecting(0, nil)
	}
	if c.t.hooks.healed != nil {
		c.t.hooks.healed()
	}
}

// firstStreamWait bounds how long the handshake waits for the server to
// answer the first GET stream.
const firstStreamWait = 3 * time.Second

// startStream opens the standalone GET stream of a Streamable HTTP
// connection. The channel closes once the server answered the first GET
// (with a stream or a refusal), or at once when there is none to open.
func (c *healConn) startStream(inner mcp.Connection, gen int) <-chan struct{} {
	answered := make(chan struct{})
	if c.t.kind != TypeHTTP {
		close(answered)
		return answered
	}
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	if c.gen != gen || c.closed {
		c.mu.Unlock()
		cancel()
		close(answered)
		return answered
	}
	c.stream = cancel
	c.mu.Unlock()
	var once sync.Once
	go c.listen(ctx, gen, inner.SessionID(), func() { once.Do(func() { close(answered) }) })
	return answered
}

// listen keeps the GET stream open for the life of one session: after a
// drop it reconnects with backoff, forever, and a successful reconnect
// starts the count again. A 404 means the session is gone: heal.
func (c *healConn) listen(ctx context.Context, gen int, sessionID string, answered func()) {
	defer answered()
	var lastID string
	var retry time.Duration // the server's "retry:" hint
	everOpen := false
	for fails := 0; ; {
		if fails > 0 {
			if c.t.hooks.reconnecting != nil {
				c.t.hooks.reconnecting(fails, errors.New("the event stream dropped"))
			}
			d := backoff(fails)
			if retry > 0 && fails == 1 {
				d = retry
			}
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.t.url, nil)
		if err != nil {
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		if sessionID != "" {
			req.Header.Set("Mcp-Session-Id", sessionID)
		}
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := c.t.client.Do(req)
		answered()
		if ctx.Err() != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return
		}
		if err != nil {
			fails++
			continue
		}
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		switch {
		case resp.StatusCode == http.StatusOK && ct == "text/event-stream":
		case resp.StatusCode == http.StatusNotFound && sessionID != "",
			resp.StatusCode == http.StatusBadRequest && sessionID != "" && everOpen:
			resp.Body.Close()
			c.lost(gen, fmt.Errorf("event stream: %s: %w", resp.Status, mcp.ErrSessionMissing))
			return
		case resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusConflict && !everOpen:
			resp.Body.Close() // 405 or alike: no stream offered here
			return
		default:
			resp.Body.Close()
			fails++
			continue
		}
		everOpen, fails = true, 0
		if c.t.hooks.reconnecting != nil {
			c.t.hooks.reconnecting(0, nil)
		}
		lastID, retry = c.readEvents(resp.Body, gen, lastID)
		resp.Body.Close()
		if ctx.Err() != nil {
			return
		}
		fails = 1
	}
}

// readEvents reads one event stream to its end, delivering each message;
// it returns the last event id and retry hint seen.
func (c *healConn) readEvents(body io.Reader, gen int, lastID string) (string, time.Duration) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64*1024), defaultMaxMessageBytes)
	var data bytes.Buffer
	var retry time.Duration
	event := ""
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if data.Len() > 0 && (event == "" || event == "message") {
				if msg, err := jsonrpc.DecodeMessage(data.Bytes()); err == nil {
					if !c.deliver(msg, gen) {
						return lastID, retry
					}
				}
			}
			data.Reset()
			event = ""
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.Write(value)
		case "id":
			lastID = string(value)
		case "event":
			event = string(value)
		case "retry":
			if ms, err := strconv.Atoi(string(value)); err == nil && ms > 0 {
				retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	return lastID, retry
}
