package guard

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"syscall"
)

// errAddressDenied is wrapped by the error CheckAddress and DialControl
// return for an address a deny rule names.
var errAddressDenied = errors.New("address denied by a sensitive-site rule")

// DialControl is a net.Dialer ControlContext hook: it runs once the name has
// been resolved, on the address the socket is about to connect to, and
// refuses it (before any byte is sent) when a deny rule names that address.
// So a DNS name that resolves to a cloud metadata address is refused though
// the name itself matches no rule, on the first request and on every
// redirect.
func (p *Policy) DialControl(_ context.Context, _, address string, _ syscall.RawConn) error {
	return p.Rules().checkAddress(address)
}

// checkAddress judges a resolved "ip:port" by the deny rules that name that
// address (every spelling of loopback is one address, as in Match). Rules
// with paths are not applied: a connection has no path yet; rules for names
// and wildcards are judged on the URL before the connection. An address
// that does not parse is refused.
func (rs *Rules) checkAddress(address string) error {
	r, err := rs.addressRule(address)
	if r != nil {
		return addressRefused(address, r)
	}
	return err
}

// addressRefused is the error for what, refused by the deny rule r.
func addressRefused(what string, r *Rule) error {
	where := r.Where()
	if r.Category != "" {
		where = r.Category + ", " + where
	}
	return fmt.Errorf("%w: %s is refused by rule %q (%s)%s", errAddressDenied, what, r.Name, where, noteSuffix(r.Note))
}

// addrHost is ap's address as a rule's host is written: IPv4 for a mapped
// IPv6 address, no zone, IPv6 in brackets.
func addrHost(ap netip.AddrPort) string {
	a := ap.Addr().Unmap().WithZone("")
	if a.Is6() {
		return "[" + a.String() + "]"
	}
	return a.String()
}

// addressRule is the deny rule naming the resolved "ip:port" address, or
// nil; the error is for an address that does not parse.
func (rs *Rules) addressRule(address string) (*Rule, error) {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil, fmt.Errorf("%w: %q is not an ip:port", errAddressDenied, address)
	}
	if rs == nil {
		return nil, nil
	}
	key := hostKey(addrHost(ap))
	port := fmt.Sprint(ap.Port())
	for _, cands := range [][]*Rule{rs.exact[key], rs.exact[key+":"+port]} {
		for _, r := range cands {
			if r.Action == ActionDeny && len(r.patterns) == 0 && r.network() {
				return r, nil
			}
		}
	}
	return nil, nil
}

// CheckRequest judges a request at the connection it goes out on: the
// resolved "ip:port" with the request's scheme and path, so a deny rule
// naming an address with paths (127.0.0.1:8080 under /admin) holds for
// every name of that address too. An address that is not ip:port (a
// proxy's socket) is left to DialControl.
func (rs *Rules) CheckRequest(address, scheme, path string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || rs == nil {
		return nil
	}
	if path == "" {
		path = "/"
	}
	u, err := Normalize(scheme + "://" + addrHost(ap) + ":" + fmt.Sprint(ap.Port()) + path)
	if err != nil {
		return nil
	}
	if r := rs.Match(u); r != nil && r.Action == ActionDeny && r.network() {
		return addressRefused(u.String(), r)
	}
	return nil
}

// CheckPageRequest judges a request a browser's page sends by itself (a
// script's fetch, an image, a frame, a WebSocket upgrade) at the
// connection it goes out on: the deny rules matching its URL as named —
// nothing else judges a page's own requests — and those naming the
// resolved address (CheckRequest). Ask rules do not apply: nobody is there
// to be asked about a page's requests.
func (rs *Rules) CheckPageRequest(address string, u *url.URL) error {
	if n, err := Normalize(u.String()); err == nil {
		if r := rs.Match(n); r != nil && r.Action == ActionDeny && r.network() {
			return addressRefused(n.String(), r)
		}
	}
	return rs.CheckRequest(address, u.Scheme, u.EscapedPath())
}

// network reports whether r applies to connections web_fetch makes.
func (r *Rule) network() bool {
	for _, s := range r.Schemes {
		switch s {
		case "http", "https", "ws", "wss":
			return true
		}
	}
	return false
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return ": " + note
}
