package cli

import (
	"regexp"
	"strings"
	"testing"
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

// TestDescribeBuild: the version of the binary, built as a person builds
// it, says which build it is (internal/buildinfo tests the wording).
func TestDescribeBuild(t *testing.T) {
	t.Run("the binary, built as a person builds it", func(t *testing.T) {
		code, out, _ := newBinEnv(t).run(t, "", "version")
		if code != 0 || strings.Contains(out, "(devel)") || !regexp.MustCompile(`^browseragent \S+ \(.*(built|committed) \d{4}-\d\d-\d\d, go1\.`).MatchString(out) {
			t.Errorf("browseragent version: exit %d, %q", code, out)
		}
	})
}
