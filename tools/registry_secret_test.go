package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
)

// secretLocator is pageTool's page where ref e2 is a password field.
type secretLocator struct{ *pageTool }

func (l secretLocator) Locate(ctx context.Context, c *ResolvedCall) (Page, error) {
	p, err := l.pageTool.Locate(ctx, c)
	p.Secret = c.Args["ref"] == "e2"
	return p, err
}

// TestRegistrySecretCall: whatever the verdict (allowed, approved, refused),
// a call the locator marks Secret leaves no typed value in the audit file
// or the approval box, and its result says Secret; other calls are logged
// and shown as they were.
func TestRegistrySecretCall(t *testing.T) {
	tests := []struct {
		name      string
		url       string
		ref, text string
		answers   []Answer
		wantAsked string // approval box arguments; "" when nobody is asked
		wantErr   bool
	}{
		{"ordinary field", "https://example.test/", "e1", "alice-visible", nil, "", false},
		{"password field", "https://example.test/", "e2", "hunter2-plain", nil, "", false},
		{"password field, approved", "https://bank.test/login", "e2", "hunter2-bank", []Answer{AnswerOnce}, `ref="e2" text="[redacted]"`, false},
		{"ordinary field, approved", "https://bank.test/login", "e1", "bob-visible", []Answer{AnswerOnce}, `ref="e1" text="bob-visible"`, false},
		{"password field, refused by a deny rule", "https://vault.test/", "e2", "hunter2-vault", nil, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := guard.ParseRules([]byte(testRules), "test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			log, err := guard.OpenAudit(path)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			tool := newPageTool(tc.url)
			obj := map[string]any{"type": "object", "properties": map[string]any{}}
			tool.defs = append(tool.defs, ToolDef{Name: "browser_type", RawName: "browser_type", Source: SourceBrowser, Parameters: obj, Entry: catalog.MustNative("browser_type")})
			approver := &scriptedApprover{answers: tc.answers}
			r := NewRegistry(guard.NewPolicy(rules, &guard.Options{Mode: guard.Isolated}), &RegistryOptions{
				Locator: secretLocator{tool}, Approver: approver,
				Audit: func(e guard.Entry) { _ = log.Append(e) },
			})
			r.Add(tool)
			raw, _ := json.Marshal(map[string]any{"ref": tc.ref, "text": tc.text})
			res, err := r.Call(context.Background(), "browser_type", raw, OriginAgent)
			if denied := errors.Is(err, guard.ErrDenied); denied != tc.wantErr || err != nil && !denied {
				t.Fatalf("err = %v, want refused (guard.ErrDenied) %v", err, tc.wantErr)
			}
			secret := tc.ref == "e2"
			if res.Secret != secret || res.IsError() != tc.wantErr {
				t.Errorf("result Secret=%v IsError=%v (%s), want %v %v", res.Secret, res.IsError(), res.Text, secret, tc.wantErr)
			}
			var asked []string
			for _, q := range approver.asked {
				asked = append(asked, q.Args)
			}
			var wantAsked []string
			if tc.wantAsked != "" {
				wantAsked = []string{tc.wantAsked}
			}
			if diff := cmp.Diff(wantAsked, asked); diff != "" {
				t.Errorf("approval box arguments (-want +got)\n%s", diff)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(b), tc.text); got == secret || !strings.Contains(string(b), `"ref":"`+tc.ref+`"`) {
				t.Errorf("audit log holds the typed text: %v, want %v:\n%s", got, !secret, b)
			}
		})
	}
}

func TestMaskValues(t *testing.T) {
	args := map[string]any{"ref": "e2", "value": "hunter2secret", "n": 3.0}
	got := maskValues(`browser_select: no option "hunter2secret" in e2`, args)
	if want := `browser_select: no option "[redacted]" in e2`; got != want {
		t.Errorf("maskValues = %q, want %q", got, want)
	}
}

// TestSummarizeArgsSecret: the approval box masks typed values only when
// the call types into a secret field; secret-named arguments always.
func TestSummarizeArgsSecret(t *testing.T) {
	tests := []struct {
		name   string
		args   map[string]any
		secret bool
		want   string
	}{
		{"ordinary field", map[string]any{"ref": "e1", "text": "alice"}, false, `ref="e1" text="alice"`},
		{"password field", map[string]any{"ref": "e2", "text": "hunter2"}, true, `ref="e2" text="[redacted]"`},
		{"mcp fill_form", map[string]any{"elements": []any{map[string]any{"uid": "1_2", "value": "pw"}}}, true, `elements="[redacted]"`},
		{"secret-named argument", map[string]any{"password": "pw", "url": "https://a.example/"}, false, `password="[redacted]" url="https://a.example/"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &ResolvedCall{Args: tt.args, Page: Page{Secret: tt.secret}}
			if diff := cmp.Diff(tt.want, summarizeArgs(c)); diff != "" {
				t.Errorf("summarizeArgs (-want +got)\n%s", diff)
			}
		})
	}
}
