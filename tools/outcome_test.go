package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
)

// scriptedTool is a browser tool that does what the test says.
type scriptedTool struct {
	res  *ToolResult
	wait bool
}

func (s *scriptedTool) Tools() []ToolDef {
	return []ToolDef{{Name: "browser_snapshot", RawName: "browser_snapshot", Source: SourceBrowser, Entry: catalog.MustNative("browser_snapshot"),
		Timeout: 200 * time.Millisecond, Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}}
}

func (s *scriptedTool) Call(ctx context.Context, _ *ResolvedCall) (*ToolResult, error) {
	if s.wait {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	r := *s.res
	return &r, nil
}

type fixedPage struct{ url string }

func (f fixedPage) Locate(context.Context, *ResolvedCall) (Page, error) {
	return Page{TabID: "T1", URL: f.url}, nil
}

// TestResultsSayTheirOutcome: every way a call can end is one Outcome
// (with a Failure kind for a failure), not a combination of flags.
func TestResultsSayTheirOutcome(t *testing.T) {
	rules, err := guard.ParseRules([]byte(testRules), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withhold := func(_ context.Context, _ *ResolvedCall, res *ToolResult) {
		if strings.Contains(res.Text, "vault") {
			res.Text, res.Outcome = "withheld: it came from vault.test", Withheld
		}
	}
	tests := []struct {
		name    string
		url     string
		tool    *scriptedTool
		outcome Outcome
		failure Failure
		denied  bool // Call also returns guard.ErrDenied
	}{
		{"ok", "https://news.test/", &scriptedTool{res: &ToolResult{Text: "a page"}}, OK, NoFailure, false},
		{"the tool failed", "https://news.test/", &scriptedTool{res: (&ToolResult{Text: "no such ref"}).Fail()}, Failed, ToolError, false},
		{"a provider's failure is a tool error", "https://news.test/", &scriptedTool{res: &ToolResult{Text: "no", Outcome: Failed}}, Failed, ToolError, false},
		{"timed out", "https://news.test/", &scriptedTool{wait: true}, Failed, TimedOut, false},
		{"refused by a deny rule", "https://vault.test/", &scriptedTool{res: &ToolResult{Text: "secret"}}, Refused, NoFailure, true},
		{"withheld by the screen", "https://news.test/", &scriptedTool{res: &ToolResult{Text: "the vault page"}}, Withheld, NoFailure, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry(guard.NewPolicy(rules, &guard.Options{Mode: guard.Isolated}), &RegistryOptions{Locator: fixedPage{tt.url}, Screen: withhold})
			r.Add(tt.tool)
			res, err := r.Call(context.Background(), "browser_snapshot", nil, OriginScript)
			if err != nil && !errors.Is(err, guard.ErrDenied) {
				t.Fatalf("call: %v", err)
			}
			type got struct {
				Outcome, Failure string
				IsError, Denied  bool
			}
			want := got{tt.outcome.String(), tt.failure.String(), tt.outcome != OK, tt.denied}
			if diff := cmp.Diff(want, got{res.Outcome.String(), res.Failure.String(), res.IsError(), errors.Is(err, guard.ErrDenied)}); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
