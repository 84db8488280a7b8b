// Package xdg finds browseragent's directories the XDG way, in one place:
// configuration under $XDG_CONFIG_HOME (default ~/.config) and state under
// $XDG_STATE_HOME (default ~/.local/state). It imports nothing of ours, so
// every package, guard included, may use it.
package xdg

import (
	"os"
	"path/filepath"
)

// App is the directory name browseragent uses under each base directory.
const App = "browseragent"

// ConfigHome is $XDG_CONFIG_HOME, or ~/.config when it is unset; "" when
// neither is known. getenv nil means os.Getenv.
func ConfigHome(getenv func(string) string) string {
	return base(getenv, "XDG_CONFIG_HOME", ".config")
}

// StateHome is $XDG_STATE_HOME, or ~/.local/state when it is unset; "" when
// neither is known.
func StateHome(getenv func(string) string) string {
	return base(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state"))
}

// ConfigPath joins elem under browseragent's configuration directory;
// "" when no home directory is known.
func ConfigPath(getenv func(string) string, elem ...string) string {
	return under(ConfigHome(getenv), elem)
}

// StatePath joins elem under browseragent's state directory; "" when no home
// directory is known.
func StatePath(getenv func(string) string, elem ...string) string {
	return under(StateHome(getenv), elem)
}

func base(getenv func(string) string, env, fallback string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if dir := getenv(env); dir != "" {
		return dir
	}
	home := getenv("HOME") // the caller's environment first, as for env
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil || home == "" {
			return ""
		}
	}
	return filepath.Join(home, fallback)
}

func under(dir string, elem []string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(append([]string{dir, App}, elem...)...)
}

// OutputDir is the folder the person chose for what browseragent's tools
// save (screenshots, snapshots, downloads): $BROWSERAGENT_OUTPUT_DIR, else
// $BROWSERAGENT_DOWNLOAD_DIR (browser_download's folder), else
// browseragent's folder in their downloads ($XDG_DOWNLOAD_DIR, default
// ~/Downloads); "" when no home directory is known.
func OutputDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, k := range []string{"BROWSERAGENT_OUTPUT_DIR", "BROWSERAGENT_DOWNLOAD_DIR"} {
		if dir := getenv(k); dir != "" {
			return dir
		}
	}
	return under(base(getenv, "XDG_DOWNLOAD_DIR", "Downloads"), nil)
}
