package session

import (
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSessionSnapshotClobberedNames: a page's form fields named like the
// DOM's own properties (a form whose input is named getAttribute, hidden,
// tagName; a document whose image is named title) neither blind the model
// nor hide a form from it. Before 8158b26 `<input name=getAttribute>` made
// every snapshot of the page fail with a TypeError and `name=hidden` left
// its form out of the outline; the snapshot now reads forms and the
// document through their prototypes. Driven through the session's registry,
// as the model's calls are, so the result screen and the guard see the page
// too.
func TestSessionSnapshotClobberedNames(t *testing.T) {
	testutil.Parallel(t)
	site := newTestSite(t)
	site.page("/orders", `<!doctype html><title>Orders</title><h1>Orders</h1>
<img name="title" alt=""><form name="querySelector"></form>
<form action="/pay"><input name="hidden" aria-label="Hidden amount"><button>Pay now</button></form>
<form><input name="getAttribute" aria-label="Payee"><input name="tagName"><input name="checkVisibility"><input name="childNodes"><button>Send money</button></form>
<p>After the forms</p>`)
	s := newTestSession(t, false, "version: 1\nrules: []\n")
	call(t, s, "browser_open", map[string]any{"url": site.URL + "/orders"})
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"whole page", map[string]any{}, []string{"Page: Orders", `"Hidden amount"`, `"Pay now"`, `"Payee"`, `"Send money"`, "After the forms"}},
		{"interactive", map[string]any{"interactive": true}, []string{"Page: Orders", `"Hidden amount"`, `"Pay now"`, `"Payee"`, `"Send money"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, s, "browser_snapshot", tc.args)
			if res.IsError() {
				t.Fatalf("the snapshot failed: %s", res.Text)
			}
			for _, want := range tc.want {
				if !strings.Contains(res.Text, want) {
					t.Errorf("snapshot lacks %s:\n%s", want, res.Text)
				}
			}
		})
	}
	if res := call(t, s, "browser_type", map[string]any{"ref": refOf(t, s, `"Payee"`), "text": "Ada"}); res.IsError() {
		t.Fatalf("typing through a ref of a clobbered form: %s", res.Text)
	}
	if got := call(t, s, "browser_eval", map[string]any{"js": "document.forms[2].elements[0].value"}).Text; !strings.Contains(got, "Ada") {
		t.Errorf("typing through a ref of a clobbered form: the field holds %s", got)
	}
}
