package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/agent/transcript"
	"github.com/browseragent/browseragent/bench/tasks"
	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// taskSite serves the task suite's pages for one test, and writes its
// fixture files into a folder of the test's own.
func taskSite(t *testing.T) (*tasks.Site, string) {
	t.Helper()
	testutil.Require(t, "chromium", browser.FindChrome)
	site, err := tasks.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	files := t.TempDir()
	for name, body := range tasks.Files {
		if err := os.WriteFile(filepath.Join(files, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return site, files
}

// waitSaw waits a moment for the site to record want (a fetch the page
// sent as it was left).
func waitSaw(site *tasks.Site, want string) bool {
	for deadline := time.Now().Add(5 * time.Second); !site.Saw(want) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	return site.Saw(want)
}

// scriptedModel plays task as a model would: each request's tool results
// so far say which step comes next, its arguments are read from them, and
// it calls only a tool the request offered (a step whose tool is not on
// offer is recorded in offence and the model stops). After the last step
// it answers with the last result's first line.
func scriptedModel(task tasks.Task, site *tasks.Site, files string, offence func(string)) func(llmtest.Request) llmtest.Reply {
	return func(r llmtest.Request) llmtest.Reply {
		var results []string
		for _, m := range r.Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
		if len(results) >= len(task.Steps) {
			last := results[len(results)-1]
			return llmtest.Text("Done. " + strings.SplitN(strings.TrimSpace(last), "\n", 2)[0] + "\n" + last)
		}
		st := task.Steps[len(results)]
		if !slices.Contains(r.Tools, st.Tool) {
			offence(st.Tool + " was called but not offered: " + strings.Join(r.Tools, ", "))
			return llmtest.Text("stuck: " + st.Tool + " is not among my tools")
		}
		args, err := site.Resolve(st, files, results)
		if err != nil {
			return llmtest.Text("stuck: " + err.Error())
		}
		raw, _ := json.Marshal(args)
		return llmtest.Call(st.Tool, string(raw))
	}
}

// TestTasksThroughRun: every task of the suite (bench/tasks), done by a
// scripted model through `browseragent run` with the native tools, each
// call a tool that request offered; the page's own record says it was
// done. With nobody to ask, `run --yes` may not read the person's files,
// so the upload is refused, and the model is told so.
func TestTasksThroughRun(t *testing.T) {
	t.Parallel()
	site, files := taskSite(t)
	for _, task := range tasks.All {
		t.Run(task.Name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var offences []string
			srv := llmtest.New(t, llmtest.Rule{When: llmtest.Any(), Do: scriptedModel(task, site, files, func(s string) {
				mu.Lock()
				offences = append(offences, s)
				mu.Unlock()
			})})
			e := runBinEnv(t, srv)
			e.env = append(e.env, "XDG_DOWNLOAD_DIR="+filepath.Join(e.dir, "dl"))
			code, stdout, stderr := e.run(t, "", "run", "--no-mcp", "--yes", "--json", "--max-steps", "20", task.Prompt)
			var tr transcript.Transcript
			if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
				t.Fatalf("exit %d, stdout %q: %v\nstderr:\n%s", code, stdout, err, stderr)
			}
			mu.Lock()
			for _, o := range offences {
				t.Errorf("offence: %s", o)
			}
			mu.Unlock()
			if task.Name == "upload" {
				refused := slices.ContainsFunc(tr.Events, func(ev transcript.Event) bool {
					return ev.Type == "tool_result" && ev.Tool == "browser_upload" && ev.IsError && strings.Contains(ev.Text, "--yes never covers")
				})
				if site.Saw(task.Want) || !refused {
					t.Errorf("run --yes must not upload the person's file, and the model must be told: %+v", tr.Events)
				}
				return
			}
			if !waitSaw(site, task.Want) {
				t.Errorf("the site never saw %q; status %s, answer:\n%s\nstderr:\n%s", task.Want, tr.Status, tr.Answer, stderr)
			}
			if task.Name == "download" {
				saved := filepath.Join(e.dir, "dl", "browseragent", "invoice-2026-11.pdf")
				if _, err := os.Stat(saved); err != nil || !strings.Contains(tr.Answer, `"invoice-2026-11.pdf"`) {
					t.Errorf("the download: %v; the answer must name the file: %q", err, tr.Answer)
				}
			}
		})
	}
}

// TestTasksThroughMCPServe: every task of the suite, done by a real MCP
// client (the go-sdk's, over stdio to `browseragent mcp serve`) that calls
// only tools its tools/list names; the approvals come back as elicitation
// forms, which this host accepts, so the upload goes through here.
func TestTasksThroughMCPServe(t *testing.T) {
	t.Parallel()
	site, files := taskSite(t)
	e := newServeEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.Command(serveBinary(t), "mcp", "serve")
	cmd.Env = e.environ("XDG_DOWNLOAD_DIR=" + filepath.Join(e.dir, "dl"))
	var mu sync.Mutex
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "tasks-host", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "once"}}, nil
		}})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, task := range tasks.All {
		t.Run(task.Name, func(t *testing.T) {
			var results []string
			for i, st := range task.Steps {
				list, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var offered []string
				for _, tl := range list.Tools {
					offered = append(offered, tl.Name)
				}
				if !slices.Contains(offered, st.Tool) {
					t.Fatalf("step %d: %s is not in tools/list: %v", i, st.Tool, offered)
				}
				args, err := site.Resolve(st, files, results)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: st.Tool, Arguments: args})
				if err != nil {
					t.Fatalf("step %d %s: %v", i, st.Tool, err)
				}
				var text []string
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text = append(text, tc.Text)
					}
				}
				if res.IsError {
					t.Fatalf("step %d %s %v: %s", i, st.Tool, args, strings.Join(text, "\n"))
				}
				results = append(results, strings.Join(text, "\n"))
			}
			if !waitSaw(site, task.Want) {
				t.Errorf("the site never saw %q; the last result:\n%s", task.Want, results[len(results)-1])
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(asked, func(m string) bool { return strings.Contains(m, filepath.Join(files, "cv.txt")) }) {
		t.Errorf("the upload did not ask the host, naming the file: %q", asked)
	}
}
