// Package words turns what Go and the tools say into sentences for people.
// A tool's failure is worded twice: for the model (tool names, "do not
// retry") and for the person at the terminal (shell commands, plain
// sentences). The shell and the subcommands print Error(err) and Text(s),
// never err.Error() of a tool call, so no "context canceled", "dial tcp" or
// "strconv.ParseInt" reaches a person. It imports nothing of ours.
package words

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Both is an error worded twice: Error() for the model and the logs,
// ForPerson() for the terminal.
type Both struct {
	Err    error  // the model's wording (and what errors.Is sees)
	Person string // the person's wording
}

func (e *Both) Error() string { return e.Err.Error() }
func (e *Both) Unwrap() error { return e.Err }

// ForPerson is the person's wording.
func (e *Both) ForPerson() string { return e.Person }

// Personal is an error that has a person's wording beside Error(); a
// package that may not import this one (guard) declares such an error of
// its own.
type Personal interface {
	error
	ForPerson() string
}

// New returns an error that reads model to the model and person to a
// person.
func New(model, person string) error {
	return &Both{Err: errors.New(model), Person: person}
}

// Wrap gives err a person's wording; nil stays nil.
func Wrap(err error, person string) error {
	if err == nil {
		return nil
	}
	return &Both{Err: err, Person: person}
}

// Error is err as a person reads it: every part of its chain that Go or a
// tool worded for programs (a cancelled context, a dial error, a number
// that did not parse, a JSON type mismatch, a model-facing message with a
// person's wording) is replaced by a plain sentence; the rest stays.
func Error(err error) string {
	if err == nil {
		return ""
	}
	return Text(rewrite(err.Error(), err))
}

// rewrite replaces, in msg, the text of each error of err's chain that has
// a person's wording. The outermost such error wins: its wording already
// covers what it wraps.
func rewrite(msg string, err error) string {
	if err == nil {
		return msg
	}
	if p, ok := person(err); ok {
		if inner := err.Error(); inner != "" && strings.Contains(msg, inner) {
			return strings.Replace(msg, inner, p, 1)
		}
		if msg == err.Error() {
			return p
		}
	}
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			msg = rewrite(msg, e)
		}
		return msg
	case interface{ Unwrap() error }:
		return rewrite(msg, u.Unwrap())
	}
	return msg
}

// person is the person's wording of one error, when it has one.
func person(err error) (string, bool) {
	var (
		both Personal
		ue   *url.Error
		oe   *net.OpError
		de   *net.DNSError
		ne   *strconv.NumError
		te   *json.UnmarshalTypeError
		se   *json.SyntaxError
	)
	switch {
	case err == context.Canceled:
		return "stopped", true
	case err == context.DeadlineExceeded:
		return "timed out", true
	case asOnly(err, &both):
		return both.ForPerson(), true
	case asOnly(err, &ue):
		if p, ok := person(ue.Err); ok {
			return p, true
		}
		if ue.Timeout() {
			return "timed out waiting for " + hostOf(ue.URL), true
		}
		return Error(ue.Err), true
	case asOnly(err, &oe):
		return opError(oe), true
	case asOnly(err, &de):
		if de.IsNotFound {
			return "no such host: " + de.Name, true
		}
		return fmt.Sprintf("could not look up %s (%s)", de.Name, de.Err), true
	case asOnly(err, &ne):
		if errors.Is(ne.Err, strconv.ErrRange) {
			return fmt.Sprintf("%q is too big a number", ne.Num), true
		}
		return fmt.Sprintf("%q is not a number", ne.Num), true
	case asOnly(err, &te):
		return typeError(te.Field, te.Value, te.Type.Kind().String()), true
	case asOnly(err, &se):
		return fmt.Sprintf("not valid JSON (at character %d)", se.Offset), true
	}
	return "", false
}

// asOnly is errors.As for err itself, not its chain: rewrite walks the
// chain.
func asOnly[T error](err error, target *T) bool {
	t, ok := err.(T)
	if ok {
		*target = t
	}
	return ok
}

func opError(e *net.OpError) string {
	where := ""
	if e.Addr != nil {
		where = " " + e.Addr.String()
	}
	why := "failed"
	switch {
	case errors.Is(e, syscall.ECONNREFUSED):
		why = "connection refused (nothing is listening there)"
	case errors.Is(e, syscall.ECONNRESET):
		why = "the connection was reset"
	case errors.Is(e, syscall.EHOSTUNREACH), errors.Is(e, syscall.ENETUNREACH):
		why = "no route to it"
	case e.Timeout():
		why = "timed out"
	case e.Err != nil:
		why = Error(e.Err)
	}
	if e.Op == "dial" {
		return "could not connect to" + where + ": " + why
	}
	return "the connection to" + where + " failed: " + why
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

// typeError says which field wanted which kind of value.
func typeError(field, got, kind string) string {
	want := kind
	switch {
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"), strings.HasPrefix(kind, "float"):
		want = "a number"
	case kind == "bool":
		want = "true or false"
	case kind == "string":
		want = "text"
	case kind == "slice" || kind == "array":
		want = "a list"
	case kind == "map" || kind == "struct":
		want = "an object"
	}
	if got == "string" {
		got = "text"
	}
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		field = field[i+1:]
	}
	if field == "" {
		return fmt.Sprintf("expected %s, not %s", want, got)
	}
	return fmt.Sprintf("%s must be %s, not %s", field, want, got)
}

// Go's wordings, as they appear in text whose error chain is gone (a
// message formatted with %v, a tool's text quoting a Go error).
var (
	reParse = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`strconv\.Parse(Int|Uint|Float|Bool|Complex): parsing ("(?:[^"\\]|\\.)*"): (?:invalid syntax|value out of range)`)
	})
	reRequest = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:Get|Post|Put|Head|Delete|Patch) "[^"]*": `)
	})
	reDial = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`dial (?:tcp|tcp4|tcp6|udp|unix) ([^ :]*(?::\d+)?|\[[^\]]*\]:\d+): (?:connect: )?([a-z][a-z ]*[a-z])`)
	})
	reLookup = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`dial tcp: lookup ([^ :]+)(?: on [^ ]+)?: no such host`)
	})
	reJSONType = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`json: cannot unmarshal (\w+) into Go (?:struct field (?:\w+\.)*(\w+)|value) of type \*?\[?\]?(\w+)`)
	})
)

// Text is s as a person reads it: Go's own wordings left in a message (a
// number that did not parse, "Get "URL": dial tcp …", a JSON type
// mismatch, a cancelled context) become plain sentences.
func Text(s string) string {
	if !strings.ContainsAny(s, ":") {
		return s
	}
	s = reParse().ReplaceAllStringFunc(s, func(m string) string {
		sub := reParse().FindStringSubmatch(m)
		if sub[1] == "Bool" {
			return sub[2] + " is not true or false"
		}
		return sub[2] + " is not a number"
	})
	s = reLookup().ReplaceAllString(s, "no such host: $1")
	s = reRequest().ReplaceAllString(s, "")
	s = reDial().ReplaceAllStringFunc(s, func(m string) string {
		sub := reDial().FindStringSubmatch(m)
		why := sub[2]
		if why == "connection refused" {
			why += " (nothing is listening there)"
		}
		return "could not connect to " + sub[1] + ": " + why
	})
	s = reJSONType().ReplaceAllStringFunc(s, func(m string) string {
		sub := reJSONType().FindStringSubmatch(m)
		return typeError(sub[2], sub[1], kindOf(sub[3]))
	})
	s = strings.ReplaceAll(s, "context deadline exceeded", "timed out")
	s = strings.ReplaceAll(s, "context canceled", "stopped")
	return s
}

func kindOf(goType string) string {
	switch goType {
	case "int", "int64", "int32", "uint", "uint64", "float64", "float32", "bool", "string":
		return goType
	}
	return "struct"
}
