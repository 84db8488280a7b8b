package mcpclient

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// clientCredentials gets a token with the client credentials grant (RFC
// 6749 §4.4, the MCP client-credentials extension): discovery as for a
// login, then clientId and clientSecret at the token endpoint; no browser.
// The token is stored like a login's; it has no refresh token, so the
// next 401 runs the grant again. Called with mu held.
func (a *authorizer) clientCredentials(ctx context.Context, req *http.Request, resp *http.Response) error {
	h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: a.cfg.ClientID,
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: a.cfg.ClientSecret}},
		HTTPClient: legacyDiscoveryClient(a.opts.HTTPClient, a.url),
	})
	if err != nil {
		drain(resp)
		return a.failed(err)
	}
	if err := a.authorizeAt(ctx, h, req, resp); err != nil {
		return err
	}
	ts, err := h.TokenSource(ctx)
	if err != nil || ts == nil {
		return a.failed(errors.New("no token source after discovery"))
	}
	tok, err := ts.Token()
	if err != nil {
		return a.failed(err)
	}
	if tok.AccessToken == "" {
		return a.failed(errors.New("the token endpoint returned no access token"))
	}
	l := (&storedLogin{ClientID: a.cfg.ClientID, Scopes: a.cfg.Scopes}).withToken(tok)
	l.RefreshToken = "" // the grant is run again instead
	return a.keep(l, "got a token")
}
