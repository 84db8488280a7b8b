package session

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
