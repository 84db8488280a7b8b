package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/internal/testutil"
)

// conformanceScenario is one client scenario of the official MCP
// conformance suite (pkgConformance) and the spec versions it belongs to,
// as 'conformance list' prints them.
type conformanceScenario struct {
	name     string
	versions string
}

// conformanceClient is every client scenario of the suite. Each must pass
// with no warning, but for the extension scenarios in
// conformanceUnsupported, which are run and reported.
var conformanceClient = []conformanceScenario{
	{"initialize", "2025-06-18,2025-11-25"},
	{"tools_call", "2025-06-18,2025-11-25"},
	{"elicitation-sep1034-client-defaults", "2025-11-25"},
	{"sse-retry", "2025-11-25"},
	{"auth/metadata-default", "2025-11-25"},
	{"auth/metadata-var1", "2025-11-25"},
	{"auth/metadata-var2", "2025-11-25"},
	{"auth/metadata-var3", "2025-11-25"},
	{"auth/basic-cimd", "2025-11-25"},
	{"auth/scope-from-www-authenticate", "2025-11-25"},
	{"auth/scope-from-scopes-supported", "2025-11-25"},
	{"auth/scope-omitted-when-undefined", "2025-11-25"},
	{"auth/scope-step-up", "2025-11-25"},
	{"auth/scope-retry-limit", "2025-11-25"},
	{"auth/token-endpoint-auth-basic", "2025-06-18,2025-11-25"},
	{"auth/token-endpoint-auth-post", "2025-06-18,2025-11-25"},
	{"auth/token-endpoint-auth-none", "2025-06-18,2025-11-25"},
	{"auth/pre-registration", "2025-11-25"},
	{"auth/2025-03-26-oauth-metadata-backcompat", "2025-03-26"},
	{"auth/2025-03-26-oauth-endpoint-fallback", "2025-03-26"},
	{"auth/resource-mismatch", "draft"},
	{"auth/offline-access-scope", "draft"},
	{"auth/offline-access-not-supported", "draft"},
	{"auth/client-credentials-jwt", "extension"},
	{"auth/client-credentials-basic", "extension"},
	{"auth/cross-app-access-complete-flow", "extension"},
}

// conformanceUnsupported are the extension scenarios browseragent does
// not implement, and why.
var conformanceUnsupported = map[string]string{
	"auth/client-credentials-jwt":         "no private_key_jwt client authentication (client credentials work with a secret)",
	"auth/cross-app-access-complete-flow": "no cross-app access (identity-assertion token exchange)",
}

var conformanceSummary = regexp.MustCompile(`Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings`)

// TestConformanceClient runs the official conformance suite's client
// scenarios against browseragent driven from its CLI the way a person
// scripts it (testdata/conformance-client.sh: mcp login, mcp tools, mcp
// call --yes), with curl as the browser. The suite's servers listen on
// loopback. Each scenario has a home of its own, so they run in parallel,
// but for sse-retry, which times the reconnection and so runs alone
// (TestConformanceClientSSERetry).
func TestConformanceClient(t *testing.T) {
	t.Parallel()
	c := newConformanceClient(t)
	t.Run("list", func(t *testing.T) {
		out, err := exec.Command(c.node, c.suite, "list").CombinedOutput()
		if err != nil {
			t.Fatalf("conformance list: %v\n%s", err, out)
		}
		_, client, _ := strings.Cut(string(out), "Client scenarios")
		var got []conformanceScenario
		for _, m := range regexp.MustCompile(`(?m)^\s*- (\S+) \[([^\]]*)\]`).FindAllStringSubmatch(client, -1) {
			got = append(got, conformanceScenario{m[1], m[2]})
		}
		if diff := cmp.Diff(conformanceClient, got, cmp.AllowUnexported(conformanceScenario{})); diff != "" {
			t.Errorf("the suite's client scenarios changed (-want +got):\n%s", diff)
		}
	})
	for _, sc := range conformanceClient {
		if sc.name == conformanceAlone {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, sc)
		})
	}
}

// conformanceAlone is the client scenario that runs alone.
const conformanceAlone = "sse-retry"

// TestConformanceClientSSERetry is TestConformanceClient's sse-retry
// scenario: it times the reconnection, so it runs serially, alone on a
// loaded machine (serial tests never run beside the parallel ones).
func TestConformanceClientSSERetry(t *testing.T) {
	c := newConformanceClient(t)
	for _, sc := range conformanceClient {
		if sc.name == conformanceAlone {
			c.run(t, sc)
			return
		}
	}
	t.Fatalf("the scenario %s is not in conformanceClient", conformanceAlone)
}

// conformanceRunner is what a client scenario runs with.
type conformanceRunner struct {
	node, suite, curl, bin, script string
}

func newConformanceClient(t *testing.T) *conformanceRunner {
	t.Helper()
	c := &conformanceRunner{
		node:  npmBin(t, pkgNode22, "node"),
		suite: npmBin(t, pkgConformance, "conformance"),
		curl:  testutil.RequireProgram(t, "curl"),
		bin:   program(t, browseragentPkg),
	}
	script, err := filepath.Abs(filepath.Join("testdata", "conformance-client.sh"))
	if err != nil {
		t.Fatal(err)
	}
	c.script = script
	return c
}

// run runs the client scenario sc in a home of its own and judges it.
func (c *conformanceRunner) run(t *testing.T, sc conformanceScenario) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{"home", "config", "state", "cache", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.node, c.suite, "client", "--command", c.script, "--scenario", sc.name,
		"-o", filepath.Join(dir, "results"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOME="+filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"),
		"TMPDIR="+tmp,
		"BROWSER="+c.curl+" -sL -o /dev/null",
		"BROWSERAGENT="+c.bin,
	)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	defer waitGone(t, tmp, 10*time.Second) // browseragent, curl: none left

	m := conformanceSummary.FindStringSubmatch(out.String())
	passed := runErr == nil && m != nil && m[3] == "0" && m[4] == "0"
	if m != nil && m[3] == "0" && m[4] != "0" && m[4] == strconv.Itoa(strings.Count(out.String(), "reconnected slightly late")) {
		// The only warnings are the suite's own "acceptable" timing
		// note: the reconnect came a scheduler's delay after the retry
		// field's wait, on a loaded machine; the wait itself is kept.
		passed = true
	}
	summary := "no summary"
	if m != nil {
		summary = m[0]
	}
	switch {
	case conformanceUnsupported[sc.name] != "":
		t.Logf("unsupported extension scenario %s (%s): %s (exit: %v)", sc.name, conformanceUnsupported[sc.name], summary, runErr)
	case !passed:
		t.Errorf("conformance client %s [%s]: %s (exit: %v)\n%s", sc.name, sc.versions, summary, runErr, out.String())
	}
}
