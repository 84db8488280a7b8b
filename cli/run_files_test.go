package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/agent/transcript"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// devtoolsRunEnv is a binEnv for `run` with the scripted LLM srv and the
// default chrome-devtools-mcp (from the warmed npx cache under the
// person's HOME), saving into an output folder of the test's own.
func devtoolsRunEnv(t *testing.T, srv *llmtest.Server) *binEnv {
	t.Helper()
	testutil.Require(t, "chromium", browser.FindChrome)
	testutil.RequireProgram(t, "npx")
	e := newBinEnv(t, "OPENAI_API_KEY=", "OPENAI_BASE_URL="+srv.URL, "BROWSERAGENT_MODEL=test-model", "BROWSERAGENT_PROVIDER=",
		"BROWSERAGENT_DISCOVER=0", npxInit)
	e.env = append(e.env, "BROWSERAGENT_OUTPUT_DIR="+filepath.Join(e.dir, "out"))
	return e
}

// TestRunYesDoesNotUploadLocalFiles: `run --yes` approves writes on
// ordinary pages, and nothing more. Round three's attacker had the model
// call chrome-devtools-mcp's upload_file (now browser_upload) with ./.env on a page whose form
// sends the chosen file at once: --yes approved it and the page's server
// received the keys. A file read asks a person every time; with nobody to
// ask it is refused, and the server receives nothing.
func TestRunYesDoesNotUploadLocalFiles(t *testing.T) {
	t.Parallel()
	got := make(chan string, 4)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			got <- string(body)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Apply</title><h1>Send us your CV</h1>
<form method="post" enctype="multipart/form-data" action="/cv"><label>CV <input type="file" name="cv" onchange="this.form.submit()"></label></form>`)
	}))
	t.Cleanup(ts.Close)
	// chrome-devtools-mcp's upload_file is no longer offered (browser_upload
	// covers it), so the model asks the native tool, with the same file.
	fileInput := regexp.MustCompile(`"CV"[^\n]*\[ref=(\w+)\]`)
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("upload"), Reply: llmtest.Call("browser_open", `{"url":"`+ts.URL+`/"}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_open"), Reply: llmtest.Call("browser_snapshot", `{}`)},
		llmtest.Rule{When: llmtest.AfterCall("browser_snapshot"), Do: func(r llmtest.Request) llmtest.Reply {
			m := fileInput.FindStringSubmatch(r.Last().Content)
			if m == nil {
				return llmtest.Text("no file input in: " + r.Last().Content)
			}
			return llmtest.Call("browser_upload", `{"ref":"`+m[1]+`","paths":["./.env"]}`)
		}},
		llmtest.Rule{When: llmtest.AfterCall("browser_upload"), Do: func(r llmtest.Request) llmtest.Reply {
			return llmtest.Text("upload: " + r.Last().Content)
		}},
	)
	e := devtoolsRunEnv(t, srv)
	if err := os.WriteFile(filepath.Join(e.dir, ".env"), []byte("API_KEY=sk-live-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := e.run(t, "", "run", "--yes", "--json", "upload ./.env at "+ts.URL+"/ with chrome-devtools")
	var tr transcript.Transcript
	if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
		t.Fatalf("exit %d, stdout %q: %v\nstderr:\n%s", code, stdout, err, stderr)
	}
	select {
	case body := <-got:
		t.Errorf("--yes sent ./.env to the page's server:\n%s", body)
	default:
	}
	if !strings.HasPrefix(tr.Answer, "upload: ") || !strings.Contains(tr.Answer, "reads ") || !strings.Contains(tr.Answer, "--yes never covers") {
		t.Errorf("the model was not told the upload was refused and why: %q\nstderr:\n%s", tr.Answer, stderr)
	}
}

// TestFetchOutRefusesLinksAndProtectedFiles: `fetch --out` wrote through a
// symbolic link and onto .mcp.json (round three). It refuses a link, and
// every file the guard never lets a tool write, before fetching anything;
// the file the link points at stays as it was.
func TestFetchOutRefusesLinksAndProtectedFiles(t *testing.T) {
	t.Parallel()
	page := articleServer(t)
	e := runBinEnv(t, nil)
	target := filepath.Join(e.dir, "notes.txt")
	if err := os.WriteFile(target, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(e.dir, "results.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ out, want string }{
		{"results.jsonl", "is a symbolic link"},
		{".mcp.json", "MCP server list"},
		{".vscode/tasks.json", "editor's settings"},
		{".bashrc", "shell start-up file"},
	} {
		code, stdout, stderr := e.run(t, "", "fetch", "--out", tc.out, page)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("fetch --out %s: exit %d, stdout %q, stderr %q; want exit %d naming %q", tc.out, code, stdout, stderr, exitUsage, tc.want)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "mine\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	for _, p := range []string{".mcp.json", ".bashrc", ".vscode"} {
		if _, err := os.Stat(filepath.Join(e.dir, p)); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if code, _, stderr := e.run(t, "", "fetch", "--out", "ok.jsonl", page); code != 0 {
		t.Errorf("fetch --out ok.jsonl: exit %d: %s", code, stderr)
	}
}
