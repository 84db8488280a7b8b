package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/mcpclient/oauthtest"
)

// oaBrowser makes curl the browser: it follows the authorization server's
// redirect to our loopback listener, so the whole flow runs for real. A
// missing curl skips, or fails when BROWSERAGENT_REQUIRE_BROWSER=1.
func oaBrowser(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("BROWSERAGENT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("curl not found but BROWSERAGENT_REQUIRE_BROWSER=1: %v", err)
		}
		t.Skipf("curl not found (it plays the browser in OAuth tests): %v", err)
	}
	t.Setenv("BROWSER", "curl -sL -o /dev/null")
	t.Cleanup(func() {
		if kids := oaChildren("curl"); len(kids) > 0 {
			t.Errorf("curl processes left behind: %v", kids)
		}
	})
}

// oaChildren lists our child processes running command name (Linux).
func oaChildren(name string) []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []string
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.Contains(s[:i], "("+name) {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) && f[0] != "Z" {
			out = append(out, strings.Fields(s)[0])
		}
	}
	return out
}

// oaPrompts records the login prompts.
type oaPrompts struct {
	mu sync.Mutex
	p  []AuthPrompt
}

func (r *oaPrompts) add(p AuthPrompt) { r.mu.Lock(); r.p = append(r.p, p); r.mu.Unlock() }
func (r *oaPrompts) all() []AuthPrompt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]AuthPrompt(nil), r.p...)
}

func oaOptions(dir string, interactive bool, p *oaPrompts) *OAuthOptions {
	o := &OAuthOptions{TokenDir: dir, Interactive: interactive, CallbackTimeout: 20 * time.Second}
	if p != nil {
		o.OnPrompt = p.add
	}
	return o
}

func oaManager(t *testing.T, o *OAuthOptions, scs ...*ServerConfig) *Manager {
	t.Helper()
	cfg := &Config{Servers: map[string]*ServerConfig{}}
	for _, sc := range scs {
		cfg.Servers[sc.Name] = sc
	}
	var log oaLog
	m := NewManager(cfg, &Options{OAuth: o, InitTimeout: 30 * time.Second,
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	t.Cleanup(func() {
		m.Close()
		var states []string
		for _, st := range m.Status() {
			if st.Err != nil {
				states = append(states, st.Err.Error())
			}
		}
		if tok := issuedToken.FindString(log.String() + strings.Join(states, "\n")); tok != "" {
			t.Errorf("a token (%s…) appears in the SDK log or a server error", tok[:6])
		}
	})
	m.Start(t.Context())
	return m
}

// issuedToken matches the tokens oauthtest issues.
var issuedToken = regexp.MustCompile(`\b(at|rt)-[A-Z2-7]{12,}`)

// oaLog collects the SDK's debug log.
type oaLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *oaLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *oaLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func oaEcho(t *testing.T, m *Manager, name string) {
	t.Helper()
	if err := m.WaitReady(t.Context(), name); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	r, err := m.CallServerTool(t.Context(), name, "echo", json.RawMessage(`{"message":"hi"}`))
	if err != nil || r.Text != "hi" {
		t.Fatalf("echo = %+v, %v", r, err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestOAuthLogin: a 401 starts discovery, registration (dynamic or the
// configured client), the browser (curl) and the loopback redirect; the
// tools then work over Streamable HTTP or SSE, the token is stored 0600,
// and a later, non-interactive start reuses it without a new login.
func TestOAuthLogin(t *testing.T) {
	oaBrowser(t)
	for _, tc := range []struct {
		name          string
		sse, prereg   bool
		registrations int
	}{
		{name: "dynamic registration", registrations: 1},
		{name: "pre-registered client with secret", prereg: true},
		{name: "legacy SSE", sse: true, registrations: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewAuthServer(t)
			res := oauthtest.NewResource(t, as)
			dir := filepath.Join(t.TempDir(), "tokens")
			sc := &ServerConfig{Name: "prot", URL: res.URL}
			if tc.sse {
				sc.Type, sc.URL = TypeSSE, res.SSEURL
			}
			if tc.prereg {
				port := freePort(t)
				sc.OAuth = &OAuthConfig{ClientID: "pre", ClientSecret: "s3cret-value", CallbackPort: port, Scopes: []string{"mcp"}}
				as.AddClient("pre", "s3cret-value", "http://127.0.0.1:"+strconv.Itoa(port)+"/callback")
			}
			var prompts oaPrompts
			m := oaManager(t, oaOptions(dir, true, &prompts), sc.clone())
			oaEcho(t, m, "prot")
			m.Close()

			got := as.Counts()
			want := oauthtest.Counts{Registrations: tc.registrations, Authorizations: 1, Exchanges: 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("authorization server counts (-want +got):\n%s", diff)
			}
			ps := prompts.all()
			if len(ps) != 1 || !strings.HasPrefix(ps[0].URL, as.URL+"/authorize?") || ps[0].OpenErr != nil || ps[0].Server != "prot" {
				t.Errorf("prompts = %+v, want one for %s/authorize", ps, as.URL)
			}
			oaCheckFile(t, dir, "prot")

			m2 := oaManager(t, oaOptions(dir, false, nil), sc.clone())
			oaEcho(t, m2, "prot")
			if got := as.Counts(); got.Authorizations != 1 || got.Refreshes != 0 {
				t.Errorf("after restart: %+v, want the stored token reused", got)
			}
		})
	}
}

// oaCheckFile: the token file is private and holds the login.
func oaCheckFile(t *testing.T, dir, name string) {
	t.Helper()
	p := TokenFile(name, dir)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatalf("token file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode = %v, want 0600", p, fi.Mode().Perm())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("%s mode = %v, want 0700", dir, di.Mode().Perm())
	}
}

// TestOAuthRefresh: a token about to expire is refreshed before use, and
// one the server no longer accepts is refreshed on the 401; neither needs
// a new login, and the new token is stored.
func TestOAuthRefresh(t *testing.T) {
	oaBrowser(t)
	for _, tc := range []struct {
		name  string
		spoil func(as *oauthtest.AuthServer, l *storedLogin)
	}{
		{"expires within a minute", func(_ *oauthtest.AuthServer, l *storedLogin) { l.Expiry = time.Now().Add(20 * time.Second) }},
		{"expired", func(_ *oauthtest.AuthServer, l *storedLogin) { l.Expiry = time.Now().Add(-time.Hour) }},
		{"revoked by the server", func(as *oauthtest.AuthServer, _ *storedLogin) { as.RevokeAll() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthtest.NewAuthServer(t)
			res := oauthtest.NewResource(t, as)
			dir := t.TempDir()
			sc := &ServerConfig{Name: "prot", URL: res.URL}
			if err := Login(t.Context(), sc, oaOptions(dir, true, nil)); err != nil {
				t.Fatalf("Login: %v", err)
			}
			store := tokenStore{dir: dir}
			l, err := store.load("prot", res.URL)
			if err != nil || l == nil {
				t.Fatalf("stored login = %v, %v", l, err)
			}
			before := l.AccessToken
			tc.spoil(as, l)
			if err := store.save("prot", res.URL, l); err != nil {
				t.Fatal(err)
			}
			m := oaManager(t, oaOptions(dir, false, nil), sc)
			oaEcho(t, m, "prot")
			if got := as.Counts(); got.Authorizations != 1 || got.Refreshes != 1 {
				t.Errorf("counts = %+v, want 1 authorization and 1 refresh", got)
			}
			if l2, _ := store.load("prot", res.URL); l2 == nil || l2.AccessToken == before || l2.RefreshToken == "" {
				t.Errorf("stored login after refresh = %+v, want a new access token", l2)
			}
		})
	}
}

// TestOAuthStepUp: a 403 insufficient_scope runs a second login asking
// for the old and the new scopes; a server that keeps refusing stops
// after MaxStepUps logins, and the session survives it.
func TestOAuthStepUp(t *testing.T) {
	oaBrowser(t)
	t.Run("streamable", func(t *testing.T) { testStepUp(t, false) })
	t.Run("sse", func(t *testing.T) { testStepUp(t, true) })
}

func testStepUp(t *testing.T, sse bool) {
	as := oauthtest.NewAuthServer(t)
	res := oauthtest.NewResource(t, as)
	sc := &ServerConfig{Name: "prot", URL: res.URL}
	if sse {
		sc.Type, sc.URL = TypeSSE, res.SSEURL
	}
	m := oaManager(t, oaOptions(t.TempDir(), true, nil), sc)
	oaEcho(t, m, "prot")
	r, err := m.CallServerTool(t.Context(), "prot", "admin", json.RawMessage(`{}`))
	if err != nil || r.Text != "admin done" {
		t.Fatalf("admin = %+v, %v", r, err)
	}
	scopes := as.LastScopes()
	slices.Sort(scopes) // the go-sdk merges scope sets in map order
	if diff := cmp.Diff([]string{"admin", "mcp", "offline_access"}, scopes); diff != "" {
		t.Errorf("step-up scopes (-want +got):\n%s", diff)
	}
	if sse {
		// The legacy SSE client ends its session on any failed POST, so
		// the step-up limit is only reachable over Streamable HTTP.
		_, err := m.CallServerTool(t.Context(), "prot", "never", json.RawMessage(`{}`))
		if err == nil || !strings.Contains(err.Error(), "refused the new OAuth token too (HTTP 403)") {
			t.Errorf("never over SSE = %v, want the refusal", err)
		}
		return
	}
	var errs []string
	for range 3 {
		_, err := m.CallServerTool(t.Context(), "prot", "never", json.RawMessage(`{}`))
		if err == nil {
			t.Fatal("never succeeded")
		}
		errs = append(errs, err.Error())
	}
	if got := as.Counts().Authorizations; got != 4 {
		t.Errorf("authorizations = %d, want 4 (login, admin, two tries for never)", got)
	}
	if !strings.Contains(errs[2], "after 2 step-up logins") {
		t.Errorf("third error = %q, want the step-up limit", errs[2])
	}
	oaEcho(t, m, "prot") // the session is still up
}

// TestOAuthBadInput: every way a login can go wrong is refused with a
// clear message, stores nothing, leaks no secret, and leaves the manager
// (and another server) running.
func TestOAuthBadInput(t *testing.T) {
	oaBrowser(t)
	for _, tc := range []struct {
		fail, want string
	}{
		{oauthtest.FailDenied, "the authorization server refused: access_denied (the user said no)"},
		{oauthtest.FailState, "wrong state"},
		{oauthtest.FailIss, `authorization response issuer "http://127.0.0.1:1/someone-else" does not match`},
		{oauthtest.FailIssuer, `metadata issuer "http://127.0.0.1:1/someone-else" does not match`},
		{oauthtest.FailNoToken, "missing access_token"},
		{oauthtest.FailTokenError, "the token endpoint answered HTTP 400: invalid_grant (the code has expired)"},
		{oauthtest.FailEchoSecrets, "bad code [redacted] secret [redacted]"},
		{oauthtest.FailNoPKCE, "does not implement PKCE"},
		{oauthtest.FailNoRegister, "no configured client registration methods"},
	} {
		t.Run(tc.fail, func(t *testing.T) {
			as := oauthtest.NewAuthServer(t)
			res := oauthtest.NewResource(t, as)
			as.SetFail(tc.fail)
			dir := t.TempDir()
			sc := &ServerConfig{Name: "prot", URL: res.URL}
			if tc.fail == oauthtest.FailEchoSecrets {
				port := freePort(t)
				sc.OAuth = &OAuthConfig{ClientID: "pre", ClientSecret: "s3cret-value", CallbackPort: port}
				as.AddClient("pre", "s3cret-value", "http://127.0.0.1:"+strconv.Itoa(port)+"/callback")
			}
			err := Login(t.Context(), sc, oaOptions(dir, true, nil))
			if !errors.Is(err, errAuthFailed) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was stored") {
				t.Errorf("Login = %v, want errAuthFailed saying %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret-value") {
				t.Errorf("error leaks the client secret: %v", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("token dir has %d files, want none", len(entries))
			}
		})
	}
	t.Run("manager stays up", func(t *testing.T) {
		as := oauthtest.NewAuthServer(t)
		res := oauthtest.NewResource(t, as)
		good := oauthtest.NewAuthServer(t)
		goodRes := oauthtest.NewResource(t, good)
		as.SetFail(oauthtest.FailDenied)
		m := oaManager(t, oaOptions(t.TempDir(), true, nil),
			&ServerConfig{Name: "bad", URL: res.URL}, &ServerConfig{Name: "good", URL: goodRes.URL})
		oaEcho(t, m, "good")
		err := m.WaitReady(t.Context(), "bad")
		if err == nil || !strings.Contains(err.Error(), "access_denied") {
			t.Errorf("bad server: %v, want an error state naming access_denied", err)
		}
		oaEcho(t, m, "good")
	})
}

// TestOAuthNotInteractive: without a stored token and without permission
// to open a browser, the server fails with errLoginRequired naming the
// command to run; nothing is opened.
func TestOAuthNotInteractive(t *testing.T) {
	t.Setenv("BROWSER", "false")
	as := oauthtest.NewAuthServer(t)
	res := oauthtest.NewResource(t, as)
	m := oaManager(t, oaOptions(t.TempDir(), false, nil), &ServerConfig{Name: "prot", URL: res.URL})
	err := m.WaitReady(t.Context(), "prot")
	if !errors.Is(err, errLoginRequired) || !strings.Contains(err.Error(), "browseragent mcp login prot") {
		t.Errorf("WaitReady = %v, want errLoginRequired with the login command", err)
	}
	if got := as.Counts(); got != (oauthtest.Counts{}) {
		t.Errorf("authorization server was used: %+v", got)
	}
}

// TestOAuthCallbackTimeout: a browser that never comes back ends the login
// after CallbackTimeout with advice, and the listener is gone.
func TestOAuthCallbackTimeout(t *testing.T) {
	oaBrowser(t)
	as := oauthtest.NewAuthServer(t)
	res := oauthtest.NewResource(t, as)
	as.SetFail(oauthtest.FailNoRedirect)
	port := freePort(t)
	o := oaOptions(t.TempDir(), true, nil)
	o.CallbackTimeout = 500 * time.Millisecond
	sc := &ServerConfig{Name: "prot", URL: res.URL, OAuth: &OAuthConfig{CallbackPort: port}}
	err := Login(t.Context(), sc, o)
	if err == nil || !strings.Contains(err.Error(), "did not come back") {
		t.Errorf("Login = %v, want a timeout with advice", err)
	}
	ln, lerr := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if lerr != nil {
		t.Errorf("callback port still busy: %v", lerr)
	} else {
		ln.Close()
	}
}

// TestLoginNoOAuth: a server that does not ask for a token is reported,
// not logged in to.
func TestLoginNoOAuth(t *testing.T) {
	as := oauthtest.NewAuthServer(t)
	sc := &ServerConfig{Name: "open", URL: as.URL + "/.well-known/oauth-authorization-server", Type: TypeSSE}
	if err := Login(context.Background(), sc, oaOptions(t.TempDir(), true, nil)); !errors.Is(err, ErrNoOAuth) {
		t.Errorf("Login = %v, want ErrNoOAuth", err)
	}
}

// TestLogout removes one URL's login or all of a server's.
func TestLogout(t *testing.T) {
	dir := t.TempDir()
	s := tokenStore{dir: dir}
	for _, u := range []string{"http://a/mcp", "http://b/mcp"} {
		if err := s.save("srv", u, &storedLogin{AccessToken: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	type step struct {
		url  string
		want bool
	}
	var got []step
	for _, st := range []step{{"http://a/mcp", true}, {"http://a/mcp", false}, {"", true}, {"", false}} {
		ok, err := Logout("srv", st.url, dir)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, step{st.url, ok})
	}
	want := []step{{"http://a/mcp", true}, {"http://a/mcp", false}, {"", true}, {"", false}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(step{})); diff != "" {
		t.Errorf("Logout (-want +got):\n%s", diff)
	}
}

func TestOpenerCommand(t *testing.T) {
	for _, tc := range []struct {
		browser, goos string
		want          []string
	}{
		{"curl -sL -o /dev/null", "linux", []string{"curl", "-sL", "-o", "/dev/null", "U"}},
		{"firefox --new-tab %s", "linux", []string{"firefox", "--new-tab", "U"}},
		{"", "linux", []string{"xdg-open", "U"}},
		{"", "darwin", []string{"open", "U"}},
		{"", "windows", []string{"rundll32", "url.dll,FileProtocolHandler", "U"}},
	} {
		got, err := openerCommand("U", tc.browser, tc.goos)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("BROWSER=%q on %s (-want +got):\n%s", tc.browser, tc.goos, diff)
		}
	}
}

// TestTokenFileNames: names that are not plain file names get their own,
// distinct files inside the directory.
func TestTokenFileNames(t *testing.T) {
	seen := map[string]string{}
	for _, n := range []string{"plain", "a/b", "a_b", "../x", ".hidden", ""} {
		p := TokenFile(n, "/d")
		if filepath.Dir(p) != "/d" {
			t.Errorf("TokenFile(%q) = %s, outside the directory", n, p)
		}
		if o, dup := seen[p]; dup {
			t.Errorf("TokenFile(%q) = TokenFile(%q) = %s", n, o, p)
		}
		seen[p] = n
	}
}

// TestParseOAuthConfig: the oauth object is read, ${VAR} expands in the
// client fields, and a bad entry fails that server with file and field.
func TestParseOAuthConfig(t *testing.T) {
	for _, tc := range []struct {
		name, entry string
		want        *OAuthConfig
		wantErr     string
	}{
		{"full", `{"url": "https://x/mcp", "oauth": {"clientId": "id", "clientSecret": "${SECRET}", "scopes": ["a", "b"], "callbackPort": 8976}}`,
			&OAuthConfig{ClientID: "id", ClientSecret: "s3", Scopes: []string{"a", "b"}, CallbackPort: 8976}, ""},
		{"absent", `{"url": "https://x/mcp"}`, nil, ""},
		{"bad port", `{"url": "https://x/mcp", "oauth": {"callbackPort": 70000}}`, nil, `f.json: server "s": oauth.callbackPort 70000 is not a port`},
		{"secret without id", `{"url": "https://x/mcp", "oauth": {"clientSecret": "x"}}`, nil, "oauth.clientSecret is set without oauth.clientId"},
		{"wrong type", `{"url": "https://x/mcp", "oauth": {"scopes": "a b"}}`, nil, `f.json:1: server "s": field oauth: want []string, got string`},
		{"metadata document", `{"url": "https://x/mcp", "oauth": {"clientMetadataUrl": "https://ba.example/client.json"}}`,
			&OAuthConfig{ClientMetadataURL: "https://ba.example/client.json"}, ""},
		{"metadata document not https", `{"url": "https://x/mcp", "oauth": {"clientMetadataUrl": "http://ba.example/client.json"}}`, nil, `oauth.clientMetadataUrl "http://ba.example/client.json" is not an https URL with a path`},
		{"metadata document without path", `{"url": "https://x/mcp", "oauth": {"clientMetadataUrl": "https://ba.example/"}}`, nil, "is not an https URL with a path"},
		{"client credentials", `{"url": "https://x/mcp", "oauth": {"grant": "client_credentials", "clientId": "id", "clientSecret": "s"}}`,
			&OAuthConfig{Grant: GrantClientCredentials, ClientID: "id", ClientSecret: "s"}, ""},
		{"client credentials without secret", `{"url": "https://x/mcp", "oauth": {"grant": "client_credentials", "clientId": "id"}}`, nil, "oauth.grant client_credentials needs oauth.clientId and oauth.clientSecret"},
		{"unknown grant", `{"url": "https://x/mcp", "oauth": {"grant": "password"}}`, nil, `oauth.grant "password" is not authorization_code or client_credentials`},
		{"unset variable", `{"url": "https://x/mcp", "oauth": {"clientId": "id", "clientSecret": "${NOPE}"}}`, nil, "field oauth.clientSecret: environment variable NOPE is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(`{"mcpServers": {"s": `+tc.entry+`}}`), "f.json", func(k string) (string, bool) {
				return map[string]string{"SECRET": "s3"}[k], k == "SECRET"
			})
			if err != nil {
				t.Fatal(err)
			}
			sc := c.Servers["s"]
			if tc.wantErr != "" {
				if sc.Err == nil || !strings.Contains(sc.Err.Error(), tc.wantErr) {
					t.Errorf("Err = %v, want %q", sc.Err, tc.wantErr)
				}
				return
			}
			if sc.Err != nil {
				t.Fatal(sc.Err)
			}
			if diff := cmp.Diff(tc.want, sc.OAuth); diff != "" {
				t.Errorf("OAuth (-want +got):\n%s", diff)
			}
			if sc.OAuth != nil && sc.clone().OAuth == sc.OAuth {
				t.Error("Clone shares the OAuth config")
			}
		})
	}
}

// TestOAuthRefreshRefused: when the authorization server refuses the
// refresh token, the server fails with the reason and the login command,
// and neither token appears in the message.
func TestOAuthRefreshRefused(t *testing.T) {
	oaBrowser(t)
	as := oauthtest.NewAuthServer(t)
	res := oauthtest.NewResource(t, as)
	dir := t.TempDir()
	sc := &ServerConfig{Name: "prot", URL: res.URL}
	if err := Login(t.Context(), sc, oaOptions(dir, true, nil)); err != nil {
		t.Fatalf("Login: %v", err)
	}
	store := tokenStore{dir: dir}
	l, _ := store.load("prot", res.URL)
	l.RefreshToken = "rt-FORGEDFORGEDFORGED"
	if err := store.save("prot", res.URL, l); err != nil {
		t.Fatal(err)
	}
	as.RevokeAll()
	m := oaManager(t, oaOptions(dir, false, nil), sc)
	err := m.WaitReady(t.Context(), "prot")
	want := "its token could not be refreshed: the token endpoint answered HTTP 400: invalid_grant (unknown refresh token)); run 'browseragent mcp login prot'"
	if !errors.Is(err, errLoginRequired) || !strings.Contains(err.Error(), want) {
		t.Errorf("WaitReady = %v, want errLoginRequired saying %q", err, want)
	}
	if err != nil && (strings.Contains(err.Error(), l.AccessToken) || strings.Contains(err.Error(), l.RefreshToken)) {
		t.Error("the error carries a token")
	}
}
