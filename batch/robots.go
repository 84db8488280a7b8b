package batch

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browseragent/browseragent/extract"
	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/internal/textutil"
	"github.com/temoto/robotstxt"
)

// maxRobotsHosts bounds the robots.txt cache: a list of millions of hosts
// keeps memory flat, at the price of fetching a forgotten host's file again.
const maxRobotsHosts = 4096

// Robots fetches each host's robots.txt once, with the batch's own
// fetcher (so the guard judges that URL too), and answers for its URLs. It
// is safe for concurrent use.
type Robots struct {
	get   Job
	agent string

	mu    sync.Mutex
	hosts map[string]*robotsEntry
}

// robotsEntry is one host's rules; ready is closed once they are known.
type robotsEntry struct {
	ready chan struct{}
	group *robotstxt.Group // nil: allow everything
	err   error            // the file could not be read: disallow everything
}

// NewRobots returns the robots.txt rules for agent ("" is
// "browseragent"), each host's fetched with get when first asked.
func NewRobots(get Job, agent string) *Robots {
	if agent == "" {
		agent = "browseragent"
	}
	return &Robots{get: get, agent: agent, hosts: map[string]*robotsEntry{}}
}

// CheckRedirect is for an Options.AllowRedirect: it refuses a redirect to
// a URL its host's robots.txt disallows, so a listed URL cannot carry the
// batch to a page it may not fetch. ctx bounds the fetch of a robots.txt.
func (c *Robots) CheckRedirect(ctx context.Context, to string) error {
	ok, _, err := c.allowed(ctx, to)
	if err == nil && !ok {
		u, _ := url.Parse(to)
		err = robotsError(to, nil, "robots.txt of %s disallows %s", u.Host, to)
	}
	return err
}

// allowed reports whether robots.txt lets the agent fetch raw, and the
// host's Crawl-delay. A robots.txt that cannot be read for a server error
// or a failed connection disallows the whole host (RFC 9309, 2.3.1.4); a
// missing one (4xx) allows it.
func (c *Robots) allowed(ctx context.Context, raw string) (bool, time.Duration, error) {
	u, err := fetch.ParseURL(raw)
	if err != nil {
		return true, 0, nil // the fetch reports it
	}
	e, err := c.entry(ctx, u)
	if err != nil {
		return false, 0, err
	}
	if e.err != nil {
		return false, 0, robotsError(raw, e.err, "robots.txt of %s could not be read (%v), so nothing there is fetched", u.Host, e.err)
	}
	if e.group == nil {
		return true, 0, nil
	}
	return e.group.Test(u.RequestURI()), e.group.CrawlDelay, nil
}

// entry returns u's host's rules, fetching them if no other worker is.
func (c *Robots) entry(ctx context.Context, u *url.URL) (*robotsEntry, error) {
	key := strings.ToLower(u.Scheme + "://" + u.Host)
	c.mu.Lock()
	e, ok := c.hosts[key]
	if !ok {
		if len(c.hosts) >= maxRobotsHosts {
			for k, old := range c.hosts {
				select {
				case <-old.ready:
					delete(c.hosts, k)
				default:
				}
				if len(c.hosts) < maxRobotsHosts/2 {
					break
				}
			}
		}
		e = &robotsEntry{ready: make(chan struct{})}
		c.hosts[key] = e
	}
	c.mu.Unlock()
	if !ok {
		c.load(ctx, e, key+"/robots.txt")
	}
	select {
	case <-e.ready:
		return e, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// load fetches and parses one robots.txt. A try cut short by ctx is
// forgotten, so the next URL of the host asks again.
func (c *Robots) load(ctx context.Context, e *robotsEntry, robotsURL string) {
	defer close(e.ready)
	res, err := c.get(ctx, robotsURL, 0)
	status := 0
	var fe *extract.Error
	switch {
	case ctx.Err() != nil:
		e.err = ctx.Err()
		c.mu.Lock()
		delete(c.hosts, strings.TrimSuffix(robotsURL, "/robots.txt"))
		c.mu.Unlock()
		return
	case err == nil:
		status = res.Status
	case errors.As(err, &fe) && fe.Kind == fetch.ErrHTTPStatus:
		status = fe.Status
	default:
		e.err = errors.New(textutil.FirstLine(err.Error(), 0))
		return
	}
	switch {
	case status >= 500:
		e.err = errors.New("it answered " + strconv.Itoa(status))
		return
	case status >= 400 || res == nil:
		return // no robots.txt: everything is allowed
	}
	data, perr := robotstxt.FromStatusAndBytes(status, []byte(res.Text()))
	if perr != nil {
		return // unparseable rules are no rules
	}
	e.group = data.FindGroup(c.agent)
}

// robotsError is a URL robots.txt keeps the batch from (errRobots), as a
// *extract.Error so that it reads and wraps as the client's own failures do.
func robotsError(url string, cause error, format string, args ...any) error {
	return &extract.Error{Kind: errRobots, URL: url, Msg: fmt.Sprintf(format, args...), Err: cause}
}
