package browser

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// errChromeNotFound is returned when no Chromium or Chrome executable can be
// found. Its message tells the person what to do.
var errChromeNotFound = errors.New("chrome not found: install chromium or set BROWSERAGENT_CHROME")

// chromeNames are looked up on PATH, in order.
var chromeNames = []string{
	"chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
	"chrome", "google-chrome-beta", "google-chrome-unstable",
}

// FindChrome returns the path of the browser to launch: $BROWSERAGENT_CHROME
// when set, else the first of chromeNames on PATH, else the usual install
// paths of macOS and Windows.
func FindChrome() (string, error) {
	return findChrome(os.Getenv, exec.LookPath, isFile, runtime.GOOS)
}

func findChrome(getenv func(string) string, lookPath func(string) (string, error), exists func(string) bool, goos string) (string, error) {
	if p := getenv("BROWSERAGENT_CHROME"); p != "" {
		if full, err := lookPath(p); err == nil {
			return full, nil
		}
		return "", errors.New("BROWSERAGENT_CHROME=" + p + " is not an executable: fix the path or unset it")
	}
	for _, name := range chromeNames {
		if full, err := lookPath(name); err == nil {
			return full, nil
		}
	}
	for _, p := range installPaths(getenv, goos) {
		if exists(p) {
			return p, nil
		}
	}
	return "", errChromeNotFound
}

// installPaths lists where Chrome and Chromium install themselves outside
// PATH.
func installPaths(getenv func(string) string, goos string) []string {
	switch goos {
	case "darwin":
		return []string{
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary",
			filepath.Join(getenv("HOME"), "Applications/Google Chrome.app/Contents/MacOS/Google Chrome"),
		}
	case "windows":
		var out []string
		for _, root := range []string{getenv("ProgramFiles"), getenv("ProgramFiles(x86)"), getenv("LocalAppData")} {
			if root == "" {
				continue
			}
			out = append(out,
				filepath.Join(root, `Google\Chrome\Application\chrome.exe`),
				filepath.Join(root, `Chromium\Application\chrome.exe`))
		}
		return out
	}
	return []string{"/usr/lib/chromium/chromium", "/snap/bin/chromium", "/opt/google/chrome/chrome"}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
