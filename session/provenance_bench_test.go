//go:build linux

package session

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/internal/testutil"
	"github.com/browseragent/browseragent/tools"
)

// BenchmarkScreen measures what judging a result's provenance adds to a
// native browser_snapshot through the registry: "off" runs without the
// screen, "on" with it (the tab's live address after the call; for a
// script's answer also the values of the page's secret fields, asked in
// every frame); compare the two in one run.
func BenchmarkScreen(b *testing.B) {
	testutil.Require(b, "chromium", browser.FindChrome)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Bench</title><h1>Heading</h1><p>text</p><iframe src='/inner'></iframe>")
	}))
	defer srv.Close()
	rules, err := guard.ParseRules([]byte("version: 1\nrules: []\n"), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSession(&SessionOptions{Rules: rules, AuditPath: filepath.Join(b.TempDir(), "audit.jsonl")})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	// The same tools without the screen: a registry of their own, as one
	// is made (there is no setter to switch the screen off).
	off := tools.NewRegistry(s.Policy, &tools.RegistryOptions{Locator: locator{s}})
	off.Add(s.web)
	off.Add(s.Browser.Provider())
	ctx := context.Background()
	raw, _ := json.Marshal(map[string]any{"url": srv.URL + "/"})
	if _, err := s.Registry.Call(ctx, "browser_open", raw, tools.OriginCommand); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name, tool string
		on         bool
	}{{"snapshot/off", "browser_snapshot", false}, {"snapshot/on", "browser_snapshot", true},
		{"screenshot/off", "browser_screenshot", false}, {"screenshot/on", "browser_screenshot", true},
		// a script's answer is also searched for the values of secret fields
		{"eval/off", "browser_eval", false}, {"eval/on", "browser_eval", true}} {
		b.Run(tc.name, func(b *testing.B) {
			reg := off
			if tc.on {
				reg = s.Registry
			}
			for b.Loop() {
				args := json.RawMessage(`{}`)
				if tc.tool == "browser_eval" {
					args = json.RawMessage(`{"js":"document.title"}`)
				}
				if _, err := reg.Call(ctx, tc.tool, args, tools.OriginCommand); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
