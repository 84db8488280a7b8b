package guard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRedactBody(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"user=alice&password=hunter2%21", "user=alice&password=[redacted]"},
		{"### Request Body\nuser=alice&pass=x&remember=on", "### Request Body\nuser=alice&pass=[redacted]&remember=on"},
		{"/cb?code=abc&state=xyz", "/cb?code=abc&state=xyz"}, // RedactURL handles addresses
		{`{"refresh_token":"r3f","client":"web"}`, `{"refresh_token":"[redacted]","client":"web"}`},
		{`{"access_token": "a\"b", "expires_in": 3600}`, `{"access_token": "[redacted]", "expires_in": 3600}`},
		{`{"user": {"password": "p", "name": "Ada"}}`, `{"user": {"password": "[redacted]", "name": "Ada"}}`},
		{`{"client_secret":"s","scope":"mail"}`, `{"client_secret":"[redacted]","scope":"mail"}`},
		{"password=", "password="},
		{"a plain sentence = fine", "a plain sentence = fine"},
		{"Authorization: Bearer abcdefghijklmnop", "Authorization: [redacted]"},
	} {
		if diff := cmp.Diff(tc.want, RedactBody(tc.in)); diff != "" {
			t.Errorf("RedactBody(%q) (-want +got)\n%s", tc.in, diff)
		}
	}
}
