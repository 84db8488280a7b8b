package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellScriptWaitsForMCP: a script piped into the shell waits for an
// MCP server that is slow to start (rawserver answers initialize after a
// second) before its first line, so the /call finds the server's tool.
func TestShellScriptWaitsForMCP(t *testing.T) {
	bin := rawServerBin(t)
	dir := mcpEnv(t)
	cfg := filepath.Join(dir, "mcp.json")
	servers := fmt.Sprintf(`{"mcpServers":{"chrome-devtools":{"disabled":true},"raw":{"command":%q,"args":["sleep=1s"]}}}`, bin)
	if err := os.WriteFile(cfg, []byte(servers), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMainIn("/call mcp__raw__echo {\"message\":\"pong\"}\n", "--yes", "--mcp-config", cfg)
	if code != 0 || !strings.Contains(stdout, "\npong\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	assertNoChildren(t)
}
