// Package faultproxy is an HTTP proxy on 127.0.0.1 that sits between an
// MCP client and a real MCP server and breaks things on demand: it expires
// sessions (404 for every request that carries one), drops event streams,
// cuts idle streams, and answers 500 once. Tests use it to drive the
// client's healing against a real server.
package faultproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Request is one request the proxy saw, and what it answered.
type Request struct {
	Method    string // HTTP method
	Path      string
	Session   string // Mcp-Session-Id, or the sessionId query of legacy SSE
	RPCMethod string // the JSON-RPC method of a POSTed request
	Status    int
	Injected  bool // the proxy answered itself (a fault)
}

// Proxy forwards to one upstream server.
type Proxy struct {
	// URL is the proxy's base, http://127.0.0.1:port.
	URL string

	upstream string
	srv      *http.Server
	ln       net.Listener
	client   *http.Client

	mu      sync.Mutex
	expired map[string]bool
	seen    map[string]bool
	fail    map[string]int // JSON-RPC method (or "GET") → answers of 500 still to give
	refuse  bool           // answer 503 to every GET stream
	idle    time.Duration
	streams map[int]context.CancelFunc
	next    int
	log     []Request
}

// New starts a proxy to upstream (scheme://host:port) on 127.0.0.1.
func New(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		URL: "http://" + ln.Addr().String(), upstream: strings.TrimRight(upstream, "/"), ln: ln,
		client:  &http.Client{Transport: &http.Transport{DisableCompression: true}},
		expired: map[string]bool{}, seen: map[string]bool{}, fail: map[string]int{}, streams: map[int]context.CancelFunc{},
	}
	p.srv = &http.Server{Handler: p}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Close stops the proxy and cuts what is in flight.
func (p *Proxy) Close() {
	p.DropStreams()
	_ = p.srv.Close()
	p.client.CloseIdleConnections()
}

// ExpireAll makes every session seen so far unknown: requests carrying
// one get 404, as from a server that restarted or timed the session out.
func (p *Proxy) ExpireAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.seen {
		p.expired[s] = true
	}
}

// Fail500 makes the next n requests of JSON-RPC method (or "GET" for
// event streams) get 500 Internal Server Error without reaching the server.
func (p *Proxy) Fail500(method string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fail[method] += n
}

// RefuseStreams makes every GET answer 503 while on is true (the server
// seems down for listening).
func (p *Proxy) RefuseStreams(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = on
}

// SetIdleTimeout cuts an event stream that has sent nothing for d, as a
// proxy with an idle timeout does; 0 turns it off.
func (p *Proxy) SetIdleTimeout(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle = d
}

// DropStreams cuts every event stream in flight (the TCP connection is
// aborted mid-stream) and returns how many.
func (p *Proxy) DropStreams() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.streams)
	for id, cancel := range p.streams {
		cancel()
		delete(p.streams, id)
	}
	return n
}

// Requests returns what the proxy saw so far.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.log...)
}

// Count returns how many requests match f.
func (p *Proxy) Count(f func(Request) bool) int {
	n := 0
	for _, r := range p.Requests() {
		if f(r) {
			n++
		}
	}
	return n
}

func (p *Proxy) record(r Request) {
	p.mu.Lock()
	p.log = append(p.log, r)
	p.mu.Unlock()
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.Path, Session: r.Header.Get("Mcp-Session-Id")}
	if rec.Session == "" {
		rec.Session = r.URL.Query().Get("sessionId")
	}
	if r.Method == http.MethodPost {
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		rec.RPCMethod = msg.Method
	}
	key := rec.RPCMethod
	if r.Method == http.MethodGet {
		key = "GET"
	}

	p.mu.Lock()
	expired := rec.Session != "" && p.expired[rec.Session]
	fail := p.fail[key] > 0
	if fail {
		p.fail[key]--
	}
	refuse := p.refuse && r.Method == http.MethodGet
	p.mu.Unlock()
	switch {
	case expired:
		rec.Status, rec.Injected = http.StatusNotFound, true
		p.record(rec)
		http.Error(w, "session not found", http.StatusNotFound)
		return
	case fail:
		rec.Status, rec.Injected = http.StatusInternalServerError, true
		p.record(rec)
		http.Error(w, "injected failure", http.StatusInternalServerError)
		return
	case refuse:
		rec.Status, rec.Injected = http.StatusServiceUnavailable, true
		p.record(rec)
		http.Error(w, "refused", http.StatusServiceUnavailable)
		return
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	out, err := http.NewRequestWithContext(ctx, r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	p.mu.Lock()
	idle := p.idle
	p.mu.Unlock()
	if r.Method == http.MethodGet { // a stream waiting for its headers is dropped too
		defer p.track(cancel)()
	}
	var timer *time.Timer
	if idle > 0 && r.Method == http.MethodGet { // waiting for the headers counts as idle too
		timer = time.AfterFunc(idle, cancel)
		defer timer.Stop()
	}
	resp, err := p.client.Do(out)
	if err != nil && ctx.Err() != nil && r.Context().Err() == nil {
		rec.Status = -1
		p.record(rec)
		panic(http.ErrAbortHandler) // cut while waiting
	}
	if err != nil {
		rec.Status = http.StatusBadGateway
		p.record(rec)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	rec.Status = resp.StatusCode
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		p.mu.Lock()
		p.seen[s] = true
		p.mu.Unlock()
	}
	if rec.Session != "" {
		p.mu.Lock()
		p.seen[rec.Session] = true
		p.mu.Unlock()
	}
	p.record(rec)
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		_, _ = io.Copy(w, resp.Body)
		return
	}
	if timer != nil {
		timer.Stop()
	}
	p.stream(ctx, cancel, w, resp.Body)
}

// track registers a stream for DropStreams until the returned func runs.
func (p *Proxy) track(cancel context.CancelFunc) func() {
	p.mu.Lock()
	id := p.next
	p.next++
	p.streams[id] = cancel
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.streams, id)
		p.mu.Unlock()
	}
}

// stream copies an event stream, flushing each read, until it ends, is
// dropped or goes idle; a cut one aborts the connection.
func (p *Proxy) stream(ctx context.Context, cancel context.CancelFunc, w http.ResponseWriter, body io.Reader) {
	defer p.track(cancel)()
	p.mu.Lock()
	idle := p.idle
	p.mu.Unlock()
	fl, _ := w.(http.Flusher)
	var timer *time.Timer
	if idle > 0 {
		timer = time.AfterFunc(idle, cancel)
		defer timer.Stop()
	}
	buf := make([]byte, 32*1024)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if timer != nil {
				timer.Reset(idle)
			}
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				panic(http.ErrAbortHandler) // cut: no clean end of stream
			}
			return
		}
	}
}
