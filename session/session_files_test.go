package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// TestSessionUploadAndDownloadAskNamingTheFiles: browser_upload reads the
// person's files and hands them to a page, browser_download writes one:
// through the one registry path, even in the agent's own isolated browser
// where clicks need no question, each asks the person first, and the
// question names every file read and the folder written. A "no" leaves the
// page's server without the file and the folder empty.
func TestSessionUploadAndDownloadAskNamingTheFiles(t *testing.T) {
	testutil.Parallel(t)
	var mu sync.Mutex
	var got []string
	mux := http.NewServeMux()
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Form</title><form method=post action=/send enctype=multipart/form-data>
<label>Files <input type=file name=f multiple></label><button>Send</button></form><a href="/invoice" download>Invoice</a>`)
	})
	mux.HandleFunc("/send", func(w http.ResponseWriter, r *http.Request) {
		r.ParseMultipartForm(1 << 20)
		mu.Lock()
		for _, h := range r.MultipartForm.File["f"] {
			got = append(got, h.Filename)
		}
		mu.Unlock()
		fmt.Fprint(w, "<title>Sent</title>")
	})
	mux.HandleFunc("/invoice", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", `attachment; filename="invoice-11.pdf"`)
		fmt.Fprint(w, "%PDF-1.4 invoice")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	files := t.TempDir()
	a, b := filepath.Join(files, "cv.pdf"), filepath.Join(files, "letter.txt")
	os.WriteFile(a, []byte("cv"), 0o600)
	os.WriteFile(b, []byte("letter"), 0o600)
	downloads := filepath.Join(t.TempDir(), "saved")
	person := &personAtTerminal{}
	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := &SessionOptions{Rules: rules, Approver: person, AuditPath: filepath.Join(t.TempDir(), "audit.jsonl")}
	opts.Browser.Launch.Host = shared.Endpoint(t)
	opts.Browser.DownloadDir = downloads
	s, err := NewSession(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if res := call(t, s, "browser_open", map[string]any{"url": srv.URL + "/form"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	input := pressRefNamed(t, s, "Files")
	upload := map[string]any{"ref": input, "paths": []string{a, b}}

	res := call(t, s, "browser_upload", upload) // the person says no
	q := person.questions()
	if !res.IsError() || len(q) != 1 || !strings.Contains(q[0].Reason, a) || !strings.Contains(q[0].Reason, b) {
		t.Fatalf("the upload must ask, naming both files: %+v, questions %+v", res, q)
	}
	person.will(tools.AnswerOnce)
	if res := call(t, s, "browser_upload", upload); res.IsError() {
		t.Fatalf("the approved upload: %s", res.Text)
	}
	if res := call(t, s, "browser_click", map[string]any{"ref": pressRefNamed(t, s, "Send")}); res.IsError() {
		t.Fatalf("send: %s", res.Text)
	}
	mu.Lock()
	if strings.Join(got, ",") != "cv.pdf,letter.txt" {
		t.Errorf("the server got %q, want the two approved files", got)
	}
	mu.Unlock()

	call(t, s, "browser_navigate", map[string]any{"url": srv.URL + "/form"})
	link := pressRefNamed(t, s, "Invoice")
	res = call(t, s, "browser_download", map[string]any{"ref": link}) // no
	q = person.questions()
	if !res.IsError() || len(q) != 3 || !strings.Contains(q[2].Reason, "writes "+downloads) {
		t.Fatalf("the download must ask, naming the folder it writes: %+v, questions %+v", res, q[2:])
	}
	if _, err := os.Stat(downloads); !os.IsNotExist(err) {
		t.Errorf("the refused download made its folder: %v", err)
	}
	person.will(tools.AnswerOnce)
	res = call(t, s, "browser_download", map[string]any{"ref": link})
	if res.IsError() || !strings.Contains(res.Text, `Downloaded "invoice-11.pdf"`) {
		t.Fatalf("the approved download: %s", res.Text)
	}
	if b, err := os.ReadFile(filepath.Join(downloads, "invoice-11.pdf")); err != nil || string(b) != "%PDF-1.4 invoice" {
		t.Errorf("the saved file: %q, %v", b, err)
	}
}

// TestSessionUploadIntoCrossSiteFrame: a file chooser opened inside a
// cross-site iframe (its own renderer process: an out-of-process frame)
// was not caught. The agent's browser_click on the bank frame's "Attach
// statement" button (it calls a hidden input's click()) said nothing of a
// chooser, and browser_upload on it found none, so the upload could not be
// done; the person's Chrome would have shown its own file dialog. Now a
// chooser opened in such a frame is caught as in the tab's own document:
// the upload is judged for the frame's page (the bank: a sensitive
// question, naming the file read) and, approved, the bank's page receives
// the file — by its button, or by its file input.
func TestSessionUploadIntoCrossSiteFrame(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	site := newTestSite(t)
	site.page("/apply", `<title>Apply</title><h1>Apply</h1><iframe src="{bank}/bank/upload" title="Bank" style="width:400px;height:300px"></iframe>`)
	site.page("/bank/upload", `<title>Bank upload</title><input type=file id=f style="display:none"
 onchange="fetch('/bank/got?name=' + encodeURIComponent(this.files[0].name) + '&size=' + this.files[0].size)">
<button onclick="document.getElementById('f').click()">Attach statement</button>
<label>Statement file <input type=file onchange="fetch('/bank/got?name=' + encodeURIComponent(this.files[0].name) + '&size=' + this.files[0].size)"></label>`)
	var mu sync.Mutex
	var got []string
	site.handle("/bank/got", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.FormValue("name")+" "+r.FormValue("size"))
		mu.Unlock()
	})
	file := filepath.Join(t.TempDir(), "statement.pdf")
	os.WriteFile(file, []byte("%PDF statement"), 0o600)
	person := &personAtTerminal{}
	s := openSession(t, false, bankRules, person)
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/apply"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	var snap string
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(snap, "Attach statement") && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		snap = call(t, s, "browser_snapshot", map[string]any{}).Text
	}
	for _, tc := range []struct{ element, want string }{
		{"Attach statement", "statement.pdf 14"},
		{"Statement file", "statement.pdf 14"},
	} {
		mu.Lock()
		got = nil
		mu.Unlock()
		asked := len(person.questions())
		person.will(tools.AnswerOnce)
		ref := frameRefNamed(t, s, tc.element)
		res := call(t, s, "browser_upload", map[string]any{"ref": ref, "paths": []string{file}})
		if res.IsError() {
			t.Errorf("upload by %q (%s): %s", tc.element, ref, res.Text)
		}
		q := person.questions()[asked:]
		if len(q) != 1 || !q[0].Sensitive || !strings.Contains(q[0].Reason, file) || !strings.Contains(q[0].PageURL+q[0].Reason, site.Bank) {
			t.Errorf("upload by %q: want one sensitive question naming the bank and the file, got %+v", tc.element, q)
		}
		var saw []string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			mu.Lock()
			saw = append([]string(nil), got...)
			mu.Unlock()
			if len(saw) > 0 {
				break
			}
		}
		if strings.Join(saw, ",") != tc.want {
			t.Errorf("upload by %q: the bank's page got %q, want %q", tc.element, saw, tc.want)
		}
	}
	// A click on the button says the chooser opened, and browser_upload
	// of the same ref fills that chooser (with another file: choosing the
	// same one again changes nothing on the page).
	file = filepath.Join(filepath.Dir(file), "statement-2.pdf")
	os.WriteFile(file, []byte("%PDF statement 2"), 0o600)
	mu.Lock()
	got = nil
	mu.Unlock()
	person.will(tools.AnswerOnce, tools.AnswerOnce) // the click on the bank, then the upload
	ref := frameRefNamed(t, s, "Attach statement")
	if res := call(t, s, "browser_click", map[string]any{"ref": ref}); !strings.Contains(res.Text, "A file chooser opened: browser_upload ref="+ref) {
		t.Errorf("click on the bank's button: %s", res.Text)
	}
	if res := call(t, s, "browser_upload", map[string]any{"ref": ref, "paths": []string{file}}); res.IsError() {
		t.Errorf("upload into the chooser the click opened: %s", res.Text)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	mu.Lock()
	if strings.Join(got, ",") != "statement-2.pdf 16" {
		t.Errorf("upload after the click: the bank's page got %q", got)
	}
	mu.Unlock()
}

// frameRefNamed reads the current page and returns the ref of the element
// called name inside one of its frames (f1e3).
func frameRefNamed(t *testing.T, s *Session, name string) string {
	t.Helper()
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	m := regexp.MustCompile(`"` + regexp.QuoteMeta(name) + `" \[ref=(f\d+e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no frame ref for %q in:\n%s", name, snap)
	}
	return m[1]
}
