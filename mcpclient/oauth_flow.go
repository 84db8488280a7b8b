package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// runFlow is one interactive login with the go-sdk's authorization-code
// handler: discovery (protected-resource metadata, authorization-server
// metadata and the spec's fallbacks), pre-registered or dynamic client,
// PKCE, and our loopback redirect (RFC 8252). On success the token is
// stored and used; on failure nothing is stored. Called with mu held.
func (a *authorizer) runFlow(ctx context.Context, req *http.Request, resp *http.Response, stepUp bool) error {
	if a.cfg.Grant == GrantClientCredentials {
		return a.clientCredentials(ctx, req, resp)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(a.cfg.CallbackPort)))
	if err != nil {
		drain(resp)
		return fmt.Errorf("%w for mcp server %q: cannot listen for the redirect on 127.0.0.1:%d: %v (free the port or change oauth.callbackPort)", errAuthFailed, a.name, a.cfg.CallbackPort, err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	var got struct {
		cfg *oauth2.Config
		tok *oauth2.Token
	}
	hc := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: a.fetcher(ln),
		Client:                   legacyDiscoveryClient(a.opts.HTTPClient, a.url),
		RequestRefreshToken:      true,
		ScopeFilter:              a.scopeFilter(stepUp),
		NewTokenSource: func(_ context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			got.cfg, got.tok = c, t
			return oauth2.StaticTokenSource(t), nil
		},
	}
	if a.cfg.ClientMetadataURL != "" {
		// Used only where the authorization server advertises support;
		// elsewhere the client below is.
		hc.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: a.cfg.ClientMetadataURL}
	}
	if a.cfg.ClientID != "" {
		hc.PreregisteredClient = &oauthex.ClientCredentials{ClientID: a.cfg.ClientID}
		if a.cfg.ClientSecret != "" {
			hc.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: a.cfg.ClientSecret}
		}
	} else {
		hc.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:              "browseragent",
			RedirectURIs:            []string{redirect},
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}}
	}
	h, err := auth.NewAuthorizationCodeHandler(hc)
	if err != nil {
		drain(resp)
		return a.failed(err)
	}
	if err := a.authorizeAt(ctx, h, req, resp); err != nil {
		return err
	}
	if got.tok == nil || got.tok.AccessToken == "" {
		return a.failed(errors.New("the token endpoint returned no access token"))
	}
	l := (&storedLogin{
		ClientID: got.cfg.ClientID, ClientSecret: got.cfg.ClientSecret, TokenURL: got.cfg.Endpoint.TokenURL,
		AuthStyle: got.cfg.Endpoint.AuthStyle, Scopes: got.cfg.Scopes,
	}).withToken(got.tok)
	return a.keep(l, "logged in")
}

// authorizeAt runs h (discovery, then the grant) against the configured URL,
// not the request's: SSE posts carry a session query that would not match
// the server's metadata, which names the resource.
func (a *authorizer) authorizeAt(ctx context.Context, h interface {
	Authorize(context.Context, *http.Request, *http.Response) error
}, req *http.Request, resp *http.Response) error {
	req = req.Clone(ctx)
	if u, err := url.Parse(a.url); err == nil {
		req.URL = u
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return a.failed(err)
	}
	return nil
}

// keep stores l as the server's login and sends it from now on; what says
// how it was got, for the error when it cannot be stored.
func (a *authorizer) keep(l *storedLogin, what string) error {
	if err := a.store.save(a.name, a.url, l); err != nil {
		return fmt.Errorf("mcp server %q: %s but could not store the token: %w", a.name, what, err)
	}
	a.set(l)
	a.forced = ""
	a.flows++
	return nil
}

// failed words a login failure; the message never carries a secret.
func (a *authorizer) failed(err error) error {
	secrets := []string{a.lastCode}
	if l := a.current(); l != nil {
		secrets = append(secrets, l.AccessToken, l.RefreshToken)
	}
	return fmt.Errorf("%w for mcp server %q: %w; nothing was stored", errAuthFailed, a.name,
		cleanOAuthError(err, append(secrets, a.cfg.ClientSecret)...))
}

// scopeFilter picks the scopes to ask for: the configured ones (or the
// discovered ones), plus, on a step-up, those granted before and those
// the server now asks for.
func (a *authorizer) scopeFilter(stepUp bool) func([]string) []string {
	return func(discovered []string) []string {
		want := slices.Clone(a.cfg.Scopes)
		if len(want) == 0 || stepUp {
			want = append(want, discovered...)
		}
		if l := a.current(); stepUp && l != nil {
			want = slices.Concat(l.Scopes, l.WantScopes, want)
		}
		return unionScopes(want, a.carry)
	}
}

// callbackResult is what the loopback listener got from the browser.
type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// fetcher shows the person the authorization URL and waits for the
// browser to come back to the loopback listener with code and state.
func (a *authorizer) fetcher(ln net.Listener) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil {
			return nil, fmt.Errorf("bad authorization URL: %v", err)
		}
		results := make(chan callbackResult, 1)
		srv := &http.Server{Handler: callbackHandler(a.name, u.Query().Get("state"), results), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			srv.Shutdown(sctx)
		}()
		done, openErr := a.open(args.URL)
		if a.opts.OnPrompt != nil {
			a.opts.OnPrompt(AuthPrompt{Server: a.name, URL: args.URL, OpenErr: openErr})
		}
		timer := time.NewTimer(a.opts.CallbackTimeout)
		defer timer.Stop()
		select {
		case r := <-results:
			waitOpener(done)
			if r.res != nil {
				a.lastCode = r.res.Code
			}
			return r.res, r.err
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped waiting for the browser: %w", ctx.Err())
		case <-timer.C:
			return nil, fmt.Errorf("the browser did not come back to %s within %s (open the printed URL, or run 'browseragent %s' again)", ln.Addr(), a.opts.CallbackTimeout, a.loginCommand())
		}
	}
}

// waitOpener gives an opener that follows the redirect itself (curl as
// $BROWSER, xdg-open) a moment to exit, so none is left behind; a real
// browser keeps running.
func waitOpener(done <-chan struct{}) {
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(3 * time.Second):
	}
}

// callbackHandler serves /callback: the first request decides the result.
func callbackHandler(server, state string, out chan<- callbackResult) http.Handler {
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		res := parseCallback(r.URL.Query(), state)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if res.err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "browseragent: login to %s failed: %v\nYou can close this tab.\n", server, res.err)
		} else {
			fmt.Fprintf(w, "browseragent: logged in to %s. You can close this tab.\n", server)
		}
		once.Do(func() { out <- res })
	})
	return mux
}

func parseCallback(q url.Values, state string) callbackResult {
	switch {
	case q.Get("error") != "":
		msg := "the authorization server refused: " + clip(q.Get("error"), 80)
		if d := q.Get("error_description"); d != "" {
			msg += " (" + clip(d, 200) + ")"
		}
		return callbackResult{err: errors.New(msg)}
	case state == "" || q.Get("state") != state:
		return callbackResult{err: errors.New("the redirect carried a wrong state, so it may be forged; refused")}
	case q.Get("code") == "":
		return callbackResult{err: errors.New("the redirect carried no authorization code")}
	}
	return callbackResult{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
}

func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' {
			return ' '
		}
		return r
	}, s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// open starts the browser on u; done closes when the opener exits.
func (a *authorizer) open(u string) (<-chan struct{}, error) {
	if a.opts.OpenURL != nil {
		return nil, a.opts.OpenURL(u)
	}
	argv, err := openerCommand(u, os.Getenv("BROWSER"), runtime.GOOS)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s: %v", argv[0], err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	return done, nil
}

// openerCommand is $BROWSER (the URL replaces %s, or is appended) or the
// platform's opener.
func openerCommand(u, browser, goos string) ([]string, error) {
	if strings.TrimSpace(browser) != "" {
		words, err := ParseCommandLine(browser)
		if err != nil {
			return nil, fmt.Errorf("$BROWSER: %v", err)
		}
		replaced := false
		for i, w := range words {
			if strings.Contains(w, "%s") {
				words[i], replaced = strings.ReplaceAll(w, "%s", u), true
			}
		}
		if !replaced {
			words = append(words, u)
		}
		return words, nil
	}
	switch goos {
	case "darwin":
		return []string{"open", u}, nil
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", u}, nil
	}
	return []string{"xdg-open", u}, nil
}

// cleanOAuthError keeps what helps (the server's error code and
// description, the step that failed) and drops response bodies and every
// secret given.
func cleanOAuthError(err error, secrets ...string) error {
	msg := err.Error()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		msg = fmt.Sprintf("the token endpoint answered HTTP %d", status)
		if re.ErrorCode != "" {
			msg += ": " + clip(re.ErrorCode, 80)
		}
		if re.ErrorDescription != "" {
			msg += " (" + clip(re.ErrorDescription, 200) + ")"
		}
	}
	for _, s := range secrets {
		if len(s) >= 4 {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	return errors.New(msg)
}
