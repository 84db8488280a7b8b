package extract

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// sniffLen is how much of a body the meta scan and the detector look at.
const sniffLen = 64 << 10

var metaCharset = lazyRegexp(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_.:-]+)`)

// toUTF8 decodes an HTML or text body to UTF-8. The charset comes, in
// order, from a byte-order mark, the Content-Type header, a <meta> tag in the
// first 64 KiB, or — when none says and the bytes are not UTF-8 — from
// statistical sniffing. It returns the charset name used and a warning when
// bytes had to be replaced.
func toUTF8(body []byte, contentType string, isHTML bool) (out []byte, name, warning string) {
	enc, name := declaredEncoding(body, contentType, isHTML)
	if name == "windows-1252" && hasHighBit(body) && utf8.Valid(body) ||
		enc != nil && name != "utf-8" && !strings.HasPrefix(name, "utf-16") && multiByteRunes(body) >= legacyUTF8Runes && utf8.Valid(body) {
		// Servers often label UTF-8 pages ISO-8859-1 (which means
		// windows-1252); Latin-1 text almost never forms valid multi-byte
		// UTF-8, so the bytes win over the label. The same holds for any
		// other legacy label (a page saved as UTF-8 that still says
		// gb2312 or Shift_JIS in its <meta>) once there are a few dozen
		// multi-byte sequences: GBK or Shift_JIS text forms valid UTF-8
		// by chance only in a handful of characters.
		return body, "utf-8", "the page is labelled " + name + " but its bytes are UTF-8; read as UTF-8"
	}
	if enc == nil || name == "utf-8" {
		if utf8.Valid(body) {
			return body, "utf-8", ""
		}
		// Declared UTF-8 (or nothing) but it is not: trust a confident sniff.
		if e, n := sniff(body, isHTML, name == "utf-8"); e != nil {
			enc, name = e, n
		}
	}
	if enc == nil || name == "utf-8" {
		bad := countInvalid(body)
		out = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		return out, "utf-8", plural(bad, "byte") + " of invalid UTF-8 replaced with U+FFFD"
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		out = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		return out, "utf-8", "could not decode as " + name + "; invalid bytes replaced with U+FFFD"
	}
	return out, name, ""
}

// declaredEncoding returns what the page says about itself, or nil.
func declaredEncoding(body []byte, contentType string, isHTML bool) (encoding.Encoding, string) {
	head := body
	if len(head) > 1024 {
		head = head[:1024]
	}
	// DetermineEncoding is certain only for a BOM or a header charset.
	if e, n, certain := charset.DetermineEncoding(head, contentType); certain {
		return e, canonical(n)
	}
	if !isHTML {
		return nil, ""
	}
	scan := body
	if len(scan) > sniffLen {
		scan = scan[:sniffLen]
	}
	if m := metaCharset().FindSubmatch(scan); m != nil {
		if e, n := charset.Lookup(string(m[1])); e != nil {
			return e, canonical(n)
		}
	}
	return nil, ""
}

// sniff guesses the charset of bytes that declare none. When the page
// claimed UTF-8 it must be very sure before overriding that claim.
func sniff(body []byte, isHTML, claimedUTF8 bool) (encoding.Encoding, string) {
	sample := body
	if len(sample) > sniffLen {
		sample = sample[:sniffLen]
	}
	d := chardet.NewTextDetector()
	if isHTML {
		d = chardet.NewHtmlDetector()
	}
	res, err := d.DetectBest(sample)
	if err != nil || res == nil {
		return nil, ""
	}
	min := 10
	if claimedUTF8 {
		min = 60
	}
	if res.Confidence < min || strings.EqualFold(res.Charset, "UTF-8") {
		return nil, ""
	}
	e, n := charset.Lookup(res.Charset)
	if e == nil {
		return nil, ""
	}
	return e, canonical(n)
}

func canonical(name string) string {
	n := strings.ToLower(name)
	if n == "utf8" {
		return "utf-8"
	}
	return n
}

func countInvalid(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			n++
		}
		b = b[size:]
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// legacyUTF8Runes is how many multi-byte UTF-8 sequences a page labelled
// with a legacy charset other than windows-1252 must hold to be read as
// the UTF-8 its bytes are.
const legacyUTF8Runes = 32

// multiByteRunes counts the multi-byte UTF-8 sequences in b (up to
// legacyUTF8Runes: the count only has to reach it).
func multiByteRunes(b []byte) int {
	n := 0
	for i := 0; i < len(b) && n < legacyUTF8Runes; {
		if b[i] < 0x80 {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return 0
		}
		n++
		i += size
	}
	return n
}

func hasHighBit(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}
