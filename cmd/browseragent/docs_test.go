package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docTestMarker, alone on the line before a fenced block of the README or a
// docs/ chapter, makes TestDocExamples run that block. Mark only blocks that
// need no network and no browser: they run on every machine.
const docTestMarker = "<!-- doc-test -->"

// docBlock is one marked fenced block.
type docBlock struct {
	file string
	line int // of the opening fence
	lang string
	body []string
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
// code. A `sh` block's lines must each exit 0.
func TestDocExamples(t *testing.T) {
	blocks := markedBlocks(t)
	if len(blocks) == 0 {
		t.Fatal("no doc-test blocks found in README.md and docs/*.md")
	}
	bin := filepath.Dir(program(t, "."))
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			home := t.TempDir()
			env := []string{
				"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
				"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
				"XDG_STATE_HOME=" + filepath.Join(home, "state"), "NO_COLOR=1", "TERM=dumb",
			}
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
	root := filepath.Join("..", "..")
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
	marked := false
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
				cur = &docBlock{file: file, line: n, lang: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
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
			marked = false
		case strings.TrimSpace(line) == docTestMarker:
			marked = true
		case strings.TrimSpace(line) != "":
			marked = false
		}
	}
	return blocks
}
