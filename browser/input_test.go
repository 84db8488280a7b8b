package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// actionSite serves pages that record, in the page's own log (#log, read
// back with browser_eval) or at the server (/rec), what a person's action
// did: the events a click fired, the drop, the chosen file, the answer to a
// dialog.
func actionSite(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var recs []string
	pages := map[string]string{
		"/clicks": `<title>Clicks</title><button id=b>Target</button><pre id=log></pre>
<script>const b = document.getElementById('b'), log = s => document.getElementById('log').textContent += s + ' ';
for (const ev of ['click', 'dblclick', 'contextmenu', 'auxclick']) b.addEventListener(ev, e => { e.preventDefault(); log(ev + ':' + e.button + (e.shiftKey ? ':shift' : '') + (e.ctrlKey ? ':ctrl' : '')) });</script>`,
		"/hover": `<title>Menu</title><style>#menu{display:none} #acct:hover #menu{display:block}</style>
<div id=acct><button>Account</button><ul id=menu><li><a href="/rec?what=signout">Sign out</a></li></ul></div>`,
		"/board": `<title>Board</title><style>.col{display:inline-block;width:200px;height:200px;border:1px solid}</style>
<div class=col id=todo><div draggable=true id=card>Write report</div></div><div class=col id=done>Done</div><pre id=log></pre>
<script>const done = document.getElementById('done');
document.getElementById('card').addEventListener('dragstart', e => e.dataTransfer.setData('text/plain', 'card'));
done.addEventListener('dragover', e => e.preventDefault());
done.addEventListener('drop', e => { e.preventDefault(); done.appendChild(document.getElementById(e.dataTransfer.getData('text/plain'))); fetch('/rec?what=drop:' + e.dataTransfer.getData('text/plain')); });</script>`,
		"/slider": `<title>Slider</title><div id=knob role=slider aria-label=Volume aria-valuenow=0 tabindex=0 style="position:absolute;left:10px;top:50px;width:20px;height:20px;background:red"></div><button style="position:absolute;left:300px;top:50px">Max</button>
<script>const k = document.getElementById('knob'); let down = false;
k.addEventListener('mousedown', () => down = true);
addEventListener('mousemove', e => { if (down) k.style.left = (e.clientX - 10) + 'px' });
addEventListener('mouseup', e => { down = false; fetch('/rec?what=slid:' + (e.clientX > 250)) });</script>`,
		"/checks": `<title>Checks</title><label><input type=checkbox id=news> Newsletter</label>
<div role=switch aria-checked=false tabindex=0 id=sw onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true')">Dark mode</div>
<label><input type=checkbox id=locked onclick="return false"> Locked</label>`,
		"/uploads": `<title>Upload</title><form id=f method=post action=/upload enctype=multipart/form-data>
<label>CV <input type=file name=cv id=cv></label><input type=file id=photo name=photo style="display:none">
<button type=button onclick="document.getElementById('photo').click()">Choose photo</button><button>Send</button></form>`,
		"/dialogs": `<title>Dialogs</title><button onclick="fetch('/rec?what=confirm:' + confirm('Delete the card?'))">Delete</button>
<button onclick="fetch('/rec?what=prompt:' + prompt('Your name?', 'nobody'))">Name</button>`,
		"/downloads": `<title>Files</title><a href="/file" download>Invoice</a> <a href="/page">A page</a>
<a href="/file?n=2" download="report.txt" onclick="setTimeout(() => { const a = document.createElement('a'); a.href = '/file?n=3'; a.download = 'extra.txt'; document.body.append(a); a.click(); }, 30)">Report</a>`,
		"/page":  `<title>Just a page</title><p>nothing to download</p>`,
		"/leave": `<title>Draft</title><button>Edit</button><script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; })</script>`,
	}
	mux := http.NewServeMux()
	for path, body := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })
	}
	rec := func(s string) {
		mu.Lock()
		recs = append(recs, s)
		mu.Unlock()
	}
	mux.HandleFunc("/rec", func(w http.ResponseWriter, r *http.Request) { rec(r.FormValue("what")) })
	mux.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) {
		if f, h, err := r.FormFile("cv"); err == nil {
			buf := make([]byte, 64)
			n, _ := f.Read(buf)
			rec(fmt.Sprintf("upload:%s:%s", h.Filename, buf[:n]))
		}
		fmt.Fprint(w, "<title>Sent</title>")
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("n") == "" {
			w.Header().Set("Content-Disposition", `attachment; filename=".bashrc"`)
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		fmt.Fprint(w, "#!/bin/sh\necho invoice\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), recs...)
	}
}

func pageLog(t *testing.T, b *Browser) string {
	t.Helper()
	return mustCall(t, b, "browser_eval", map[string]any{"js": "document.getElementById('log').textContent"}).Text
}

// TestActionTools drives each everyday action through the native tools on
// real Chromium and checks what the page itself recorded.
func TestActionTools(t *testing.T) {
	testutil.Parallel(t)
	srv, recs := actionSite(t)
	downloads := t.TempDir()
	b := newTestBrowser(t, &Options{DownloadDir: downloads, NavTimeout: 5e9})
	open := func(t *testing.T, path string) string {
		t.Helper()
		mustCall(t, b, "browser_open", map[string]any{"url": srv.URL + path})
		return mustCall(t, b, "browser_snapshot", nil).Text
	}
	has := func(t *testing.T, want string) {
		t.Helper()
		for deadline := 0; deadline < 40; deadline++ {
			for _, r := range recs() {
				if r == want {
					return
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Errorf("the server never saw %q; it saw %q", want, recs())
	}

	t.Run("click buttons counts modifiers", func(t *testing.T) {
		ref := refFor(t, open(t, "/clicks"), `button "Target"`)
		mustCall(t, b, "browser_click", map[string]any{"ref": ref, "button": "right"})
		mustCall(t, b, "browser_click", map[string]any{"ref": ref, "count": 2})
		r := mustCall(t, b, "browser_click", map[string]any{"ref": ref, "modifiers": []string{"Shift"}})
		if !strings.Contains(r.Text, "(Shift)") {
			t.Errorf("the result does not say Shift was held: %s", r.Text)
		}
		if got, want := pageLog(t, b), `"contextmenu:2 auxclick:2 click:0 click:0 dblclick:0 click:0:shift "`; got != want {
			t.Errorf("events: got %s, want %s", got, want)
		}
		if r := tryCall(t, b, "browser_click", map[string]any{"ref": ref, "button": "side"}); !r.IsError || !strings.Contains(r.Text, "left, right or middle") {
			t.Errorf("a bad button: %+v", r)
		}
	})

	t.Run("hover opens the menu", func(t *testing.T) {
		snap := open(t, "/hover")
		if strings.Contains(snap, "Sign out") {
			t.Fatalf("the menu shows before the hover:\n%s", snap)
		}
		mustCall(t, b, "browser_hover", map[string]any{"ref": refFor(t, snap, `button "Account"`)})
		snap = mustCall(t, b, "browser_snapshot", nil).Text
		mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `link "Sign out"`)})
		has(t, "signout")
	})

	t.Run("html5 drag fires drop", func(t *testing.T) {
		snap := open(t, "/board")
		r := mustCall(t, b, "browser_drag", map[string]any{"ref": refFor(t, snap, "Write report"), "to": "Done"})
		if !strings.Contains(r.Text, "HTML5") || !strings.Contains(r.Text, `onto "Done"`) {
			t.Errorf("result: %s (want the drop zone named as it was given, not by a ref no snapshot showed)", r.Text)
		}
		has(t, "drop:card")
	})

	t.Run("mouse drag moves a slider", func(t *testing.T) {
		snap := open(t, "/slider")
		r := mustCall(t, b, "browser_drag", map[string]any{"ref": refFor(t, snap, `slider "Volume"`), "to": refFor(t, snap, `button "Max"`)})
		if !strings.Contains(r.Text, "with the mouse") {
			t.Errorf("result: %s", r.Text)
		}
		has(t, "slid:true")
	})

	t.Run("check verifies the state", func(t *testing.T) {
		snap := open(t, "/checks")
		news := refFor(t, snap, `checkbox "Newsletter"`)
		if r := mustCall(t, b, "browser_check", map[string]any{"ref": news}); !strings.Contains(r.Text, "it is checked now") {
			t.Errorf("check: %s", r.Text)
		}
		if r := mustCall(t, b, "browser_check", map[string]any{"ref": news}); !strings.Contains(r.Text, "already checked") {
			t.Errorf("check again: %s", r.Text)
		}
		if r := mustCall(t, b, "browser_check", map[string]any{"ref": news, "checked": false}); !strings.Contains(r.Text, "unchecked now") {
			t.Errorf("uncheck: %s", r.Text)
		}
		if r := mustCall(t, b, "browser_check", map[string]any{"ref": refFor(t, snap, `switch "Dark mode"`)}); !strings.Contains(r.Text, "checked now") {
			t.Errorf("switch: %s", r.Text)
		}
		if r := tryCall(t, b, "browser_check", map[string]any{"ref": refFor(t, snap, `checkbox "Locked"`)}); !r.IsError || !strings.Contains(r.Text, "still unchecked") {
			t.Errorf("a box the page keeps unchecked must fail: %+v", r)
		}
	})

	t.Run("upload to an input and through a chooser", func(t *testing.T) {
		dir := t.TempDir()
		cv := filepath.Join(dir, "cv.txt")
		os.WriteFile(cv, []byte("Ada Lovelace, engineer"), 0o600)
		snap := open(t, "/uploads")
		r := mustCall(t, b, "browser_upload", map[string]any{"ref": refFor(t, snap, "CV"), "paths": []string{cv}})
		if !strings.Contains(r.Text, "cv.txt") {
			t.Errorf("upload: %s", r.Text)
		}
		// A button that opens the chooser: the click says so, and the
		// upload through that button fills the hidden input.
		photo := refFor(t, snap, `button "Choose photo"`)
		if r := mustCall(t, b, "browser_click", map[string]any{"ref": photo}); !strings.Contains(r.Text, "A file chooser opened") {
			t.Errorf("the click does not report the file chooser: %s", r.Text)
		}
		mustCall(t, b, "browser_upload", map[string]any{"ref": photo, "paths": []string{cv}})
		if got := mustCall(t, b, "browser_eval", map[string]any{"js": "document.getElementById('photo').files[0].name"}).Text; got != `"cv.txt"` {
			t.Errorf("the hidden input holds %s", got)
		}
		mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `button "Send"`)})
		has(t, "upload:cv.txt:Ada Lovelace, engineer")
		if r := tryCall(t, b, "browser_upload", map[string]any{"ref": "e1", "paths": []string{filepath.Join(dir, "missing")}}); !r.IsError || !strings.Contains(r.Text, "cannot upload") {
			t.Errorf("a missing file: %+v", r)
		}
	})

	t.Run("dialogs wait for an answer", func(t *testing.T) {
		snap := open(t, "/dialogs")
		r := mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `button "Delete"`)})
		if !strings.Contains(r.Text, `A confirm dialog is open in tab`) || !strings.Contains(r.Text, "Delete the card?") {
			t.Errorf("the click does not report the confirm: %s", r.Text)
		}
		if r := tryCall(t, b, "browser_snapshot", nil); !r.IsError || !strings.Contains(r.Text, "nothing was done") {
			t.Errorf("a snapshot behind an open dialog: %+v", r)
		}
		for _, r := range recs() {
			if strings.HasPrefix(r, "confirm:") {
				t.Errorf("the confirm was answered before anyone did: %q", r)
			}
		}
		if r := mustCall(t, b, "browser_dialog", map[string]any{"accept": false}); !strings.Contains(r.Text, "Dismissed the confirm") {
			t.Errorf("dismiss: %s", r.Text)
		}
		has(t, "confirm:false")
		mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `button "Name"`)})
		if r := mustCall(t, b, "browser_dialog", map[string]any{"accept": true, "text": "Ada"}); !strings.Contains(r.Text, `with "Ada"`) {
			t.Errorf("prompt: %s", r.Text)
		}
		has(t, "prompt:Ada")
		if r := tryCall(t, b, "browser_dialog", map[string]any{"accept": true}); !r.IsError {
			t.Errorf("answering no dialog: %+v", r)
		}
	})

	t.Run("leaving a page with unsaved work asks the model", func(t *testing.T) {
		snap := open(t, "/leave")
		mustCall(t, b, "browser_click", map[string]any{"ref": refFor(t, snap, `button "Edit"`)}) // the person's gesture a beforeunload needs
		r := mustCall(t, b, "browser_navigate", map[string]any{"url": srv.URL + "/page"})
		if !strings.Contains(r.Text, "A beforeunload dialog is open") {
			t.Fatalf("navigating away: %s", r.Text)
		}
		mustCall(t, b, "browser_dialog", map[string]any{"accept": false})
		if got := mustCall(t, b, "browser_eval", map[string]any{"js": "location.pathname"}).Text; got != `"/leave"` {
			t.Errorf("stay on the page: it is at %s", got)
		}
		mustCall(t, b, "browser_navigate", map[string]any{"url": srv.URL + "/page"})
		if r := mustCall(t, b, "browser_dialog", map[string]any{"accept": true}); !strings.Contains(r.Text, "Just a page") {
			t.Errorf("leave the page: %s", r.Text)
		}
	})

	t.Run("download saves a safe file", func(t *testing.T) {
		snap := open(t, "/downloads")
		r := mustCall(t, b, "browser_download", map[string]any{"ref": refFor(t, snap, `link "Invoice"`)})
		want := filepath.Join(downloads, "bashrc")
		if !strings.Contains(r.Text, want) || r.Path != want {
			t.Errorf("download: %+v", r)
		}
		fi, err := os.Stat(want)
		if err != nil {
			t.Fatalf("the file is not there: %v", err)
		}
		if fi.Mode().Perm()&0o111 != 0 {
			t.Errorf("the downloaded file is executable: %v", fi.Mode())
		}
		r = mustCall(t, b, "browser_download", map[string]any{"url": srv.URL + "/file"})
		if r.Path != filepath.Join(downloads, "bashrc (2)") {
			t.Errorf("a second download must not replace the first: %+v", r)
		}
		// The page starts a second download of its own right after the one
		// asked for: only the first is kept.
		if r := mustCall(t, b, "browser_download", map[string]any{"ref": refFor(t, snap, `link "Report"`)}); r.Path != filepath.Join(downloads, "report.txt") {
			t.Errorf("the report: %+v", r)
		}
		if r := tryCall(t, b, "browser_download", map[string]any{"ref": refFor(t, snap, `link "A page"`)}); !r.IsError || !strings.Contains(r.Text, "no download began") {
			t.Errorf("a link to a page: %+v", r)
		}
		time.Sleep(time.Second) // the page's own download, if let in, would land by now
		left, _ := os.ReadDir(downloads)
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		if strings.Join(names, ",") != "bashrc,bashrc (2),report.txt" {
			t.Errorf("the download folder holds %q, want the 3 files asked for and nothing else", names)
		}
	})
}
