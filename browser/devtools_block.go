package browser

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// devToolsPatterns are the requests an agent's tab may never send: the
// paths Chromium's DevTools HTTP and WebSocket server answers (/json…,
// /devtools…) on every address of this machine, whatever the port, and
// every path of the endpoint browseragent drives (ws, as s.ws). Chromium
// canonicalises a URL's host before it matches (http://2130706433/ is
// 127.0.0.1), so the loopback spellings here are all there are. They are
// URLPattern strings (Network.setBlockedURLs).
func devToolsPatterns(ws string) []*network.BlockPattern {
	var out []*network.BlockPattern
	for _, host := range []string{"localhost", "*.localhost", "127.*", "0.0.0.0", `[\:\:1]`, `[\:\:]`, `[\:\:ffff\:7f*]`} {
		for _, path := range []string{"/json*", "/devtools*"} {
			out = append(out, &network.BlockPattern{URLPattern: "*://" + host + ":*" + path, Block: true})
		}
	}
	if u, err := url.Parse(ws); err == nil && u.Hostname() != "" && u.Port() != "" {
		host := u.Hostname()
		if strings.Contains(host, ":") {
			host = "[" + strings.ReplaceAll(host, ":", `\:`) + "]" // URLPattern's spelling of an IPv6 host
		}
		out = append(out, &network.BlockPattern{URLPattern: "*://" + host + ":" + u.Port() + "/*", Block: true})
	}
	return out
}

// blockDevTools keeps an agent's tab (every tab of the isolated browser,
// the agent's own tabs in the person's) from sending a request to a
// browser's DevTools endpoint: a script the agent runs there, or the page
// itself, could otherwise list the person's tabs or close them through
// /json/close/<id>. In the isolated browser the proxy refuses them too;
// in the person's Chrome nothing else would. The person's own tabs are
// left as they are.
func (s *session) blockDevTools(ctx context.Context, t *tab) error {
	s.mu.Lock()
	need := t.owned || s.mode == ModeIsolated
	s.mu.Unlock()
	if !need {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := chromedp.Call(cctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: devToolsPatterns(s.ws)}); err != nil {
		return fmt.Errorf("tab %s: keep it away from the DevTools endpoint: %w", t.short, err)
	}
	return nil
}
