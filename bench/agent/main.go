//go:build linux

// Command agent-bench measures what a person waits for and pays for when
// the agent starts:
//
//   - whole-process time of `browseragent run` on a web_fetch-only task
//     (a scripted LLM server and a local page, both on 127.0.0.1), with
//     the default MCP servers configured against --no-mcp, in one run, and
//     the ratio of the medians;
//   - the interactive shell's idle memory before any browser call: the
//     PSS sum of its process tree (browseragent and any child).
//
// Run it with:
//
//	go run ./bench/agent [-n 15] [-everything]
//
// -everything adds a run with @modelcontextprotocol/server-everything
// configured too: an MCP server that is not the browser's and takes
// seconds to start. `run` does not wait for it (its tools would join on a
// later step), so the ratio against --no-mcp stays near 1; the run still
// stops it at the end. It needs Linux (/proc).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/browseragent/browseragent/agent/llmtest"
	"github.com/browseragent/browseragent/internal/testutil"
)

const page = `<!doctype html><html><head><title>Bench article</title></head><body><main><article>
<h1>The bench article</h1><p>This page is served on the loopback interface for the benchmark.
The secret word is <b>marmalade</b>. It is said only once, in the middle of ordinary prose that
gives the extractor something to keep.</p><p>A second paragraph follows, so that the article has
some body and the extraction is not a single line.</p></article></main></body></html>`

func main() {
	n := flag.Int("n", 15, "runs per configuration")
	everything := flag.Bool("everything", false, "also measure with server-everything configured")
	flag.Parse()
	if err := run(*n, *everything); err != nil {
		fmt.Fprintln(os.Stderr, "agent-bench:", err)
		os.Exit(1)
	}
}

type stderrReporter struct{}

func (stderrReporter) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "agent-bench: "+format+"\n", args...)
}

func run(n int, everything bool) error {
	dir, err := os.MkdirTemp("", "agent-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := testutil.BuildBrowseragent(dir)
	if err != nil {
		return err
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(page))
	}))
	defer site.Close()
	url := site.URL + "/article.html"
	llm, err := llmtest.Start("127.0.0.1:0", stderrReporter{},
		llmtest.Rule{When: llmtest.LastUser("secret word"), Reply: llmtest.Call("web_fetch", `{"url":"`+url+`"}`)},
		llmtest.Rule{When: llmtest.LastTool("marmalade"), Reply: llmtest.Text("The secret word is marmalade.")},
	)
	if err != nil {
		return err
	}
	defer llm.Close()

	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"OPENAI_BASE_URL="+llm.URL, "OPENAI_API_KEY=bench", "BROWSERAGENT_MODEL=bench")
	task := "what is the secret word in " + url + "?"
	configs := []struct {
		name string
		args []string
	}{
		{"--no-mcp", []string{"run", "--no-mcp", task}},
		{"default MCP (chrome-devtools-mcp)", []string{"run", task}},
	}
	if everything {
		cfg := filepath.Join(dir, "everything.json")
		os.WriteFile(cfg, []byte(`{"mcpServers":{"everything":{"command":"npx","args":["-y","@modelcontextprotocol/server-everything@2026.8.31"]}}}`), 0o644)
		configs = append(configs, struct {
			name string
			args []string
		}{"default + server-everything", []string{"run", "--mcp-config", cfg, task}})
	}
	medians := map[string]time.Duration{}
	fmt.Printf("browseragent run, web_fetch-only task, %d runs each (interleaved)\n", n)
	times := map[string][]time.Duration{}
	for _, c := range configs { // one untimed round: npx and the page cache warm
		if _, err := timeRun(bin, work, env, c.args); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	for i := 0; i < n; i++ {
		// Each round starts with another configuration, so that none
		// always follows the one that just stopped a server.
		for j := range configs {
			c := configs[(i+j)%len(configs)]
			d, err := timeRun(bin, work, env, c.args)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			times[c.name] = append(times[c.name], d)
		}
	}
	for _, c := range configs {
		ts := times[c.name]
		slices.Sort(ts)
		medians[c.name] = ts[len(ts)/2]
		fmt.Printf("  %-36s median %7.3f s  (min %.3f, max %.3f)\n", c.name, medians[c.name].Seconds(), ts[0].Seconds(), ts[len(ts)-1].Seconds())
	}
	base := medians["--no-mcp"]
	for _, c := range configs[1:] {
		fmt.Printf("  ratio %s / --no-mcp: %.2f\n", c.name, float64(medians[c.name])/float64(base))
	}

	pss, procs, err := idleShellPSS(bin, work, env)
	if err != nil {
		return fmt.Errorf("idle shell: %w", err)
	}
	fmt.Printf("idle shell before any browser call (default MCP config): PSS %.1f MB over %d process(es)\n", float64(pss)/1024, procs)
	return nil
}

func timeRun(bin, work string, env, args []string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = work, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil || !strings.Contains(out.String(), "marmalade") {
		return 0, fmt.Errorf("run failed (%v): %s%s", err, out.String(), errb.String())
	}
	return d, nil
}

// idleShellPSS starts the shell with a held-open pipe as input, lets it
// settle, and sums the PSS of its process tree.
func idleShellPSS(bin, work string, env []string) (kb, procs int, err error) {
	cmd := exec.Command(bin)
	cmd.Dir, cmd.Env = work, env
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	time.Sleep(3 * time.Second)
	for _, pid := range tree(cmd.Process.Pid) {
		if v, ok := pssKB(pid); ok {
			kb += v
			procs++
		}
	}
	return kb, procs, nil
}

// tree is pid and all its descendants, read from /proc.
func tree(root int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 {
			ppid, _ := strconv.Atoi(fields[1])
			parent[pid] = ppid
		}
	}
	out := []int{root}
	for changed := true; changed; {
		changed = false
		for pid, pp := range parent {
			if slices.Contains(out, pp) && !slices.Contains(out, pid) {
				out = append(out, pid)
				changed = true
			}
		}
	}
	return out
}

func pssKB(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss:" {
			v, _ := strconv.Atoi(f[1])
			return v, true
		}
	}
	return 0, false
}
