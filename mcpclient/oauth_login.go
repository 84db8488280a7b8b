package mcpclient

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
)

// Login runs the browser login for the http/sse server sc now, whether or
// not a token is stored, and stores the new token (mcp login). A server
// that answers without asking for a token is ErrNoOAuth. opts.Interactive
// is implied.
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
	req, err := probeRequest(ctx, sc)
	if err != nil {
		return err
	}
	resp, err := o.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("mcp server %q: %w", sc.Name, err)
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		drain(resp)
		return fmt.Errorf("%w: mcp server %q answered HTTP %d without a token, so there is nothing to log in to", ErrNoOAuth, sc.Name, resp.StatusCode)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runFlow(ctx, req, resp, false)
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
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + DefaultProtocolVersion +
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
		tokenDir = DefaultTokenDir()
	}
	return tokenStore{dir: tokenDir}.remove(name, serverURL)
}

// TokenFile is where the tokens of server name are stored.
func TokenFile(name, tokenDir string) string {
	if tokenDir == "" {
		tokenDir = DefaultTokenDir()
	}
	return tokenStore{dir: tokenDir}.path(name)
}
