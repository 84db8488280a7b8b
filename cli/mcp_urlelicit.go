package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/browseragent/browseragent/mcpclient"
)

// needsURL turns a call the server refused until the person opens a URL
// (-32042) into exit code exitMCPCallNeedsURL with the URLs on their own
// lines; browseragent never opens them, --yes or not. Other errors pass.
func needsURL(err error) error {
	var ue *mcpclient.URLElicitationError
	if !errors.As(err, &ue) {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mcp %s/%s: the server needs you to open a URL before this call can run", ue.Server, ue.Tool)
	if ue.Reason != "" {
		fmt.Fprintf(&b, " (%s)", ue.Reason)
	}
	b.WriteString(":\n")
	for _, u := range ue.URLs {
		fmt.Fprintf(&b, "  open in your browser: %s\n", u.URL)
		if u.Message != "" {
			fmt.Fprintf(&b, "    %s\n", u.Message)
		}
	}
	b.WriteString("then run the same command again (browseragent opened nothing)")
	return exitCode(exitMCPCallNeedsURL, b.String())
}
