//go:build unix

package testutil

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PersonsBrowser is a second Chromium that plays the person's own browser
// in shared-mode tests. It runs the way a person who allows remote debugging
// runs Chrome: its own profile and --remote-debugging-port=0, so the
// DevToolsActivePort file in the profile names its port. Tests look at it
// only over its HTTP endpoints, never through our packages, so a check of
// what our code did to the person's tabs cannot be fooled by our own state.
type PersonsBrowser struct {
	Dir    string // the profile directory, holding DevToolsActivePort
	cmd    *exec.Cmd
	exited chan struct{}
}

// StartPersonsBrowser starts chrome headless on urls[0] and opens each
// further URL in a tab of its own over /json/new (headless Chromium takes
// only one URL). It returns once the browser listens, every tab is open and
// ready, if not nil, holds for the URLs of its pages; it fails t when that
// takes more than a minute.
//
// The browser has a process group of its own, so that Stop ends its helpers
// too, and on Linux the kernel kills it if the test binary dies. A cleanup
// stops it in case the test does not; a test that checks what is left after
// the browser stops calls Stop or Close itself.
func StartPersonsBrowser(t testing.TB, chrome string, urls []string, ready func(pages []string) bool) *PersonsBrowser {
	t.Helper()
	return StartPersonsBrowserWith(t, chrome, nil, urls, ready)
}

// StartPersonsBrowserWith is StartPersonsBrowser with more Chromium flags
// (--host-resolver-rules, so a test name resolves to a loopback address
// without any DNS).
func StartPersonsBrowserWith(t testing.TB, chrome string, flags, urls []string, ready func(pages []string) bool) *PersonsBrowser {
	t.Helper()
	p := &PersonsBrowser{Dir: t.TempDir(), exited: make(chan struct{})}
	args := []string{"--remote-debugging-port=0", "--user-data-dir=" + p.Dir, "--headless", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"}
	args = append(args, flags...)
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	p.cmd = exec.Command(chrome, append(args, urls[0])...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := startProcess(p.cmd, p.exited); err != nil {
		t.Fatalf("start the person's browser: %v", err)
	}
	t.Cleanup(p.Stop)
	pid := p.cmd.Process.Pid
	Owns(t, p.Dir, func() []int { return []int{pid} })
	opened := 1
	var readySince time.Time
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		for opened < len(urls) && p.openTab(urls[opened]) {
			opened++
		}
		if opened == len(urls) && p.Port() != "" && (ready == nil || ready(p.PageURLs())) {
			// /json/list gives a tab's URL as soon as its navigation
			// starts, while the document is still about:blank; a page
			// has committed once its title is its own, not the URL.
			// Pages without a <title> never get one: 5 s of grace.
			if readySince.IsZero() {
				readySince = time.Now()
			}
			if p.committed() || time.Since(readySince) > 5*time.Second {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the person's browser did not come up within a minute: its pages are %v", p.PageURLs())
		}
	}
}

// committed reports whether every web page of the browser shows a title of
// its own: its document replaced the about:blank it started as.
func (p *PersonsBrowser) committed() bool {
	for _, pg := range p.Pages() {
		web := strings.HasPrefix(pg.URL, "http://") || strings.HasPrefix(pg.URL, "https://")
		if web && (pg.Title == "" || strings.Contains(pg.URL, pg.Title)) {
			return false
		}
	}
	return true
}

// Port is the browser's remote-debugging port from DevToolsActivePort, or
// "" while the browser has not written it yet.
func (p *PersonsBrowser) Port() string {
	b, err := os.ReadFile(filepath.Join(p.Dir, "DevToolsActivePort"))
	if err != nil {
		return ""
	}
	port, _, ok := strings.Cut(string(b), "\n")
	if !ok {
		return "" // half written
	}
	return port
}

// openTab opens url in a new tab and reports whether the browser did.
func (p *PersonsBrowser) openTab(url string) bool {
	port := p.Port()
	if port == "" {
		return false
	}
	req, _ := http.NewRequest(http.MethodPut, "http://127.0.0.1:"+port+"/json/new?"+url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Page is one tab of the person's browser as its /json/list gives it.
type Page struct{ ID, URL, Title string }

// Pages lists the browser's pages (tabs) as its /json/list gives them, or
// nil when it does not answer.
func (p *PersonsBrowser) Pages() []Page {
	port := p.Port()
	if port == "" {
		return nil
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var list []struct{ ID, Type, URL, Title string }
	json.NewDecoder(resp.Body).Decode(&list)
	var pages []Page
	for _, pg := range list {
		if pg.Type == "page" {
			pages = append(pages, Page{ID: pg.ID, URL: pg.URL, Title: pg.Title})
		}
	}
	return pages
}

// PageURLs lists the URLs of the browser's pages (tabs) as its /json/list
// gives them, or nil when it does not answer.
func (p *PersonsBrowser) PageURLs() []string {
	var urls []string
	for _, pg := range p.Pages() {
		urls = append(urls, pg.URL)
	}
	return urls
}

// Running reports whether the browser is still running: nothing of ours may
// close the person's browser.
func (p *PersonsBrowser) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Stop ends the browser as a person quitting it would (SIGTERM to its
// process group), kills the group after 3 s and waits for the browser to
// exit. Calling it again does no harm.
func (p *PersonsBrowser) Stop() { p.signal(3 * time.Second) }

// Kill ends the browser at once with SIGKILL to its process group, as a
// crash would, and waits for it to exit.
func (p *PersonsBrowser) Kill() { p.signal(0) }

// Close is Stop that then fails t when a process of the browser (one naming
// its profile) is still running 5 s later.
func (p *PersonsBrowser) Close(t testing.TB) {
	t.Helper()
	p.Stop()
	WaitNoProcessWith(t, p.Dir)
}

func (p *PersonsBrowser) signal(grace time.Duration) {
	pgid := -p.cmd.Process.Pid
	if grace > 0 {
		syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(grace):
		}
	}
	syscall.Kill(pgid, syscall.SIGKILL)
	<-p.exited
}
