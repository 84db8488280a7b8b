//go:build linux

package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// devToolsLike is a loopback server answering on Chromium's DevTools paths,
// recording every path asked, so a test can see that nothing reached them.
type devToolsLike struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func startDevToolsLike(t *testing.T) *devToolsLike {
	d := &devToolsLike{}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.paths = append(d.paths, r.URL.Path)
		d.mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "DEVTOOLS-ANSWER")
	}))
	t.Cleanup(d.Close)
	return d
}

func (d *devToolsLike) asked() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.paths...)
}

// TestDevToolsEndpointUnreachable: a browser's DevTools endpoint lists
// every tab with its title and closes any of them (/json/list,
// /json/close/<id>), so no tool reaches it, whatever the rules files say
// (these have no rules at all): not web_fetch, in isolated mode or
// attached to the person's Chrome; not the isolated browser's pages, whose
// requests and WebSocket upgrades go through browseragent's proxy; and not
// the endpoint browseragent drives, on any path; nor a script the person
// approved in the agent's own tab of their Chrome, which the browser
// itself keeps from the DevTools paths. The person's tabs are all still
// open at the end. (Before, web_fetch of /json/list returned
// every tab and /json/close/<id> closed the person's tab, in both modes.)
func TestDevToolsEndpointUnreachable(t *testing.T) {
	for _, k := range []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"} {
		t.Setenv(k, "") // a proxy of the environment resolves names itself: see envProxy
	}
	testutil.Require(t, "chromium", browser.FindChrome)
	site := sharedSite(t)
	person := startPersonsBrowser(t, site.URL)
	personTabs := []string{site.URL + "/account", site.URL + "/article"}
	var account string
	for _, pg := range person.Pages() {
		if pg.URL == site.URL+"/account" {
			account = pg.ID
		}
	}
	if account == "" {
		t.Fatalf("the person's account tab is not listed: %+v", person.Pages())
	}
	devtools := "http://127.0.0.1:" + person.Port()
	s, person0 := newSharedSession(t, false, "version: 1\nrules: []\n")

	refused := func(t *testing.T, what string, args map[string]any) {
		t.Helper()
		res := call(t, s, "web_fetch", args)
		if !res.IsError() || !strings.Contains(res.Text, "browser-") || strings.Contains(res.Text, "Account") {
			t.Errorf("%s: want a refusal naming the DevTools rule, got %+v", what, res)
		}
	}
	t.Run("isolated: web_fetch", func(t *testing.T) {
		refused(t, "the tab list", map[string]any{"url": devtools + "/json/list"})
		refused(t, "the tab list, spelled localhost", map[string]any{"url": "http://localhost:" + person.Port() + "/json"})
		refused(t, "closing the person's tab", map[string]any{"url": devtools + "/json/close/" + account})
		person.waitTabs(t, personTabs)
	})

	t.Run("isolated: the browser's pages", func(t *testing.T) {
		fake := startDevToolsLike(t)
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<title>Page</title><p id="out">waiting</p><script>
const log = [];
const done = () => { if (log.length === 4) out.textContent = 'done: ' + log.sort().join(' ') };
const get = (name, url, opts) => fetch(url, opts).then(r => r.text()).then(t => { log.push(name + '=' + t.slice(0, 20)) }, () => { log.push(name + '=failed') }).then(done);
fetch('%[1]s/json/close/%[2]s', {mode: 'no-cors'}).finally(() => { log.push('close=sent'); done() });
get('list', '%[3]s/json/list');
get('ok', '%[3]s/ok');
const ws = new WebSocket('%[4]s/devtools/browser/x');
ws.onopen = () => { log.push('ws=open'); done() };
ws.onerror = () => { log.push('ws=failed'); done() };
</script>`, devtools, account, fake.URL, strings.Replace(fake.URL, "http:", "ws:", 1))
		}))
		defer page.Close()
		call(t, s, "browser_open", map[string]any{"url": page.URL + "/"})
		var text string
		for range 100 {
			text = call(t, s, "browser_snapshot", map[string]any{}).Text
			if strings.Contains(text, "done:") {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !strings.Contains(text, "done: close=sent list=failed ok=DEVTOOLS-ANSWER ws=failed") {
			t.Errorf("want the DevTools requests refused and the ordinary one through; the page says:\n%s", text)
		}
		if got := fake.asked(); len(got) != 1 || got[0] != "/ok" {
			t.Errorf("the DevTools paths were reached: the server was asked %v, want only /ok", got)
		}
		person.waitTabs(t, personTabs)
	})

	own := strings.Replace(shared.Endpoint(t), "ws:", "http:", 1)
	own = own[:strings.Index(own[len("http://"):], "/")+len("http://")]
	t.Run("isolated: the endpoint browseragent drives, any path", func(t *testing.T) {
		refused(t, "its discovery page", map[string]any{"url": own + "/"})
	})

	t.Run("shared: web_fetch", func(t *testing.T) {
		call(t, s, "browser_tabs", map[string]any{}) // the isolated browser runs, to be set aside
		connect(t, s, person.Dir)
		refused(t, "the attached endpoint's discovery page", map[string]any{"url": devtools + "/"})
		refused(t, "the tab list", map[string]any{"url": devtools + "/json/list"})
		refused(t, "closing the person's tab", map[string]any{"url": devtools + "/json/close/" + account})
		refused(t, "the isolated browser set aside", map[string]any{"url": own + "/"})
		person.waitTabs(t, personTabs)
	})

	t.Run("shared: script in the agent's own tab", func(t *testing.T) {
		if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"}); res.IsError() {
			t.Fatalf("browser_open: %s", res.Text)
		}
		person0.will(tools.AnswerOnce)
		res := call(t, s, "browser_eval", map[string]any{"js": fmt.Sprintf(
			`Promise.all([fetch('%[1]s/json/close/%[2]s', {mode: 'no-cors'}).then(() => 'sent', () => 'failed'),
			  fetch('http://localhost:%[3]s/json/close/%[2]s', {mode: 'no-cors'}).then(() => 'sent', () => 'failed')]).then(a => a.join(' '))`,
			devtools, account, person.Port())})
		if res.IsError() || !strings.Contains(res.Text, "failed failed") {
			t.Errorf("want both requests blocked in the browser, got %+v", res)
		}
		time.Sleep(500 * time.Millisecond) // a closing tab is gone by now
		person.waitTabs(t, append(slices.Clone(personTabs), site.URL+"/shop"))
	})
}
