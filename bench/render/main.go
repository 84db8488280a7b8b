//go:build linux

// Command render-bench measures `browseragent fetch --render` on a batch
// of pages a script draws after they load (testutil.ScriptPages: after
// timers, after a fetch() of the same server, on an animation frame, in two
// steps; all on 127.0.0.1), beside a minimal playwright-core script doing
// the same (open each page in a tab, wait, read its text, close the tab,
// that many tabs at once) on the same Chromium, in one run. Each counts
// the pages that came out complete and the pages per second:
//
//   - ours: fetch --render, readiness from the page's own signals;
//   - ours --wait-for article: the explicit override;
//   - playwright, waitForSelector('article'): a script that knows what to
//     wait for, the practical upper bound;
//   - playwright, waitUntil 'networkidle': its generic wait.
//
// The tools take turns round by round, so a change in the machine's load
// falls on all of them alike; the median of the rounds is printed with the
// ratio to the upper bound. Run it with:
//
//	go run ./bench/render [-n 100] [-c 0] [-rounds 3]
//
// playwright-core 1.65.1 comes from npm, pinned, under
// ~/.cache/browseragent-npm:
//
//	npm install --prefix ~/.cache/browseragent-npm/playwright-core_1.65.1 playwright-core@1.65.1
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// peerJS is the playwright-core script: argv is the module, the Chromium,
// the URL list, the concurrency and the wait ("selector" or "networkidle");
// it prints one JSON line {url, text} per page.
const peerJS = `const { chromium } = require(process.argv[2]);
const fs = require('fs');
(async () => {
  const urls = fs.readFileSync(process.argv[4], 'utf8').split('\n').filter(Boolean);
  const conc = +process.argv[5], wait = process.argv[6];
  const browser = await chromium.launch({ executablePath: process.argv[3], args: process.getuid() === 0 ? ['--no-sandbox'] : [] });
  const context = await browser.newContext();
  let next = 0;
  await Promise.all(Array.from({ length: conc }, async () => {
    while (next < urls.length) {
      const url = urls[next++];
      const page = await context.newPage();
      let text = '';
      try {
        if (wait === 'networkidle') {
          await page.goto(url, { waitUntil: 'networkidle' });
        } else {
          await page.goto(url, { waitUntil: 'load' });
          await page.waitForSelector('article');
        }
        text = await page.evaluate(() => document.body.innerText);
      } catch (e) { text = 'error: ' + e.message; }
      process.stdout.write(JSON.stringify({ url, text }) + '\n');
      await page.close();
    }
  }));
  await browser.close();
})().catch(e => { console.error(e); process.exit(1); });
`

func main() {
	n := flag.Int("n", 100, "pages in the batch")
	conc := flag.Int("c", 0, "pages at once, for every tool (0: fetch --render's default)")
	rounds := flag.Int("rounds", 3, "rounds; the median is printed")
	home, _ := os.UserHomeDir()
	pw := flag.String("playwright-core", filepath.Join(home, ".cache/browseragent-npm/playwright-core_1.65.1/node_modules/playwright-core"), "playwright-core 1.65.1 (npm i playwright-core@1.65.1)")
	chrome := flag.String("chrome", "/usr/bin/chromium", "the Chromium every tool drives")
	flag.Parse()
	if err := run(*n, *conc, *rounds, *pw, *chrome); err != nil {
		fmt.Fprintln(os.Stderr, "render-bench:", err)
		os.Exit(1)
	}
}

// tool is one way of rendering the batch.
type tool struct {
	name  string
	args  func(list, out string) (string, []string) // the program and its arguments
	rates []float64
	worst int // fewest complete pages of a round
}

func run(n, conc, rounds int, pw, chrome string) error {
	dir, err := os.MkdirTemp("", "render-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := testutil.BuildBrowseragent(dir)
	if err != nil {
		return err
	}
	script := filepath.Join(dir, "peer.js")
	if err := os.WriteFile(script, []byte(peerJS), 0o644); err != nil {
		return err
	}
	if _, err := os.Stat(pw); err != nil {
		return fmt.Errorf("playwright-core not found at %s: npm install --prefix ~/.cache/browseragent-npm/playwright-core_1.65.1 playwright-core@1.65.1", pw)
	}
	pages := testutil.NewScriptPages(n)
	defer pages.Close()
	list := filepath.Join(dir, "urls.txt")
	if err := os.WriteFile(list, []byte(strings.Join(pages.URLs(), "\n")+"\n"), 0o644); err != nil {
		return err
	}
	c := conc
	if c == 0 {
		c = defaultConcurrency(bin)
	}
	cs := strconv.Itoa(c)
	ours := func(extra ...string) func(list, out string) (string, []string) {
		return func(list, out string) (string, []string) {
			args := []string{"fetch", "--render", "-i", list, "--out", out}
			if conc != 0 {
				args = append(args, "-c", cs)
			}
			return bin, append(args, extra...)
		}
	}
	peer := func(wait string) func(list, out string) (string, []string) {
		return func(list, out string) (string, []string) { return "node", []string{script, pw, chrome, list, cs, wait} }
	}
	tools := []*tool{
		{name: "ours: fetch --render", args: ours()},
		{name: "ours: fetch --render --wait-for article", args: ours("--wait-for", "article")},
		{name: "playwright-core: waitForSelector('article')", args: peer("selector")},
		{name: "playwright-core: waitUntil 'networkidle'", args: peer("networkidle")},
	}
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"BROWSERAGENT_CHROME="+chrome)
	fmt.Printf("%d script-drawn pages on 127.0.0.1, %d at once, %s, %d rounds\n", n, c, chrome, rounds)
	for r := range rounds {
		for _, t := range tools {
			out := filepath.Join(dir, fmt.Sprintf("out-%d.jsonl", r))
			prog, args := t.args(list, out)
			cmd := exec.Command(prog, args...)
			cmd.Env = env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if prog == "node" {
				f, err := os.Create(out)
				if err != nil {
					return err
				}
				cmd.Stdout = f
				defer f.Close()
			}
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: %v\n%s", t.name, err, stderr.String())
			}
			elapsed := time.Since(start)
			complete, lines, err := countComplete(out, pages.URLs())
			if err != nil {
				return err
			}
			if lines != n {
				return fmt.Errorf("%s: %d lines for %d pages\n%s", t.name, lines, n, stderr.String())
			}
			t.rates = append(t.rates, float64(n)/elapsed.Seconds())
			if r == 0 || complete < t.worst {
				t.worst = complete
			}
		}
	}
	upper := median(tools[2].rates)
	fmt.Printf("%-46s %10s %14s %9s\n", "", "pages/s", "complete", "ratio")
	for _, t := range tools {
		fmt.Printf("%-46s %10.2f %10d/%d %8.2f×\n", t.name, median(t.rates), t.worst, n, median(t.rates)/upper)
	}
	fmt.Println("(pages/s: median of the rounds, whole process with its browser's start; complete: the fewest of a round;\n ratio: to playwright-core waiting for the selector it knows)")
	return nil
}

// defaultConcurrency is the number of pages fetch --render renders at once
// when not told, as its --help says it.
func defaultConcurrency(bin string) int {
	out, _ := exec.Command(bin, "fetch", "--help").CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "--concurrency") {
			if i := strings.Index(l, "with --render: "); i >= 0 {
				if k, err := strconv.Atoi(strings.Fields(l[i+len("with --render: "):])[0]); err == nil {
					return k
				}
			}
		}
	}
	return 4
}

// countComplete counts the result lines and those whose text holds their
// page's marker.
func countComplete(path string, urls []string) (complete, lines int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct {
			URL      string `json:"url"`
			FinalURL string `json:"final_url"`
			Error    string `json:"error"`
			Text     string `json:"text"`
			Content  string `json:"content"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return 0, 0, fmt.Errorf("%s: %v", path, err)
		}
		lines++
		if i := slices.Index(urls, line.URL); i >= 0 && strings.Contains(line.Text+line.Content, testutil.ScriptPageMarker(i)) {
			complete++
		} else {
			fmt.Fprintf(os.Stderr, "render-bench: %s incomplete (final URL %q, error %q): %.120q\n", line.URL, line.FinalURL, line.Error, line.Text+line.Content)
		}
	}
	return complete, lines, sc.Err()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
