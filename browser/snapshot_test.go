package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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
// So do the other controls real pages hide (WCXB dev pages 0021, 0369): a
// link given role=heading, radio buttons inside a focusable group, a
// button inside a link.
func TestSnapshotHeadingLinks(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>News</title><h1>News</h1>
<h2><a href="/story">Rates rise again</a></h2><h3>Sport <a href="/more">more</a></h3><h2>Plain</h2>
<a href="/ba" role="heading">Bachelors</a>
<div tabindex="0" aria-label="Levels"><label><input type="radio" name="l" aria-label="Associate"> Associate</label></div>
<a href="/expert"><button>Become an expert</button></a>`)
	}))
	t.Cleanup(srv.Close)
	mustCall(t, b, "browser_open", map[string]any{"url": srv.URL})
	snap := mustCall(t, b, "browser_snapshot", nil).Text
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^- heading \[level=2\]: link "Rates rise again" \[ref=e\d+\] -> /story$`),
		regexp.MustCompile(`(?m)^  - link "more" \[ref=e\d+\] -> /more$`),
		regexp.MustCompile(`(?m)^- heading "Plain" \[level=2\]$`),
		regexp.MustCompile(`(?m)^- link "Bachelors" \[ref=e\d+\] -> /ba$`),
		regexp.MustCompile(`(?m)^  - radio "Associate" \[ref=e\d+\]$`),
		regexp.MustCompile(`(?m)^  - button "Become an expert" \[ref=e\d+\]$`),
	} {
		if !want.MatchString(snap) {
			t.Errorf("no line matching %s in:\n%s", want, snap)
		}
	}
}

// modesPage is a page with navigation, text, a form and an iframe holding
// a button, for the snapshot's modes.
func modesPage(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString(`<!doctype html><title>Modes</title><nav><a href="/home">Home</a> <a href="/about">About</a></nav><main><h1>Modes</h1>`)
		for i := range 40 {
			fmt.Fprintf(&b, `<p>Paragraph %d with words that a reader reads and an agent acting on the page need not.</p>`, i)
		}
		b.WriteString(`<form><label>Email <input name="email" value="a@b.c"></label><label><input type="checkbox" checked> Keep</label>
<select aria-label="Size"><option>S</option><option selected>L</option></select><button>Go</button></form>
<iframe title="Inner" src="/inner"></iframe></main>`)
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><p>inner text</p><button>Inner go</button>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestSnapshotModes: interactive=true keeps every ref of the whole outline
// (the frame's too) in far fewer bytes; max_chars cuts with a note naming
// what is left and where to go on, and reading on from there reaches
// every ref; the result's Data lists the elements, frames named.
func TestSnapshotModes(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	url := modesPage(t)
	mustCall(t, b, "browser_open", map[string]any{"url": url})
	var full *Result
	for range 100 {
		if full = mustCall(t, b, "browser_snapshot", nil); strings.Contains(full.Text, "Inner go") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	refs := func(s string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`ref=((?:f\d+)?e\d+)`).FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
		return out
	}
	want := refs(full.Text)
	if len(want) != 7 {
		t.Fatalf("the whole outline has refs %v, want 7 (2 links, 4 controls, the frame's button):\n%s", want, full.Text)
	}

	inter := mustCall(t, b, "browser_snapshot", map[string]any{"interactive": true}).Text
	if diff := cmp.Diff(want, refs(inter)); diff != "" {
		t.Errorf("interactive refs (-whole +interactive)\n%s\n%s", diff, inter)
	}
	if strings.Contains(inter, "Paragraph") || strings.Contains(inter, "-> /home") || !strings.Contains(inter, "- heading \"Modes\"\n") {
		t.Errorf("interactive outline keeps text or targets, or lost the heading:\n%s", inter)
	}
	if len(inter)*4 > len(full.Text) {
		t.Errorf("interactive outline is %d bytes, the whole one %d: want under a quarter", len(inter), len(full.Text))
	}

	var got []string
	from := 1
	for range 20 {
		part := mustCall(t, b, "browser_snapshot", map[string]any{"max_chars": 800, "from_line": from}).Text
		if len(part) > 1100 {
			t.Errorf("a part of max_chars 800 is %d bytes", len(part))
		}
		got = append(got, refs(part)...)
		m := regexp.MustCompile(`\[(\d+) more lines \((\d+) more refs\): call browser_snapshot with from_line=(\d+)`).FindStringSubmatch(part)
		if m == nil {
			break
		}
		if n := len(refs(part)); n+atoi(m[2]) != len(want)-len(got)+n {
			t.Errorf("the note says %s more refs after %d of %d", m[2], len(got), len(want))
		}
		from = atoi(m[3])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refs read part by part (-whole +parts)\n%s", diff)
	}

	s, ok := full.Data.(*Snapshot)
	if !ok {
		t.Fatalf("browser_snapshot's Data is %T, want *Snapshot", full.Data)
	}
	var els []string
	for _, e := range s.Elements {
		els = append(els, fmt.Sprintf("%s %s %q %q %v %s", e.Ref[:1], e.Role, e.Name, e.Value, e.Checked, e.Frame))
	}
	wantEls := []string{`e link "Home" "" false `, `e link "About" "" false `, `e textbox "Email" "a@b.c" false `,
		`e checkbox "Keep" "" true `, `e combobox "Size" "L" false `, `e button "Go" "" false `, `f button "Inner go" "" false f1`}
	if diff := cmp.Diff(wantEls, els); diff != "" {
		t.Errorf("Elements (-want +got)\n%s", diff)
	}
	if last := s.Elements[len(s.Elements)-1]; !strings.HasSuffix(last.FrameURL, "/inner") {
		t.Errorf("the frame's element names frame URL %q", last.FrameURL)
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestActionChanges: after a snapshot, an action's result lists what
// changed on the page — the lines added and gone, a new control with its
// ref — or says nothing changed; after a navigation it lists nothing.
func TestActionChanges(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Cart</title><h1>Cart</h1><p id="st">Cart is empty</p>
<button onclick="st.textContent='1 item in cart'; document.getElementById('co').hidden=false">Add</button>
<button id="co" hidden>Checkout</button><button>Nothing</button><a href="/next">Next</a>`)
	}))
	t.Cleanup(srv.Close)
	mustCall(t, b, "browser_open", map[string]any{"url": srv.URL})
	snap := mustCall(t, b, "browser_snapshot", nil).Text
	res := mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `"Add"`)}).Text
	for _, want := range []string{"Changes since the last snapshot (2 lines added, 1 gone):", "\n+ paragraph: 1 item in cart",
		"\n+ button \"Checkout\" [ref=e", "\n- paragraph: Cart is empty"} {
		if !strings.Contains(res, want) {
			t.Errorf("click result lacks %q:\n%s", want, res)
		}
	}
	res = mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `"Nothing"`)}).Text
	if !strings.HasSuffix(res, "\nNo change on the page since the last snapshot.") {
		t.Errorf("a click that changes nothing:\n%s", res)
	}
	// After an outline of the controls only, a click that changes only
	// the page's text does not say the page did not change.
	snap = mustCall(t, b, "browser_snapshot", map[string]any{"interactive": true}).Text
	mustCall(t, b, "browser_eval", map[string]any{"js": "document.querySelector('button').setAttribute('onclick', \"st.textContent='2 items in cart'\")"})
	res = mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `"Add"`)}).Text
	if strings.Contains(res, "No change on the page") || !strings.HasSuffix(res, "\nNo change to the page's controls or headings since the last snapshot (which listed only those).") {
		t.Errorf("a click that changes only text, after an interactive snapshot:\n%s", res)
	}
	res = mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `"Next"`)}).Text
	if strings.Contains(res, "Changes since") || strings.Contains(res, "No change") {
		t.Errorf("a click that loads another page lists changes:\n%s", res)
	}
}

// TestTypeResult: browser_type checks the field holds the text (a field
// the page reformats is a failure; one insertText cannot fill, a date, is
// set as an edit would) and lists what changed since the last snapshot,
// what the page's input handler added too.
func TestTypeResult(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Form</title><h1>Form</h1>
<label>Name <input name=name oninput="if (!document.getElementById('saved')) { const p = document.createElement('p'); p.id = 'saved'; p.textContent = 'Draft saved'; document.body.append(p); }"></label>
<label>Code <input name=code oninput="this.value = this.value.toUpperCase()"></label>
<label>Day <input type=date name=day></label>`)
	}))
	t.Cleanup(srv.Close)
	mustCall(t, b, "browser_open", map[string]any{"url": srv.URL})
	for _, tc := range []struct {
		field, text string
		want        []string // lines of the result
		fails       string   // the failure, "" for none
	}{
		{field: "Name", text: "Ada", want: []string{"Typed 3 characters into e", "Changes since the last snapshot (2 lines added, 1 gone):",
			`+ textbox "Name" [ref=e`, `] value="Ada"`, "+ paragraph: Draft saved"}},
		{field: "Code", text: "abc", fails: "but the field does not hold the text (it may reformat or reject it)"},
		{field: "Day", text: "2026-12-04", want: []string{"Typed 10 characters into e", `value="2026-12-04"`}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			snap := mustCall(t, b, "browser_snapshot", nil).Text
			res := tryCall(t, b, "browser_type", map[string]any{"ref": refFor(t, snap, `textbox "`+tc.field+`"`), "text": tc.text})
			if tc.fails != "" {
				if !res.IsError || !strings.Contains(res.Text, tc.fails) {
					t.Errorf("typing %q into %s: %v %s, want the failure %q", tc.text, tc.field, res.IsError, res.Text, tc.fails)
				}
				return
			}
			if res.IsError {
				t.Fatalf("typing %q into %s: %s", tc.text, tc.field, res.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("typing %q into %s: the result lacks %q:\n%s", tc.text, tc.field, w, res.Text)
				}
			}
		})
	}
}
