package fetch

import (
	"errors"
	"fmt"

	"github.com/browseragent/browseragent/extract"
)

// Sentinel errors, one per kind of failure a caller may want to tell apart
// with errors.Is. Every error of the HTTP client is an *extract.Error (the
// one error type of a page, fetched or extracted) that wraps one of them,
// or one of extract's when the page cannot be extracted; its message is
// already one sentence fit for a person or a model.
var (
	ErrBadURL           = errors.New("malformed URL")
	ErrUnreachable      = errors.New("host unreachable")
	ErrTLS              = errors.New("TLS failure")
	ErrTimeout          = errors.New("timeout")
	ErrHTTPStatus       = errors.New("HTTP error status")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrRedirectLoop     = errors.New("redirect loop")
	ErrRedirectRefused  = errors.New("redirect refused")
	errAddressRefused   = errors.New("address refused")
	ErrBody             = errors.New("cannot read body")
)

// transient reports whether a failure of this kind may pass if tried
// again: the server asked to slow down (429), failed (5xx), or the
// connection did not hold (a body cut off, a connection reset or closed
// before the answer).
func transient(kind error, status int, cause error) bool {
	switch kind {
	case ErrHTTPStatus:
		return status == 429 || status >= 500
	case ErrBody:
		return true
	case ErrUnreachable:
		return droppedConn(cause) // reset or closed unanswered; not refused, not unresolvable
	}
	return false
}

func newError(kind error, url string, cause error, format string, args ...any) *extract.Error {
	return &extract.Error{Kind: kind, URL: url, Msg: fmt.Sprintf(format, args...), Err: cause, Transient: transient(kind, 0, cause)}
}
