// Package netcheck judges an HTTP request at the connection it goes out on,
// for the two places that send requests for someone else: web_fetch's
// client and the isolated browser's proxy.
package netcheck

import (
	"net/http"
	"net/http/httptrace"
	"sync"
)

// RoundTrip sends req through base and judges the connection it goes out
// on, new or kept alive, with check(remote address) before a byte of the
// request is written (httptrace's GotConn comes first): a refused
// connection is closed unwritten and check's error is returned. A
// connection has an address but no path, so a rule with paths can be
// judged only here, where the request's URL is known too.
func RoundTrip(base http.RoundTripper, req *http.Request, check func(address string) error) (*http.Response, error) {
	var mu sync.Mutex
	var refused error
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if err := check(info.Conn.RemoteAddr().String()); err != nil {
			mu.Lock()
			refused = err
			mu.Unlock()
			info.Conn.Close()
		}
	}}
	resp, err := base.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	mu.Lock()
	defer mu.Unlock()
	if refused != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, refused
	}
	return resp, err
}
