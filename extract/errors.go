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
	ErrParse       = errors.New("cannot parse the HTML")
)

// Error is a failure of Extract. Msg is one sentence without a trailing
// period; Kind is one of the sentinel errors above and Err the underlying
// cause, if any.
type Error struct {
	Kind error
	URL  string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is match both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

func newError(kind error, url string, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, URL: url, Msg: fmt.Sprintf(format, args...), Err: cause}
}
