package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/fetch"
)

const cliArticle = `<!doctype html><html lang="en"><head><title>Valley Notes</title></head><body>
<nav><a href="/">Home</a></nav>
<article><h1>Valley Notes</h1>
<p>The first paragraph of the article talks about cheese, bread and the long history of both in the valley.</p>
<p>The second paragraph goes on about wine and olives, and how farmers kept them through hard winters.</p>
<ul class="prices"><li>Cheese 4.50</li><li>Bread 2.10</li></ul>
<p>A third paragraph closes the article with a note on markets, trade routes and the people who walked them.</p>
</article></body></html>`

func cliServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, cliArticle)
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/shell", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>App</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errw)
	return code, out.String(), errw.String()
}

func TestFetchCommand(t *testing.T) {
	srv := cliServer(t)
	dead := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return l.Addr().String()
	}()
	type outcome struct {
		Code   int
		Stdout string // substring
		Stderr string // whole stderr
	}
	tests := []struct {
		name string
		args []string
		want outcome
	}{
		{"markdown by default", []string{srv.URL + "/article"},
			outcome{0, "# Valley Notes\n\nThe first paragraph", ""}},
		{"text", []string{srv.URL + "/article", "--format", "text"},
			outcome{0, "hard winters.\n\nCheese 4.50\nBread 2.10\n\nA third", ""}},
		{"select as html", []string{srv.URL + "/article", "--select", "ul.prices li", "-f", "html"},
			outcome{0, "<li>Cheese 4.50</li>\n<li>Bread 2.10</li>\n", ""}},
		{"links", []string{srv.URL + "/article", "--links", "--format", "text"},
			outcome{0, srv.URL + "/\n", ""}},
		{"accept-language flag", []string{srv.URL + "/article", "--accept-language", "fr"},
			outcome{0, "Valley Notes", ""}},
		{"404", []string{srv.URL + "/missing"},
			outcome{1, "", "browseragent: " + srv.URL + "/missing answered 404 Not Found\n"}},
		{"connection refused", []string{"http://" + dead + "/"},
			outcome{1, "", "browseragent: cannot connect to " + dead + ": connection refused\n"}},
		{"malformed URL", []string{"http//example.com"},
			outcome{2, "", "browseragent: malformed URL \"http//example.com\": it is not an absolute URL; start it with http:// or https://\n"}},
		{"unknown flag", []string{srv.URL, "--frobnicate"},
			outcome{2, "", "browseragent: unknown flag: --frobnicate (see 'browseragent fetch --help')\n"}},
		{"unknown format", []string{srv.URL, "--format", "pdf"},
			outcome{2, "", "browseragent: unknown format \"pdf\": use markdown, text, json or html\n"}},
		{"bad max-bytes", []string{srv.URL, "--max-bytes", "lots"},
			outcome{2, "", "browseragent: invalid argument \"lots\" for \"--max-bytes\" flag: \"lots\" is not a size (write e.g. 500k, 10MiB or 1048576) (see 'browseragent fetch --help')\n"}},
		{"bad selector", []string{srv.URL + "/article", "--select", "li[["},
			outcome{2, "", "browseragent: invalid CSS selector \"li[[\": expected identifier, found [ instead\n"}},
		{"no URL", nil, outcome{2, "", "browseragent: no URL given (see 'browseragent fetch --help')\n"}},
		{"missing URL list", []string{"-i", "/nonexistent/urls.txt"},
			outcome{2, "", "browseragent: cannot read the URL list /nonexistent/urls.txt: no such file or directory\n"}},
		{"zero concurrency", []string{srv.URL, "-c", "0"}, outcome{2, "", "browseragent: --concurrency must be at least 1\n"}},
		{"cut at max-bytes", []string{srv.URL + "/article", "--max-bytes", "300", "-f", "text"},
			outcome{3, "", "browseragent: warning: " + srv.URL + "/article: the page is larger than 300 B; only the first 300 B were read (raise --max-bytes to get more)\n"}},
		{"javascript shell note", []string{srv.URL + "/shell"},
			outcome{0, "# App", "browseragent: note: This page looks like a JavaScript app shell (0 characters of text, an empty app root #root, 1 script): its content is drawn by scripts, which plain HTTP does not run. Add --render to read it in the browser.\n"}},
		{"two URLs, one bad", []string{srv.URL + "/article", srv.URL + "/missing"},
			outcome{1, "==> " + srv.URL + "/article <==\n# Valley Notes", "browseragent: " + srv.URL + "/missing answered 404 Not Found\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", append([]string{"fetch"}, tc.args...)...)
			got := outcome{code, tc.want.Stdout, stderr}
			if !strings.Contains(stdout, tc.want.Stdout) {
				got.Stdout = stdout
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fetch %q (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

// cliOffer is an article whose title is not its first line and whose
// call to action sits beside a block, as a page's markup often has it.
const cliOffer = `<!doctype html><html lang="en"><head><title>Winter baskets | Valley Notes</title></head><body>
<article>
<p>The market opens at dawn and the farmers bring cheese, bread and olives down from the hills every week.</p>
<section class="offer"> <div> <p>A basket of the best of them costs $39.99</p> </div> <a href="/shop">The price includes delivery</a> </section>
<p>The stalls close at noon, when the last of the bread is gone and the square is swept for the afternoon.</p>
</article></body></html>`

// TestFetchTextIsTheBody: -f text prints the main content and nothing
// else, the words as the page spaces them. It printed the page's title in
// front of the body (no main-content tool does, no benchmark's truth has
// it), and rendered the text from a tree the markdown converter, run first
// by web_fetch, had changed in place: "$39.99The price". The title is a
// field of -f json.
func TestFetchTextIsTheBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, cliOffer)
	}))
	t.Cleanup(srv.Close)
	const want = "The market opens at dawn and the farmers bring cheese, bread and olives down from the hills every week.\n\n" +
		"A basket of the best of them costs $39.99 The price includes delivery\n\n" +
		"The stalls close at noon, when the last of the bread is gone and the square is swept for the afternoon.\n"
	code, stdout, stderr := runCLI(t, "", "fetch", "-f", "text", srv.URL+"/offer")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("fetch -f text (-want +got):\n%s", diff)
	}
	_, stdout, _ = runCLI(t, "", "fetch", "-f", "json", srv.URL+"/offer")
	var got struct{ Title string }
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Title != "Winter baskets | Valley Notes" {
		t.Errorf("-f json title %q (%v)", got.Title, err)
	}
}

// TestFetchOutFile: `fetch URL -o FILE` writes the page's output, in the
// format asked, to FILE, as curl -o and wget -O do; nothing goes to stdout,
// and a page that cannot be fetched leaves FILE as it was. It used to
// start a batch and write a JSON line whatever the format.
func TestFetchOutFile(t *testing.T) {
	srv := cliServer(t)
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		earlier  string
		wantCode int
		want     string
	}{
		{"text", []string{srv.URL + "/article", "-f", "text"}, "", 0,
			"The first paragraph of the article talks about cheese, bread and the long history of both in the valley.\n\n" +
				"The second paragraph goes on about wine and olives, and how farmers kept them through hard winters.\n\n" +
				"Cheese 4.50\nBread 2.10\n\nA third paragraph closes the article with a note on markets, trade routes and the people who walked them.\n"},
		{"a failure keeps the file", []string{srv.URL + "/missing"}, "kept\n", 1, "kept\n"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("page-%d.txt", i))
			if tc.earlier != "" {
				os.WriteFile(out, []byte(tc.earlier), 0o644)
			}
			code, stdout, stderr := runCLI(t, "", append([]string{"fetch", "-o", out}, tc.args...)...)
			data, _ := os.ReadFile(out)
			got := fmt.Sprintf("exit %d, stdout %q\n%s", code, stdout, data)
			want := fmt.Sprintf("exit %d, stdout %q\n%s", tc.wantCode, "", tc.want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fetch -o (-want +got):\n%s\nstderr: %s", diff, stderr)
			}
		})
	}
}

// TestFetchRequestFlags: -H, --cookie (a string or a cookies.txt file)
// and --user-agent reach the server; a malformed header, a Host header
// (the guard judges the URL's host) and these flags with --render are
// usage errors.
func TestFetchRequestFlags(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "token=%s cookie=%s ua=%s\n", r.Header.Get("X-Token"), r.Header.Get("Cookie"), r.Header.Get("User-Agent"))
	}))
	t.Cleanup(srv.Close)
	jar := filepath.Join(t.TempDir(), "cookies.txt")
	host := strings.TrimPrefix(srv.URL, "http://")
	host = host[:strings.LastIndex(host, ":")]
	os.WriteFile(jar, []byte("# Netscape HTTP Cookie File\n"+host+"\tFALSE\t/\tFALSE\t0\tsession\tf00\n"), 0o600)
	tests := []struct {
		name string
		args []string
		code int
		out  string
		err  string
	}{
		{"header, cookie and user agent", []string{"-H", "X-Token: abc", "--cookie", "a=b; c=d", "--user-agent", "probe/1"}, 0,
			"token=abc cookie=a=b; c=d ua=probe/1\n", ""},
		{"cookie file", []string{"--cookie", jar}, 0, "token= cookie=session=f00 ua=" + fetch.DefaultUserAgent + "\n", ""},
		{"malformed header", []string{"-H", "X-Token abc"}, 2, "", "browseragent: -H \"X-Token abc\" is not a header: write it as \"Name: value\"\n"},
		{"host header", []string{"-H", "Host: admin.internal"}, 2, "", "browseragent: -H Host: is not allowed: put the host in the URL, which the guard judges\n"},
		{"missing cookie file", []string{"--cookie", "/nonexistent/c.txt"}, 2, "", "browseragent: cannot read the cookie file /nonexistent/c.txt: no such file or directory\n"},
		{"bad proxy", []string{"--proxy", "127.0.0.1:3128"}, 2, "", "browseragent: --proxy \"127.0.0.1:3128\" is not a proxy URL: write it as http://HOST:PORT\n"},
		{"with --render", []string{"--render", "-H", "X-Token: abc"}, 2, "", "browseragent: -H, --cookie and --proxy are for plain fetch: --render uses the browser's own\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", append(append([]string{"fetch"}, tc.args...), srv.URL+"/")...)
			if diff := cmp.Diff(fmt.Sprintf("%d\n%s\n%s", tc.code, tc.out, tc.err), fmt.Sprintf("%d\n%s\n%s", code, stdout, stderr)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetchJSON(t *testing.T) {
	srv := cliServer(t)
	code, stdout, stderr := runCLI(t, "", "fetch", srv.URL+"/article", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		URL, Title, Lang, Content string
		Status                    int
		JSShell                   bool `json:"js_shell"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, stdout)
	}
	if got.URL != srv.URL+"/article" || got.Title != "Valley Notes" || got.Status != 200 || got.Lang != "en" ||
		!strings.Contains(got.Content, "The second paragraph") {
		t.Errorf("unexpected JSON: %+v", got)
	}
}

// TestFetchBatch: a list with bad entries still yields one line per URL,
// the bad ones carrying an error.
func TestFetchBatch(t *testing.T) {
	srv := cliServer(t)
	list := strings.Join([]string{
		"# comment lines and blank lines are skipped", "",
		srv.URL + "/article", "not a url", srv.URL + "/missing", srv.URL + "/shell",
	}, "\n")
	tests := []struct {
		name string
		args []string
		out  string // file the lines go to; "" for stdout
	}{
		{"stdin to file", []string{"-i", "-", "--concurrency", "3", "--out", "FILE"}, "FILE"},
		{"file to stdout", []string{"-i", "LIST", "--format", "text"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			listPath, outPath := filepath.Join(dir, "urls.txt"), filepath.Join(dir, "out.jsonl")
			if err := os.WriteFile(listPath, []byte(list), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"fetch"}
			for _, a := range tc.args {
				args = append(args, strings.NewReplacer("FILE", outPath, "LIST", listPath).Replace(a))
			}
			code, stdout, stderr := runCLI(t, list, args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if tc.out != "" {
				b, err := os.ReadFile(outPath)
				if err != nil {
					t.Fatal(err)
				}
				stdout = string(b)
			}
			type line struct {
				URL     string `json:"url"`
				Status  int    `json:"status"`
				Title   string `json:"title"`
				JSShell bool   `json:"js_shell"`
				Error   string `json:"error"`
			}
			var got []line
			for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
				var v line
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("bad JSON line %q: %v", l, err)
				}
				got = append(got, v)
			}
			sort.Slice(got, func(i, j int) bool { return got[i].URL < got[j].URL })
			want := []line{
				{URL: srv.URL + "/article", Status: 200, Title: "Valley Notes"},
				{URL: srv.URL + "/missing", Status: 404, Title: "", Error: srv.URL + "/missing answered 404 Not Found"},
				{URL: srv.URL + "/shell", Status: 200, Title: "App", JSShell: true},
				{URL: "not a url", Error: `malformed URL "not a url": it contains white space; encode spaces as %20`},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(stderr, "browseragent: fetched 4 URLs in ") || !strings.Contains(stderr, ": 2 ok, 2 failed (1 bad-url, 1 http-404)") || strings.Contains(stderr, "\r") {
				t.Errorf("stderr = %q, want a summary and no progress bar (not a terminal)", stderr)
			}
		})
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"1048576", 1 << 20, false},
		{"500k", 500 << 10, false},
		{"10MiB", 10 << 20, false},
		{"1.5MB", 1500000, false},
		{"2 GiB", 2 << 30, false},
		{"0", 0, true},
		{"-5k", 0, true},
		{"lots", 0, true},
	}
	for _, tc := range tests {
		var b byteSize
		err := b.Set(tc.in)
		if (err != nil) != tc.wantErr || int64(b) != tc.want {
			t.Errorf("Set(%q) = %d, %v; want %d, error %v", tc.in, b, err, tc.want, tc.wantErr)
		}
	}
}
