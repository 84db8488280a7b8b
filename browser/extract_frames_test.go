package browser

import (
	"regexp"
	"strings"
	"testing"

	"github.com/browseragent/browseragent/internal/testutil"
)

// TestExtractFrames: browser_extract gives the page's main text, then
// each frame's under a line naming the frame and its URL, same-site,
// cross-site and nested alike (the frames are listed while the page's own
// document is extracted).
func TestExtractFrames(t *testing.T) {
	testutil.Parallel(t)
	b := newTestBrowser(t, nil)
	outer, cross := frameSite(t)
	same := strings.TrimSuffix(outer, "/outer") + "/same"
	mustCall(t, b, "browser_open", map[string]any{"url": outer})
	mustCall(t, b, "browser_wait", map[string]any{"text": "nested"})
	text := mustCall(t, b, "browser_extract", nil).Text
	for _, want := range []string{
		`(?s)^Page: Outer\nURL: ` + regexp.QuoteMeta(outer) + `\n\n# Outer`,
		`\n--- frame f\d+: ` + regexp.QuoteMeta(same) + `\n\nsame site`,
		`\n--- frame f\d+: ` + regexp.QuoteMeta(cross+"/cross") + `\n\ncross site`,
		`\n--- frame f\d+: ` + regexp.QuoteMeta(cross+"/nested") + `\n\nnested`,
	} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("browser_extract lacks %s:\n%s", want, text)
		}
	}
	sel := mustCall(t, b, "browser_extract", map[string]any{"select": "h1"}).Text
	if strings.Contains(sel, "--- frame") {
		t.Errorf("browser_extract with select gave the frames too:\n%s", sel)
	}
}
