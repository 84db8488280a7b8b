package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Login runs the browser login for the http/sse server sc now, whether or
// not a token is stored, and stores the new token (mcp login). The new
// login asks for the scopes of the one it replaces and for those the
// server asked for since (a step-up a command could not run). A server
// that lets initialize through without a token is logged in to from the
// first request that asks for one (tools/list); one that never asks is
// ErrNoOAuth. opts.Interactive is implied.
func Login(ctx context.Context, sc *ServerConfig, opts *OAuthOptions) error {
	if sc.Err != nil {
		return sc.Err
	}
	if t := sc.Transport(); t != TypeHTTP && t != TypeSSE {
		return fmt.Errorf("mcp server %q is a %s server; OAuth is only for http and sse servers", sc.Name, t)
	}
	o := opts.withDefaults(nil)
	o.Interactive = true
	a := newAuthorizer(sc.Name, sc, o)
	if l := a.current(); l != nil {
		a.carry = unionScopes(l.Scopes, l.WantScopes)
		a.set(nil) // replaced, so not sent
	}
	req, err := probeRequest(ctx, sc)
	if err != nil {
		return err
	}
	resp, err := o.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("mcp server %q: %w", sc.Name, err)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.runFlow(ctx, req, resp, false)
	}
	resp.Body.Close() // not drained: an SSE server's answer is an endless stream
	if resp.StatusCode >= 300 || hasAuthorization(sc.Headers) {
		return fmt.Errorf("%w: mcp server %q answered HTTP %d without a token, so there is nothing to log in to", ErrNoOAuth, sc.Name, resp.StatusCode)
	}
	return a.loginInSession(ctx, sc)
}

// loginInSession opens a session without a token and lists the tools, so
// that a server asking for a token from tools/list on (initialize is
// open) gets its login from that request's 401 or 403.
func (a *authorizer) loginInSession(ctx context.Context, sc *ServerConfig) error {
	hc := withHeaders(a.opts.HTTPClient, sc.Headers)
	client := *hc
	client.Transport = &oauthTransport{base: hc.Transport, a: a}
	var t mcp.Transport = &mcp.StreamableClientTransport{Endpoint: sc.URL, HTTPClient: &client, DisableStandaloneSSE: true}
	if sc.Transport() == TypeSSE {
		t = &mcp.SSEClientTransport{Endpoint: sc.URL, HTTPClient: &client}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "browseragent", Version: "login"}, nil).Connect(ctx, t, nil)
	if err == nil {
		_, err = cs.ListTools(ctx, nil)
		cs.Close()
	}
	a.mu.Lock()
	flows := a.flows
	a.mu.Unlock()
	switch {
	case err != nil && flows > 0:
		return fmt.Errorf("mcp server %q: logged in (the token is stored), but listing its tools failed: %w", sc.Name, err)
	case err != nil && errors.Is(err, errAuthFailed):
		return err
	case err != nil:
		return fmt.Errorf("%w: mcp server %q answered without asking for a token, then failed: %w", ErrNoOAuth, sc.Name, err)
	case flows == 0:
		return fmt.Errorf("%w: mcp server %q answered initialize and tools/list without a token, so there is nothing to log in to", ErrNoOAuth, sc.Name)
	}
	return nil
}

func hasAuthorization(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// withHeaders adds the configured headers to every request of base.
func withHeaders(base *http.Client, headers map[string]string) *http.Client {
	c := *base
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if len(headers) > 0 {
		rt = headerTransport{base: rt, headers: headers}
	}
	c.Transport = rt
	return &c
}

// probeRequest is the first request a client sends, without a token: an
// initialize POST (Streamable HTTP) or the event-stream GET (SSE), with
// the configured headers.
func probeRequest(ctx context.Context, sc *ServerConfig) (*http.Request, error) {
	var req *http.Request
	var err error
	if sc.Transport() == TypeSSE {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, sc.URL, nil)
		if err == nil {
			req.Header.Set("Accept", "text/event-stream")
		}
	} else {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + defaultProtocolVersion +
			`","capabilities":{},"clientInfo":{"name":"browseragent","version":"login"}}}`)
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, sc.URL, bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: bad url: %w", sc.Name, err)
	}
	for k, v := range sc.Headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// Logout forgets the stored token of server name, for serverURL only when
// it is not empty (mcp logout). It reports whether there was one. The
// authorization server is not told: its token simply expires.
func Logout(name, serverURL, tokenDir string) (bool, error) {
	if tokenDir == "" {
		tokenDir = defaultTokenDir()
	}
	return tokenStore{dir: tokenDir}.remove(name, serverURL)
}

// TokenFile is where the tokens of server name are stored.
func TokenFile(name, tokenDir string) string {
	if tokenDir == "" {
		tokenDir = defaultTokenDir()
	}
	return tokenStore{dir: tokenDir}.path(name)
}

// Login runs the browser login of the http/sse server name now, with the
// manager's OAuth options (OnPrompt, OpenURL, token directory) and HTTP
// client, then restarts the server so it uses the new token, and waits
// for it to be ready (the shell's /mcp login). Nothing is restarted when
// the login fails.
func (m *Manager) Login(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	cfg := s.base.clone()
	s.mu.Unlock()
	var o OAuthOptions
	if m.opts.OAuth != nil {
		o = *m.opts.OAuth
	}
	if o.HTTPClient == nil {
		o.HTTPClient = m.opts.HTTPClient
	}
	if err := Login(ctx, cfg, &o); err != nil {
		return err
	}
	if err := m.Restart(ctx, name); err != nil {
		return err
	}
	return m.WaitReady(ctx, name)
}
