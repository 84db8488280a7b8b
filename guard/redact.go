package guard

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// redacted replaces every secret the audit log would otherwise keep.
const redacted = "[redacted]"

// secretKey matches argument, header and query names whose values are
// secrets: passwords, tokens, cookies, keys, one-time codes, card data.
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)pass(word|wd|phrase|code)|(^|[-_])pass($|[-_])|pwd|secret|token|auth($|[-_]|ori[sz]ation|entication)|cookie|session|api[-_]?key|credential|private[-_]?key|otp|cvv|cvc|card[-_]?number|\bpin\b|signature|sig$`)
})

// secretText matches secrets inside free text: bearer and basic
// credentials, JWTs, and well-known key formats.
var secretText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[a-z0-9._~+/=-]{8,}|\beyJ[a-zA-Z0-9_-]{5,}\.[a-zA-Z0-9_-]{5,}\.[a-zA-Z0-9_-]*|\b(sk|pk|rk)[-_](live|test|proj)?[-_]?[a-zA-Z0-9]{16,}|\bgh[pousr]_[a-zA-Z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abpr]-[a-zA-Z0-9-]{10,}`)
})

// typedKeys are the arguments that carry what is typed into a field; they
// are redacted when the caller says the field is a password field.
var typedKeys = map[string]bool{"text": true, "value": true, "values": true, "keys": true, "key": true, "elements": true, "input": true}

// RedactArgs returns a copy of args with secret values replaced. Values
// under secret-like names are always redacted (at any depth, so headers
// maps lose Authorization and Cookie); with secret set, every typed value
// (text, value, elements...) is redacted as well. Strings that look like
// credentials are redacted wherever they are, and long strings are clipped
// (for the audit log; see RedactArgsWhole).
func RedactArgs(args map[string]any, secret bool) map[string]any {
	return redactArgs(args, secret, 2000)
}

// RedactArgsWhole is RedactArgs without clipping: what the person approves
// is every character that runs, with only its secrets masked.
func RedactArgsWhole(args map[string]any, secret bool) map[string]any {
	return redactArgs(args, secret, -1)
}

func redactArgs(args map[string]any, secret bool, limit int) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = redactValue(k, v, secret, limit)
	}
	return out
}

func redactValue(key string, v any, secret bool, limit int) any {
	if secretKey().MatchString(key) || secret && typedKeys[key] {
		if v == nil {
			return nil
		}
		return redacted
	}
	switch t := v.(type) {
	case string:
		t = RedactText(redactURLsIn(t))
		if limit >= 0 {
			t = clip(t, limit)
		}
		return t
	case map[string]any:
		return redactArgs(t, secret, limit)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = redactValue(key, e, secret, limit)
		}
		return out
	}
	return v
}

// urlInText is a URL inside free text (a script, a message).
var urlInText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s'"<>()\[\]{}\x60]+`)
})

// redactURLsIn masks the secrets of every URL in s, leaving the rest of s
// as it was, byte for byte.
func redactURLsIn(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlInText().ReplaceAllStringFunc(s, RedactURL)
}

// bodyMember is a form field ("password=x", after a start, "&", "?" or
// white space) or a JSON string member ("password": "x") of a request or
// response body.
var (
	bodyForm = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[?&\s])([^=&\s]+)=([^&\s]*)`)
	})
	bodyJSON = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"(\s*:\s*)"(?:[^"\\]|\\.)*"`)
	})
)

// RedactBody replaces, in text showing request or response bodies, the
// values of form fields and JSON string members whose names say they are
// secrets (the names RedactArgs redacts: password, token, secret, ...),
// and credential-looking strings anywhere; every other character stays.
func RedactBody(text string) string {
	text = bodyForm().ReplaceAllStringFunc(text, func(m string) string {
		sub := bodyForm().FindStringSubmatch(m)
		name, err := url.QueryUnescape(sub[2])
		if err != nil {
			name = sub[2]
		}
		if !secretKey().MatchString(name) || sub[3] == "" {
			return m
		}
		return sub[1] + sub[2] + "=" + redacted
	})
	text = bodyJSON().ReplaceAllStringFunc(text, func(m string) string {
		sub := bodyJSON().FindStringSubmatch(m)
		if !secretKey().MatchString(sub[1]) {
			return m
		}
		return `"` + sub[1] + `"` + sub[2] + `"` + redacted + `"`
	})
	return RedactText(text)
}

// RedactText replaces credential-looking substrings of s.
func RedactText(s string) string {
	if s == "" {
		return s
	}
	return secretText().ReplaceAllString(s, redacted)
}

// RedactURL masks the userinfo password and the values of secret-like query
// parameters (and a fragment that holds a token) of raw, and leaves every
// other character as it was: nothing is re-encoded or reordered, so the
// person sees the address that loads.
func RedactURL(raw string) string {
	if raw == "" {
		return raw
	}
	s := raw
	if i := strings.Index(s, "://"); i > 0 {
		rest := s[i+3:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
				s = s[:i+3] + rest[:colon+1] + "redacted" + rest[at:]
			}
		}
	}
	base, frag, hasFrag := strings.Cut(s, "#")
	path, query, hasQuery := strings.Cut(base, "?")
	if hasQuery {
		parts := strings.Split(query, "&")
		for i, p := range parts {
			k, _, hasV := strings.Cut(p, "=")
			name, err := url.QueryUnescape(k)
			if err != nil {
				name = k
			}
			if hasV && (secretKey().MatchString(name) || name == "code" || name == "key") {
				parts[i] = k + "=redacted"
			}
		}
		base = path + "?" + strings.Join(parts, "&")
	}
	if hasFrag {
		if strings.Contains(frag, "token") {
			frag = "redacted"
		}
		base += "#" + frag
	}
	return RedactText(base)
}
