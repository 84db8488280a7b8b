package guard_test

import (
	"fmt"

	"github.com/browseragent/browseragent/catalog"
	"github.com/browseragent/browseragent/guard"
)

// Policy.Check judges one call by what it touches: a click is a write,
// which in the person's own browser asks on an ordinary page, and on a
// page an "ask" rule names asks by that rule.
func ExamplePolicy_Check() {
	rules, err := guard.ParseRules([]byte(`version: 1
rules:
  - name: bank
    category: banking
    hosts: ["bank.example"]
    action: ask
`), "rules.yaml")
	if err != nil {
		panic(err)
	}
	p := guard.NewPolicy(rules, &guard.Options{Mode: guard.Shared})
	click := catalog.MustNative("browser_click")
	for _, page := range []string{"https://news.example/", "https://bank.example/pay"} {
		d := p.Check(guard.Call{Tool: "browser_click", Name: "browser_click", Entry: &click, PageURL: page,
			Args: map[string]any{"ref": "e3"}, Files: []guard.File{}})
		rule := d.Rule
		if rule == "" {
			rule = "(no rule)"
		}
		fmt.Println(page, d.Verdict, rule)
	}
	// Output:
	// https://news.example/ ask (no rule)
	// https://bank.example/pay ask bank
}
