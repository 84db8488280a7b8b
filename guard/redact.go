package guard

import (
	"net/url"
	"regexp"
	"strings"
)

// Redacted replaces every secret the audit log would otherwise keep.
const Redacted = "[redacted]"

// secretKey matches argument, header and query names whose values are
// secrets: passwords, tokens, cookies, keys, one-time codes, card data.
var secretKey = regexp.MustCompile(`(?i)pass(word|wd|phrase|code)|(^|[-_])pass($|[-_])|pwd|secret|token|auth($|[-_]|ori[sz]ation|entication)|cookie|session|api[-_]?key|credential|private[-_]?key|otp|cvv|cvc|card[-_]?number|\bpin\b|signature|sig$`)

// secretText matches secrets inside free text: bearer and basic
// credentials, JWTs, and well-known key formats.
var secretText = regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[a-z0-9._~+/=-]{8,}|\beyJ[a-zA-Z0-9_-]{5,}\.[a-zA-Z0-9_-]{5,}\.[a-zA-Z0-9_-]*|\b(sk|pk|rk)[-_](live|test|proj)?[-_]?[a-zA-Z0-9]{16,}|\bgh[pousr]_[a-zA-Z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abpr]-[a-zA-Z0-9-]{10,}`)

// typedKeys are the arguments that carry what is typed into a field; they
// are redacted when the caller says the field is a password field.
var typedKeys = map[string]bool{"text": true, "value": true, "values": true, "keys": true, "key": true, "elements": true, "input": true}

// RedactArgs returns a copy of args with secret values replaced. Values
// under secret-like names are always redacted (at any depth, so headers
// maps lose Authorization and Cookie); with secret set, every typed value
// (text, value, elements...) is redacted as well. Strings that look like
// credentials are redacted wherever they are, and long strings are clipped.
func RedactArgs(args map[string]any, secret bool) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = redactValue(k, v, secret)
	}
	return out
}

func redactValue(key string, v any, secret bool) any {
	if secretKey.MatchString(key) || secret && typedKeys[key] {
		if v == nil {
			return nil
		}
		return Redacted
	}
	switch t := v.(type) {
	case string:
		if strings.Contains(t, "://") {
			t = RedactURL(t)
		}
		return clip(RedactText(t), 2000)
	case map[string]any:
		return RedactArgs(t, secret)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = redactValue(key, e, secret)
		}
		return out
	}
	return v
}

// RedactText replaces credential-looking substrings of s.
func RedactText(s string) string {
	if s == "" {
		return s
	}
	return secretText.ReplaceAllString(s, Redacted)
}

// RedactURL drops the userinfo password and the values of secret-like query
// parameters. Unparsable strings are returned with text redaction only.
func RedactURL(raw string) string {
	if raw == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return RedactText(raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "redacted")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k := range q {
			if secretKey.MatchString(k) || k == "code" || k == "key" {
				q[k] = []string{"redacted"}
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if strings.Contains(u.Fragment, "token") {
		u.Fragment = "redacted"
	}
	return RedactText(u.String())
}
