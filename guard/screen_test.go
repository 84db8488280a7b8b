package guard

import "testing"

const frameRules = `version: 1
rules:
  - name: bank
    category: bank
    hosts: ["bank.example"]
    action: ask
  - name: vault
    category: password-manager
    hosts: ["vault.example"]
    action: deny
`

// TestCheckRanksFrames: a write on a page is judged by the strictest of
// the documents its element may be in (Call.Frames, the first on a tie),
// and the decision names the frame it was judged by; frames of the page's
// own content (about:, data:) are not judged apart.
func TestCheckRanksFrames(t *testing.T) {
	rules, err := ParseRules([]byte(frameRules), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(rules, &Options{Mode: Isolated})
	shop := "https://shop.example/checkout"
	for _, tc := range []struct {
		name   string
		frames []Frame
		want   Verdict
		frame  string
	}{
		{"the page alone", nil, Allow, ""},
		{"ordinary frames", []Frame{{URL: shop}, {URL: "https://ads.example/"}, {URL: "about:blank"}}, Allow, ""},
		{"a bank's frame", []Frame{{URL: shop}, {URL: "https://bank.example/pay"}}, Ask, "https://bank.example/pay"},
		{"deny before ask", []Frame{{URL: shop}, {URL: "https://bank.example/pay"}, {URL: "https://vault.example/"}}, Deny, "https://vault.example/"},
		{"srcdoc is the page's own", []Frame{{URL: shop}, {URL: "about:srcdoc"}, {URL: "data:text/html,x"}}, Allow, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Call{Tool: "browser_click", Args: map[string]any{"ref": "e1"}, PageURL: shop, TabID: "tab-1", Frames: tc.frames}
			d := p.Check(c)
			if d.Verdict != tc.want || d.Frame != tc.frame {
				t.Errorf("got %v judged by frame %q (%s), want %v by %q", d.Verdict, d.Frame, d.Reason, tc.want, tc.frame)
			}
		})
	}
}

// TestScreenOneQuestion: a result screen's question answers for each
// thing a result holds, in order: denied by a rule naming its URL or the
// address its document came from, or nil.
func TestScreenOneQuestion(t *testing.T) {
	rules, err := ParseRules([]byte(frameRules+`  - name: metadata
    category: cloud-metadata
    hosts: ["169.254.169.254"]
    action: deny
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(rules, nil)
	got := p.Screen([]Frame{{URL: "https://shop.example/"}, {URL: "https://vault.example/x"}, {URL: ""},
		{URL: "https://bank.example/"}, {URL: "http://innocent.example/", Addr: "169.254.169.254:80"}})
	want := []string{"", "vault", "", "", "metadata"}
	if len(got) != len(want) {
		t.Fatalf("%d answers for %d questions", len(got), len(want))
	}
	for i, d := range got {
		rule := ""
		if d != nil {
			rule = d.Rule
		}
		if rule != want[i] {
			t.Errorf("answer %d: denied by %q, want %q", i, rule, want[i])
		}
	}
}
