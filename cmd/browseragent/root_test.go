package main

import (
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestUsageErrors: every kind of bad usage is one sentence on stderr and
// exit 2, never help text with exit 0 and never a stack trace.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus" for "browseragent"`},
		{[]string{"mcp", "bogus"}, `unknown command "bogus" for "browseragent mcp"`},
		{[]string{"sites", "bogus"}, `unknown command "bogus" for "browseragent sites"`},
		{[]string{"browser", "bogus"}, `unknown command "bogus" for "browseragent browser"`},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"fetch", "localhost:8080/x"}, "no scheme; write it as http://localhost:8080/x"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runMain(tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if out != "" {
				t.Errorf("stdout should be empty, got:\n%s", out)
			}
			if !strings.HasPrefix(errOut, "browseragent: ") || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("stderr = %q, want one line containing %q", errOut, tc.want)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"help"}, {"mcp"}, {"sites", "--help"}} {
		code, out, errOut := runMain(args...)
		if code != 0 || out == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestDescribeBuild: the version says which build this is from what Go
// recorded, never the bare "(devel)" of a plain go build.
func TestDescribeBuild(t *testing.T) {
	built := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "496ef69b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f"}, {Key: "vcs.time", Value: "2026-11-30T22:10:00Z"}}
	tests := []struct {
		name  string
		bi    debug.BuildInfo
		built time.Time
		want  string
	}{
		{"go install of a tag", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}}, built, "v1.4.0 (built 2026-12-02, go1.26.8)"},
		{"go build in a checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs}, built,
			"dev (revision 496ef69b1c2d, committed 2026-11-30, go1.26.8)"},
		{"with local changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: append(slices.Clone(vcs), debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, built,
			"dev (revision 496ef69b1c2d+dirty, committed 2026-11-30, go1.26.8)"},
		{"nothing stamped", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, built, "dev (built 2026-12-02, go1.26.8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, describeBuild(&tt.bi, tt.built)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	t.Run("the binary, built as a person builds it", func(t *testing.T) {
		code, out, _ := newBinEnv(t).run(t, "", "version")
		if code != 0 || strings.Contains(out, "(devel)") || !regexp.MustCompile(`^browseragent \S+ \(.*(built|committed) \d{4}-\d\d-\d\d, go1\.`).MatchString(out) {
			t.Errorf("browseragent version: exit %d, %q", code, out)
		}
	})
}
