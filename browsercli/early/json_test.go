package early

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeJSONAsEncodingJSON: early's reader gives what encoding/json
// gives for the daemon's messages (integers, strings with every escape,
// characters beyond the BMP as surrogate pairs, nesting), and refuses what
// is no JSON; what quote writes reads back as the string it was.
func TestDecodeJSONAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"type":"done","done":{"exit":6,"error":"ref e9 \"gone\"","data":{"a":[1,true,null,{"b":"c"}],"n":-3}}}`,
		`"tab\there\nnew \\ slash \/ \b\f\r é \u00e9 \u2028 \ud83c\udf75 ☕"`,
		`"lone \ud83c and \udf75"`,
		` [ ] `, `{}`, `0`, `-12`, `"\u0000"`,
	} {
		var want any
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got, err := decodeJSON(in)
		if err != nil {
			t.Errorf("decodeJSON(%s): %v", in, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("decodeJSON(%s) (-encoding/json +early):\n%s", in, diff)
		}
	}
	for _, bad := range []string{`{"a":}`, `{"a":1,}`, `[1 2]`, `"open`, `"\x"`, `"\u12"`, `tru`, `{"a":1} x`, "\"a\nb\""} {
		if v, err := decodeJSON(bad); err == nil {
			t.Errorf("decodeJSON(%q) = %v, no error", bad, v)
		}
	}
	for _, s := range []string{"", "plain", "a\"b\\c\nd\te\x01\x1f é ☕ \U0001F375", "\xff\xfe"} {
		var back string
		if err := json.Unmarshal(quote(nil, s), &back); err != nil {
			t.Errorf("quote(%q) = %s: %v", s, quote(nil, s), err)
			continue
		}
		var want string
		b, _ := json.Marshal(s)
		json.Unmarshal(b, &want)
		if back != want {
			t.Errorf("quote(%q) reads back as %q, encoding/json's as %q", s, back, want)
		}
	}
}
