package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/browseragent/browseragent/internal/textutil"
)

// Print writes what a command did as the command line shows it: its text
// on out, its notice and failure as one line each on errw ("browseragent:
// …"), or with asJSON one JSON object on out (its Data with "ok", "exit",
// "code", and "command", "error", "notice" where there are). It returns
// the exit code. A file the response carries is the caller's to write
// first.
func Print(out, errw io.Writer, asJSON bool, command string, resp *Response) int {
	if asJSON {
		writeJSON(out, command, resp)
		return resp.Exit
	}
	if resp.Notice != "" {
		fmt.Fprintf(errw, "browseragent: %s\n", Shown(errw, resp.Notice))
	}
	if resp.Text != "" {
		fmt.Fprintln(out, Shown(out, strings.TrimRight(resp.Text, "\n")))
	}
	if resp.Error != "" {
		fmt.Fprintf(errw, "browseragent: %s\n", Shown(errw, resp.Error))
	}
	return resp.Exit
}

// Shown is text a page or a server chose (a page's text, its title, an
// error quoting its URL) as it goes to w: at a terminal, every character
// the terminal would act on is shown escaped (textutil.Visible), so a
// page's "\x1b]0;…" or "\r\x1b[2K" cannot retitle the window, erase a
// line or fake one of ours; into a pipe or a file it is unchanged, the
// page's own bytes, for the program reading them.
func Shown(w io.Writer, s string) string {
	if f, ok := w.(*os.File); ok && showsTerminal(f) {
		return textutil.Visible(s)
	}
	return s
}

func writeJSON(w io.Writer, command string, resp *Response) {
	out := map[string]any{}
	for k, v := range resp.Data {
		out[k] = v
	}
	out["ok"] = resp.Exit == ExitOK
	out["exit"] = resp.Exit
	out["code"] = exitNames[resp.Exit]
	if command != "" {
		out["command"] = command
	}
	if resp.Error != "" {
		out["error"] = resp.Error
	}
	if resp.Notice != "" {
		out["notice"] = resp.Notice
	}
	b, _ := json.Marshal(out)
	fmt.Fprintln(w, string(b))
}

// DaemonArgv is how a command starts its session's daemon: this program
// again, as `browser daemon` with the session's start-up flags.
func DaemonArgv(session string, idle time.Duration, headed bool, sites string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this program to start the session with: %w", err)
	}
	args := []string{exe, "browser", "daemon", "--session", session, "--idle-timeout", idle.String()}
	if headed {
		args = append(args, "--headed")
	}
	if sites != "" {
		args = append(args, "--sites", sites)
	}
	return args, nil
}
