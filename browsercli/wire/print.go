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
		fmt.Fprintf(errw, "browseragent: %s\n", textutil.ForTerminal(errw, resp.Notice))
	}
	if resp.Text != "" {
		fmt.Fprintln(out, textutil.ForTerminal(out, strings.TrimRight(resp.Text, "\n")))
	}
	if resp.Error != "" {
		fmt.Fprintf(errw, "browseragent: %s\n", textutil.ForTerminal(errw, resp.Error))
	}
	return resp.Exit
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
