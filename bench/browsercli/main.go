//go:build !windows

// Command browsercli-bench times `browseragent browser …` command by
// command beside Vercel's agent-browser and Microsoft's playwright-cli, in
// one run, on the same pages served on 127.0.0.1: a cold start (the first
// command of a session: daemon and browser start, then the page), then
// open, snapshot -i, click, fill and get text on a warm session. Each
// command is a whole process, as a script or a coding agent runs it. The
// tools take turns command by command, so a change in the machine's load
// falls on all of them alike. It prints medians and the ratios to
// agent-browser's. Run it with:
//
//	go run ./bench/browsercli [-n 15] [-cold 5] [-before OLD-BINARY]
//
// -before adds another build of browseragent to the turns (its own
// session), so a change is measured against the build before it in the
// same run: its medians and its ratios to agent-browser print beside ours.
//
// agent-browser 0.41.2 and @playwright/cli 0.1.22 come from npm; by
// default from the npm cache folders .ci/run warms
// (~/.cache/browseragent-npm), else set -agent-browser and -playwright-cli.
// Both drive /usr/bin/chromium (-chrome) with --no-sandbox, as ours does.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/browseragent/browseragent/internal/testutil"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

const page = `<!doctype html><title>Bench Form</title><main><h1>Order tea</h1>
<p>Pick a tea and say how many boxes you want.</p>
<label>Boxes <input name=qty></label>
<button onclick="document.getElementById('n').textContent = +document.getElementById('n').textContent + 1">Add</button>
<p>Added <span id=n>0</span> times.</p><a href="/other">Another page</a></main>`

func main() {
	n := flag.Int("n", 15, "runs of each warm command per tool")
	cold := flag.Int("cold", 5, "cold starts per tool")
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "browseragent-npm")
	ab := flag.String("agent-browser", filepath.Join(cache, "agent-browser_0.41.2/node_modules/agent-browser/bin/agent-browser-linux-x64"), "agent-browser 0.41.2 binary")
	pw := flag.String("playwright-cli", filepath.Join(cache, "_playwright_cli_0.1.22/node_modules/.bin/playwright-cli"), "playwright-cli 0.1.22 (npm i @playwright/cli@0.1.22)")
	ba := flag.String("browseragent", "", "browseragent binary (default: go build ./cmd/browseragent)")
	chrome := flag.String("chrome", "/usr/bin/chromium", "the Chromium every tool drives")
	before := flag.String("before", "", "another browseragent binary to time beside this one (the build before a change)")
	flag.Parse()
	if err := run(*n, *cold, *ab, *pw, *ba, *before, *chrome); err != nil {
		fmt.Fprintln(os.Stderr, "browsercli-bench:", err)
		os.Exit(1)
	}
}

// tool is one CLI under test: how it spells each command.
type tool struct {
	name  string
	dir   string   // working directory (playwright-cli reads its config there)
	env   []string // extra environment
	base  []string // the program and the arguments before every command
	start []string // extra arguments of the command that starts a session
	open  func(url string) []string
	first func(url string) []string // the cold start's command
	snap  []string
	click func(ref string) []string
	fill  func(ref, text string) []string
	text  []string
	close []string
}

func run(n, cold int, ab, pw, ba, before, chrome string) error {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(page)) }))
	defer srv.Close()
	work, err := os.MkdirTemp("", "browsercli-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if ba == "" {
		if ba, err = testutil.BuildBrowseragent(work); err != nil {
			return err
		}
	}
	tools, err := setup(work, ab, pw, ba, before, chrome)
	if err != nil {
		return err
	}
	// Every tool's session ends with the run, also when it fails midway;
	// the peers' daemons outlive their close, so they are ended by the
	// HOME they were given.
	defer endDaemons(filepath.Join(work, "home"))
	defer func() {
		for _, t := range tools {
			t.time(t.close...)
		}
	}()
	url := srv.URL + "/"
	times := map[string]map[string][]time.Duration{}
	for _, t := range tools {
		times[t.name] = map[string][]time.Duration{}
	}
	rec := func(t tool, what string, d time.Duration) { times[t.name][what] = append(times[t.name][what], d) }

	for i := range cold {
		for _, t := range tools {
			d, _, err := t.time(t.first(url)...)
			if err != nil {
				return fmt.Errorf("%s cold start %d: %w", t.name, i, err)
			}
			rec(t, "cold start", d)
			if _, _, err := t.time(t.close...); err != nil {
				return fmt.Errorf("%s close: %w", t.name, err)
			}
		}
	}
	for _, t := range tools {
		if _, _, err := t.time(t.first(url)...); err != nil {
			return fmt.Errorf("%s start: %w", t.name, err)
		}
	}
	for i := range n + 1 { // the first round warms up and is not counted
		for _, t := range tools {
			if err := t.round(url, i, func(what string, d time.Duration) {
				if i > 0 {
					rec(t, what, d)
				}
			}); err != nil {
				return fmt.Errorf("%s round %d: %w", t.name, i, err)
			}
		}
	}
	report(tools, times, n, cold)
	return nil
}

// round is one turn of the warm commands.
func (t tool) round(url string, i int, rec func(string, time.Duration)) error {
	d, _, err := t.time(t.open(url)...)
	if err != nil {
		return err
	}
	rec("open", d)
	d, snap, err := t.time(t.snap...)
	if err != nil {
		return err
	}
	rec("snapshot -i", d)
	button, field := refOf(snap, `button "Add"`), refOf(snap, `textbox "Boxes"`)
	if button == "" || field == "" {
		return fmt.Errorf("no refs for the button and the field in its snapshot:\n%s", snap)
	}
	if d, _, err = t.time(t.click(button)...); err != nil {
		return err
	}
	rec("click", d)
	if d, _, err = t.time(t.fill(field, fmt.Sprint(i+1))...); err != nil {
		return err
	}
	rec("fill", d)
	d, out, err := t.time(t.text...)
	if err != nil {
		return err
	}
	if !strings.Contains(out, "how many boxes") {
		return fmt.Errorf("get text printed no page text: %s", out)
	}
	rec("get text", d)
	return nil
}

var refRE = regexp.MustCompile(`ref=([a-z]*[0-9]+(?:e[0-9]+)?)`)

func refOf(snap, label string) string {
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, label) {
			if m := refRE.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// time runs one command of the tool as a whole process and returns how
// long it took and what it printed.
func (t tool) time(args ...string) (time.Duration, string, error) {
	all := append(slices.Clone(t.base), args...)
	cmd := exec.Command(all[0], all[1:]...)
	cmd.Dir = t.dir
	cmd.Env = append(os.Environ(), t.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, "", fmt.Errorf("%q: %v\n%s%s", args, err, out.String(), errb.String())
	}
	return d, out.String(), nil
}

func setup(work, ab, pw, ba, before, chrome string) ([]tool, error) {
	for _, p := range []string{ab, pw, ba, chrome} {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s: %w (see the flags)", p, err)
		}
	}
	rt := filepath.Join(work, "rt")
	pwDir := filepath.Join(work, "pw")
	home := filepath.Join(work, "home")
	for _, d := range []string{rt, home, filepath.Join(pwDir, ".playwright"), filepath.Join(work, "ab")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	cfg, _ := json.Marshal(map[string]any{"browser": map[string]any{"browserName": "chromium",
		"launchOptions": map[string]any{"executablePath": chrome, "args": []string{"--no-sandbox"}, "headless": true}}})
	if err := os.WriteFile(filepath.Join(pwDir, ".playwright", "cli.config.json"), cfg, 0o600); err != nil {
		return nil, err
	}
	ours := tool{name: "browseragent", dir: work, env: []string{"XDG_RUNTIME_DIR=" + rt, "BROWSERAGENT_CHROME=" + chrome},
		base:  []string{ba, "browser", "--session", "bench"},
		open:  func(u string) []string { return []string{"open", u} },
		snap:  []string{"snapshot", "-i"},
		click: func(r string) []string { return []string{"click", "@" + r} },
		fill:  func(r, s string) []string { return []string{"fill", "@" + r, s} },
		text:  []string{"get", "text"},
		close: []string{"close", "--all"}}
	ours.first = ours.open
	agent := tool{name: "agent-browser", dir: filepath.Join(work, "ab"), env: []string{"AGENT_BROWSER_SESSION=bench", "HOME=" + home},
		base: []string{ab},
		open: func(u string) []string { return []string{"open", u} },
		first: func(u string) []string {
			return []string{"--executable-path", chrome, "--args", "--no-sandbox", "open", u}
		},
		snap:  []string{"snapshot", "-i"},
		click: func(r string) []string { return []string{"click", "@" + r} },
		fill:  func(r, s string) []string { return []string{"fill", "@" + r, s} },
		text:  []string{"get", "text", "body"},
		close: []string{"close"}}
	playwright := tool{name: "playwright-cli", dir: pwDir, env: []string{"HOME=" + home},
		base:  []string{pw, "-s=bench"},
		open:  func(u string) []string { return []string{"goto", u} },
		first: func(u string) []string { return []string{"open", u} },
		snap:  []string{"snapshot"}, // it has no interactive-only snapshot
		click: func(r string) []string { return []string{"click", r} },
		fill:  func(r, s string) []string { return []string{"fill", r, s} },
		text:  []string{"eval", "document.body.innerText"}, // it has no get text
		close: []string{"close"}}
	all := []tool{ours, agent, playwright}
	if before != "" {
		if _, err := os.Stat(before); err != nil {
			return nil, fmt.Errorf("%s: %w (see -before)", before, err)
		}
		old := ours
		old.name, old.base = "before", []string{before, "browser", "--session", "bench-before"}
		all = append(all, old)
	}
	return all, nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func report(tools []tool, times map[string]map[string][]time.Duration, n, cold int) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("per-command latency, medians (cold start of %d, warm commands of %d; load %s)\n", cold, n, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("%-12s", "command")
	for _, t := range tools {
		fmt.Printf(" %14s", t.name)
	}
	fmt.Printf(" %12s %12s", "ours/agent", "ours/pw")
	if len(tools) > 3 {
		fmt.Printf(" %12s", "before/agent")
	}
	fmt.Println()
	for _, what := range []string{"cold start", "open", "snapshot -i", "click", "fill", "get text"} {
		fmt.Printf("%-12s", what)
		var m []time.Duration
		for _, t := range tools {
			d := median(times[t.name][what])
			m = append(m, d)
			fmt.Printf(" %14s", d.Round(100*time.Microsecond))
		}
		fmt.Printf(" %11.2fx %11.2fx", float64(m[0])/float64(m[1]), float64(m[0])/float64(m[2]))
		if len(m) > 3 {
			fmt.Printf(" %11.2fx", float64(m[3])/float64(m[1]))
		}
		fmt.Println()
	}
}

// endDaemons stops what the peers left running for this run, found by the
// HOME they were given (their browsers end with them).
func endDaemons(home string) {
	for _, pid := range testutil.ProcessesWithEnv("HOME=" + home) {
		syscall.Kill(pid, syscall.SIGTERM)
	}
}
