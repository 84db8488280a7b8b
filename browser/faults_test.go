package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browseragent/browseragent/internal/testutil"
)

// closePersonTab closes a tab of the person's browser over plain HTTP, as
// the person clicking its close button would.
func closePersonTab(t *testing.T, dir, urlSuffix string) {
	t.Helper()
	ws, err := readActivePort(dir)
	if err != nil {
		t.Fatal(err)
	}
	port := strings.Split(strings.TrimPrefix(ws, "ws://127.0.0.1:"), "/")[0]
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%s/json/list", port))
	if err != nil {
		t.Fatal(err)
	}
	var list []struct{ ID, URL string }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	for _, p := range list {
		if strings.HasSuffix(p.URL, urlSuffix) {
			r, err := http.Get(fmt.Sprintf("http://127.0.0.1:%s/json/close/%s", port, p.ID))
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			return
		}
	}
	t.Fatalf("no tab ending in %s in %+v", urlSuffix, list)
}

// TestSharedFaults: a tab closed under the agent and the person's browser
// quitting give clear answers, and connecting again works.
func TestSharedFaults(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	person := personBrowser(t, site.URL)
	dir := person.Dir
	b := New(nil)
	t.Cleanup(func() { b.Close() })
	if err := b.Connect(context.Background(), Target{UserDataDir: dir}); err != nil {
		t.Fatal(err)
	}
	mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/form.html"})
	closePersonTab(t, dir, "/form.html")
	deadline := time.Now().Add(5 * time.Second)
	for b.CurrentTab() != "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	r := tryCall(t, b, "browser_snapshot", nil)
	if !r.IsError || !strings.Contains(r.Text, "no current tab") {
		t.Errorf("snapshot after the tab was closed: %+v", r)
	}

	person.Kill()
	deadline = time.Now().Add(10 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if _, err = b.run(context.Background(), "browser_tabs", "", nil); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !errors.Is(err, ErrLost) {
		t.Fatalf("after the person's browser quit: err = %v, want ErrLost", err)
	}
	if b.Mode() != ModeIsolated {
		t.Errorf("mode after loss = %v", b.Mode())
	}

	person2 := personBrowser(t, site.URL)
	if err := b.Connect(context.Background(), Target{UserDataDir: person2.Dir}); err != nil {
		t.Fatalf("reconnect: %v", err)
	}
	if n := len(b.Tabs()); n != 2 {
		t.Errorf("after reconnect %d tabs, want 2", n)
	}
}

// TestIsolatedCrashRelaunch: when our own Chromium dies, the next call
// launches a fresh one and the dead one's profile is gone.
func TestIsolatedCrashRelaunch(t *testing.T) {
	testutil.Parallel(t)
	site := newSite(t)
	b := newOwnBrowser(t, nil)
	mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/article.html"})
	old := b.s.proc
	syscall.Kill(-old.cmd.Process.Pid, syscall.SIGKILL)
	<-old.exited
	deadline := time.Now().Add(10 * time.Second)
	for b.Running() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	r := mustCall(t, b, "browser_open", map[string]any{"url": site.URL + "/article.html"})
	if !strings.Contains(r.Text, "Static Article") {
		t.Errorf("after relaunch: %s", r.Text)
	}
	testutil.WaitNoProcessWith(t, old.dir)
	if b.s.proc == old {
		t.Errorf("no new browser was launched")
	}
	newDir := b.s.proc.dir
	if err := b.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	testutil.WaitNoProcessWith(t, newDir)
}
