package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Failure modes of the authorization server, for bad-input tests.
const (
	FailNone        = ""
	FailDenied      = "denied"       // /authorize redirects with error=access_denied
	FailState       = "state"        // /authorize redirects with a forged state
	FailIss         = "iss"          // /authorize redirects with another issuer's iss
	FailIssuer      = "issuer"       // metadata names another issuer
	FailNoToken     = "notoken"      // /token answers 200 without access_token
	FailTokenError  = "tokenerror"   // /token answers invalid_grant
	FailNoRedirect  = "noredirect"   // /authorize never redirects
	FailNoRegister  = "noregister"   // no registration_endpoint
	FailNoPKCE      = "nopkce"       // metadata lists no code_challenge_methods
	FailEchoSecrets = "echo-secrets" // /token error echoes the code it got
)

// Grant counts what the authorization server did.
type Counts struct {
	Registrations, Authorizations, Exchanges, Refreshes int
}

type client struct {
	secret      string
	redirects   []string
	anyLoopback bool // any http://127.0.0.1:PORT/callback (a metadata-document client)
}

type grant struct {
	clientID, redirect, challenge, resource string
	scopes                                  []string
}

type token struct {
	scopes []string
	expiry time.Time
}

// AuthServer is the authorization server. Its fields may be set between
// flows; all methods are safe for concurrent use.
type AuthServer struct {
	URL string
	// Supported are the scopes it grants (others are silently dropped).
	Supported []string

	mu        sync.Mutex
	fail      string
	accessTTL time.Duration
	clients   map[string]*client
	codes     map[string]*grant
	access    map[string]*token
	refresh   map[string]*grant
	counts    Counts
	lastScope []string
	lastID    string
	cimd      bool
}

// NewAuthServer starts an authorization server; it stops with the test.
func NewAuthServer(t testing.TB) *AuthServer {
	a := newAuthServer()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	a.routes(mux, "")
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return a
}

func newAuthServer() *AuthServer {
	return &AuthServer{
		Supported: []string{"mcp", "admin", "offline_access"},
		accessTTL: time.Hour,
		clients:   map[string]*client{}, codes: map[string]*grant{},
		access: map[string]*token{}, refresh: map[string]*grant{},
	}
}

// routes mounts registration, authorization and token under prefix.
func (a *AuthServer) routes(mux *http.ServeMux, prefix string) {
	mux.HandleFunc("POST "+prefix+"/register", a.register)
	mux.HandleFunc("GET "+prefix+"/authorize", a.authorize)
	mux.HandleFunc("POST "+prefix+"/token", a.token)
}

// AcceptMetadataDocument makes the server advertise
// client_id_metadata_document_supported and take clientURL as the
// client_id of a public client redirecting to any loopback callback, as if
// it had fetched that document (the test never leaves loopback).
func (a *AuthServer) AcceptMetadataDocument(clientURL string) {
	a.mu.Lock()
	a.cimd = true
	a.clients[clientURL] = &client{anyLoopback: true}
	a.mu.Unlock()
}

// LastClientID is the client_id of the last authorization request.
func (a *AuthServer) LastClientID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastID
}

// SetFail switches a failure mode on (FailNone turns it off).
func (a *AuthServer) SetFail(mode string) {
	a.mu.Lock()
	a.fail = mode
	a.mu.Unlock()
}

// setAccessTTL sets the lifetime of access tokens issued from now on.
func (a *AuthServer) setAccessTTL(d time.Duration) {
	a.mu.Lock()
	a.accessTTL = d
	a.mu.Unlock()
}

// AddClient pre-registers a client.
func (a *AuthServer) AddClient(id, secret, redirect string) {
	a.mu.Lock()
	a.clients[id] = &client{secret: secret, redirects: []string{redirect}}
	a.mu.Unlock()
}

// Counts returns what happened so far.
func (a *AuthServer) Counts() Counts {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.counts
}

// LastScopes are the scopes asked for in the last /authorize.
func (a *AuthServer) LastScopes() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.lastScope)
}

// RevokeAll makes every issued access token invalid (refresh tokens stay).
func (a *AuthServer) RevokeAll() {
	a.mu.Lock()
	clear(a.access)
	a.mu.Unlock()
}

// verify is an auth.TokenVerifier for the protected MCP server.
func (a *AuthServer) verify(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.access[tok]
	if !ok || time.Now().After(t.expiry) {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: t.scopes, Expiration: t.expiry}, nil
}

func (a *AuthServer) metadata(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	fail, cimd := a.fail, a.cimd
	a.mu.Unlock()
	m := oauthex.AuthServerMeta{
		ClientIDMetadataDocumentSupported: cimd,
		Issuer:                            a.URL,
		AuthorizationEndpoint:             a.URL + "/authorize",
		TokenEndpoint:                     a.URL + "/token",
		RegistrationEndpoint:              a.URL + "/register",
		ScopesSupported:                   a.Supported,
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_post", "none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
	}
	switch fail {
	case FailIssuer:
		m.Issuer = "http://127.0.0.1:1/someone-else"
	case FailIss:
		m.AuthorizationResponseIssParameterSupported = true
	case FailNoRegister:
		m.RegistrationEndpoint = ""
	case FailNoPKCE:
		m.CodeChallengeMethodsSupported = nil
	}
	writeJSON(w, http.StatusOK, m)
}

func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := "dyn-" + rand.Text()[:8]
	a.mu.Lock()
	a.clients[id] = &client{redirects: meta.RedirectURIs}
	a.counts.Registrations++
	a.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none",
		"grant_types": meta.GrantTypes, "response_types": meta.ResponseTypes,
	})
}

func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.clients[q.Get("client_id")]
	redirect := q.Get("redirect_uri")
	switch {
	case !ok:
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	case !slices.Contains(c.redirects, redirect) && !(c.anyLoopback && loopbackCallback(redirect)):
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 required", http.StatusBadRequest)
		return
	}
	a.counts.Authorizations++
	a.lastScope = strings.Fields(q.Get("scope"))
	a.lastID = q.Get("client_id")
	back := url.Values{"state": {q.Get("state")}}
	switch a.fail {
	case FailNoRedirect:
		fmt.Fprintln(w, "log in here (this page never redirects)")
		return
	case FailDenied:
		back.Set("error", "access_denied")
		back.Set("error_description", "the user said no")
	case FailState:
		back.Set("state", "forged-state")
		back.Set("code", "x")
	default:
		code := rand.Text()
		a.codes[code] = &grant{clientID: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), scopes: a.grantable(a.lastScope)}
		back.Set("code", code)
		if a.fail == FailIss {
			back.Set("iss", "http://127.0.0.1:1/someone-else")
		}
	}
	http.Redirect(w, r, redirect+"?"+back.Encode(), http.StatusFound)
}

func loopbackCallback(redirect string) bool {
	u, err := url.Parse(redirect)
	return err == nil && u.Scheme == "http" && u.Hostname() == "127.0.0.1" && u.Path == "/callback"
}

func (a *AuthServer) grantable(asked []string) []string {
	var out []string
	for _, s := range asked {
		if slices.Contains(a.Supported, s) {
			out = append(out, s)
		}
	}
	return out
}

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.clientOK(r) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	switch a.fail {
	case FailNoToken:
		writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": 3600})
		return
	case FailTokenError:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "the code has expired"})
		return
	case FailEchoSecrets:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "bad code " + r.Form.Get("code") + " secret " + r.Form.Get("client_secret")})
		return
	}
	var g *grant
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		g = a.codes[r.Form.Get("code")]
		delete(a.codes, r.Form.Get("code"))
		if g == nil || g.redirect != r.Form.Get("redirect_uri") || g.clientID != r.Form.Get("client_id") || !pkceOK(r.Form.Get("code_verifier"), g.challenge) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		a.counts.Exchanges++
	case "client_credentials":
		if a.clients[r.Form.Get("client_id")].secret == "" {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "a public client cannot use client_credentials"})
			return
		}
		g = &grant{clientID: r.Form.Get("client_id"), scopes: a.grantable(strings.Fields(r.Form.Get("scope")))}
		a.lastScope = strings.Fields(r.Form.Get("scope"))
		a.counts.Exchanges++
	case "refresh_token":
		g = a.refresh[r.Form.Get("refresh_token")]
		if g == nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "unknown refresh token"})
			return
		}
		a.counts.Refreshes++
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := "at-"+rand.Text(), "rt-"+rand.Text()
	a.access[access] = &token{scopes: g.scopes, expiry: time.Now().Add(a.accessTTL)}
	a.refresh[refresh] = g
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
		"expires_in": int(a.accessTTL.Seconds()), "scope": strings.Join(g.scopes, " "),
	})
}

// clientOK checks client_id, and the secret of a confidential client
// (client_secret_post or basic).
func (a *AuthServer) clientOK(r *http.Request) bool {
	id, secret := r.Form.Get("client_id"), r.Form.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		id, secret = u, p
		r.Form.Set("client_id", u)
	}
	c, ok := a.clients[id]
	return ok && c.secret == secret
}

func pkceOK(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	return verifier != "" && base64.RawURLEncoding.EncodeToString(sum[:]) == challenge
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// Resource is an MCP server (tools echo and admin) protected by an
// AuthServer, over Streamable HTTP at URL and legacy SSE at SSEURL. Every
// request needs scope "mcp"; calling admin needs "admin" too and answers
// 403 insufficient_scope without it (step-up). The tool "never" needs a
// scope the authorization server never grants.
type Resource struct {
	URL, SSEURL string

	mu     sync.Mutex
	tokens []string // Authorization headers seen, in order
}

// ResourceOptions vary the protected MCP server.
type ResourceOptions struct {
	// OpenInitialize lets initialize and notifications through without a
	// token: the first 401 answers tools/list.
	OpenInitialize bool
}

// NewResource starts the protected MCP server.
func NewResource(t testing.TB, as *AuthServer) *Resource {
	return NewResourceWith(t, as, ResourceOptions{})
}

// NewResourceWith starts the protected MCP server with options.
func NewResourceWith(t testing.TB, as *AuthServer, o ResourceOptions) *Resource {
	res := &Resource{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	type msg struct {
		Message string `json:"message"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the message", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(_ context.Context, _ *mcp.CallToolRequest, in msg) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
	})
	for _, name := range []string{"admin", "never"} {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: "Needs more scope"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " done"}}}, nil, nil
		})
	}
	get := func(*http.Request) *mcp.Server { return srv }
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	res.URL, res.SSEURL = hs.URL+"/mcp", hs.URL+"/sse"
	for path, h := range map[string]http.Handler{
		"/mcp": mcp.NewStreamableHTTPHandler(get, nil),
		"/sse": mcp.NewSSEHandler(get, nil),
	} {
		prmURL := hs.URL + "/.well-known/oauth-protected-resource" + path
		mux.Handle(prmURL[len(hs.URL):], auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: hs.URL + path, AuthorizationServers: []string{as.URL}, ScopesSupported: []string{"mcp"},
		}))
		require := auth.RequireBearerToken(as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: []string{"mcp"}})
		protected := require(stepUp(prmURL, h))
		if o.OpenInitialize {
			protected = openInitialize(h, protected)
		}
		mux.Handle(path, res.record(protected))
	}
	return res
}

// NewLegacyServer starts an MCP server of the 2025-03-26 specification:
// no protected-resource metadata, the authorization server on the same
// origin under prefix. With metadata its document is at the origin's
// /.well-known/oauth-authorization-server (naming issuer origin+prefix);
// without, only the default endpoints (prefix "") exist.
func NewLegacyServer(t testing.TB, prefix string, metadata bool) (*AuthServer, *Resource) {
	a := newAuthServer()
	mux := http.NewServeMux()
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	a.URL = hs.URL + prefix
	if metadata {
		mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	}
	a.routes(mux, prefix)
	srv := mcp.NewServer(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	type msg struct {
		Message string `json:"message"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the message"}, func(_ context.Context, _ *mcp.CallToolRequest, in msg) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
	})
	res := &Resource{URL: hs.URL + "/mcp"}
	require := auth.RequireBearerToken(a.verify, nil)
	mux.Handle("/mcp", res.record(require(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))))
	return a, res
}

// openInitialize serves initialize and notifications with open, the rest
// with protected.
func openInitialize(open, protected http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Authorization") == "" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			var m struct {
				Method string `json:"method"`
			}
			json.Unmarshal(body, &m)
			if m.Method == "initialize" || strings.HasPrefix(m.Method, "notifications/") {
				open.ServeHTTP(w, r)
				return
			}
		}
		protected.ServeHTTP(w, r)
	})
}

// Tokens returns the Authorization headers the server saw.
func (res *Resource) Tokens() []string {
	res.mu.Lock()
	defer res.mu.Unlock()
	return slices.Clone(res.tokens)
}

func (res *Resource) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res.mu.Lock()
		res.tokens = append(res.tokens, r.Header.Get("Authorization"))
		res.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// stepUp answers 403 insufficient_scope to tools/call admin (never) when
// the token lacks scope admin (never).
func stepUp(prmURL string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal(body, &m)
		need := map[string]string{"admin": "admin", "never": "never"}[m.Params.Name]
		if m.Method == "tools/call" && need != "" && !slices.Contains(auth.TokenInfoFromContext(r.Context()).Scopes, need) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="mcp %s", resource_metadata=%q`, need, prmURL))
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}
