package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// errLoginRequired means an http/sse server wants an OAuth token that
// browseragent does not have (or can no longer refresh) and the caller did
// not allow the interactive login; 'browseragent mcp login NAME' fixes it.
var errLoginRequired = errors.New("needs an OAuth login")

// errAuthFailed wraps every failed OAuth login: the authorization server
// said no, the redirect was forged or broken, or no token came back.
// Nothing is stored when it is returned.
var errAuthFailed = errors.New("OAuth login failed")

// ErrNoOAuth means Login reached a server that answered without asking
// for a token: there is nothing to log in to.
var ErrNoOAuth = errors.New("server does not ask for OAuth")

// Defaults for OAuthOptions.
const (
	defaultCallbackTimeout = 5 * time.Minute
	defaultMaxStepUps      = 2
	defaultRefreshBefore   = time.Minute
)

// AuthPrompt is what the person must be told when a login starts: open URL
// in a browser. OpenErr is why the browser could not be started, if so.
type AuthPrompt struct {
	Server  string
	URL     string
	OpenErr error
}

// OAuthOptions configure OAuth for http/sse servers; nil means defaults:
// stored tokens are used and refreshed, but no login is started.
type OAuthOptions struct {
	// TokenDir holds the stored tokens (default defaultTokenDir()).
	TokenDir string
	// Interactive allows the browser login when a server answers 401 (or
	// 403 insufficient_scope) and no stored token works. Without it such a
	// server fails with errLoginRequired.
	Interactive bool
	// OnPrompt is called once per login, after the browser was started (or
	// failed to start), so the caller can print the URL for a person on a
	// headless machine. It must not block.
	OnPrompt func(AuthPrompt)
	// OpenURL opens the authorization URL; default: $BROWSER (a command,
	// the URL appended or put in place of %s), else xdg-open, open or the
	// Windows URL handler.
	OpenURL func(url string) error
	// CallbackTimeout bounds the wait for the browser's redirect (5 min).
	CallbackTimeout time.Duration
	// MaxStepUps bounds consecutive re-logins for 403 insufficient_scope
	// without a request succeeding in between (2).
	MaxStepUps int
	// RefreshBefore refreshes a token this long before it expires (1 min).
	RefreshBefore time.Duration
	// HTTPClient talks to the authorization server (default: the
	// manager's client, without the server's configured headers).
	HTTPClient *http.Client
}

func (o *OAuthOptions) withDefaults(base *http.Client) OAuthOptions {
	var d OAuthOptions
	if o != nil {
		d = *o
	}
	if d.TokenDir == "" {
		d.TokenDir = defaultTokenDir()
	}
	if d.CallbackTimeout <= 0 {
		d.CallbackTimeout = defaultCallbackTimeout
	}
	if d.MaxStepUps <= 0 {
		d.MaxStepUps = defaultMaxStepUps
	}
	if d.RefreshBefore <= 0 {
		d.RefreshBefore = defaultRefreshBefore
	}
	if d.HTTPClient == nil {
		d.HTTPClient = base
	}
	if d.HTTPClient == nil {
		d.HTTPClient = http.DefaultClient
	}
	return d
}

// oauthClient is the hook used by server.transport: c (the client with the
// configured headers) gains OAuth, unless the config already sends its own
// Authorization header.
func (s *server) oauthClient(cfg *ServerConfig, c *http.Client) *http.Client {
	return withOAuth(s.name, cfg, c, s.m.opts.OAuth, s.m.opts.HTTPClient)
}

func withOAuth(name string, cfg *ServerConfig, c *http.Client, opts *OAuthOptions, asClient *http.Client) *http.Client {
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return c
		}
	}
	a := newAuthorizer(name, cfg, opts.withDefaults(asClient))
	out := *c
	out.Transport = &oauthTransport{base: c.Transport, a: a}
	return &out
}

// authorizer holds one server's OAuth state for one connection attempt.
// mu serialises refreshes and logins, so concurrent 401s run one flow;
// tmu guards login and stepUps and is never held across network calls.
type authorizer struct {
	name, url string
	adhoc     bool // given on the command line, not in a config file
	cfg       OAuthConfig
	opts      OAuthOptions
	store     tokenStore

	mu       sync.Mutex
	forced   string // access token got by refreshing after a 401
	lastCode string // authorization code of the running flow, to redact

	tmu     sync.Mutex
	login   *storedLogin
	gen     int // bumped by set, so a 401 can tell a newer token exists
	stepUps int

	// carry are scopes a new login asks for besides the challenged ones:
	// those of the login it replaces and those a server asked for since
	// (Login sets them). flows counts the logins run (under mu).
	carry []string
	flows int
}

func newAuthorizer(name string, cfg *ServerConfig, opts OAuthOptions) *authorizer {
	a := &authorizer{name: name, url: cfg.URL, adhoc: cfg.Source == "command line", opts: opts, store: tokenStore{dir: opts.TokenDir}}
	if cfg.OAuth != nil {
		a.cfg = *cfg.OAuth.clone()
	}
	// An unreadable store counts as no login: the 401 that follows says
	// how to log in again, and the next login rewrites the file.
	a.login, _ = a.store.load(name, cfg.URL)
	return a
}

func (a *authorizer) current() *storedLogin {
	a.tmu.Lock()
	defer a.tmu.Unlock()
	return a.login
}

func (a *authorizer) generation() int {
	a.tmu.Lock()
	defer a.tmu.Unlock()
	return a.gen
}

func (a *authorizer) set(l *storedLogin) {
	a.tmu.Lock()
	a.login = l
	a.gen++
	a.tmu.Unlock()
}

// accessToken returns the token to send, refreshing it first when it
// expires within RefreshBefore; "" means send none.
func (a *authorizer) accessToken(ctx context.Context) string {
	l := a.current()
	if l == nil || a.fresh(l) {
		return tokenOf(l)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if l2 := a.current(); l2 != l { // someone else refreshed meanwhile
		return tokenOf(l2)
	}
	if l.RefreshToken != "" && a.refresh(ctx) == nil {
		return tokenOf(a.current())
	}
	if !l.Expiry.IsZero() && time.Now().After(l.Expiry) {
		return "" // expired and not refreshable: the 401 path decides
	}
	return l.AccessToken
}

func tokenOf(l *storedLogin) string {
	if l == nil {
		return ""
	}
	return l.AccessToken
}

func (a *authorizer) fresh(l *storedLogin) bool {
	return l.Expiry.IsZero() || time.Now().Add(a.opts.RefreshBefore).Before(l.Expiry)
}

// refresh trades the refresh token for a new access token and stores it.
// Called with mu held.
func (a *authorizer) refresh(ctx context.Context) error {
	l := a.current()
	if l == nil || l.RefreshToken == "" {
		return errors.New("no refresh token")
	}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, a.opts.HTTPClient)
	tok, err := l.oauth2Config().TokenSource(ctx, &oauth2.Token{RefreshToken: l.RefreshToken}).Token()
	if err != nil {
		return cleanOAuthError(err, l.RefreshToken, l.ClientSecret)
	}
	if tok.AccessToken == "" {
		return errors.New("token endpoint returned no access token")
	}
	nl := l.withToken(tok)
	if err := a.store.save(a.name, a.url, nl); err != nil {
		return err
	}
	a.set(nl)
	return nil
}

// succeeded resets the step-up budget: the server accepted our token.
func (a *authorizer) succeeded() {
	a.tmu.Lock()
	a.stepUps = 0
	a.tmu.Unlock()
}

// authorize reacts to a 401, or a 403 insufficient_scope, received for a
// request that carried sent, chosen at generation gen: it adopts a token
// someone else got meanwhile, refreshes, or runs the login. resp is
// closed. A nil error means retry.
func (a *authorizer) authorize(ctx context.Context, req *http.Request, resp *http.Response, sent string, gen int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.generation() != gen {
		drain(resp)
		return nil
	}
	var rerr error // why the stored token could not be refreshed
	if l := a.current(); resp.StatusCode == http.StatusUnauthorized && sent != a.forced && l != nil && l.RefreshToken != "" {
		if rerr = a.refresh(ctx); rerr == nil {
			a.forced = tokenOf(a.current())
			drain(resp)
			return nil
		}
	}
	stepUp := resp.StatusCode == http.StatusForbidden
	if stepUp {
		a.tmu.Lock()
		n := a.stepUps
		a.stepUps++
		a.tmu.Unlock()
		if n >= a.opts.MaxStepUps {
			drain(resp)
			return fmt.Errorf("mcp server %q still answers 403 insufficient_scope after %d step-up logins; the account may lack the permission (check the scopes granted to it)", a.name, n)
		}
	}
	if !a.opts.Interactive && a.cfg.Grant != GrantClientCredentials {
		drain(resp)
		if stepUp {
			want := a.rememberScopes(resp)
			return fmt.Errorf("%w: mcp server %q asks for more OAuth scopes (%s); run 'browseragent %s'", errLoginRequired, a.name, strings.Join(want, " "), a.loginCommand())
		}
		if rerr != nil {
			return fmt.Errorf("%w: mcp server %q (its token could not be refreshed: %v); run 'browseragent %s'", errLoginRequired, a.name, rerr, a.loginCommand())
		}
		return fmt.Errorf("%w: mcp server %q; run 'browseragent %s'", errLoginRequired, a.name, a.loginCommand())
	}
	return a.runFlow(ctx, req, resp, stepUp)
}

// rememberScopes files the scopes a 403 insufficient_scope asks for with
// the stored login, so that the login the person runs next asks for them
// (a step-up found by a command that cannot open a browser). It returns
// them.
func (a *authorizer) rememberScopes(resp *http.Response) []string {
	want := challengedScopes(resp)
	l := a.current()
	if l == nil || len(want) == 0 {
		return want
	}
	nl := *l
	nl.WantScopes = unionScopes(l.WantScopes, want)
	// Unsaved, the message still names the scopes; 'mcp login' then asks
	// for what the server challenges it with.
	if a.store.save(a.name, a.url, &nl) == nil {
		a.set(&nl)
	}
	return want
}

// challengedScopes are the scopes a Bearer challenge of resp names.
func challengedScopes(resp *http.Response) []string {
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return nil
	}
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

// unionScopes is a followed by the scopes of b it lacks, without repeats.
func unionScopes(a, b []string) []string {
	var out []string
	for _, s := range slices.Concat(a, b) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// loginCommand is the command that logs in to this server: by name, or
// by URL for a server given on the command line.
func (a *authorizer) loginCommand() string {
	switch {
	case !a.adhoc:
		return "mcp login " + a.name
	case a.name == "adhoc":
		return "mcp login --url " + a.url
	}
	return "mcp login --name " + a.name + " --url " + a.url
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// oauthTransport sends the stored token with every request to the MCP
// server and, on a 401 or 403 insufficient_scope, lets the authorizer fix
// it and retries once. It serves both Streamable HTTP and legacy SSE.
type oauthTransport struct {
	base http.RoundTripper
	a    *authorizer
}

func (t *oauthTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	ctx := req.Context()
	sent := t.a.accessToken(ctx)
	gen := t.a.generation()
	resp, err := base.RoundTrip(withBearer(req, sent, nil))
	if err != nil || !t.needsAuth(resp) {
		if err == nil && resp.StatusCode < 400 && sent != "" {
			t.a.succeeded()
		}
		return resp, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return resp, nil // cannot replay the body; let the caller see the 401
	}
	if err := t.a.authorize(ctx, req, resp, sent, gen); err != nil {
		return nil, err // as an error for the same reason as below
	}
	var body io.ReadCloser
	if req.GetBody != nil {
		if body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	resp, err = base.RoundTrip(withBearer(req, t.a.accessToken(ctx), body))
	switch {
	case err != nil:
		return nil, err
	case t.needsAuth(resp):
		// An error, not the response: the go-sdk ends the session on a
		// 401/403 response, but keeps it after a failed request.
		drain(resp)
		return nil, fmt.Errorf("mcp server %q refused the new OAuth token too (HTTP %d); the account may lack the permission", t.a.name, resp.StatusCode)
	case resp.StatusCode < 400:
		t.a.succeeded()
	}
	return resp, nil
}

// needsAuth: a 401, or a 403 whose challenge says insufficient_scope.
func (t *oauthTransport) needsAuth(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return true
	case http.StatusForbidden:
		cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		if err != nil {
			return false
		}
		for _, c := range cs {
			if c.Scheme == "bearer" && c.Params["error"] == "insufficient_scope" {
				return true
			}
		}
	}
	return false
}

// withBearer clones req with token (none when empty) and, for a retry, a
// fresh body.
func withBearer(req *http.Request, token string, body io.ReadCloser) *http.Request {
	r := req.Clone(req.Context())
	if body != nil {
		r.Body = body
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}
