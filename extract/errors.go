package extract

import (
	"errors"
	"fmt"
)

// Sentinel errors, one per kind of failure a caller may want to tell apart
// with errors.Is. Every error Extract returns is an *Error that wraps one of
// them; its message is already one sentence fit for a person or a model.
var (
	ErrEmptyBody   = errors.New("empty body")
	ErrBadSelector = errors.New("invalid CSS selector")
	ErrNoMatch     = errors.New("selector matched nothing")
	errParse       = errors.New("cannot parse the HTML")
)

// Error is the one error type of getting a page's content: every failure of
// Extract, FromResponse and FromRendered, and every failure of fetch's HTTP
// client, is an *Error, so errors.As finds it whichever way the page came.
// Msg is one sentence without a trailing period; Kind is one of the
// sentinel errors above (or fetch's, for the request) and Err the
// underlying cause, if any.
type Error struct {
	Kind   error
	URL    string
	Status int // HTTP status, when the server answered
	Msg    string
	Err    error
	// Transient says the failure may pass if tried again (the server asked
	// to slow down or failed, the connection did not hold); whoever makes
	// the error says so.
	Transient bool
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is match both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Retryable reports Transient, for callers that ask any error whether it
// may pass if tried again (batch's retries).
func (e *Error) Retryable() bool { return e.Transient }

func newError(kind error, url string, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, URL: url, Msg: fmt.Sprintf(format, args...), Err: cause}
}
