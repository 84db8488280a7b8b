package mcpclient

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/mcpclient/oauthtest"
)

// TestOAuthLoginOpenInitialize: a server that answers initialize without
// a token and asks for one from tools/list on is logged in to by Login
// (it used to say "nothing to log in to" while the tools said "run mcp
// login"). A later step-up that a non-interactive command meets names the
// scopes and files them, so the next Login asks for them, and the tool then
// works without a browser.
func TestOAuthLoginOpenInitialize(t *testing.T) {
	oaBrowser(t)
	as := oauthtest.NewAuthServer(t)
	res := oauthtest.NewResourceWith(t, as, oauthtest.ResourceOptions{OpenInitialize: true})
	dir := t.TempDir()
	sc := &ServerConfig{Name: "prot", URL: res.URL}

	if err := Login(t.Context(), sc, oaOptions(dir, true, nil)); err != nil {
		t.Fatalf("Login = %v", err)
	}
	if got := as.Counts().Authorizations; got != 1 {
		t.Fatalf("authorizations = %d, want 1", got)
	}
	m := oaManager(t, oaOptions(dir, false, nil), sc.clone())
	oaEcho(t, m, "prot")
	_, err := m.CallServerTool(t.Context(), "prot", "admin", json.RawMessage(`{}`))
	if !errors.Is(err, errLoginRequired) || !strings.Contains(err.Error(), "asks for more OAuth scopes (mcp admin); run 'browseragent mcp login prot'") {
		t.Fatalf("admin without the scope = %v, want errLoginRequired naming the scopes and the login", err)
	}
	m.Close()
	data, err := os.ReadFile(TokenFile("prot", dir))
	if err != nil || !strings.Contains(string(data), `"wantScopes"`) {
		t.Fatalf("token file does not file the wanted scopes: %v\n%s", err, data)
	}

	if err := Login(t.Context(), sc, oaOptions(dir, true, nil)); err != nil {
		t.Fatalf("second Login = %v", err)
	}
	scopes := as.LastScopes()
	slices.Sort(scopes)
	if diff := cmp.Diff([]string{"admin", "mcp", "offline_access"}, scopes); diff != "" {
		t.Errorf("second login's scopes (-want +got):\n%s", diff)
	}
	m2 := oaManager(t, oaOptions(dir, false, nil), sc.clone())
	if err := m2.WaitReady(t.Context(), "prot"); err != nil {
		t.Fatal(err)
	}
	if r, err := m2.CallServerTool(t.Context(), "prot", "admin", json.RawMessage(`{}`)); err != nil || r.Text != "admin done" {
		t.Fatalf("admin after the new login = %+v, %v", r, err)
	}
	if data, _ := os.ReadFile(TokenFile("prot", dir)); strings.Contains(string(data), `"wantScopes"`) {
		t.Errorf("the new login still files wanted scopes:\n%s", data)
	}
}

// TestLoginNothingAsked: a Streamable HTTP server that never asks for a
// token, not even for tools/list, has nothing to log in to.
func TestLoginNothingAsked(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "open", Version: "1"}, nil)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	err := Login(t.Context(), &ServerConfig{Name: "open", URL: hs.URL}, oaOptions(t.TempDir(), true, nil))
	if !errors.Is(err, ErrNoOAuth) || !strings.Contains(err.Error(), "answered initialize and tools/list without a token") {
		t.Errorf("Login = %v, want ErrNoOAuth", err)
	}
}

// TestOAuthClientMetadataDocument: with oauth.clientMetadataUrl set, an
// authorization server advertising client_id_metadata_document_supported
// gets that URL as the client_id and no registration; one that does not is
// registered with dynamically, as before.
func TestOAuthClientMetadataDocument(t *testing.T) {
	oaBrowser(t)
	const doc = "https://client.example/browseragent.json"
	for _, tc := range []struct {
		name          string
		supported     bool
		registrations int
	}{
		{"advertised", true, 0},
		{"not advertised", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewAuthServer(t)
			if tc.supported {
				as.AcceptMetadataDocument(doc)
			}
			res := oauthtest.NewResource(t, as)
			sc := &ServerConfig{Name: "prot", URL: res.URL, OAuth: &OAuthConfig{ClientMetadataURL: doc}}
			m := oaManager(t, oaOptions(t.TempDir(), true, nil), sc)
			oaEcho(t, m, "prot")
			if got := as.Counts().Registrations; got != tc.registrations {
				t.Errorf("registrations = %d, want %d", got, tc.registrations)
			}
			if got := as.LastClientID(); (got == doc) != tc.supported {
				t.Errorf("client_id = %q (metadata document %v)", got, tc.supported)
			}
		})
	}
}

// TestOAuthLegacyDiscovery: a 2025-03-26 server without protected-resource
// metadata is logged in to through its origin's authorization-server
// metadata (whose issuer is the origin plus a path), or, without any
// metadata, through the default endpoints /authorize, /token, /register.
func TestOAuthLegacyDiscovery(t *testing.T) {
	oaBrowser(t)
	for _, tc := range []struct {
		name     string
		prefix   string
		metadata bool
	}{
		{"metadata at the origin, issuer under /oauth", "/oauth", true},
		{"no metadata, default endpoints", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as, res := oauthtest.NewLegacyServer(t, tc.prefix, tc.metadata)
			dir := t.TempDir()
			sc := &ServerConfig{Name: "old", URL: res.URL}
			if err := Login(t.Context(), sc, oaOptions(dir, true, nil)); err != nil {
				t.Fatalf("Login = %v", err)
			}
			if got := as.Counts(); got.Authorizations != 1 || got.Exchanges != 1 || got.Registrations != 1 {
				t.Errorf("authorization server counts = %+v, want one registration, authorization and exchange", got)
			}
			oaEcho(t, oaManager(t, oaOptions(dir, false, nil), sc.clone()), "old")
		})
	}
}

// TestOAuthClientCredentials: a machine client (oauth.grant
// client_credentials with a registered id and secret) gets its token
// without a browser, even in a non-interactive run, and the secret is not
// written to the token file.
func TestOAuthClientCredentials(t *testing.T) {
	t.Setenv("BROWSER", "false") // no browser may be used
	as := oauthtest.NewAuthServer(t)
	as.AddClient("svc", "svc-s3cret", "http://127.0.0.1:1/callback")
	res := oauthtest.NewResource(t, as)
	dir := t.TempDir()
	sc := &ServerConfig{Name: "prot", URL: res.URL, OAuth: &OAuthConfig{Grant: GrantClientCredentials, ClientID: "svc", ClientSecret: "svc-s3cret"}}
	oaEcho(t, oaManager(t, oaOptions(dir, false, nil), sc), "prot")
	if got := as.Counts(); got != (oauthtest.Counts{Exchanges: 1}) {
		t.Errorf("authorization server counts = %+v, want one token request and no authorization", got)
	}
	if data, err := os.ReadFile(TokenFile("prot", dir)); err != nil || strings.Contains(string(data), "svc-s3cret") {
		t.Errorf("token file: %v; it must not hold the client secret:\n%s", err, data)
	}
}
