package browser

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
)

// cdpLogEnv names a file that gets one line per DevTools message the
// browser connection sends (->) or receives (<-), with the time, so a
// command's round trips can be counted (docs/troubleshooting.md). Unset,
// nothing is logged and nothing is paid.
const cdpLogEnv = "BROWSERAGENT_CDP_LOG"

// cdpLogLimit caps the bytes of one logged message (a snapshot's result
// or a screenshot would fill the file).
const cdpLogLimit = 400

// cdpLogOptions is the browser option that logs the DevTools traffic to
// $BROWSERAGENT_CDP_LOG, or none when it is unset or cannot be opened.
func cdpLogOptions() []chromedp.BrowserOption {
	path := os.Getenv(cdpLogEnv)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil
	}
	var mu sync.Mutex
	return []chromedp.BrowserOption{chromedp.WithBrowserDebugf(func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		if len(line) > cdpLogLimit {
			line = line[:cdpLogLimit] + "…"
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(f, "%s %s\n", time.Now().Format("15:04:05.000000"), line)
	})}
}
