package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// quietFlags keep a launched Chromium from calling home: on a closed network
// each of these background requests would hang or flood the logs.
var quietFlags = []string{
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-quic",
	"--disable-domain-reliability",
	"--disable-client-side-phishing-detection",
	"--disable-breakpad",
	"--disable-default-apps",
	"--disable-extensions",
	"--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions",
	"--disable-hang-monitor",
	"--disable-popup-blocking",
	"--disable-prompt-on-repost",
	"--disable-dev-shm-usage",
	"--metrics-recording-only",
	"--no-first-run",
	"--no-default-browser-check",
	"--no-pings",
	"--password-store=basic",
	"--use-mock-keychain",
	"--safebrowsing-disable-auto-update",
}

// awakeFlags keep every page of an isolated browser running as a front
// tab does, as Playwright and Puppeteer launch theirs: a hidden or covered
// window's timers are otherwise held to one a second and its renderer is
// deprioritised, so a page that renders after a timer renders late.
var awakeFlags = []string{
	"--disable-background-timer-throttling",
	"--disable-backgrounding-occluded-windows",
	"--disable-renderer-backgrounding",
}

// LaunchOptions configure an isolated Chromium. The zero value is a headless
// browser found with FindChrome.
type LaunchOptions struct {
	ExecPath   string   // browser executable; "" means FindChrome
	Headed     bool     // show a window instead of running headless
	ExtraFlags []string // appended after the defaults
	// Host, when set, is the DevTools websocket URL of a Chromium that is
	// already running (a headless Chromium service, or the one a package's
	// tests share). The isolated browser then lives in a browser context of
	// its own there, as an incognito window would: its own cookies, storage
	// and cache, the tools see only its tabs, and Close disposes of the
	// context and leaves that Chromium running. Nothing is launched, so
	// ExecPath, Headed and ExtraFlags do not apply. WSEndpoint is then that
	// Chromium's, so chrome-devtools-mcp pointed at it sees every context.
	Host string
	// DialControl, when set, judges every connection the browser makes
	// (pages, subresources, scripts' requests, WebSockets) at the resolved
	// address: the browser reaches the network only through a loopback
	// proxy of ours that dials with it (see dialProxy).
	DialControl DialControl
	// RequestControl, when set with DialControl, judges every request the
	// browser sends through that proxy at the connection it goes out on
	// (its resolved "ip:port") with its URL, before a byte of it is
	// written: a plain http request (page, image, a script's fetch) and a
	// ws:// upgrade alike; an error refuses it. The guard applies rules
	// with paths here (a deny rule for an address's /admin, the browser's
	// DevTools paths on loopback), which a connection alone cannot be
	// judged by. An https or wss request is encrypted: only its connection
	// is judged.
	RequestControl RequestControl
}

// LaunchArgs is the command line browseragent launches an isolated
// Chromium with, for the profile directory profile: quiet, listening for
// DevTools on a free loopback port (written to profile/DevToolsActivePort).
// A Chromium started with it suits LaunchOptions.Host.
func LaunchArgs(profile string, o LaunchOptions) []string {
	return chromeArgs(profile, o, os.Geteuid() == 0, "")
}

// chromeArgs returns the command line of an isolated browser.
func chromeArgs(dir string, o LaunchOptions, root bool, proxy string) []string {
	args := []string{"--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", "--user-data-dir=" + dir}
	if proxy != "" {
		// Loopback too ("<-loopback>" drops Chromium's implicit bypass):
		// deny rules may name local addresses.
		args = append(args, "--proxy-server=http://"+proxy, "--proxy-bypass-list=<-loopback>")
	}
	args = append(args, quietFlags...)
	args = append(args, awakeFlags...)
	if !o.Headed {
		args = append(args, "--headless", "--hide-scrollbars", "--mute-audio")
	}
	if root {
		// Chromium refuses to run as root with its sandbox on.
		args = append(args, "--no-sandbox")
	}
	args = append(args, o.ExtraFlags...)
	return append(args, "about:blank")
}

// envProxy reports whether the environment names a proxy for the browser
// (Chromium on Linux honours these variables). The browser then goes
// through that proxy, which resolves names itself: only URLs are judged,
// as for web_fetch through a proxy.
func envProxy() bool {
	for _, k := range []string{"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"} {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

// chromeEnv is the environment of an isolated Chromium: the person's,
// with the XDG directories pointed inside its profile. Chromium keeps its
// crash database ("Crash Reports") in $XDG_CONFIG_HOME/chromium whatever
// --user-data-dir says, and caches in $XDG_CACHE_HOME; a throwaway browser
// leaves nothing in the person's directories, and the profile is removed
// when it stops.
func chromeEnv(environ []string, profile string) []string {
	env := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); k != "XDG_CONFIG_HOME" && k != "XDG_CACHE_HOME" {
			env = append(env, kv)
		}
	}
	return append(env, "XDG_CONFIG_HOME="+filepath.Join(profile, "xdg-config"), "XDG_CACHE_HOME="+filepath.Join(profile, "xdg-cache"))
}

// process is a Chromium that browseragent launched. Its profile directory is
// removed when it stops.
type process struct {
	cmd    *exec.Cmd
	dir    string
	ws     string
	exited chan struct{}
	stderr *tailBuffer
	proxy  *dialProxy // the browser's way out, when DialControl is set
	once   sync.Once
}

// launch starts an isolated Chromium with a fresh temporary profile and waits
// until it writes DevToolsActivePort.
func launch(ctx context.Context, o LaunchOptions) (*process, error) {
	path := o.ExecPath
	if path == "" {
		var err error
		if path, err = FindChrome(); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp("", "browseragent-chrome-")
	if err != nil {
		return nil, fmt.Errorf("chrome profile: %w", err)
	}
	p := &process{dir: dir, exited: make(chan struct{}), stderr: &tailBuffer{max: 4096}}
	proxy := ""
	if o.DialControl != nil && !envProxy() {
		if p.proxy, err = startDialProxy(o.DialControl, o.RequestControl); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		proxy = p.proxy.addr()
	}
	p.cmd = exec.Command(path, chromeArgs(dir, o, os.Geteuid() == 0, proxy)...)
	p.cmd.Stdout = p.stderr
	p.cmd.Stderr = p.stderr
	p.cmd.Env = chromeEnv(os.Environ(), dir)
	setProcAttr(p.cmd)
	if err := startProcess(p.cmd, p.exited); err != nil {
		if p.proxy != nil {
			p.proxy.close()
		}
		os.RemoveAll(dir)
		return nil, fmt.Errorf("chrome failed to start: %s: %w", path, err)
	}
	ws, err := p.waitEndpoint(ctx, 30*time.Second)
	if err != nil {
		p.stop()
		return nil, err
	}
	p.ws = ws
	return p, nil
}

// waitEndpoint polls the profile for DevToolsActivePort until Chromium wrote
// it, exited, or the wait ran out.
func (p *process) waitEndpoint(ctx context.Context, wait time.Duration) (string, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if ws, err := readActivePort(p.dir); err == nil {
			return ws, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-p.exited:
			return "", fmt.Errorf("chrome failed to start: %s", chromeFailure(p.stderr.String()))
		case <-deadline.C:
			return "", fmt.Errorf("chrome did not open its debugging port within %s: %s", wait, chromeFailure(p.stderr.String()))
		case <-tick.C:
		}
	}
}

// stop ends Chromium and every process it started, then deletes the profile.
// It is safe to call more than once.
func (p *process) stop() error {
	var err error
	p.once.Do(func() {
		terminate(p.cmd, p.exited, 5*time.Second)
		killUsing(p.dir)
		if p.proxy != nil {
			p.proxy.close()
		}
		err = removeAllRetry(p.dir)
	})
	return err
}

// removeAllRetry removes dir, retrying briefly: a dying Chromium child can
// still write into its profile for a moment.
func removeAllRetry(dir string) error {
	var err error
	for range 20 {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("remove chrome profile %s: %w", dir, err)
}

// tailBuffer keeps the last max bytes written to it, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

var errNoActivePort = errors.New("no DevToolsActivePort")

// chromeFailure turns Chromium's stderr into one line a person can act on:
// the known causes with what to do, else the last error line it printed.
func chromeFailure(stderr string) string {
	switch {
	case strings.Contains(stderr, "Missing X server") || strings.Contains(stderr, "$DISPLAY"):
		return "no display for a headed browser: set DISPLAY, or run without --headed"
	case strings.Contains(stderr, "Running as root without --no-sandbox"):
		return "running as root needs --no-sandbox"
	}
	var last string
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if i := strings.Index(line, "] "); strings.HasPrefix(line, "[") && i > 0 {
			line = line[i+2:] // drop "[pid:tid:time:ERROR:file.cc(12)]"
		}
		last = line
	}
	if last == "" {
		return "it printed nothing (try running it by hand with --headless)"
	}
	return last
}
