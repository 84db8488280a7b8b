package tools_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/tools"
)

// A registry judges every call by the sensitive-site rules before its tool
// runs: here web_fetch reads an ordinary page, and is refused a page a
// deny rule names, with the reason for the model and guard.ErrDenied for
// Go callers.
func ExampleRegistry_Call() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "<html><head><title>Hello</title></head><body><article><p>Hello, reader: this is the page's only paragraph.</p></article></body></html>")
	}))
	defer site.Close()
	rules, err := guard.ParseRules([]byte(`version: 1
rules:
  - name: vault
    category: password-manager
    hosts: ["vault.example"]
    action: deny
`), "rules.yaml")
	if err != nil {
		panic(err)
	}
	reg := tools.NewRegistry(guard.NewPolicy(rules, nil), nil)
	web := tools.NewWebFetch(nil)
	defer web.Close()
	reg.Add(web)

	res, err := reg.Call(context.Background(), tools.WebFetchName, []byte(`{"url":"`+site.URL+`"}`), tools.OriginScript)
	fmt.Println(res.Outcome, err)

	res, err = reg.Call(context.Background(), tools.WebFetchName, []byte(`{"url":"https://vault.example/"}`), tools.OriginScript)
	fmt.Println(res.Outcome, errors.Is(err, guard.ErrDenied))
	// Output:
	// ok <nil>
	// refused true
}
