package guard

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAuditAppendAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "audit.jsonl")
	log, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(defaultRules(t), &Options{Mode: Shared})
	c := Call{Tool: "browser_type", PageURL: "https://user:hunter2@www.paypal.com/signin?token=abc123&lang=en", TabID: "t",
		Args: map[string]any{"ref": "e7", "text": "my secret text", "password": "hunter2",
			"headers": map[string]any{"Authorization": "Bearer abcdefghijkl", "Cookie": "sid=1", "Accept": "text/html"}}}
	d := p.Check(c)
	e := FromDecision(c, d)
	e.Time = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	e.Duration = 120 * time.Millisecond
	e.Error = "upstream said: Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"
	e.Secret = true // the caller knows ref e7 is a password field
	if err := log.Append(e); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = log.Append(Entry{Tool: "web_fetch", Mode: "isolated", Decision: "allow", DecidedBy: ByPolicy, Args: map[string]any{"n": float64(i)}})
		}()
	}
	wg.Wait()
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("audit file mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}

	all, err := ReadAudit(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 21 {
		t.Fatalf("read %d entries, want 21", len(all))
	}
	got := all[0]
	want := Entry{
		Time: e.Time, Tool: "browser_type", Mode: "shared", Effect: "write",
		PageURL:  "https://user:redacted@www.paypal.com/signin?token=redacted&lang=en", // in the order written: nothing but the secret changes
		Rule:     "paypal",
		Decision: "ask", DecidedBy: ByRule, Reason: d.Reason,
		Args: map[string]any{"ref": "e7", "text": redacted, "password": redacted,
			"headers": map[string]any{"Authorization": redacted, "Cookie": redacted, "Accept": "text/html"}},
		Duration: 120 * time.Millisecond,
		Error:    "upstream said: Authorization: " + redacted,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first entry (-want +got):\n%s", diff)
	}
	raw, _ := os.ReadFile(path)
	for _, secret := range []string{"hunter2", "my secret text", "abc123", "abcdefghijkl", "sid=1", "eyJ"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("audit file contains the secret %q", secret)
		}
	}
	last, err := ReadAudit(path, 3)
	if err != nil || len(last) != 3 || last[2].Tool != "web_fetch" {
		t.Errorf("ReadAudit(n=3) = %d entries, %v", len(last), err)
	}
}

func TestReadAuditMissingAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadAudit(filepath.Join(dir, "none.jsonl"), 10); err != nil || got != nil {
		t.Errorf("missing file: %v, %v", got, err)
	}
	path := filepath.Join(dir, "a.jsonl")
	write(t, path, `{"tool":"a","decision":"allow"}`+"\n{\"tool\":\"b\",\"deci\n\n"+`{"tool":"c","decision":"deny"}`+"\n")
	got, err := ReadAudit(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, e := range got {
		tools = append(tools, e.Tool)
	}
	if diff := cmp.Diff([]string{"a", "c"}, tools); diff != "" {
		t.Errorf("corrupt line skipped (-want +got):\n%s", diff)
	}
}

func TestDefaultAuditPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if got := DefaultAuditPath(); got != "/x/state/browseragent/audit.jsonl" {
		t.Errorf("with XDG_STATE_HOME: %s", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultAuditPath(); got != "/home/u/.local/state/browseragent/audit.jsonl" {
		t.Errorf("fallback: %s", got)
	}
}

func TestRedactArgs(t *testing.T) {
	in := map[string]any{
		"url":          "https://api.example.com/x?api_key=k123&q=go",
		"api_key":      "k123",
		"newPassword":  "p",
		"otp":          "123456",
		"text":         "hello",
		"author":       "ann",
		"passenger":    "bob",
		"script":       "fetch('/x', {headers: {Authorization: 'Bearer abcdefgh12345'}})",
		"github_token": nil,
		"list":         []any{"ghp_abcdefghijklmnopqrstuvwxyz0123", 1.0},
		"elements":     []any{map[string]any{"uid": "1", "value": "v"}},
	}
	want := map[string]any{
		"url":          "https://api.example.com/x?api_key=redacted&q=go",
		"api_key":      redacted,
		"newPassword":  redacted,
		"otp":          redacted,
		"text":         "hello",
		"author":       "ann",
		"passenger":    "bob",
		"script":       "fetch('/x', {headers: {Authorization: '" + redacted + "'}})",
		"github_token": nil,
		"list":         []any{redacted, 1.0},
		"elements":     []any{map[string]any{"uid": "1", "value": "v"}},
	}
	if diff := cmp.Diff(want, RedactArgs(in, false)); diff != "" {
		t.Errorf("RedactArgs (-want +got):\n%s", diff)
	}
	secret := RedactArgs(map[string]any{"text": "pw", "ref": "e1", "elements": []any{map[string]any{"uid": "1", "value": "v"}}}, true)
	if diff := cmp.Diff(map[string]any{"text": redacted, "ref": "e1", "elements": redacted}, secret); diff != "" {
		t.Errorf("RedactArgs secret (-want +got):\n%s", diff)
	}
}
