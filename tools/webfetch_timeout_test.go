package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
)

// deadlineSpy passes calls on to a provider and keeps how long the
// registry gave the last one.
type deadlineSpy struct {
	ToolProvider
	left time.Duration
}

func (s *deadlineSpy) Call(ctx context.Context, c *ResolvedCall) (*ToolResult, error) {
	if dl, ok := ctx.Deadline(); ok {
		s.left = time.Until(dl)
	}
	return s.ToolProvider.Call(ctx, c)
}

func emptyPolicy(t *testing.T) *guard.Policy {
	t.Helper()
	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return guard.NewPolicy(rules, nil)
}

// TestWebFetchGetsItsConfiguredTimeout: web_fetch configured with a
// two-minute timeout is given two minutes by the registry, the limit its
// errors name ("timed out fetching … (limit 2m0s)"). The catalogue used to
// cut every web_fetch at 90 s while the message said 2m0s.
func TestWebFetchGetsItsConfiguredTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "<html><head><title>T</title></head><body><p>Hello there.</p></body></html>")
	}))
	defer srv.Close()
	for _, limit := range []time.Duration{2 * time.Minute, 100 * time.Second, 5 * time.Second} {
		t.Run(limit.String(), func(t *testing.T) {
			w := NewWebFetch(&fetch.Options{Timeout: limit})
			defer w.Close()
			spy := &deadlineSpy{ToolProvider: w}
			r := NewRegistry(emptyPolicy(t), nil)
			r.Add(spy)
			args, _ := json.Marshal(map[string]string{"url": srv.URL})
			res, err := r.Call(context.Background(), WebFetchName, args, OriginScript)
			if err != nil || res.IsError() {
				t.Fatalf("call: %v %+v", err, res)
			}
			if spy.left < limit-10*time.Second || spy.left > limit {
				t.Errorf("the registry gave web_fetch %s, want its configured timeout %s", spy.left.Round(time.Second), limit)
			}
		})
	}
}

// TestWebFetchTimeoutSaysItsLimit: a fetch that runs out its time ends
// when its configured limit says, with the sentence that names it, not
// Go's "context deadline exceeded".
func TestWebFetchTimeoutSaysItsLimit(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	w := NewWebFetch(&fetch.Options{Timeout: 2 * time.Second})
	defer w.Close()
	r := NewRegistry(emptyPolicy(t), nil)
	r.Add(w)
	args, _ := json.Marshal(map[string]string{"url": srv.URL + "/slow"})
	res, err := r.Call(context.Background(), WebFetchName, args, OriginScript)
	if err != nil || !res.IsError() {
		t.Fatalf("call: %v %+v", err, res)
	}
	if want := "timed out fetching " + srv.URL + "/slow (limit 2s)"; res.Text != want || strings.Contains(res.ForPerson(), "deadline") {
		t.Errorf("result %q (person: %q), want %q", res.Text, res.ForPerson(), want)
	}
}
