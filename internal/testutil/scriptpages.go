package testutil

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"
)

// ScriptPages serves n pages on 127.0.0.1 whose content a script draws
// after the page has loaded, in the ways JavaScript apps do: after a timer
// (0 to 400 ms), after a fetch() of /data/N from the same server (which
// answers after up to 150 ms) and a timer of up to 150 ms, on an animation frame (which a
// hidden background tab never gets), and in two steps. Page N is /page/N;
// it is complete when its text holds ScriptPageMarker(N). Tests of
// readiness and benches of rendering share it (the -render bench of
// bench/batch renders the same pages).
type ScriptPages struct {
	*httptest.Server
	N int
}

// NewScriptPages starts the server; Close stops it.
func NewScriptPages(n int) *ScriptPages {
	mux := http.NewServeMux()
	mux.HandleFunc("/page/", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/page/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, scriptPage(i))
	})
	mux.HandleFunc("/data/", func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/data/"))
		select {
		case <-time.After(time.Duration(i*29%150) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "Data row %d came from the server.", i)
	})
	return &ScriptPages{Server: httptest.NewServer(mux), N: n}
}

// URLs are the n pages' addresses.
func (s *ScriptPages) URLs() []string {
	urls := make([]string, s.N)
	for i := range urls {
		urls[i] = s.URL + "/page/" + strconv.Itoa(i)
	}
	return urls
}

// ScriptPageMarker is the sentence page i shows once its script is done.
func ScriptPageMarker(i int) string { return fmt.Sprintf("Page %d is complete.", i) }

// scriptPage is page i: a shell the script fills, the way i%4 says.
func scriptPage(i int) string {
	delay := i * 37 % 400
	var script string
	switch i % 4 {
	case 0: // a timer
		script = fmt.Sprintf("setTimeout(() => put('a timer of %d ms'), %d);", delay, delay)
	case 1: // a fetch, then a timer
		script = fmt.Sprintf("fetch('/data/%d').then(r => r.text()).then(t => setTimeout(() => put(t), %d));", i, delay%150)
	case 2: // an animation frame, then a timer
		script = fmt.Sprintf("requestAnimationFrame(() => setTimeout(() => put('an animation frame'), %d));", delay%300)
	default: // two steps
		script = fmt.Sprintf(`setTimeout(() => {
  document.querySelector('main').insertAdjacentHTML('beforeend', '<p>The first half arrived.</p>');
  setTimeout(() => put('two steps'), %d);
}, %d);`, delay%200, delay%200)
	}
	return fmt.Sprintf(`<!doctype html><html lang="en"><head><title>Script page %d</title></head><body>
<nav><a href="/">Home</a></nav><main><p class="spinner">Loading…</p></main>
<script>
function put(how) {
  document.querySelector('.spinner')?.remove();
  document.querySelector('main').insertAdjacentHTML('beforeend', '<article><h1>Script page %d</h1>' +
    '<p>This page was drawn by its script after ' + how + ', the way a JavaScript application draws its content once it has what it needs.</p>' +
    '<p>A reader who sees this paragraph sees the whole article, and nothing of it is left to come. %s</p></article>');
}
%s
</script></body></html>`, i, i, ScriptPageMarker(i), script)
}
