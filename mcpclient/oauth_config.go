package mcpclient

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// OAuthConfig is the "oauth" object of an http/sse server entry: a client
// registered beforehand with the server's authorization server. Without it
// browseragent registers itself dynamically when the server allows it.
// ClientID and ClientSecret expand ${VAR} like the other fields.
type OAuthConfig struct {
	ClientID     string   `json:"clientId,omitempty"`
	ClientSecret string   `json:"clientSecret,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// CallbackPort fixes the loopback redirect port, for clients registered
	// with http://127.0.0.1:PORT/callback; 0 picks a free port.
	CallbackPort int `json:"callbackPort,omitempty"`
	// ClientMetadataURL is the https URL of a Client ID Metadata Document
	// describing browseragent (draft-ietf-oauth-client-id-metadata-document):
	// an authorization server that advertises
	// client_id_metadata_document_supported gets it as the client_id, with
	// no registration. Others fall back to clientId or dynamic registration.
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Grant is "authorization_code" (the default: a person logs in in the
	// browser) or "client_credentials" (a machine client: clientId and
	// clientSecret buy the token at the token endpoint, no browser, so
	// any command may do it).
	Grant string `json:"grant,omitempty"`
}

// Grants of OAuthConfig.Grant.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

func (o *OAuthConfig) clone() *OAuthConfig {
	if o == nil {
		return nil
	}
	c := *o
	c.Scopes = slices.Clone(o.Scopes)
	return &c
}

// check reports a field that cannot work, naming it.
func (o *OAuthConfig) check() error {
	switch {
	case o == nil:
		return nil
	case o.CallbackPort < 0 || o.CallbackPort > 65535:
		return fmt.Errorf("oauth.callbackPort %d is not a port (1-65535, or 0 for any)", o.CallbackPort)
	case o.ClientSecret != "" && o.ClientID == "":
		return fmt.Errorf("oauth.clientSecret is set without oauth.clientId")
	case o.Grant != "" && o.Grant != GrantAuthorizationCode && o.Grant != GrantClientCredentials:
		return fmt.Errorf("oauth.grant %q is not %s or %s", o.Grant, GrantAuthorizationCode, GrantClientCredentials)
	case o.Grant == GrantClientCredentials && (o.ClientID == "" || o.ClientSecret == ""):
		return fmt.Errorf("oauth.grant %s needs oauth.clientId and oauth.clientSecret (a client registered with the authorization server)", GrantClientCredentials)
	case o.ClientMetadataURL != "":
		u, err := url.Parse(o.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			return fmt.Errorf("oauth.clientMetadataUrl %q is not an https URL with a path (the client ID metadata document's address, e.g. https://example.com/browseragent.json)", o.ClientMetadataURL)
		}
	}
	return nil
}
