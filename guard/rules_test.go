package guard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRulesErrors(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"bad yaml", "version: 1\nrules:\n  - name: a\n    hosts: x: y\n", "my.yaml:4: not valid YAML: mapping values are not allowed"},
		{"unknown top field", "version: 1\nrulez: []\n", `my.yaml:2: unknown field "rulez"`},
		{"missing version", "rules: []\n", "my.yaml:1: missing version: 1"},
		{"wrong version", "version: 2\nrules: []\n", `my.yaml:1: version "2" is not supported`},
		{"rules not a list", "version: 1\nrules: {a: b}\n", "my.yaml:2: rules must be a list"},
		{"unknown rule field", "version: 1\nrules:\n  - name: bank\n    hosts: [bank.example]\n    actoin: ask\n", `my.yaml:5: rule "bank": unknown field "actoin"`},
		{"missing action", "version: 1\nrules:\n  - name: bank\n    hosts: [bank.example]\n", `my.yaml:3: rule "bank": missing action`},
		{"bad action", "version: 1\nrules:\n  - name: bank\n    hosts: [bank.example]\n    action: allow\n", `my.yaml:3: rule "bank": action "allow"`},
		{"missing hosts", "version: 1\nrules:\n  - name: bank\n    action: ask\n", `my.yaml:3: rule "bank": missing hosts`},
		{"missing name", "version: 1\nrules:\n  - hosts: [a.example]\n    action: ask\n", "my.yaml:3: missing name"},
		{"bad name", "version: 1\nrules:\n  - name: My Bank\n    hosts: [a.example]\n    action: ask\n", `my.yaml:3: rule "My Bank": name must be`},
		{"url as host", "version: 1\nrules:\n  - name: bank\n    hosts: [\"https://bank.example/\"]\n    action: ask\n", `my.yaml:3: rule "bank": hosts: "https://bank.example/" is not a host name`},
		{"middle wildcard", "version: 1\nrules:\n  - name: bank\n    hosts: [\"bank.*.example\"]\n    action: ask\n", `rule "bank": hosts: "bank.*.example" is not a host name`},
		{"bad ip", "version: 1\nrules:\n  - name: ip\n    hosts: [\"300.1.1.1\"]\n    action: deny\n", `rule "ip": hosts: "300.1.1.1" is not a host name`},
		{"relative path", "version: 1\nrules:\n  - name: gh\n    hosts: [github.com]\n    paths: [settings]\n    action: ask\n", `rule "gh": paths: path "settings" must start with /`},
		{"opaque scheme", "version: 1\nrules:\n  - name: js\n    hosts: [\"*\"]\n    schemes: [javascript]\n    action: deny\n", `rule "js": schemes: "javascript" cannot be matched`},
		{"hosts wrong type", "version: 1\nrules:\n  - name: a\n    hosts: {x: y}\n    action: ask\n", `my.yaml:4: rule "a": hosts: expected a list`},
		{"duplicate name", "version: 1\nrules:\n  - name: a\n    hosts: [a.example]\n    action: ask\n  - name: a\n    hosts: [b.example]\n    action: ask\n", `my.yaml:6: rule "a": name already used at line 3`},
		{"duplicate key in rule", "version: 1\nrules:\n  - name: a\n    hosts: [a.example]\n    action: deny\n    action: ask\n", `my.yaml:6: rule "a": field "action" is given twice (first at line 5)`},
		{"duplicate key in flow rule", "version: 1\nrules: [{name: a, hosts: [a.example], hosts: [b.example], action: ask}]\n", `my.yaml:2: rule "a": field "hosts" is given twice`},
		{"duplicate top-level rules", "version: 1\nrules:\n  - name: a\n    hosts: [a.example]\n    action: deny\nrules:\n  - name: b\n    hosts: [b.example]\n    action: ask\n", `my.yaml:6: "rules" is given a second time (first at line 2)`},
		{"duplicate version", "version: 1\nversion: 1\nrules: []\n", `my.yaml:2: "version" is given a second time`},
		{"second document", "version: 1\nrules:\n  - name: a\n    hosts: [a.example]\n    action: ask\n---\nversion: 1\nrules:\n  - name: b\n    hosts: [b.example]\n    action: deny\n", `my.yaml:7: a second YAML document starts here`},
		{"bad second document", "version: 1\nrules: []\n---\nrules: [\n", `my.yaml:4: not valid YAML`},
		{"port not a number", "version: 1\nrules:\n  - name: p\n    hosts: [\"127.0.0.1:http\"]\n    action: ask\n", `rule "p": hosts: "127.0.0.1:http" is not a host name`},
		{"port too big", "version: 1\nrules:\n  - name: p\n    hosts: [\"127.0.0.1:70000\"]\n    action: ask\n", `rule "p": hosts: "127.0.0.1:70000": port "70000" is not a number from 1 to 65535`},
		{"empty port", "version: 1\nrules:\n  - name: p\n    hosts: [\"a.example:\"]\n    action: ask\n", `hosts: "a.example:" is not a host name`},
		{"disabled not bool", "version: 1\nrules:\n  - name: a\n    disabled: maybe\n", `my.yaml:4: rule "a": disabled:`},
		{"latin-1 byte", "version: 1\nrules:\n  - name: caf\xe9\n    hosts: [a.example]\n    action: ask\n", `my.yaml:3: byte 0xE9 at column 14 is not UTF-8 text: save the file as UTF-8`},
		{"nul byte", "version: 1\nrules:\x00\n", `my.yaml:2: control character 0x00 at column 7: a rules file is plain text`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRules([]byte(c.yaml), "my.yaml")
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\ndoes not contain %q", err, c.want)
			}
			var re *ruleError
			if c.name != "bad yaml" && !errors.As(err, &re) || !errors.Is(err, errBadRules) {
				t.Errorf("error %v is not a *RuleError wrapping errBadRules", err)
			}
		})
	}
}

func TestParseRulesAllErrorsReported(t *testing.T) {
	y := "version: 1\nrules:\n  - name: a\n    hosts: [a.example]\n  - name: b\n    hosts: [b.example]\n    action: nope\n"
	_, err := ParseRules([]byte(y), "f")
	got := strings.Split(err.Error(), "\n")
	want := []string{`f:3: rule "a": missing action: ask or deny`, `f:5: rule "b": action "nope": use ask (every write needs approval) or deny (never)`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestLoadRulesLayers(t *testing.T) {
	base := []byte(`version: 1
rules:
  - name: bank
    hosts: [bank.example]
    action: ask
  - name: mail
    hosts: [mail.example]
    action: ask
`)
	dir := t.TempDir()
	user := filepath.Join(dir, "user.yaml")
	write(t, user, `version: 1
rules:
  - name: bank
    hosts: [bank.example, "*.bank.example"]
    action: deny
  - name: mail
    disabled: true
  - name: intranet
    category: work
    hosts: [Intranet.Corp]
    action: ask
`)
	rs, err := loadOver(base, user)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Name, Action, Source string }
	var got []row
	for _, r := range rs.List() {
		got = append(got, row{r.Name, r.Action.String(), r.Where()})
	}
	want := []row{{"bank", "deny", user + ":3"}, {"intranet", "ask", user + ":8"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layered rules (-want +got):\n%s", diff)
	}
	if r := rs.Match(mustURL(t, "https://www.bank.example/")); r == nil || r.Name != "bank" {
		t.Errorf("overridden rule does not match its new hosts: %v", r)
	}
	if r := rs.Match(mustURL(t, "https://mail.example/")); r != nil {
		t.Errorf("disabled rule still matches")
	}
	if _, err := loadOver(base, filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing --sites file: err = %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	write(t, bad, "version: 1\nrules:\n  - name: x\n    hosts: [a.example]\n    action: maybe\n")
	if _, err := loadOver(base, bad); err == nil || !strings.HasPrefix(err.Error(), bad+":3: rule \"x\"") {
		t.Errorf("invalid user file must refuse: err = %v", err)
	}
}

func TestRuleFilesAndPaths(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if got := ruleFiles("extra.yaml"); !cmp.Equal(got, []string{"extra.yaml"}) {
		t.Errorf("without a user file: %v", got)
	}
	user := filepath.Join(dir, "browseragent", "sensitive-sites.yaml")
	write(t, user, "version: 1\n")
	if diff := cmp.Diff([]string{user, "extra.yaml"}, ruleFiles("extra.yaml")); diff != "" {
		t.Errorf("ruleFiles (-want +got):\n%s", diff)
	}
	// A link to a file that is gone is listed, so loading it fails and
	// names it, instead of running without the person's rules.
	os.Remove(user)
	if err := os.Symlink(filepath.Join(dir, "gone.yaml"), user); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{user}, ruleFiles("")); diff != "" {
		t.Errorf("ruleFiles with a dangling link (-want +got):\n%s", diff)
	}
	if _, err := LoadRules(ruleFiles("")...); err == nil || !strings.Contains(err.Error(), user) {
		t.Errorf("LoadRules of a dangling link: %v, want an error naming %s", err, user)
	}
}

func TestMatchPrecedenceAndPaths(t *testing.T) {
	rs, err := ParseRules([]byte(`version: 1
rules:
  - name: wide
    hosts: ["*.example.com"]
    action: ask
  - name: narrow
    hosts: [vault.example.com]
    paths: ["/secret", "/a/*/b"]
    action: deny
  - name: everywhere
    hosts: ["*"]
    paths: [/wp-admin]
    action: ask
  - name: unicode
    hosts: [bücher.example]
    action: ask
`), "t")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"https://vault.example.com/secret/x":   "narrow",
		"https://vault.example.com/Secret":     "narrow",
		"https://vault.example.com/secretive":  "wide",
		"https://vault.example.com/a/x/y/b":    "narrow",
		"https://vault.example.com/":           "wide",
		"https://example.com/":                 "",
		"https://other.org/wp-admin/x":         "everywhere",
		"https://xn--bcher-kva.example/":       "unicode",
		"https://BÜCHER.example/":              "unicode",
		"chrome://vault.example.com/secret":    "",
		"wss://deep.sub.example.com/socket":    "wide",
		"https://example.com.evil.org/secret":  "",
		"https://vault.example.com./%73ecret/": "narrow",
	}
	for in, want := range cases {
		got := ""
		if r := rs.Match(mustURL(t, in)); r != nil {
			got = r.Name
		}
		if got != want {
			t.Errorf("Match(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaultRulesCoverTheIssueList(t *testing.T) {
	rs := defaultRules(t)
	for _, u := range []string{
		"https://www.paypal.com/", "https://dashboard.stripe.com/", "https://www.alipay.com/", "https://pay.weixin.qq.com/",
		"https://www.chase.com/", "https://mail.google.com/", "https://outlook.live.com/", "https://mail.qq.com/",
		"https://mail.163.com/", "https://console.aws.amazon.com/", "https://console.cloud.google.com/",
		"https://portal.azure.com/", "https://home.console.aliyun.com/", "https://console.cloud.tencent.com/",
		"https://vault.bitwarden.com/", "https://www.coinbase.com/", "https://www.irs.gov/", "https://www.gov.uk/",
		"https://github.com/settings/keys", "https://accounts.google.com/", "https://myaccount.google.com/",
		"https://acme.feishu.cn/admin", "https://www.larksuite.com/admin",
	} {
		if rs.Match(mustURL(t, u)) == nil {
			t.Errorf("no default rule matches %s", u)
		}
	}
	if rs.Len() < 30 {
		t.Errorf("only %d default rules", rs.Len())
	}
}

// FuzzParseRules feeds the loader anything: it must never panic, and
// whatever it accepts must only hold valid, compiled rules.
func FuzzParseRules(f *testing.F) {
	data, err := os.ReadFile("../sensitive-sites.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add("version: 1\nrules:\n  - name: a\n    hosts: [\"*.a.b\"]\n    paths: [/x*]\n    action: deny\n")
	f.Add("version: 1\nrules: [{name: a, hosts: x.y, action: ask}]\n")
	f.Add("version: 1\nrules:\n  - name: a\n    disabled: true\n")
	f.Add("version: 1\nrules:\n  - name: p\n    hosts: [\"127.0.0.1:8765\", \"*:80\", \"[::1]:9\"]\n    action: deny\n")
	f.Add("version: 1\nrules:\n  - name: a\n    action: deny\n    action: ask\n    hosts: [a]\n")
	f.Add("version: 1\nrules: []\n---\nversion: 1\nrules: []\n")
	f.Add("version: 1\nrules:\n  - name: q\n    hosts: [\"*\"]\n    paths: [\"/%2e%2e/a/../%73ecret\", \"/*?*rest_route=%2F*\", \"/x;y\"]\n    action: deny\n")
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := ParseRules([]byte(in), "fuzz")
		if err != nil {
			if !errors.Is(err, errBadRules) {
				t.Fatalf("error does not wrap errBadRules: %v", err)
			}
			return
		}
		for _, r := range rs.List() {
			if r.Name == "" || len(r.Hosts) == 0 || (r.Action != ActionAsk && r.Action != ActionDeny) || len(r.Schemes) == 0 {
				t.Fatalf("accepted an incomplete rule: %+v", r)
			}
			for _, h := range r.Hosts {
				if h != strings.ToLower(h) || strings.HasSuffix(h, ".") {
					t.Fatalf("host %q not normalised", h)
				}
			}
		}
		rs.Match(URL{Scheme: "https", Host: "a.b", Path: "/x"})
		rs.Match(URL{Scheme: "https", Host: "a.b", Path: "/secret;x", Query: "rest_route=/wp/v2"})
		rs.originRule(URL{Scheme: "https", Host: "a.b", Path: "/"})
		_ = rs.CheckRequest("127.0.0.1:9222", "http", "/json/list")
		rs.Match(URL{Scheme: "http", Host: "0.0.0.0", Port: "8765", Path: "/"})
		_ = rs.checkAddress("[::1]:8765")
	})
}

func mustURL(t *testing.T, s string) URL {
	t.Helper()
	u, err := Normalize(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
