package early

import (
	"errors"
	"unicode/utf8"
)

// The socket's messages are JSON objects, one a line (wire.Message). early
// writes the one request it sends by hand and reads the daemon's answers
// with this small decoder: package encoding/json imports reflect and
// unicode, which Go initialises late.

var errJSON = errors.New("bad message from the session")

// decodeJSON reads one JSON value: objects as map[string]any, arrays as
// []any, numbers as float64, as encoding/json decodes into an any.
func decodeJSON(s string) (any, error) {
	d := decoder{s: s}
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(d.s) {
		return nil, errJSON
	}
	return v, nil
}

type decoder struct {
	s string
	i int
}

func (d *decoder) space() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\t' || d.s[d.i] == '\n' || d.s[d.i] == '\r') {
		d.i++
	}
}

func (d *decoder) value() (any, error) {
	d.space()
	if d.i >= len(d.s) {
		return nil, errJSON
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str()
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	case hasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return true, nil
	case hasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return false, nil
	case hasPrefix(d.s[d.i:], "null"):
		d.i += 4
		return nil, nil
	}
	return nil, errJSON
}

func (d *decoder) object() (any, error) {
	m := map[string]any{}
	d.i++ // {
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, errJSON
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, errJSON
		}
		d.i++
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.space()
		if d.i >= len(d.s) {
			return nil, errJSON
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, errJSON
		}
	}
}

func (d *decoder) array() (any, error) {
	a := []any{}
	d.i++ // [
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.s) {
			return nil, errJSON
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, errJSON
		}
	}
}

// number reads a JSON number; only integers (exit codes) are read exactly,
// which is all early looks at: others come back as 0.
func (d *decoder) number() (any, error) {
	start := d.i
	if d.s[d.i] == '-' {
		d.i++
	}
	n, exact := 0.0, true
	digits := 0
	for d.i < len(d.s) && '0' <= d.s[d.i] && d.s[d.i] <= '9' {
		n = n*10 + float64(d.s[d.i]-'0')
		d.i++
		digits++
	}
	for d.i < len(d.s) && (d.s[d.i] == '.' || d.s[d.i] == 'e' || d.s[d.i] == 'E' || d.s[d.i] == '+' || d.s[d.i] == '-' || '0' <= d.s[d.i] && d.s[d.i] <= '9') {
		d.i++
		exact = false
	}
	if digits == 0 {
		return nil, errJSON
	}
	if !exact {
		return 0.0, nil
	}
	if d.s[start] == '-' {
		n = -n
	}
	return n, nil
}

func (d *decoder) str() (string, error) {
	d.i++ // "
	var b []byte
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b), nil
		case c == '\\':
			if d.i+1 >= len(d.s) {
				return "", errJSON
			}
			e := d.s[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", errJSON
				}
				if 0xD800 <= r && r < 0xDC00 && hasPrefix(d.s[d.i:], `\u`) {
					// a surrogate pair: one character
					d.i += 2
					lo, ok := d.hex4()
					if !ok {
						return "", errJSON
					}
					if 0xDC00 <= lo && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					} else {
						b = utf8.AppendRune(b, utf8.RuneError)
						r = lo
					}
				}
				if 0xD800 <= r && r < 0xE000 {
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", errJSON
			}
		case c < 0x20:
			return "", errJSON
		case c < utf8.RuneSelf:
			b = append(b, c)
			d.i++
		default:
			r, size := utf8.DecodeRuneInString(d.s[d.i:])
			b = utf8.AppendRune(b, r) // invalid bytes as U+FFFD, as encoding/json
			d.i += size
		}
	}
	return "", errJSON
}

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(d.s[d.i : d.i+4]) {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	d.i += 4
	return r, true
}

// quote writes s as a JSON string: what encoding/json would read back as s
// (it escapes the quote, the backslash and control characters; other bytes
// go as they are).
func quote(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
