package guard

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	cases := []struct {
		in   string
		want string // URL.String(), or "error"
	}{
		{"https://Example.COM", "https://example.com/"},
		{"https://example.com:443/a", "https://example.com/a"},
		{"http://example.com:80/", "http://example.com/"},
		{"http://example.com:443/", "http://example.com:443/"},
		{"https://example.com:00443/", "https://example.com/"},
		{"https://user:pw@example.com/", "https://example.com/"},
		{"https://example.com.../x", "https://example.com/x"},
		{"https://bücher.example/", "https://xn--bcher-kva.example/"},
		{"https://XN--BCHER-KVA.example/", "https://xn--bcher-kva.example/"},
		{"https://ｅｘａｍｐｌｅ．ｃｏｍ/", "https://example.com/"},
		{"https://exa%6Dple.com/", "https://example.com/"},
		{"https://example.com/a/./b/../c//d/", "https://example.com/a/c/d/"},
		{"https://example.com/%2e%2e/%2E/x", "https://example.com/x"},
		{"https://example.com/a%2Fb", "https://example.com/a/b"},
		{"https://example.com/..", "https://example.com/"},
		{"https://example.com/a?q=1#f", "https://example.com/a"},
		{"https://example.com", "https://example.com/"},
		{"  https://example.com/ \n", "https://example.com/"},
		{"ht\ttps://exa\nmple.com/", "https://example.com/"},
		{`https:\\example.com\a\b`, "https://example.com/a/b"},
		{"https:example.com", "https://example.com/"},
		{"HTTPS:////example.com", "https://example.com/"},
		{"example.com/path", "https://example.com/path"},
		{"localhost:8080/x", "http://localhost:8080/x"}, // as LoadURL: what the browser loads
		{"http://2130706433/", "http://127.0.0.1/"},
		{"http://0x7f.1/", "http://127.0.0.1/"},
		{"http://0177.0.0.01/", "http://127.0.0.1/"},
		{"http://127.1/", "http://127.0.0.1/"},
		{"http://0x7F000001/", "http://127.0.0.1/"},
		{"http://127.0.0.1./", "http://127.0.0.1/"},
		{"http://[::1]:8080/", "http://[::1]:8080/"},
		{"http://[0:0:0:0:0:0:0:1]/", "http://[::1]/"},
		{"http://[::ffff:127.0.0.1]/", "http://127.0.0.1/"},
		{"http://256.0.0.1/", "error"},
		{"http://1.2.3.4.5/", "error"},
		{"http://0x100000000/", "error"},
		{"http://[::1/", "error"},
		{"http://[fe80::1%25eth0]/", "error"},
		{"https://example.com:99999/", "error"},
		{"https://example.com:8x/", "error"},
		{"https:///", "error"},
		{"https://exa mple.com/", "error"},
		{"https://a%40b.com/", "error"},
		{"/relative/path", "error"},
		{"//example.com/", "error"},
		{"", "error"},
		{"javascript:alert(1)", "javascript:"},
		{"JAVASCRIPT:alert(1)", "javascript:"},
		{"data:text/html,<b>x</b>", "data:"},
		{"about:blank", "about:"},
		{"mailto:a@b.c", "mailto:"},
		{"blob:https://Example.com/uuid", "blob:https://example.com/uuid"},
		{"blob:null/uuid", "blob:"},
		{"view-source:https://example.com/", "view-source:https://example.com/"},
		{"view-source:view-source:view-source:view-source:https://x.com/", "error"},
		{"file:///etc/passwd", "file:///etc/passwd"},
		{"file://localhost/etc/../etc/passwd", "file:///etc/passwd"},
		{`file:c:\windows`, "file:///c:/windows"},
		{"chrome://Settings/passwords", "chrome://settings/passwords"},
		{"chrome-extension://abcdef/popup.html", "chrome-extension://abcdef/popup.html"},
		// chrome: is a standard scheme in Chromium: parsed like http.
		{"chrome://%73ettings/passwords", "chrome://settings/passwords"},
		{"chrome:password-manager/passwords", "chrome://password-manager/passwords"},
		{"chrome:/settings/autofill", "chrome://settings/autofill"},
		{`chrome:\\settings\passwords`, "chrome://settings/passwords"},
		{"CHROME:SETTINGS", "chrome://settings/"},
		{"chrome://%53ETTINGS%2F", "error"},
		{"chrome://ｓｅｔｔｉｎｇｓ/", "chrome://settings/"},
		{"chrome://settings./", "chrome://settings/"},
		{"chrome://", "error"},
		{"edge:settings/passwords", "edge://settings/passwords"},
		{"devtools://devtools/bundled/inspector.html", "devtools://devtools/bundled/inspector.html"},
		{"chrome-extension:%61bcdef/popup.html", "chrome-extension://abcdef/popup.html"},
		{"http://0.0.0.0:8080/", "http://0.0.0.0:8080/"},
		{"http://0/", "http://0.0.0.0/"},
		{"http://[::]/", "http://[::]/"},
		{"http://[0:0:0:0:0:0:0:0]/", "http://[::]/"},
		{"http://[::ffff:0.0.0.0]/", "http://0.0.0.0/"},
		{"http://[FD00:EC2:0::254]/", "http://[fd00:ec2::254]/"},
	}
	for _, c := range cases {
		u, err := Normalize(c.in)
		got := u.String()
		if err != nil {
			got = "error"
			if !errors.Is(err, errBadURL) {
				t.Errorf("Normalize(%q) error %v does not wrap errBadURL", c.in, err)
			}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Normalize(%q) (-want +got):\n%s (err %v)", c.in, diff, err)
		}
	}
}

// FuzzNormalize checks the normaliser's invariants on any input: it never
// panics, what it returns is stable when normalised again, hosts are
// lower-case ASCII without trailing dots, and paths are clean.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"https://paypal.com@evil.com/", `https://evil.com\@paypal.com`, "https://ｐａｙｐａｌ．ｃｏｍ/",
		"http://0x7f.1/", "http://[::ffff:1.2.3.4]/", "javascript:alert(1)", "blob:https://a.b/c",
		"https://a.com/%2e%2e/x", "file:///etc/passwd", "view-source:https://x.y", "a.com:80/x",
		"https://xn--bcher-kva.example./", "https://a.com:0080//./../b", "chrome://settings",
		"chrome:/%73ettings", "chrome:password-manager/x", `edge:\\settings`, "http://0:8765/", "http://[::]:1/",
		"http://[::ffff:a9fe:a9fe]/", "chrome-extension:%61b/x", "https://b.example/?rest_route=%2Fwp%2Fv2#x",
		"https://github.com/settings;x/keys?a=%zz", "devtools://devtools/bundled/inspector.html?ws=127.0.0.1:9222/devtools/page/A",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		u, err := Normalize(in)
		if err != nil {
			if !errors.Is(err, errBadURL) {
				t.Fatalf("error does not wrap errBadURL: %v", err)
			}
			return
		}
		if !strings.Contains(in, "?") && u.Query != "" {
			t.Fatalf("a query %q from an input without one: %q", u.Query, in)
		}
		if u.Opaque {
			if u.Host != "" || u.Path != "" {
				t.Fatalf("opaque URL with parts: %#v", u)
			}
			return
		}
		if strings.HasSuffix(u.Host, ".") || u.Host != strings.ToLower(u.Host) {
			t.Fatalf("host %q not canonical (from %q)", u.Host, in)
		}
		if _, special := specialSchemes[u.Scheme]; special {
			for i := 0; i < len(u.Host); i++ {
				if u.Host[i] >= 0x80 {
					t.Fatalf("host %q not ASCII (from %q)", u.Host, in)
				}
			}
		}
		if !strings.HasPrefix(u.Path, "/") || strings.Contains(u.Path, "//") ||
			strings.Contains(u.Path+"/", "/./") || strings.Contains(u.Path+"/", "/../") {
			if !strings.Contains(u.Path, "%") { // a decoded "%2f" may re-form after one pass
				t.Fatalf("path %q not clean (from %q)", u.Path, in)
			}
		}
		again, err := Normalize(u.String())
		if err != nil {
			if utf8.ValidString(u.String()) && !strings.ContainsAny(u.String(), "%\\?#@") {
				t.Fatalf("normalised %q does not parse again: %v (from %q)", u.String(), err, in)
			}
			return
		}
		if u.Host != again.Host || u.Scheme != again.Scheme || u.Port != again.Port {
			t.Fatalf("not stable: %q -> %q -> %q", in, u.String(), again.String())
		}
	})
}

func BenchmarkNormalize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Normalize("https://www.paypal.com/myaccount/summary?x=1")
	}
}
