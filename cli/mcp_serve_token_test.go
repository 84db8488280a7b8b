package cli

import (
	"bufio"
	"context"
	"net/http"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeHTTPPersonsChromeNeedsToken: `mcp serve --http` on loopback
// with --connect serves the person's own Chrome, so a client without the
// token must not reach it: round three's attacker connected a local client
// that declared elicitation and answered every approval itself. A token is
// made and printed when none is given; a client without it gets 401.
func TestServeHTTPPersonsChromeNeedsToken(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	page, _ := localPage(t)
	chrome := testutil.Require(t, "chromium", browser.FindChrome)
	person := testutil.StartPersonsBrowser(t, chrome, []string{page}, nil)
	cmd := exec.Command(serveBinary(t), "mcp", "serve", "--http", "127.0.0.1:0", "--user-data-dir", person.Dir)
	cmd.Env = e.environ()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("mcp serve --http did not stop within 20 s of SIGTERM")
		}
		if !person.Running() {
			t.Error("the person's Chrome was closed")
		}
	})
	tokens, urls := make(chan string, 1), make(chan string, 1)
	go func() {
		tokRE, urlRE := regexp.MustCompile(`bearer token: (\S+)`), regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := tokRE.FindStringSubmatch(sc.Text()); m != nil {
				tokens <- m[1]
			}
			if u := urlRE.FindString(sc.Text()); u != "" {
				urls <- u
			}
		}
	}()
	var url, token string
	select {
	case url = <-urls:
	case <-time.After(60 * time.Second):
		t.Fatal("mcp serve --http printed no URL within 60 s")
	}
	select {
	case token = <-tokens:
	default:
		t.Fatal("mcp serve --http --connect printed no bearer token")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if cs, err := mcp.NewClient(&mcp.Implementation{Name: "local-program", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		cs.Close()
		t.Error("a client without the token reached the server of the person's Chrome")
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Errorf("list tools with the token: %v", err)
	}
}
