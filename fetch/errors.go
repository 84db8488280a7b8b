package fetch

import (
	"errors"
	"fmt"
)

// Sentinel errors, one per kind of failure a caller may want to tell apart
// with errors.Is. Every error of the HTTP client is an *Error that wraps
// one of them, or one of extract's when the page cannot be extracted; its
// message is already one sentence fit for a person or a model.
var (
	ErrBadURL           = errors.New("malformed URL")
	ErrUnreachable      = errors.New("host unreachable")
	ErrTLS              = errors.New("TLS failure")
	ErrTimeout          = errors.New("timeout")
	ErrHTTPStatus       = errors.New("HTTP error status")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrRedirectLoop     = errors.New("redirect loop")
	ErrRedirectRefused  = errors.New("redirect refused")
	ErrAddressRefused   = errors.New("address refused")
	ErrBody             = errors.New("cannot read body")
)

// Error is a failure of Fetch. Msg is one sentence without a
// trailing period; Kind is one of the sentinel errors above and Err the
// underlying cause, if any.
type Error struct {
	Kind   error
	URL    string
	Status int // HTTP status, when the server answered
	Msg    string
	Err    error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is match both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Retryable reports whether the failure may pass if tried again: the
// server asked to slow down (429), failed (5xx), or the connection did not
// hold (a body cut off, a connection reset or closed before the answer).
func (e *Error) Retryable() bool {
	switch e.Kind {
	case ErrHTTPStatus:
		return e.Status == 429 || e.Status >= 500
	case ErrBody:
		return true
	case ErrUnreachable:
		return droppedConn(e.Err) // reset or closed unanswered; not refused, not unresolvable
	}
	return false
}

func newError(kind error, url string, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, URL: url, Msg: fmt.Sprintf(format, args...), Err: cause}
}
