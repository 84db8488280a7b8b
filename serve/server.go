package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/browseragent/browseragent/tools"
)

// protocolVersions are the MCP revisions served. Approvals need a request
// from the server in the middle of a tool call (elicitation) and tabs
// belong to a session; the 2026-07-28 revision has neither, so a client
// offering it falls back to the initialize handshake at 2025-11-25.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Registry is the one tool-call path (*tools.Registry).
type Registry interface {
	Tools() []tools.ToolDef
	Call(ctx context.Context, name string, args json.RawMessage, origin tools.Origin) (*tools.ToolResult, error)
	Add(tools.ToolProvider)
	Policy() *guard.Policy
}

// Modes switches the browser between isolated and the person's Chrome
// (*session.Session); each switch resets trust.
type Modes interface {
	Connect(ctx context.Context, t browser.Target) (string, error)
	Disconnect(ctx context.Context) (string, error)
}

// Tabs tells which tab is current (*browser.Browser), to learn the tab a
// browser_open made.
type Tabs interface {
	CurrentTab() string
}

// Options configure a Server; nil fields mean defaults.
type Options struct {
	// Name and Version are the serverInfo the clients see.
	Name, Version string
	// Yes approves writes on ordinary pages for a client that cannot show
	// approval forms (never on sensitive pages).
	Yes bool
	// Modes, when set, adds the browser_connect and browser_disconnect tools.
	Modes Modes
	// Tabs is the shared browser; required for per-session tabs.
	Tabs Tabs
	// ProgressEvery is how often a running call reports progress to a
	// client that asked for it (default 1s).
	ProgressEvery time.Duration
	// Logger receives the server's own diagnostics (default: discarded).
	Logger *slog.Logger
}

// Server serves the registry's builtin and browser tools over MCP. It is
// safe for concurrent use by many sessions.
type Server struct {
	reg  Registry
	opts Options
	srv  *mcp.Server

	mu      sync.Mutex
	clients map[*mcp.ServerSession]*client
	named   map[string]*tabSet // named sessions' tabs, kept across their MCP sessions
	// tabMu serialises the calls that change which tab is current
	// (browser_open, browser_select_tab), so each session learns its own.
	tabMu sync.Mutex
	defs  []tools.ToolDef

	// ended runs the clean-up of sessions that ended (closeTabs); closing
	// and stdio stop it: a session ending with the server leaves the
	// browser to the server's own close, and the person's Chrome as it is.
	ended   sync.WaitGroup
	closing bool // guarded by mu
	// noToken: an HTTP handler without a bearer token was made; any local
	// program can then be a client, so none may attach the person's Chrome.
	noToken atomic.Bool
	stdio   bool // guarded by mu
}

// New returns a server over reg, which must have been built with Approver
// as its approver (session.SessionOptions.Approver): approvals then reach
// the host of the session that made each call. New changes nothing in reg
// but adding the mode tools when opts.Modes is set.
func New(reg Registry, opts *Options) *Server {
	s := &Server{reg: reg, clients: map[*mcp.ServerSession]*client{}, named: map[string]*tabSet{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.Name == "" {
		s.opts.Name = "browseragent"
	}
	if s.opts.ProgressEvery <= 0 {
		s.opts.ProgressEvery = time.Second
	}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if s.opts.Modes != nil {
		reg.Add(modeTools{s})
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions:              instructions,
		Logger:                    s.opts.Logger,
		SupportedProtocolVersions: protocolVersions,
		Capabilities:              &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}},
	})
	for _, d := range reg.Tools() {
		if d.Source == tools.SourceMCP {
			continue // served tools are browseragent's own, not its servers'
		}
		s.defs = append(s.defs, d)
		s.srv.AddTool(s.tool(d), s.handler(d))
	}
	return s
}

const instructions = "browseragent's guarded browser. Use web_fetch first for static pages; the browser_* tools for JavaScript apps, logins and forms (browser_open, then browser_snapshot, then click/type by ref). Writes on sensitive sites ask the person every time."

// MCP returns the go-sdk server, for a transport of the caller's choosing.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one session over t (stdio) until the client goes away or ctx
// ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	s.mu.Lock()
	s.stdio = true
	s.mu.Unlock()
	err := s.srv.Run(ctx, t)
	if errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

func (s *Server) tool(d tools.ToolDef) *mcp.Tool {
	return &mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: d.Parameters, Annotations: annotations(d)}
}

// handler runs one tools/call through the registry as the calling client.
func (s *Server) handler(d tools.ToolDef) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		named, err := sessionName(req)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		c := s.client(req.Session, named)
		args, err := c.scope(d, req.Params.Arguments)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		ctx = tools.WithClient(ctx, s.identity(c))
		ctx = withClient(ctx, c)
		stop := s.progress(ctx, req, d.Name)
		start := time.Now()
		res, err := s.call(ctx, c, d, args)
		stop()
		c.logCall(ctx, d.Name, res, err, time.Since(start))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return errorResult(textutil.FirstLine(err.Error(), 0)), nil
		}
		return toResult(res), nil
	}
}

// call runs the tool as c and notes what it did to c's tabs.
func (s *Server) call(ctx context.Context, c *client, d tools.ToolDef, args json.RawMessage) (*tools.ToolResult, error) {
	res, err := s.reg.Call(ctx, d.Name, args, tools.OriginMCP)
	if err != nil && !errors.Is(err, guard.ErrDenied) {
		return nil, err
	}
	// A refusal goes to the client as an error result saying why.
	c.after(d.Entry, res)
	return res, nil
}

func (s *Server) currentTab() string {
	if s.opts.Tabs == nil {
		return ""
	}
	return s.opts.Tabs.CurrentTab()
}

// identity is c as the registry sees it (client.identity), held out of the
// tabs the server's other sessions opened.
func (s *Server) identity(c *client) *tools.Client {
	id := c.identity()
	id.Others = func(tab string) bool {
		s.mu.Lock()
		others := make([]*tabSet, 0, len(s.clients)+len(s.named))
		for _, o := range s.clients {
			if o.tabSet != c.tabSet {
				others = append(others, o.tabSet)
			}
		}
		for _, t := range s.named {
			if t != c.tabSet {
				others = append(others, t)
			}
		}
		s.mu.Unlock()
		return slices.ContainsFunc(others, func(o *tabSet) bool { return o.owns(tab) })
	}
	return id
}

// SessionHeader names a named session: the MCP sessions whose first call
// carries it work in one place, its tabs and current tab and its "always
// allow" grants, which outlive each MCP session until the server ends.
// `browseragent mcp call --session NAME` sends it, so separate calls
// (open, snapshot, click) act on the same tab.
const SessionHeader = "Browseragent-Session"

// sessionName is the named session a call asks for ("" for none).
func sessionName(req *mcp.CallToolRequest) (string, error) {
	if req.Extra == nil || req.Extra.Header == nil {
		return "", nil
	}
	name := req.Extra.Header.Get(SessionHeader)
	if name != "" && !ValidSessionName(name) {
		return "", fmt.Errorf("%s %q: a session name is 1 to 64 letters, digits, '.', '_' or '-'", SessionHeader, textutil.Cut(name, 70))
	}
	return name, nil
}

// ValidSessionName reports whether name may name a session: 1 to 64
// letters, digits, '.', '_' or '-', and not "." or "..".
func ValidSessionName(name string) bool {
	if name == "" || len(name) > 64 || name == "." || name == ".." {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// client returns the state of ss, made on its first call; named (from
// that call) puts it in a named session.
func (s *Server) client(ss *mcp.ServerSession, named string) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.clients[ss]; c != nil {
		return c
	}
	c := newClient(ss, s.opts.Yes)
	if named != "" {
		t := s.named[named]
		if t == nil {
			t = newTabSet()
			s.named[named] = t
		}
		// Its grants and audit lines are the named session's, across
		// the MCP sessions it is made of.
		c.tabSet, c.named, c.id = t, named, "named:"+named
	}
	if s.closing {
		return c // not kept: the server is going away
	}
	s.clients[ss] = c
	s.ended.Add(1)
	go func() {
		defer s.ended.Done()
		_ = ss.Wait()
		s.mu.Lock()
		delete(s.clients, ss)
		keep := s.closing || s.stdio || c.named != "" // a named session's tabs wait for its next call
		s.mu.Unlock()
		if !keep {
			s.closeTabs(c)
		}
	}()
	return c
}

// Close ends every session and waits for their clean-up; call it before
// closing the browser, so no late call starts a new one.
func (s *Server) Close() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	for ss := range s.srv.Sessions() {
		_ = ss.Close()
	}
	s.ended.Wait()
}

// closeTabs closes the tabs an HTTP session that ended had opened, while
// the server runs on, so a host that comes and goes leaves no tabs behind
// in the shared browser. Each
// close is an ordinary call through the registry, judged and audited as
// that client's.
func (s *Server) closeTabs(c *client) {
	c.mu.Lock()
	tabs := make([]string, 0, len(c.opened))
	for id := range c.opened {
		tabs = append(tabs, id)
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctx = tools.WithClient(ctx, c.identity())
	for _, id := range tabs {
		args, _ := json.Marshal(map[string]string{"tab": id})
		_, _ = s.reg.Call(ctx, "browser_close", args, tools.OriginMCP)
	}
}

// ResetTabs forgets every session's tabs: after a mode switch (or a lost
// Chrome) no session owns a tab, as the guard's trust reset says.
func (s *Server) ResetTabs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		c.reset()
	}
	for _, t := range s.named {
		t.reset()
	}
}

// Notice tells every session something at warning level (a lost Chrome).
func (s *Server) Notice(ctx context.Context, msg string) {
	s.mu.Lock()
	cs := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		cs = append(cs, c)
	}
	s.mu.Unlock()
	for _, c := range cs {
		c.log.WarnContext(ctx, msg)
	}
}

// toolDefBytes is the size of the tools/list answer's tools, as a client
// receives them: what every request of its model carries.
func (s *Server) toolDefBytes() int {
	var toolList []*mcp.Tool
	for _, d := range s.defs {
		toolList = append(toolList, s.tool(d))
	}
	b, _ := json.Marshal(toolList)
	return len(b)
}

// progress reports, every ProgressEvery while the call runs, how long it
// has been running, when the client gave a progress token.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest, name string) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(s.opts.ProgressEvery)
		defer t.Stop()
		start := time.Now()
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n),
					Message: fmt.Sprintf("%s running for %s", name, time.Since(start).Round(time.Second))})
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

func toResult(r *tools.ToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError()}
	if text := r.Full(); text != "" || len(r.Images) == 0 {
		out.Content = append(out.Content, &mcp.TextContent{Text: text})
	}
	for _, im := range r.Images {
		out.Content = append(out.Content, &mcp.ImageContent{Data: im.Data, MIMEType: im.MIME})
	}
	return out
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
