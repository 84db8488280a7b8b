package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
)

// needChrome skips without Chromium, or fails when
// BROWSERAGENT_REQUIRE_BROWSER=1.
func needChrome(t *testing.T) string {
	t.Helper()
	p, err := browser.FindChrome()
	if err != nil {
		if os.Getenv("BROWSERAGENT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("BROWSERAGENT_REQUIRE_BROWSER=1 but: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	return p
}

// noProcessUsing fails when a process whose command line holds marker runs.
func noProcessUsing(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if strings.Contains(string(b), marker) {
				left = append(left, e.Name())
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes left running with %s: %v", marker, left)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const spaPage = `<!doctype html><title>SPA</title><div id="app">Loading…</div>
<script>setTimeout(function () { document.getElementById('app').innerHTML =
'<h1>Rendered by JavaScript</h1><p>The answer is forty-two, computed in the browser.</p>'; }, 150);</script>`

func TestFetchRender(t *testing.T) {
	needChrome(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the isolated profile lands here: our marker
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, spaPage) }))
	defer srv.Close()
	shot := filepath.Join(tmp, "spa.png")
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"spa", []string{"fetch", "--render", srv.URL + "/spa"}, 0, "forty-two", ""},
		{"wait-for and screenshot", []string{"fetch", "--render", "--wait-for", "computed in the browser", "--screenshot", shot, "--format", "text", srv.URL + "/spa"}, 0, "forty-two", ""},
		{"wait-for never", []string{"fetch", "--render", "--wait-for", "#nope", "--timeout", "1s", srv.URL + "/spa"}, 1, "", "#nope"},
		{"wait-for without render", []string{"fetch", "--wait-for", "x", srv.URL}, 2, "", "need --render"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", tt.args...)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
				t.Errorf("code %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if strings.Contains(out, "Loading…") {
				t.Errorf("printed the page before JavaScript ran:\n%s", out)
			}
		})
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
		t.Errorf("screenshot: %v", err)
	}
	noProcessUsing(t, tmp)
}

func TestBrowserTabs(t *testing.T) {
	chrome := needChrome(t)
	srv := cliServer(t)
	dir := t.TempDir()
	args := []string{"--remote-debugging-port=0", "--user-data-dir=" + dir, "--headless", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", srv.URL + "/article"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(chrome, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		noProcessUsing(t, dir)
	}()
	port := ""
	for deadline := time.Now().Add(20 * time.Second); port == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			port = strings.SplitN(string(b), "\n", 2)[0]
		}
	}
	if port == "" {
		t.Fatal("the person's browser did not start")
	}
	var code int
	var out, errOut string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		code, out, errOut = runCLI(t, "", "browser", "tabs", "--user-data-dir", dir, "--json")
		if strings.Contains(out, "Valley Notes") {
			break
		}
	}
	var tabs []browser.Tab
	if err := json.Unmarshal([]byte(out), &tabs); code != 0 || err != nil || len(tabs) != 1 || tabs[0].Owned || tabs[0].Title != "Valley Notes" {
		t.Fatalf("code %d tabs %+v (%v)\nstdout: %s\nstderr: %s", code, tabs, err, out, errOut)
	}
	code, out, _ = runCLI(t, "", "browser", "tabs", "--browser-url", "http://127.0.0.1:"+port)
	if code != 0 || !strings.Contains(out, `t1 [person's] "Valley Notes"`) {
		t.Errorf("text listing: code %d\n%s", code, out)
	}
	// Listing attached and detached: the tab is still there, the browser runs.
	resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
	if err != nil {
		t.Fatalf("the person's browser stopped: %v", err)
	}
	var list []struct{ Type string }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	pages := 0
	for _, p := range list {
		if p.Type == "page" {
			pages++
		}
	}
	if pages != 1 {
		t.Errorf("the person's browser has %d pages after listing, want 1", pages)
	}

	code, _, errOut = runCLI(t, "", "browser", "tabs", "--user-data-dir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "chrome://inspect/#remote-debugging") {
		t.Errorf("no debuggable browser: code %d stderr %s", code, errOut)
	}
}
