package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/internal/netcheck"
)

// Defaults used when an Options field is zero.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultMaxBytes       = extract.DefaultMaxBytes
	defaultMaxRedirects   = 10
	DefaultAcceptLanguage = "en-US,en;q=0.9"
	// DefaultUserAgent is a current desktop Chrome: many sites answer a
	// generic client with a block page or a stripped variant.
	DefaultUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36"
)

// Options configure a Client. A nil *Options, or a zero field, means the
// default.
type Options struct {
	Timeout        time.Duration // whole request, body included
	ConnectTimeout time.Duration // TCP connect and TLS handshake
	MaxBytes       int64         // body cap after decompression; beyond it the body is truncated
	MaxRedirects   int           // at most 10 whatever is asked
	UserAgent      string
	AcceptLanguage string
	// TLSConfig overrides the TLS settings (tests trust their own CA here).
	TLSConfig *tls.Config
	// Extract is applied to HTML responses.
	Extract extract.Options
	// AllowRedirect, when set, is asked before each redirect is followed; an
	// error refuses that hop and fails the fetch with ErrRedirectRefused, so
	// a redirect cannot carry a request somewhere the first URL could not go.
	AllowRedirect func(to string) error
	// DialControl, when set, is asked with the resolved "ip:port" of every
	// connection just before it is made (net.Dialer.ControlContext); an
	// error refuses it before any byte is sent and fails the fetch ("refused
	// to connect to HOST at ADDRESS: ..."). The guard uses it so that a name resolving to a
	// denied address (cloud metadata) is refused, redirects included.
	// Through a proxy it is asked about the request's own host too, with
	// a nil RawConn (see Proxy).
	DialControl func(ctx context.Context, network, address string, c syscall.RawConn) error
	// RequestControl, when set, is asked for every request (the first and
	// each redirect) with the "ip:port" of the connection it is about to
	// go out on, new or reused, and its URL; an error closes that
	// connection before any byte of the request is written and fails the
	// fetch the same way. The guard uses it for rules naming an
	// address with paths, which a connection alone cannot be judged by.
	RequestControl func(address string, u *url.URL) error
	// Resolver looks names up (nil: the system's).
	Resolver *net.Resolver
	// Header holds request headers sent with every request, over the
	// defaults (User-Agent, Accept-Language …). Go drops Authorization and
	// Cookie on a redirect to another host.
	Header http.Header
	// Jar, when set, sends and keeps cookies (a cookie file's).
	Jar http.CookieJar
	// Proxy, when set, is the HTTP proxy every request goes through;
	// nil means the environment's (HTTP_PROXY, HTTPS_PROXY, NO_PROXY).
	// Through a proxy the connection is the proxy's, so DialControl and
	// RequestControl are also asked about the addresses the request's own
	// host resolves to here, before it is sent; a host that does not
	// resolve here is refused, since its address cannot be judged.
	Proxy *url.URL
}

func (o *Options) withDefaults() Options {
	var d Options
	if o != nil {
		d = *o
	}
	if d.Timeout <= 0 {
		d.Timeout = DefaultTimeout
	}
	if d.ConnectTimeout <= 0 {
		d.ConnectTimeout = DefaultConnectTimeout
	}
	if d.MaxBytes <= 0 {
		d.MaxBytes = DefaultMaxBytes
	}
	if d.MaxRedirects <= 0 || d.MaxRedirects > defaultMaxRedirects {
		d.MaxRedirects = defaultMaxRedirects
	}
	if d.UserAgent == "" {
		d.UserAgent = DefaultUserAgent
	}
	if d.AcceptLanguage == "" {
		d.AcceptLanguage = DefaultAcceptLanguage
	}
	return d
}

// Client fetches pages with one connection pool. It is safe for concurrent
// use; batch callers share one Client so connections are reused.
type Client struct {
	opts Options
	hc   *http.Client
}

// NewClient returns a Client with opts (nil means defaults).
func NewClient(opts *Options) *Client {
	extract.Warm()
	o := opts.withDefaults()
	dialer := &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second, Resolver: o.Resolver}
	if ctl := o.DialControl; ctl != nil {
		dialer.ControlContext = func(ctx context.Context, network, address string, c syscall.RawConn) error {
			if err := ctl(ctx, network, address, c); err != nil {
				return &refusedDial{address: address, err: err}
			}
			return nil
		}
	}
	proxy := http.ProxyFromEnvironment
	if o.Proxy != nil {
		proxy = http.ProxyURL(o.Proxy)
	}
	tr := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   o.ConnectTimeout,
		TLSClientConfig:       o.TLSConfig,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       60 * time.Second,
		ExpectContinueTimeout: time.Second,
		// We ask for gzip, deflate and br ourselves and decode them in
		// readBody, so the transport must not add or strip encodings.
		DisableCompression: true,
	}
	var rt http.RoundTripper = tr
	if o.RequestControl != nil {
		rt = &checkedTransport{base: tr, check: o.RequestControl}
	}
	if o.RequestControl != nil || o.DialControl != nil {
		rt = &proxiedTransport{base: rt, proxy: proxy, opts: o}
	}
	hc := &http.Client{Transport: rt, Jar: o.Jar, CheckRedirect: checkRedirect(o.MaxRedirects, o.AllowRedirect)}
	return &Client{opts: o, hc: hc}
}

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// Fetch gets rawURL and returns its main content. On an HTTP error status it
// returns both the extract.Result (the error page, extracted) and an
// *extract.Error; every other failure returns a nil extract.Result. Errors
// are *extract.Error values whose message is one sentence.
func (c *Client) Fetch(ctx context.Context, rawURL string) (*extract.Result, error) {
	return c.FetchWith(ctx, rawURL, &c.opts.Extract)
}

// FetchWith is Fetch extracting with ex in place of the client's own
// extraction options, so callers that select per URL (web_fetch) share
// one connection pool.
func (c *Client) FetchWith(ctx context.Context, rawURL string, ex *extract.Options) (*extract.Result, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	limit := effectiveLimit(ctx, c.opts.Timeout)
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, newError(ErrBadURL, rawURL, err, "malformed URL %q: %v", rawURL, err)
	}
	c.setHeaders(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.classify(err, u, limit)
	}
	defer resp.Body.Close()
	body, truncated, err := readBody(resp, c.opts.MaxBytes)
	if err != nil {
		return nil, c.classifyBody(err, u, limit)
	}
	res, err := extract.FromResponse(&extract.Response{
		URL: rawURL, FinalURL: resp.Request.URL.String(), Status: resp.StatusCode,
		ContentType: resp.Header.Get("Content-Type"), BodyType: bodyType(resp), Sniffed: http.DetectContentType(body),
		ContentLength: resp.ContentLength, RetryAfter: resp.Header.Get("Retry-After"),
		Body: body, Truncated: truncated, MaxBytes: c.opts.MaxBytes,
	}, ex)
	if err != nil {
		return nil, err
	}
	return res, StatusError(res)
}

// bodyType is the Content-Type a body is read as. A robots.txt is plain
// text whatever the server labels it (RFC 9309): one sent as text/html, as
// a site's web app often does, would otherwise be extracted like an
// article, its lines run together and its rules lost.
func bodyType(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	if resp.Request != nil && resp.Request.URL.Path == "/robots.txt" {
		if mt, _, _ := mime.ParseMediaType(ct); mt == "" || mt == "text/html" || mt == "application/xhtml+xml" {
			return "text/plain; charset=utf-8"
		}
	}
	return ct
}

func (c *Client) setHeaders(req *http.Request) {
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,application/json;q=0.8,text/plain;q=0.8,*/*;q=0.5")
	req.Header.Set("Accept-Language", c.opts.AcceptLanguage)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	for k, vs := range c.opts.Header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}

// ParseURL checks that raw is an absolute http or https URL and returns it
// parsed. The error says what to write instead.
func ParseURL(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	bad := func(why string) error {
		return newError(ErrBadURL, raw, nil, "malformed URL %q: %s", raw, why)
	}
	if s == "" {
		return nil, bad("it is empty")
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return nil, bad("it contains white space; encode spaces as %20")
	}
	if !strings.Contains(s, "://") && looksLikeHostPort(s) {
		// "localhost:8080/x" parses as scheme "localhost", and
		// "127.0.0.1:8080/x" not at all: both lack the scheme.
		return nil, bad("no scheme; write it as http://" + s + " (or https://)")
	}
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, bad(err.Error())
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		if host, _, _ := strings.Cut(strings.TrimPrefix(s, "//"), "/"); strings.Contains(host, ".") {
			return nil, bad("no scheme; write it as https://" + strings.TrimPrefix(s, "//"))
		}
		return nil, bad("it is not an absolute URL; start it with http:// or https://")
	default:
		return nil, bad(fmt.Sprintf("scheme %q is not supported; use http:// or https://", u.Scheme))
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, bad("no host name")
	}
	u.Fragment = ""
	return u, nil
}

// checkRedirect stops after max redirects and on the first URL seen twice,
// naming the chain so the person can see the loop.
// looksLikeHostPort reports whether s starts with host:port (a port of
// digits), as a URL typed without its scheme does.
func looksLikeHostPort(s string) bool {
	hostport, _, _ := strings.Cut(s, "/")
	host, port, ok := strings.Cut(hostport, ":")
	if !ok || host == "" || port == "" {
		return false
	}
	for _, r := range port {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func checkRedirect(max int, allow func(string) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		next := req.URL.String()
		for i, v := range via {
			if v.URL.String() == next {
				return newError(ErrRedirectLoop, via[0].URL.String(), nil,
					"redirect loop: %s", chain(via[i:], next))
			}
		}
		if len(via) > max {
			return newError(ErrTooManyRedirects, via[0].URL.String(), nil,
				"more than %d redirects starting at %s (last went to %s)", max, via[0].URL, next)
		}
		if allow != nil {
			if err := allow(next); err != nil {
				return newError(ErrRedirectRefused, via[0].URL.String(), err,
					"redirect from %s to %s refused: %v", via[len(via)-1].URL, next, err)
			}
		}
		return nil
	}
}

func chain(via []*http.Request, last string) string {
	parts := make([]string, 0, len(via)+1)
	for _, v := range via {
		parts = append(parts, v.URL.String())
	}
	return strings.Join(append(parts, last), " -> ")
}

// effectiveLimit is the time a fetch has: the client's Timeout, or what is
// left of ctx when that ends sooner (a caller's own limit, such as run
// --timeout), rounded so that it reads as the limit that was set.
func effectiveLimit(ctx context.Context, own time.Duration) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return own
	}
	left := time.Until(dl)
	if left >= own {
		return own
	}
	if left >= time.Second {
		return left.Round(time.Second)
	}
	return left.Round(10 * time.Millisecond)
}

// classify turns a transport error into one sentence with its kind; limit
// is the time the fetch had.
func (c *Client) classify(err error, u *url.URL, limit time.Duration) error {
	var fe *extract.Error
	if errors.As(err, &fe) {
		return fe
	}
	raw, host := u.String(), u.Host
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		unkAuth x509.UnknownAuthorityError
		hostErr x509.HostnameError
		invErr  x509.CertificateInvalidError
		recErr  tls.RecordHeaderError
		alert   tls.AlertError
		opErr   *net.OpError
		refused *refusedDial
	)
	switch {
	case errors.As(err, &refused):
		return newError(errAddressRefused, raw, err, "refused to connect to %s at %s: %v", u.Hostname(), refused.address, refused.err)
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return newError(ErrTimeout, raw, err, "timed out fetching %s (limit %s)", raw, limit)
	case errors.Is(err, context.Canceled):
		return newError(ErrTimeout, raw, err, "fetching %s was cancelled", raw)
	case errors.As(err, &dnsErr):
		return newError(ErrUnreachable, raw, err, "cannot resolve host %q: %s", u.Hostname(), dnsErr.Err)
	case errors.As(err, &certErr), errors.As(err, &unkAuth), errors.As(err, &hostErr), errors.As(err, &invErr):
		return newError(ErrTLS, raw, err, "TLS certificate of %s is not trusted: %s", host, lastPart(err))
	case errors.As(err, &recErr), strings.Contains(err.Error(), "HTTP response to HTTPS client"):
		return newError(ErrTLS, raw, err, "TLS handshake with %s failed: the server does not speak TLS (try http://)", host)
	case errors.As(err, &alert), strings.Contains(err.Error(), "tls:"):
		return newError(ErrTLS, raw, err, "TLS handshake with %s failed: %s", host, lastPart(err))
	case droppedConn(err):
		return newError(ErrUnreachable, raw, err, "%s closed the connection before it answered (%s)", host, lastPart(err))
	case errors.As(err, &opErr):
		return newError(ErrUnreachable, raw, err, "cannot connect to %s: %s", host, lastPart(err))
	}
	return newError(ErrUnreachable, raw, err, "fetching %s failed: %s", raw, lastPart(err))
}

func (c *Client) classifyBody(err error, u *url.URL, limit time.Duration) error {
	var fe *extract.Error
	if errors.As(err, &fe) {
		return fe
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return newError(ErrTimeout, u.String(), err, "timed out reading the body of %s (limit %s)", u, limit)
	}
	return newError(ErrBody, u.String(), err, "reading the body of %s failed: %s", u, lastPart(err))
}

// droppedConn reports a connection the server reset or closed before its
// answer: the host is up, and a batch tries again.
func droppedConn(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// checkedTransport asks RequestControl about each request once the
// transport has picked the connection for it (httptrace's GotConn comes
// before the request is written): a refused one has its connection closed
// unwritten, so the request fails and nothing of it is sent.
type checkedTransport struct {
	base  http.RoundTripper
	check func(address string, u *url.URL) error
}

func (t *checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return netcheck.RoundTrip(t.base, req, func(addr string) error {
		if err := t.check(addr, req.URL); err != nil {
			return &refusedDial{address: addr, err: err}
		}
		return nil
	})
}

// proxiedTransport judges a request that goes through a proxy by the
// addresses its own host resolves to here, as a direct connection would
// be judged (DialControl, then RequestControl), before the proxy is asked
// for it: the connection itself is the proxy's, whose address alone is all
// the dial sees. The proxy may resolve the name otherwise (a split DNS);
// what the guard can judge is what this machine resolves.
type proxiedTransport struct {
	base  http.RoundTripper
	proxy func(*http.Request) (*url.URL, error)
	opts  Options
}

func (t *proxiedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if p, err := t.proxy(req); err != nil || p == nil {
		return t.base.RoundTrip(req)
	}
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[req.URL.Scheme]
	}
	var addrs []string
	if ip := net.ParseIP(host); ip != nil {
		addrs = []string{host}
	} else {
		r := t.opts.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		found, err := r.LookupHost(req.Context(), host)
		if err != nil || len(found) == 0 {
			return nil, &refusedDial{address: net.JoinHostPort(host, port),
				err: fmt.Errorf("%s does not resolve here, so its address cannot be judged before the proxy connects to it", host)}
		}
		addrs = found
	}
	for _, a := range addrs {
		address := net.JoinHostPort(a, port)
		if ctl := t.opts.DialControl; ctl != nil {
			if err := ctl(req.Context(), "tcp", address, nil); err != nil {
				return nil, &refusedDial{address: address, err: err}
			}
		}
		if ctl := t.opts.RequestControl; ctl != nil {
			if err := ctl(address, req.URL); err != nil {
				return nil, &refusedDial{address: address, err: err}
			}
		}
	}
	return t.base.RoundTrip(req)
}

// refusedDial is DialControl's refusal, kept apart from network failures.
type refusedDial struct {
	address string
	err     error
}

func (e *refusedDial) Error() string {
	return "connection to " + e.address + " refused: " + e.err.Error()
}
func (e *refusedDial) Unwrap() error { return e.err }

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// lastPart keeps the innermost, most specific part of a wrapped error
// message ("Get \"x\": dial tcp 1.2.3.4:80: connect: connection refused"
// becomes "connection refused").
func lastPart(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		s = s[i+2:]
	}
	return strings.TrimSpace(s)
}

// StatusError is the error for a result with an HTTP error status (4xx or
// 5xx), nil otherwise; callers that render pages elsewhere (the browser)
// report statuses the same way.
func StatusError(res *extract.Result) error {
	if res.Status < 400 {
		return nil
	}
	msg := fmt.Sprintf("%s answered %d %s", res.FinalURL, res.Status, http.StatusText(res.Status))
	return &extract.Error{Kind: ErrHTTPStatus, URL: res.URL, Status: res.Status, Msg: msg, Transient: transient(ErrHTTPStatus, res.Status, nil)}
}
