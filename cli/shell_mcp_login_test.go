package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/mcpclient/oauthtest"
)

// TestShellMCPLogin: a server whose login failed when the shell started
// (the person declined) is logged in to with /mcp login NAME from inside
// the piped shell: the URL is announced, curl plays the browser, the
// server reconnects with the new token and its tool works, all in the same
// shell.
func TestShellMCPLogin(t *testing.T) {
	_, dir := authCLI(t)
	as := oauthtest.NewAuthServer(t)
	res := oauthtest.NewResource(t, as)
	cfg := filepath.Join(dir, "mcp.json")
	servers := fmt.Sprintf(`{"mcpServers":{"chrome-devtools":{"disabled":true},"prot":{"type":"http","url":%q}}}`, res.URL)
	if err := os.WriteFile(cfg, []byte(servers), 0o600); err != nil {
		t.Fatal(err)
	}
	as.SetFail(oauthtest.FailDenied) // the start's login is refused

	in, script := io.Pipe()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Main([]string{"--yes", "--mcp-config", cfg}, in, &out, &errb) }()
	deadline := time.Now().Add(time.Minute)
	for as.Counts().Authorizations == 0 {
		if time.Now().After(deadline) {
			script.Close()
			t.Fatalf("the shell never started a login; stderr:\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	as.SetFail(oauthtest.FailNone)
	fmt.Fprint(script, "/mcp login prot\n/call mcp__prot__echo {\"message\":\"after login\"}\n")
	script.Close()
	var code int
	select {
	case code = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the shell did not end")
	}
	stdout, stderr := out.String(), errb.String()
	for _, want := range []string{"logged in to prot", "\nafter login\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q\nexit %d\nstdout:\n%s\nstderr:\n%s", want, code, stdout, stderr)
		}
	}
	if !strings.Contains(stdout+stderr, as.URL+"/authorize?") {
		t.Errorf("the login URL was not shown\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if got := as.Counts(); got.Authorizations != 2 || got.Exchanges != 1 {
		t.Errorf("authorization server counts = %+v, want 2 authorizations (refused, then /mcp login) and 1 exchange", got)
	}
}
