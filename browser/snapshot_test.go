package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSnapshotFrames: a snapshot outlines the page's iframes in place —
// one of another origin on the same site (another port of 127.0.0.1) and
// one of another site (localhost: its own process) — with refs that name
// their frame, and a form in each is filled and sent through those refs.
func TestSnapshotFrames(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	got := make(chan string, 4)
	form := http.NewServeMux()
	form.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><div style="height:150px">spacer</div><form method="post" action="/sent"><label>Name <input name="name"></label>
<label><input type="checkbox" name="news" value="yes"> News</label><button>Send</button></form>`)
	})
	form.HandleFunc("/sent", func(w http.ResponseWriter, r *http.Request) {
		got <- r.Host + " " + r.FormValue("name") + " " + r.FormValue("news")
		fmt.Fprintf(w, "<!doctype html><p>Sent %s</p>", r.FormValue("name"))
	})
	formSrv := httptest.NewServer(form)
	t.Cleanup(formSrv.Close)
	page := http.NewServeMux()
	page.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Host</title><h1>Host</h1><div style="height:900px">tall</div><iframe title="Form" src="%s/form" width="400" height="200"></iframe>`, r.FormValue("frame"))
	})
	pageSrv := httptest.NewServer(page)
	t.Cleanup(pageSrv.Close)

	frameRef := regexp.MustCompile(`ref=(f\d+e\d+)`)
	for _, tc := range []struct{ name, frame string }{
		{"another origin of the same site", formSrv.URL},
		{"another site", strings.Replace(formSrv.URL, "127.0.0.1", "localhost", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustCall(t, b, "browser_open", map[string]any{"url": pageSrv.URL + "/?frame=" + tc.frame})
			var snap string
			for range 100 {
				if snap = mustCall(t, b, "browser_snapshot", nil).Text; strings.Contains(snap, "Send") {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			ref := func(name string) string {
				t.Helper()
				for _, line := range strings.Split(snap, "\n") {
					if m := frameRef.FindStringSubmatch(line); m != nil && strings.Contains(line, name) {
						return m[1]
					}
				}
				t.Fatalf("no frame ref for %q in:\n%s", name, snap)
				return ""
			}
			if !strings.Contains(snap, `- iframe "Form" [frame=f`) || !strings.Contains(snap, "-> "+tc.frame+"/form") {
				t.Errorf("the snapshot does not name the frame:\n%s", snap)
			}
			mustCall(t, b, "browser_type", map[string]any{"ref": ref(`"Name"`), "text": "Ada"})
			mustCall(t, b, "browser_click", map[string]any{"ref": ref(`"News"`)})
			mustCall(t, b, "browser_click", map[string]any{"ref": ref(`"Send"`)})
			want := strings.TrimPrefix(tc.frame, "http://") + " Ada yes"
			select {
			case g := <-got:
				if g != want {
					t.Errorf("the form's server got %q, want %q", g, want)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("the form was never sent; the page now:\n%s", mustCall(t, b, "browser_snapshot", nil).Text)
			}
		})
	}
}

// TestSnapshotHeadingLinks: a link inside a heading (a news page's
// headline, <h2><a>) keeps its ref; the heading reads on one line with it.
func TestSnapshotHeadingLinks(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>News</title><h1>News</h1>
<h2><a href="/story">Rates rise again</a></h2><h3>Sport <a href="/more">more</a></h3><h2>Plain</h2>`)
	}))
	t.Cleanup(srv.Close)
	mustCall(t, b, "browser_open", map[string]any{"url": srv.URL})
	snap := mustCall(t, b, "browser_snapshot", nil).Text
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^- heading \[level=2\]: link "Rates rise again" \[ref=e\d+\] -> /story$`),
		regexp.MustCompile(`(?m)^  - link "more" \[ref=e\d+\] -> /more$`),
		regexp.MustCompile(`(?m)^- heading "Plain" \[level=2\]$`),
	} {
		if !want.MatchString(snap) {
			t.Errorf("no line matching %s in:\n%s", want, snap)
		}
	}
}
