package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

func TestRefInFrame(t *testing.T) {
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
