package guard

import "testing"

func TestLoadURL(t *testing.T) {
	tests := map[string]string{
		"example.com":              "https://example.com",
		"localhost:8080/x":         "http://localhost:8080/x",
		"127.0.0.1:9/":             "http://127.0.0.1:9/",
		"0.0.0.0:9/":               "http://0.0.0.0:9/",
		"http://a.b/":              "http://a.b/",
		"about:blank":              "about:blank",
		" https://x.y/?q=1 ":       "https://x.y/?q=1",
		"file:///tmp/a.html":       "file:///tmp/a.html",
		"data:text/html,<p>hi</p>": "data:text/html,<p>hi</p>",
	}
	for in, want := range tests {
		if got := LoadURL(in); got != want {
			t.Errorf("LoadURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJudgedIsLoaded: a bare host is judged with the scheme it is loaded
// with (localhost:8080/x was judged as https and loaded as http).
func TestJudgedIsLoaded(t *testing.T) {
	for _, raw := range []string{"localhost:8080/x", "127.0.0.1:9/a", "example.com/p"} {
		u, err := Normalize(raw)
		if err != nil {
			t.Fatal(err)
		}
		v, err := Normalize(LoadURL(raw))
		if err != nil {
			t.Fatal(err)
		}
		if u.String() != v.String() {
			t.Errorf("%q is judged as %s but loads as %s", raw, u, v)
		}
	}
}
