package words

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// refusedAddr is a loopback port nothing listens on: a listener opened and
// closed again.
func refusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestError: the errors Go really returns read as sentences, the wrapping
// context kept.
func TestError(t *testing.T) {
	addr := refusedAddr(t)
	_, dialErr := net.DialTimeout("tcp", addr, time.Second)
	client := &http.Client{Timeout: 5 * time.Second}
	_, getErr := client.Get("http://" + addr + "/json/version")
	_, numErr := strconv.Atoi("x")
	var v struct {
		FromLine int `json:"from_line"`
	}
	typeErr := json.Unmarshal([]byte(`{"from_line":"x"}`), &v)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	refused := "could not connect to " + addr + ": connection refused (nothing is listening there)"

	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"cancelled", fmt.Errorf("browser_open: %w", ctx.Err()), "browser_open: stopped"},
		{"deadline", fmt.Errorf("list tools: %w", context.DeadlineExceeded), "list tools: timed out"},
		{"dial", dialErr, refused},
		{"http get", fmt.Errorf("browser URL http://%s: %w: no Chrome with remote debugging found", addr, getErr),
			"browser URL http://" + addr + ": " + refused + ": no Chrome with remote debugging found"},
		{"number", fmt.Errorf("tab: %w", numErr), `tab: "x" is not a number`},
		{"json type", fmt.Errorf("bad arguments: %w", typeErr), "bad arguments: from_line must be a number, not text"},
		{"both", fmt.Errorf("select: %w", New("no tab \"x\": list tabs with browser_tabs", "no tab \"x\": /tabs lists them")), `select: no tab "x": /tabs lists them`},
		{"joined", errors.Join(New("model a", "person a"), context.Canceled), "person a\nstopped"},
		{"plain", errors.New("chrome not found: install chromium"), "chrome not found: install chromium"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Error(tt.err)); diff != "" {
				t.Errorf("Error (-want +got)\n%s\nerror: %v", diff, tt.err)
			}
		})
	}
}

// TestText: Go's wordings quoted in text whose error chain is gone (pflag
// formats with %v; a tool's text quotes an error).
func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`invalid argument "x" for "-n, --lines" flag: strconv.ParseInt: parsing "x": invalid syntax`,
			`invalid argument "x" for "-n, --lines" flag: "x" is not a number`},
		{`invalid argument "maybe" for "--yes" flag: strconv.ParseBool: parsing "maybe": invalid syntax`,
			`invalid argument "maybe" for "--yes" flag: "maybe" is not true or false`},
		{`browser URL http://127.0.0.1:1: Get "http://127.0.0.1:1/json/version": dial tcp 127.0.0.1:1: connect: connection refused: no Chrome`,
			`browser URL http://127.0.0.1:1: could not connect to 127.0.0.1:1: connection refused (nothing is listening there): no Chrome`},
		{`Post "http://x.test/v1": dial tcp: lookup x.test on 127.0.0.53:53: no such host`, `no such host: x.test`},
		{`bad arguments for browser_snapshot: json: cannot unmarshal string into Go struct field args.from_line of type int`,
			`bad arguments for browser_snapshot: from_line must be a number, not text`},
		{"web_fetch: context canceled", "web_fetch: stopped"},
		{"nothing to change here", "nothing to change here"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Text(tt.in)); diff != "" {
			t.Errorf("Text(%q) (-want +got)\n%s", tt.in, diff)
		}
	}
	if strings.Contains(Text("a: b"), "stopped") {
		t.Error("Text rewrote text with no Go wording")
	}
}
