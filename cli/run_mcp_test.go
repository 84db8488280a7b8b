package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/mcpclient"
)

// slowServerConfig writes an MCP config with one server, "slowpoke"
// (mcpclient's raw test server), that does not answer initialize until the
// returned gate file exists: a server slow to start for as long as the test
// wants. The browser's server is disabled, so slowpoke is the only one.
func slowServerConfig(t *testing.T) (cfg, gate string) {
	t.Helper()
	bin := rawServerBin(t)
	dir := t.TempDir()
	gate = filepath.Join(dir, "gate")
	cfg = filepath.Join(dir, "mcp.json")
	body := fmt.Sprintf(`{"mcpServers":{"chrome-devtools":{"disabled":true},"slowpoke":{"command":%q,"args":["gate=%s"]}}}`, bin, gate)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, gate
}

func openGate(t *testing.T, gate string) {
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Error(err)
	}
}

const slowTool = "mcp__slowpoke__echo"

// TestRunDoesNotWaitForMCPServers: with an MCP server that never finishes
// starting, `run` answers a web_fetch task at once, without its tools, and
// at the end stops that server: no process is left.
func TestRunDoesNotWaitForMCPServers(t *testing.T) {
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	cfg, gate := slowServerConfig(t) // the gate never opens
	page := articleServer(t)
	var nices []int // of the server's processes, seen at the first step
	srv := llmtest.New(t,
		llmtest.Rule{When: llmtest.LastUser("title"), Do: func(llmtest.Request) llmtest.Reply {
			// The first step does not wait for the server, so its process
			// may not be spawned yet, or not lowered yet (the group gets
			// its nice just after the spawn): look until it is, for 5 s.
			// It never exits before the gate opens.
			for range 100 {
				nices = serverNices(t, gate)
				if len(nices) > 0 && !slices.ContainsFunc(nices, func(n int) bool { return n != mcpclient.BackgroundNice }) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			return llmtest.Call("web_fetch", `{"url":"`+page+`"}`)
		}},
		llmtest.Rule{When: llmtest.LastTool("fishing fleet"), Reply: llmtest.Text("Quiet Harbour Gazette")},
	)
	runEnv(t, srv)
	// --timeout is no speed limit: a run that waited for the server (30 s
	// before) would give up, instead of answering.
	code, stdout, stderr := runMain("run", "--timeout", "25s", "--mcp-config", cfg, "what is the title of "+page)
	if code != 0 || stdout != "Quiet Harbour Gazette\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for i, r := range srv.Requests() {
		if slices.Contains(r.Tools, slowTool) {
			t.Errorf("request %d offers %s, from a server that never started", i+1, slowTool)
		}
	}
	if strings.Contains(stderr, "slowpoke") {
		t.Errorf("stderr speaks of the server stopped at the end:\n%s", stderr)
	}
	// Nobody waits for it, so it starts at a lower CPU priority.
	if len(nices) == 0 || slices.ContainsFunc(nices, func(n int) bool { return n != mcpclient.BackgroundNice }) {
		t.Errorf("nice of the starting server's processes = %v, want all %d", nices, mcpclient.BackgroundNice)
	}
}

// serverNices is the nice value of every live process below this test
// that is the slow server of gate: not a process another test left (a
// shared Chromium, one still exiting), whose nice is not this run's.
func serverNices(t *testing.T, gate string) []int {
	var out []int
	for _, pid := range testutil.Descendants() {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if !strings.Contains(string(cmdline), "gate="+gate) {
			continue
		}
		if n := niceOf(t, strconv.Itoa(pid)); n != noNice {
			out = append(out, n)
		}
	}
	return out
}

// noNice is niceOf's answer for a process that is gone.
const noNice = -100

// niceOf reads the nice value of process pid ("self" for this one) from
// /proc/PID/stat.
func niceOf(t *testing.T, pid string) int {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return noNice
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
	if len(f) <= 16 {
		return noNice
	}
	n, err := strconv.Atoi(f[16])
	if err != nil {
		t.Errorf("/proc/%s/stat: nice %q", pid, f[16])
	}
	return n
}

// TestRunWaitsForTheServerTheTaskNames: a task that names a server, as
// @slowpoke or as a word, waits for it (and only it) before the first
// step, so its tools are on offer from that step.
func TestRunWaitsForTheServerTheTaskNames(t *testing.T) {
	for _, task := range []string{"use @slowpoke to echo hello", "ask Slowpoke to echo hello"} {
		t.Run(task, func(t *testing.T) {
			t.Cleanup(func() { testutil.WaitNoDescendants(t) })
			cfg, gate := slowServerConfig(t)
			var nices []int
			srv := llmtest.New(t,
				llmtest.Rule{When: llmtest.LastUser("echo"), Do: func(llmtest.Request) llmtest.Reply {
					nices = serverNices(t, gate)
					return llmtest.Call(slowTool, `{"message":"hello from slowpoke"}`)
				}},
				llmtest.Rule{When: llmtest.LastTool("hello from slowpoke"), Reply: llmtest.Text("It said hello.")},
			)
			runEnv(t, srv)
			// The gate opens once the run is under way: until then the
			// server is starting, and a run that did not wait would send
			// its first request without the tool.
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for len(testutil.Descendants()) == 0 { // slowpoke is spawned
					time.Sleep(10 * time.Millisecond)
				}
				openGate(t, gate)
			}()
			code, stdout, stderr := runMain("run", "--yes", "--mcp-config", cfg, task)
			wg.Wait()
			if code != 0 || stdout != "It said hello.\n" {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
			}
			if reqs := srv.Requests(); len(reqs) == 0 || !slices.Contains(reqs[0].Tools, slowTool) {
				t.Errorf("the first request does not offer %s: %v", slowTool, reqs[0].Tools)
			}
			// The task waits for it: it starts at the run's own priority
			// (the test's: 0, or what `nice go test` gave it), not lowered.
			own := niceOf(t, "self")
			if len(nices) == 0 || slices.ContainsFunc(nices, func(n int) bool { return n != own }) {
				t.Errorf("nice of the named server's processes = %v, want all %d (the run's own)", nices, own)
			}
		})
	}
}

// TestRunServerJoinsLater: a server that becomes ready during the task
// joins the tool list on a later step, since the list is rebuilt per step.
// The page opens the server's gate when fetched; the model fetches again
// until the tool is offered, then calls it.
func TestRunServerJoinsLater(t *testing.T) {
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	cfg, gate := slowServerConfig(t)
	var once sync.Once
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { openGate(t, gate) })
		fmt.Fprint(w, `<!doctype html><title>Gate</title><main><p>The gate of the slow server is open now, so it can start.</p></main>`)
	}))
	defer site.Close()
	offers := func(r llmtest.Request) bool { return slices.Contains(r.Tools, slowTool) }
	srv := llmtest.New(t,
		llmtest.Rule{When: func(r llmtest.Request) bool { return !offers(r) }, Reply: llmtest.Call("web_fetch", `{"url":"`+site.URL+`/"}`)},
		llmtest.Rule{When: func(r llmtest.Request) bool { return offers(r) && !llmtest.LastTool("joined")(r) }, Reply: llmtest.Call(slowTool, `{"message":"joined"}`)},
		llmtest.Rule{When: llmtest.LastTool("joined"), Reply: llmtest.Text("The server joined.")},
	)
	runEnv(t, srv)
	code, stdout, stderr := runMain("run", "--yes", "--timeout", "25s", "--max-steps", "200", "--mcp-config", cfg, "read the gate page")
	if code != 0 || stdout != "The server joined.\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	if reqs := srv.Requests(); offers(reqs[0]) {
		t.Errorf("the first request already offers %s, before the server could start", slowTool)
	}
}
