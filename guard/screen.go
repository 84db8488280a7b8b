package guard

import "github.com/browseragent/browseragent/catalog"

// shown is what showing content in a tool's result is, for Screen: a read
// in the browser of the page it came from.
var shown = catalog.Entry{Kind: catalog.Native, Effect: catalog.Read, Browser: true, OnPage: true}

// Screen is a result screen's one question: of everything a tool's result
// holds — the tab's page and frames as they are after the call, the
// requests it shows, the pages a tab list in it names — which a deny rule
// names, by its URL or by the address its document came from (Frame.Addr,
// "" unknown). It answers for each of from, in order: the decision that
// denies showing it, or nil. Nothing is used up and nothing is recorded:
// the call itself was judged (Check) before it ran.
func (p *Policy) Screen(from []Frame) []*Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Decision, len(from))
	for i, f := range from {
		if f.URL == "" {
			continue
		}
		if _, d := p.decidePage(Call{Entry: &shown, PageURL: f.URL, PageAddr: f.Addr}); d.Verdict == Deny {
			out[i] = &d
		}
	}
	return out
}
