package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ProcessesWithEnv lists the live processes, zombies and this test binary
// excepted, whose environment holds the entry kv ("TMPDIR=/tmp/x"): a
// variable with a value of the test's own that it gave what it started.
// Children inherit their environment, so this finds everything a test's
// commands started, however deep, and also what was reparented away from
// the test, yet nothing of the tests running beside it: it suits tests that
// run in parallel, where Descendants would see the others' children.
func ProcessesWithEnv(kv string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(kv)
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !hasEntry(b, want) || isZombie(e.Name()) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// hasEntry reports whether the NUL-separated environ holds kv.
func hasEntry(environ, kv []byte) bool {
	for _, entry := range bytes.Split(environ, []byte{0}) {
		if bytes.Equal(entry, kv) {
			return true
		}
	}
	return false
}

func isZombie(pid string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true // gone
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z'
}

// WaitNoProcessWithEnv fails t when a process whose environment holds kv
// still runs limit after the call.
func WaitNoProcessWithEnv(t testing.TB, kv string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		pids := ProcessesWithEnv(kv)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes with %s in their environment still run %s after the test: %v", kv, limit, pids)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// nodeVars are the variables npm and Node read to reach a registry and
// trust its certificates; nodePrefixes, the families of them.
var (
	nodeVars = map[string]bool{
		"NODE_EXTRA_CA_CERTS": true, "NODE_OPTIONS": true, "NODE_PATH": true, "NODE_TLS_REJECT_UNAUTHORIZED": true,
		"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "XDG_CACHE_HOME": true,
		"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "http_proxy": true, "https_proxy": true, "no_proxy": true,
	}
	nodePrefixes = []string{"npm_config_", "NPM_CONFIG_"}
)

// NodeEnv is what a test that starts a program under `env -i` (a clean
// terminal in tmux) passes through so that npm and Node there still reach
// the registry as they do here: NODE_EXTRA_CA_CERTS, the npm_config_*
// settings, proxies and certificate paths. Without them `npm exec` on a
// machine behind a TLS-inspecting proxy waits for a minute and fails.
func NodeEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if nodeVars[k] || slices.ContainsFunc(nodePrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			out = append(out, kv)
		}
	}
	return out
}

// NPMCacheEnv is the environment that keeps npx on the warmed npm cache
// (the one .ci/run fills, offline first) for a command given a new HOME:
// without it npx would fetch its package again from the registry, which
// under load takes longer than a server is given to start.
func NPMCacheEnv() []string {
	cache := os.Getenv("npm_config_cache")
	if h, err := os.UserHomeDir(); cache == "" && err == nil {
		cache = filepath.Join(h, ".npm")
	}
	if cache == "" {
		return []string{"npm_config_prefer_offline=true"}
	}
	return []string{"npm_config_cache=" + cache, "npm_config_prefer_offline=true"}
}
