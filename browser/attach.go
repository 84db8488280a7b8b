package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/browseragent/browseragent/internal/xdg"
)

// Target says which running browser Connect attaches to. The first field set
// wins: WSEndpoint, then BrowserURL, then UserDataDir; all empty means the
// default profile directories of Chrome and Chromium, newest first.
type Target struct {
	WSEndpoint  string // ws://host:port/devtools/browser/<id>, also a remote CDP pool
	BrowserURL  string // http://host:port, resolved through /json/version
	UserDataDir string // a profile whose DevToolsActivePort names the port
}

// ErrNotDebuggable means no browser with remote debugging was found. Its
// message says how to allow it.
var ErrNotDebuggable = errors.New(`no Chrome with remote debugging found: in Chrome open chrome://inspect/#remote-debugging and allow remote debugging, then run /connect again; or start Chrome with --remote-debugging-port=9222 --user-data-dir=<a non-default profile> and connect with --browser-url http://127.0.0.1:9222`)

// resolveEndpoint turns t into the websocket URL of the browser, checking
// that something answers there, asking allow (when not nil) about
// every address before it is reached: the browser URL before its
// /json/version, each websocket URL before it is dialled.
func resolveEndpoint(ctx context.Context, t Target, allow func(string) error) (string, error) {
	if allow == nil {
		allow = func(string) error { return nil }
	}
	switch {
	case t.WSEndpoint != "":
		if err := allow(t.WSEndpoint); err != nil {
			return "", err
		}
		return t.WSEndpoint, nil
	case t.BrowserURL != "":
		if err := allow(t.BrowserURL); err != nil {
			return "", err
		}
		ws, err := versionEndpoint(ctx, t.BrowserURL)
		if err != nil {
			return "", err
		}
		return ws, allow(ws)
	case t.UserDataDir != "":
		ws, err := readActivePort(t.UserDataDir)
		if err != nil {
			return "", fmt.Errorf("profile %s: %w", t.UserDataDir, ErrNotDebuggable)
		}
		if err := allow(ws); err != nil {
			return "", fmt.Errorf("profile %s: %w", t.UserDataDir, err)
		}
		return checkListening(ctx, ws)
	}
	for _, dir := range profileDirs(os.Getenv, runtime.GOOS) {
		ws, err := readActivePort(dir)
		if err != nil || allow(ws) != nil {
			continue
		}
		if ws, err := checkListening(ctx, ws); err == nil {
			return ws, nil
		}
	}
	return "", ErrNotDebuggable
}

// readActivePort reads DevToolsActivePort in a profile directory: the port on
// the first line, the browser's websocket path on the second. Chrome 144+
// answers 404 on /json/* when debugging was allowed from chrome://inspect, so
// the websocket URL is built from the file and used directly.
func readActivePort(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
	if err != nil {
		return "", errNoActivePort
	}
	return parseActivePort(string(b))
}

func parseActivePort(s string) (string, error) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) < 2 {
		return "", fmt.Errorf("DevToolsActivePort is incomplete: %q", s)
	}
	port := strings.TrimSpace(lines[0])
	path := strings.TrimSpace(lines[1])
	if port == "" || port == "0" || !strings.HasPrefix(path, "/devtools/browser/") {
		return "", fmt.Errorf("DevToolsActivePort is malformed: %q", s)
	}
	return "ws://127.0.0.1:" + port + path, nil
}

// checkListening returns ws when its port accepts a connection: a crashed
// browser leaves a stale DevToolsActivePort behind.
func checkListening(ctx context.Context, ws string) (string, error) {
	u, err := url.Parse(ws)
	if err != nil {
		return "", err
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return "", fmt.Errorf("%s is not listening (stale DevToolsActivePort?): %w", u.Host, ErrNotDebuggable)
	}
	c.Close()
	return ws, nil
}

// versionEndpoint asks http://host:port/json/version for the websocket URL.
func versionEndpoint(ctx context.Context, browserURL string) (string, error) {
	u, err := url.Parse(browserURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("browser URL %q: want http://host:port", browserURL)
	}
	u.Scheme = strings.Replace(u.Scheme, "ws", "http", 1)
	u.Path = "/json/version"
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", u.String(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("browser URL %s: %v: %w", browserURL, err, ErrNotDebuggable)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("browser URL %s: /json/version answered %s (Chrome 144+ with debugging allowed in chrome://inspect serves no /json: connect with --user-data-dir or --ws-endpoint instead)", browserURL, resp.Status)
	}
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.WS == "" {
		return "", fmt.Errorf("browser URL %s: /json/version has no webSocketDebuggerUrl", browserURL)
	}
	return v.WS, nil
}

// profileDirs lists the default profile directories of Chrome (stable, beta,
// dev, canary) and Chromium, newest DevToolsActivePort first.
func profileDirs(getenv func(string) string, goos string) []string {
	var dirs []string
	home := getenv("HOME")
	switch goos {
	case "darwin":
		base := filepath.Join(home, "Library", "Application Support")
		for _, d := range []string{"Google/Chrome", "Google/Chrome Beta", "Google/Chrome Dev", "Google/Chrome Canary", "Chromium"} {
			dirs = append(dirs, filepath.Join(base, d))
		}
	case "windows":
		base := getenv("LOCALAPPDATA")
		for _, d := range []string{`Google\Chrome\User Data`, `Google\Chrome Beta\User Data`, `Google\Chrome Dev\User Data`, `Google\Chrome SxS\User Data`, `Chromium\User Data`} {
			dirs = append(dirs, filepath.Join(base, d))
		}
	default:
		base := xdg.ConfigHome(getenv)
		for _, d := range []string{"google-chrome", "google-chrome-beta", "google-chrome-unstable", "google-chrome-canary", "chromium"} {
			dirs = append(dirs, filepath.Join(base, d))
		}
	}
	return newestFirst(dirs)
}

// newestFirst orders dirs by the age of their DevToolsActivePort, newest
// first; directories without one go last, in their given order.
func newestFirst(dirs []string) []string {
	mod := map[string]time.Time{}
	for _, d := range dirs {
		if st, err := os.Stat(filepath.Join(d, "DevToolsActivePort")); err == nil {
			mod[d] = st.ModTime()
		}
	}
	out := append([]string(nil), dirs...)
	sort.SliceStable(out, func(i, j int) bool { return mod[out[i]].After(mod[out[j]]) })
	return out
}
