package browser

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/browseragent/browseragent/internal/netcheck"
)

// DialControl judges the address a connection is about to be made to, once
// DNS has answered (guard.Policy.DialControl): an error refuses it.
type DialControl func(ctx context.Context, network, address string, c syscall.RawConn) error

// RequestControl judges one request at the connection it goes out on: the
// connection's resolved "ip:port" and the request's URL (guard.Rules'
// CheckRequest); an error refuses it before a byte of it is written.
type RequestControl func(address string, u *url.URL) error

// dialProxy is the isolated browser's one way out: an HTTP proxy on
// loopback that makes every connection the browser asks for (pages,
// subresources, a script's fetch, WebSockets) itself, judging the resolved
// address first. So a name that resolves, or re-resolves, to a cloud
// metadata address is refused at the socket, as it is for web_fetch,
// whatever asked for it.
type dialProxy struct {
	ln      net.Listener
	srv     *http.Server
	dialer  *net.Dialer
	tr      *http.Transport
	forward *httputil.ReverseProxy
	check   RequestControl // nil: requests are not judged, only connections

	mu    sync.Mutex
	conns map[net.Conn]struct{} // tunnels, closed with the proxy
}

// startDialProxy listens on 127.0.0.1 and serves until close.
func startDialProxy(control DialControl, check RequestControl) (*dialProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("browser proxy: %w", err)
	}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, ControlContext: control}
	p := &dialProxy{ln: ln, dialer: d, check: check, conns: map[net.Conn]struct{}{}}
	p.tr = &http.Transport{
		Proxy: nil, DialContext: d.DialContext, ForceAttemptHTTP2: false,
		MaxIdleConnsPerHost: 8, IdleConnTimeout: 30 * time.Second, ResponseHeaderTimeout: 0,
		DisableCompression: true, // the browser asked for its own encodings; pass them through
	}
	// Plain http requests (absolute URLs) go on as the browser sent them:
	// hop-by-hop headers dropped, nothing added (Rewrite drops the
	// Forwarded headers, so the page's own are put back), each chunk
	// flushed at once (event streams).
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Host = pr.In.Host
			for k, v := range pr.In.Header {
				if k == "Forwarded" || strings.HasPrefix(k, "X-Forwarded-") {
					pr.Out.Header[k] = v
				}
			}
		},
		Transport:     checkedTransport{p.tr, check},
		FlushInterval: -1,
		ErrorHandler:  func(w http.ResponseWriter, r *http.Request, err error) { refuse(w, r.Host, err) },
		ErrorLog:      log.New(io.Discard, "", 0), // a body cut short is the browser's to see, not a line on the terminal
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// addr is the proxy's host:port for --proxy-server.
func (p *dialProxy) addr() string { return p.ln.Addr().String() }

// close stops the proxy and every tunnel through it.
func (p *dialProxy) close() {
	p.srv.Close()
	p.tr.CloseIdleConnections()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
}

func (p *dialProxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
}

func (p *dialProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "browseragent's browser proxy serves the browser only", http.StatusBadRequest)
		return
	}
	p.forward.ServeHTTP(w, r)
}

// tunnel is CONNECT: https pages and every WebSocket.
func (p *dialProxy) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := p.dialer.DialContext(r.Context(), "tcp", r.Host)
	if err != nil {
		refuse(w, r.Host, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "no tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	p.track(up, true)
	p.track(down, true)
	defer func() {
		p.track(up, false)
		p.track(down, false)
		up.Close()
		down.Close()
	}()
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	if err := p.checkTunnel(buf.Reader, up.RemoteAddr().String(), r.Host); err != nil {
		refuseTunnel(down, r.Host, err)
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		if n := buf.Reader.Buffered(); n > 0 {
			b, _ := buf.Reader.Peek(n)
			up.Write(b)
		}
		io.Copy(up, down)
		if tc, ok := up.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() {
		io.Copy(down, up)
		if tc, ok := down.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		done <- struct{}{}
	}()
	<-done
	<-done
}

// refuse answers a connection that was not made: 403 with the guard's
// reason when it refused the address, 502 when the site could not be
// reached.
func refuse(w http.ResponseWriter, host string, err error) {
	var op *net.OpError
	msg := err.Error()
	if errors.As(err, &op) && op.Op == "dial" && op.Err != nil {
		msg = op.Err.Error()
	}
	code := http.StatusBadGateway
	if strings.Contains(msg, "refused by rule") || strings.Contains(msg, "denied") {
		code = http.StatusForbidden
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintf(w, "browseragent did not connect to %s: %s\n", host, msg)
}

// checkedTransport asks check about each request once the transport has
// picked the connection for it (httptrace's GotConn comes before the
// request is written): a refused request has its connection closed
// unwritten, and fails with check's error.
type checkedTransport struct {
	base  http.RoundTripper
	check RequestControl
}

func (t checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.check == nil {
		return t.base.RoundTrip(req)
	}
	return netcheck.RoundTrip(t.base, req, func(addr string) error { return t.check(addr, req.URL) })
}

// checkTunnel judges what the browser sends first through a CONNECT
// tunnel to address before any of it goes on. TLS (wss:, https:) is
// encrypted and only its connection was judged; anything else is a ws://
// upgrade (Chromium tunnels WebSockets, and sends plain http requests to
// the proxy as they are), judged by its request line's path.
func (p *dialProxy) checkTunnel(br *bufio.Reader, address, host string) error {
	if p.check == nil {
		return nil
	}
	first, err := br.Peek(1)
	if err != nil || first[0] == 0x16 { // a TLS handshake record
		return nil
	}
	line, err := peekLine(br)
	if err != nil {
		return fmt.Errorf("the request through the tunnel to %s cannot be read: %w", host, err)
	}
	_, target, _ := strings.Cut(line, " ")
	target, _, _ = strings.Cut(target, " ")
	if !strings.HasPrefix(target, "/") {
		return fmt.Errorf("the request through the tunnel to %s is not a WebSocket upgrade", host)
	}
	u, err := url.Parse("ws://" + host + target)
	if err != nil {
		return fmt.Errorf("the request through the tunnel to %s: %w", host, err)
	}
	return p.check(address, u)
}

// peekLine returns the first line br holds, without consuming it.
func peekLine(br *bufio.Reader) (string, error) {
	for n := 1; n <= br.Size(); n++ {
		b, err := br.Peek(n)
		if err != nil {
			return "", err
		}
		if b[n-1] == '\n' {
			return strings.TrimRight(string(b), "\r\n"), nil
		}
	}
	return "", errors.New("its first line is too long")
}

// refuseTunnel answers a refused request inside a tunnel, as refuse does
// outside one.
func refuseTunnel(down net.Conn, host string, err error) {
	msg := fmt.Sprintf("browseragent did not connect to %s: %s\n", host, err)
	fmt.Fprintf(down, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(msg), msg)
}
