package browser

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/browseragent/browseragent/internal/testutil"
)

// frameSite serves /outer on 127.0.0.1 holding a same-site iframe and a
// cross-site one (localhost: another site, so another renderer process)
// that nests a third.
func frameSite(t *testing.T) (outer, cross string) {
	t.Helper()
	mux := http.NewServeMux()
	var base string
	mux.HandleFunc("/outer", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>Outer</title><h1>Outer</h1><iframe src="/same"></iframe><iframe src="%s/cross"></iframe>`,
			strings.Replace(base, "127.0.0.1", "localhost", 1))
	})
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<p>same site</p>") })
	mux.HandleFunc("/cross", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<p>cross site</p><iframe src="/nested"></iframe>`)
	})
	mux.HandleFunc("/nested", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<p>nested</p>") })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base = srv.URL
	return srv.URL + "/outer", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
}

func TestFrameURLs(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	outer, cross := frameSite(t)
	mustCall(t, b, "browser_open", map[string]any{"url": outer})
	mustCall(t, b, "browser_wait", map[string]any{"text": "Outer"})
	want := []string{strings.TrimSuffix(outer, "/outer") + "/same", cross + "/cross", cross + "/nested"}
	var got []string
	var err error
	for range 50 { // the frames load after the top document
		if got, err = b.FrameURLs(context.Background(), ""); err == nil && cmp.Equal(want, got) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FrameURLs (-want +got)\n%s", diff)
	}
}

// TestFramesAddedAfterAListing: once a listing of a tab's frames found
// none, the next ones are answered without asking the browser until a
// frame is attached. Frames a page adds later (cross-site with a nested
// one, in a shadow tree) are listed for the guard, outlined and read all
// the same.
func TestFramesAddedAfterAListing(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	outer, cross := frameSite(t)
	base := strings.TrimSuffix(outer, "/outer")
	mustCall(t, b, "browser_open", map[string]any{"url": base + "/same"})
	ctx := context.Background()
	for range 2 { // the second is answered from the first
		if got, err := b.FrameURLs(ctx, ""); err != nil || len(got) != 0 {
			t.Fatalf("FrameURLs of a page without frames: %q, %v", got, err)
		}
		if snap := mustCall(t, b, "browser_snapshot", nil).Text; strings.Contains(snap, "iframe") {
			t.Fatalf("a page without frames outlines one:\n%s", snap)
		}
	}
	mustCall(t, b, "browser_eval", map[string]any{"js": fmt.Sprintf(`(() => {
  const f = document.createElement('iframe'); f.src = %q; document.body.append(f);
  const host = document.createElement('div'); document.body.append(host);
  host.attachShadow({mode: 'open'}).innerHTML = '<iframe src="/nested"></iframe>';
  return 1 })()`, cross+"/cross")})
	want := []string{cross + "/cross", cross + "/nested", base + "/nested"}
	var got []string
	var err error
	for range 50 { // the frames load after they are added
		if got, err = b.FrameURLs(ctx, ""); err == nil && cmp.Equal(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" || err != nil {
		t.Errorf("FrameURLs after frames were added (-want +got) %v\n%s", err, diff)
	}
	mustCall(t, b, "browser_wait", map[string]any{"text": "nested"})
	snap := mustCall(t, b, "browser_snapshot", nil).Text
	text := mustCall(t, b, "browser_extract", nil).Text
	for _, w := range []string{"cross site", "nested"} {
		if !strings.Contains(snap, w) {
			t.Errorf("the snapshot after frames were added does not show %q:\n%s", w, snap)
		}
		if !strings.Contains(text, w) {
			t.Errorf("browser_extract after frames were added does not show %q:\n%s", w, text)
		}
	}
}

func TestRefInFrame(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	outer, _ := frameSite(t)
	mustCall(t, b, "browser_open", map[string]any{"url": outer})
	mustCall(t, b, "browser_eval", map[string]any{"js": `(() => {
  const wrap = document.createElement('div'); wrap.setAttribute('role', 'button'); wrap.setAttribute('aria-label', 'Wrapped frame');
  wrap.append(document.createElement('iframe')); document.body.append(wrap);
  const plain = document.createElement('button'); plain.textContent = 'Plain'; document.body.append(plain);
  const host = document.createElement('div'); host.setAttribute('role', 'button'); host.setAttribute('aria-label', 'Shadow host');
  host.attachShadow({mode: 'open'}).innerHTML = '<iframe></iframe>'; document.body.append(host);
  const f = document.createElement('iframe'); f.tabIndex = 0; f.title = 'Focusable frame'; document.body.append(f);
  return 1 })()`})
	snap := mustCall(t, b, "browser_snapshot", nil).Text
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		want bool
	}{{"Wrapped frame", true}, {"Plain", false}, {"Shadow host", true}} {
		got, err := b.RefInFrame(ctx, "", refFor(t, snap, tc.name))
		if err != nil || got != tc.want {
			t.Errorf("RefInFrame(%s) = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if got, err := b.RefInFrame(ctx, "", ""); err != nil || got {
		t.Errorf("focus on the body: RefInFrame = %v, %v; want false", got, err)
	}
	mustCall(t, b, "browser_eval", map[string]any{"js": `document.querySelector('iframe[title="Focusable frame"]').focus(); 1`})
	if got, err := b.RefInFrame(ctx, "", ""); err != nil || !got {
		t.Errorf("focus in a frame: RefInFrame = %v, %v; want true", got, err)
	}
}

// tinyPDF is a one-page PDF the viewer opens.
const tinyPDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj " +
	"3 0 obj<</Type/Page/MediaBox[0 0 200 200]/Parent 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"

// TestFrameURLsPDF: Chromium shows a PDF in its viewer, an extension frame
// (a target of its own) inside the frame that loaded the PDF, with the PDF
// again in a frame inside the viewer. The frames are the PDF's, never the
// viewer's (an extension page, which deny rules name), each URL once: a PDF
// tab has only its own PDF, and so has a page embedding a PDF.
func TestFrameURLsPDF(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/doc.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		io.WriteString(w, tinyPDF)
	})
	mux.HandleFunc("/embeds", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Embeds</title><h1>Embeds</h1><embed src="/doc.pdf" type="application/pdf" width="300" height="300">`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	pdf := srv.URL + "/doc.pdf"
	for _, url := range []string{pdf, srv.URL + "/embeds"} {
		t.Run(url, func(t *testing.T) {
			mustCall(t, b, "browser_open", map[string]any{"url": url})
			var got []string
			var err error
			for range 100 { // the viewer loads after the document
				got, err = b.FrameURLs(context.Background(), "")
				if err != nil {
					t.Fatal(err)
				}
				for _, u := range got {
					if u != pdf && u != "about:blank" && u != "" { // the viewer's inner frame before it shows the PDF
						t.Fatalf("FrameURLs = %q: %q is not the PDF's", got, u)
					}
				}
				if viewerLoaded(t, b) && cmp.Equal([]string{pdf}, got) {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
			t.Errorf("FrameURLs = %q with the viewer loaded: %v; want the PDF's URL once", got, viewerLoaded(t, b))
		})
	}
}

// viewerLoaded reports whether the current tab shows the PDF viewer: one
// of its frame targets is the viewer's extension page.
func viewerLoaded(t *testing.T, b *Browser) bool {
	t.Helper()
	tb, err := b.s.lookup("")
	if err != nil {
		t.Fatal(err)
	}
	infos, err := b.s.frameTargetInfos(context.Background(), tb.id)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if isPDFViewer(info.URL) {
			return true
		}
	}
	return false
}

// TestWaitInFrames: browser_wait finds text and selectors in a page's
// frames as the snapshot outlines them — same-site, cross-site (another
// renderer process) and nested — and says which frame; what no document
// has still does not appear.
func TestWaitInFrames(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	outer, cross := frameSite(t)
	mustCall(t, b, "browser_open", map[string]any{"url": outer})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"text": "Outer"}, `Found text "Outer".`},
		{map[string]any{"text": "same site"}, "/same)."},
		{map[string]any{"text": "cross site"}, cross + "/cross)."},
		{map[string]any{"text": "nested"}, cross + "/nested)."},
		{map[string]any{"selector": "iframe[src='/nested']"}, cross + "/cross)."},
	} {
		r := mustCall(t, b, "browser_wait", tc.args)
		if !strings.Contains(r.Text, tc.want) || tc.want[0] == '/' && !strings.Contains(r.Text, " in frame f") {
			t.Errorf("browser_wait %v: %q, want it to say %q", tc.args, r.Text, tc.want)
		}
	}
	if r := tryCall(t, b, "browser_wait", map[string]any{"text": "in no document", "timeout": 1}); !r.IsError || !strings.Contains(r.Text, "did not appear") {
		t.Errorf("text in no frame: %+v", r)
	}
}
