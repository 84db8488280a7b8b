package serve

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the Streamable HTTP endpoint is served.
const Path = "/mcp"

// HTTPOptions guard the HTTP endpoint.
type HTTPOptions struct {
	// Token, when set, must come as "Authorization: Bearer TOKEN".
	Token string
	// Hosts are the Host header names accepted besides loopback ones
	// (localhost, 127.0.0.0/8, [::1]); "*" accepts any.
	Hosts []string
	// Origins are the browser origins accepted besides loopback ones
	// (http://localhost:PORT and the like). Requests without Origin (not
	// from a browser) are accepted.
	Origins []string
}

// Handler returns the Streamable HTTP handler: every session it opens
// shares this server's browser. Host and Origin are checked before
// anything else (a web page that rebinds its DNS name to 127.0.0.1 sends
// its own name as Host and its own Origin), then the token.
func (s *Server) Handler(o *HTTPOptions) http.Handler {
	if o == nil {
		o = &HTTPOptions{}
	}
	if o.Token == "" {
		s.noToken.Store(true) // browser_connect to the person's Chrome is refused then
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{Logger: s.opts.Logger})
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	return guardHTTP(mux, *o)
}

func guardHTTP(next http.Handler, o HTTPOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, o.Hosts) {
			http.Error(w, fmt.Sprintf("Forbidden: Host %q is not this server's (DNS rebinding protection); add it with --allow-host", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, o.Origins) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q may not use this server; add it with --allow-origin", origin), http.StatusForbidden)
			return
		}
		if o.Token != "" && !tokenOK(r.Header.Get("Authorization"), o.Token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="browseragent"`)
			http.Error(w, "Unauthorized: send Authorization: Bearer TOKEN (the token browseragent mcp serve printed or was given)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func tokenOK(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// hostAllowed accepts loopback names and the configured ones.
func hostAllowed(hostport string, extra []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if IsLoopback(host) {
		return true
	}
	return slices.ContainsFunc(extra, func(e string) bool { return e == "*" || strings.EqualFold(e, host) || strings.EqualFold(e, hostport) })
}

// originAllowed accepts http(s) origins on loopback hosts and the
// configured ones.
func originAllowed(origin string, extra []string) bool {
	if slices.Contains(extra, origin) || slices.Contains(extra, "*") {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return IsLoopback(u.Hostname())
}

// IsLoopback reports whether host (a name or an address, no port) is this
// machine: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewToken returns a random bearer token.
func NewToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
