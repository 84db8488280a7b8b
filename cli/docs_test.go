package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// docTestMarker, alone on the line before a fenced block of the README or a
// docs/ chapter, makes TestDocExamples run that block. Mark only blocks that
// need no network and no browser: they run on every machine.
const docTestMarker = "<!-- doc-test -->"

// docFileMarker + PATH + " -->" before a fenced block (a config example)
// makes TestDocExamples write the block to PATH, relative to the fresh home
// (config/browseragent/mcp.json is the user's MCP config), for the next
// doc-test block of the same page to run with: the example is checked by
// what browseragent makes of it.
const docFileMarker = "<!-- doc-test file: "

// docBlock is one marked fenced block.
type docBlock struct {
	file string
	line int // of the opening fence
	lang string
	body []string
	path string // for a file block: where it is written under the home
}

// docStep is one command of a console block and what it should print.
type docStep struct {
	cmd  string
	want []string
}

// TestDocExamples keeps the manual's examples true: every block marked with
// docTestMarker runs against the built binary, with a fresh home and
// config. A `console` block is "$ command" lines each followed by the output
// it must print (a line ending in "…" matches by prefix; a command shown
// without output is not compared); `echo $?` after a command prints its exit
// code. A `sh` block's lines must each exit 0. The blocks run in parallel,
// beside the package's other parallel tests: each has its own home and
// environment, and runs the built binary, not Main in this process.
func TestDocExamples(t *testing.T) {
	t.Parallel()
	blocks := markedBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("no doc-test blocks found in README.md and docs/*.md")
	}
	bin := filepath.Dir(program(t, browseragentPkg))
	var files []docBlock // file blocks waiting for the block that uses them
	for i, b := range blocks {
		if b.path != "" {
			if !filepath.IsLocal(b.path) {
				t.Errorf("%s:%d: doc-test file path %q must be relative and inside the home", b.file, b.line, b.path)
			}
			if i+1 == len(blocks) || blocks[i+1].file != b.file {
				t.Errorf("%s:%d: a doc-test file block must be followed by a doc-test block of the same page that uses it", b.file, b.line)
			}
			files = append(files, b)
			continue
		}
		with := files
		files = nil
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			for _, f := range with {
				p := filepath.Join(home, f.path)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(strings.Join(f.body, "\n")+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := []string{
				"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
				"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
				"XDG_STATE_HOME=" + filepath.Join(home, "state"), "NO_COLOR=1", "TERM=dumb", "TZ=UTC",
			}
			env = append(env, npxEnv(t, with)...)
			switch b.lang {
			case "console":
				runConsole(t, b, home, env)
			case "sh", "bash":
				for _, line := range b.body {
					if cmd := strings.TrimSpace(line); cmd != "" && !strings.HasPrefix(cmd, "#") {
						if out, err := runSh(home, env, cmd); err != nil {
							t.Errorf("%s: %v\n%s", cmd, err, out)
						}
					}
				}
			default:
				t.Fatalf("a doc-test block must be console or sh, not %q", b.lang)
			}
		})
	}
}

// npxEnv: a file block that starts a server with npx needs Node (the test
// skips without it, or fails in CI), and the warmed npm cache, offline
// first, since the home is new.
func npxEnv(t *testing.T, files []docBlock) []string {
	for _, f := range files {
		if strings.Contains(strings.Join(f.body, "\n"), `"npx"`) {
			testutil.RequireProgram(t, "npx")
			return append(testutil.NPMCacheEnv(), "BROWSERAGENT_MCP_INIT_TIMEOUT=3m")
		}
	}
	return nil
}

func runConsole(t *testing.T, b docBlock, home string, env []string) {
	steps := consoleSteps(b.body)
	// One shell runs every command, so `echo $?` sees the one before it;
	// a separator line splits the output back into steps.
	const sep = "@@doc-test-step@@"
	var script strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&script, "%s\n__rc=$?; echo %s; (exit $__rc)\n", s.cmd, sep)
	}
	out, _ := runSh(home, env, script.String())
	got := strings.Split(string(out), sep+"\n")
	if len(got) < len(steps) {
		t.Fatalf("the block stopped after %d of %d commands:\n%s", len(got)-1, len(steps), out)
	}
	for i, s := range steps {
		if len(s.want) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(got[i], "\n"), "\n")
		if !linesMatch(s.want, lines) {
			t.Errorf("$ %s\nwant:\n%s\ngot:\n%s", s.cmd, strings.Join(s.want, "\n"), strings.Join(lines, "\n"))
		}
	}
}

func runSh(dir string, env []string, script string) ([]byte, error) {
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	return cmd.CombinedOutput()
}

func consoleSteps(body []string) []docStep {
	var steps []docStep
	for _, line := range body {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			steps = append(steps, docStep{cmd: cmd})
			continue
		}
		if len(steps) > 0 {
			s := &steps[len(steps)-1]
			s.want = append(s.want, line)
		}
	}
	return steps
}

func linesMatch(want, got []string) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		w, g := strings.TrimRight(want[i], " "), strings.TrimRight(got[i], " ")
		if prefix, ok := strings.CutSuffix(w, "…"); ok {
			if !strings.HasPrefix(g, prefix) {
				return false
			}
		} else if w != g {
			return false
		}
	}
	return true
}

// markedBlocks reads the README and every docs/ chapter for marked blocks.
func markedBlocks(t *testing.T) []docBlock {
	root := ".."
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var blocks []docBlock
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		blocks = append(blocks, blocksIn(rel, data)...)
	}
	return blocks
}

func blocksIn(file string, data []byte) []docBlock {
	var blocks []docBlock
	var cur *docBlock
	marked, path := false, ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur != nil && strings.HasPrefix(line, "```"):
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.body = append(cur.body, line)
		case strings.HasPrefix(line, "```"):
			if marked {
				cur = &docBlock{file: file, line: n, lang: strings.TrimSpace(strings.TrimPrefix(line, "```")), path: path}
			} else {
				cur = nil
				// skip an unmarked block
				for sc.Scan() {
					n++
					if strings.HasPrefix(sc.Text(), "```") {
						break
					}
				}
			}
			marked, path = false, ""
		case strings.TrimSpace(line) == docTestMarker:
			marked, path = true, ""
		case strings.HasPrefix(strings.TrimSpace(line), docFileMarker) && strings.HasSuffix(strings.TrimSpace(line), "-->"):
			marked = true
			path = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), docFileMarker), "-->"))
		case strings.TrimSpace(line) != "":
			marked, path = false, ""
		}
	}
	return blocks
}
