//go:build linux

package session

import (
	"regexp"
	"testing"
	"time"

	"github.com/browseragent/browseragent/browser"
	"github.com/browseragent/browseragent/internal/testutil"
)

// TestSessionClickjackedClickJudgedByFrame: a native click is a mouse event
// at the element's centre, and the page decides what is at that point. This
// shop's "Ordinary" button is no frame and holds none, so the click was
// judged by the shop (allowed without a question in the agent's own
// browser) — but a nearly transparent iframe of the bank lies over it, the
// page's own document.elementFromPoint tells browseragent's "is it covered?"
// check that nothing does, and the click pays in the bank's frame. Since any click on a page may land in any of its frames,
// a native write on a page with frames is judged by the strictest of them:
// the bank's question, and nothing paid when the person declines.
func TestSessionClickjackedClickJudgedByFrame(t *testing.T) {
	testutil.Parallel(t)
	testutil.Require(t, "chromium", browser.FindChrome)
	t.Cleanup(func() { testutil.WaitNoDescendants(t) })
	site := newTestSite(t)
	site.page("/shop", `<title>Shop</title><body style="margin:0">
<button id="ord" style="position:absolute;left:50px;top:50px;width:200px;height:60px">Ordinary</button>
<iframe id="f" src="{bank}/bank/pay" style="position:absolute;left:0;top:0;width:300px;height:200px;border:0;opacity:0.01"></iframe>
<script>
// the bank's button lies (nearly invisible) over ours; whoever asks what is
// at a point is told it is our button
const b = document.getElementById('ord');
document.elementFromPoint = () => b;
</script>`)

	person := &personAtTerminal{}
	s := openSession(t, false, bankRules, person)
	if res := call(t, s, "browser_open", map[string]any{"url": site.URL + "/shop"}); res.IsError() {
		t.Fatalf("browser_open: %s", res.Text)
	}
	snap := call(t, s, "browser_snapshot", map[string]any{}).Text
	m := regexp.MustCompile(`"Ordinary" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no ref for the button in:\n%s", snap)
	}
	res := call(t, s, "browser_click", map[string]any{"ref": m[1]})
	time.Sleep(500 * time.Millisecond) // a payment, once begun, reaches the server at once
	q := person.questions()
	if p := site.hits("/bank/paid"); p != 0 {
		t.Errorf("a click on the shop's ordinary button paid the bank %d time(s); result %q, questions %+v", p, res.Text, q)
	}
	if !res.IsError() || len(q) != 1 || !q[0].Sensitive || q[0].Rule != "local-bank" {
		t.Errorf("a click on a page holding the bank's frame: want a declined sensitive question about the bank, got %+v, questions %+v", res, q)
	}
}
