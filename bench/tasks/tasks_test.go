package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/session"
	"github.com/browseragent/browseragent/tools"
)

var shared = testutil.NewSharedBrowser(browser.FindChrome, func(dir string) []string {
	return browser.LaunchArgs(dir, browser.LaunchOptions{})
})

func TestMain(m *testing.M) { testutil.Main(m, shared) }

// yesToFiles is the person approving every question once.
type yesToFiles struct{}

func (yesToFiles) Approve(context.Context, tools.ApprovalRequest) (tools.Answer, error) {
	return tools.AnswerOnce, nil
}

// WriteFiles writes the fixture files into dir.
func writeFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range Files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTasksThroughTheRegistry plays every task's steps through the one
// registry path of a session on real Chromium, each call one of the tools
// the registry lists, and checks the page's own record.
func TestTasksThroughTheRegistry(t *testing.T) {
	testutil.Parallel(t)
	site, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	files := writeFiles(t)
	for _, task := range All {
		t.Run(task.Name, func(t *testing.T) {
			testutil.Parallel(t)
			rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			opts := &session.SessionOptions{Rules: rules, Approver: yesToFiles{}, AuditPath: filepath.Join(t.TempDir(), "audit.jsonl")}
			opts.Browser.Launch.Host = shared.Endpoint(t)
			opts.Browser.DownloadDir = t.TempDir()
			s, err := session.NewSession(opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			var results []string
			for i, st := range task.Steps {
				var offered []string
				for _, d := range s.Registry.Tools() {
					offered = append(offered, d.Name)
				}
				if !slices.Contains(offered, st.Tool) {
					t.Fatalf("step %d calls %s, which is not on offer: %v", i, st.Tool, offered)
				}
				args, err := site.Resolve(st, files, results)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				raw, _ := json.Marshal(args)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				res, err := s.Registry.Call(ctx, st.Tool, raw, tools.OriginCommand)
				cancel()
				if err != nil && !errors.Is(err, guard.ErrDenied) {
					t.Fatalf("step %d %s %s: %v", i, st.Tool, raw, err)
				}
				if res.IsError() {
					t.Fatalf("step %d %s %s: %s", i, st.Tool, raw, res.Text)
				}
				results = append(results, res.Text)
			}
			deadline := time.Now().Add(5 * time.Second)
			for !site.Saw(task.Want) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if !site.Saw(task.Want) {
				t.Errorf("the site never saw %q (it saw %q); the last result:\n%s", task.Want, site.Records(), results[len(results)-1])
			}
		})
	}
}
