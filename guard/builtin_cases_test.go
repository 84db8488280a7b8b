package guard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuiltinRulesAttackerCases: addresses an attacker would try against
// the built-in list, category by category, and the rule each must meet:
// a path with ";parameters" or an escape, WordPress's REST API and
// XML-RPC on any site, shops' checkouts in other languages and their
// buy-now handlers, metadata addresses beyond the big five clouds (and
// their IPv6 and NAT64 spellings), the DevTools front end and the
// browser's kill switches, more password-manager vaults, and editors and
// terminals in the browser.
func TestBuiltinRulesAttackerCases(t *testing.T) {
	rs := defaultRules(t)
	tests := []struct{ url, rule string }{
		{"https://github.com/settings;x/keys", "github-settings"},
		{"https://github.com/settings;jsessionid=1", "github-settings"},
		{"https://github.com/owner/repo/settings;x/secrets/actions", "github-settings"},
		{"https://github.com/owner/repo/actions/workflows/deploy.yml", "github-settings"},
		{"https://blog.example/wp-json/wp/v2/users", "wordpress-admin"},
		{"https://blog.example/news/wp-json/wp/v2/posts", "wordpress-admin"},
		{"https://blog.example/?rest_route=/wp/v2/users", "wordpress-admin"},
		{"https://blog.example/index.php?p=1&REST_ROUTE=%2Fwp%2Fv2%2Fposts", "wordpress-admin"},
		{"https://blog.example/xmlrpc.php", "wordpress-admin"},
		{"https://blog.example/blog/xmlrpc.php", "wordpress-admin"},
		{"https://www.amazon.es/gp/buy/spc/handlers/display.html", "shopping-checkout"},
		{"https://www.amazon.com.mx/checkout/entry/cart", "shopping-checkout"},
		{"https://www.amazon.de/gp/product/handle-buy-box/ref=dp_start-bbf_1_glance", "shopping-checkout"},
		{"https://shop.example/kasse", "checkout-any-shop"},
		{"https://shop.example/fr/commande/paiement", "checkout-any-shop"},
		{"https://shop.example/12345/checkouts/cn/abc", "checkout-any-shop"},
		{"https://shop.example/?wc-ajax=checkout", "checkout-any-shop"},
		{"https://pay.ebay.com/rxo?action=view", "other-shops-checkout"},
		{"http://168.63.129.16/machine/?comp=goalstate", "cloud-metadata"},
		{"http://100.100.100.200/latest/meta-data/", "cloud-metadata"},
		{"http://192.0.0.192/opc/v2/instance/", "cloud-metadata"},
		{"http://[fd20:ce::254]/computeMetadata/v1/", "cloud-metadata"},
		{"http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", "cloud-metadata"},
		{"http://[::ffff:169.254.169.254]/latest/meta-data/", "cloud-metadata"},
		{"http://169.254.42.42/conf", "cloud-metadata"},
		{"http://metadata.goog/computeMetadata/v1/", "cloud-metadata"},
		{"devtools://devtools/bundled/inspector.html?ws=127.0.0.1:9222/devtools/page/X", "browser-devtools-pages"},
		{"chrome://quit/", "browser-settings"},
		{"chrome://certificate-manager/", "browser-settings"},
		{"https://vault.zoho.eu/app", "password-manager-vaults"},
		{"https://keepersecurity.eu/vault/", "password-manager-vaults"},
		{"https://lastpass.eu/vault/", "lastpass-vault"},
		{"https://fluffy-space-fortnight-x7g9.github.dev/", "cloud-dev-environments"},
		{"https://fluffy-space-fortnight-x7g9-3000.app.github.dev/", "cloud-dev-environments"},
		{"https://github.dev/owner/repo", "cloud-dev-environments"},
		{"https://example-abc123.ws-eu114.gitpod.io/", "cloud-dev-environments"},
		{"https://8080-cs-1234-default.cs-europe-west4-fili.cloudshell.dev/", "cloud-dev-environments"},
		{"https://gitlab.com/-/ide/project/group/repo/edit/main/-/", "gitlab-web-ide"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			u, err := Normalize(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if r := rs.Match(u); r != nil {
				got = r.Name
			}
			if diff := cmp.Diff(tc.rule, got); diff != "" {
				t.Errorf("%s (-want +got)\n%s", u, diff)
			}
		})
	}
}

// TestRulePathsNormalised: a rule's paths are normalised as request paths
// are, so a path written with escapes or dot segments matches what it
// names (before, "/%73ecret" and "/a/../secret" matched nothing).
func TestRulePathsNormalised(t *testing.T) {
	rs, err := ParseRules([]byte(`version: 1
rules:
  - name: escaped
    hosts: [a.example]
    paths: ["/%73ecret"]
    action: deny
  - name: dotted
    hosts: [b.example]
    paths: ["/x/../private//area"]
    action: deny
  - name: query
    hosts: [c.example]
    paths: ["/index.php?page=%61dmin*"]
    action: deny
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url, rule string
	}{
		{"https://a.example/secret/x", "escaped"},
		{"https://a.example/%73ecret", "escaped"},
		{"https://a.example/secrets", ""},
		{"https://b.example/private/area/1", "dotted"},
		{"https://b.example/x/private/area", ""},
		{"https://c.example/index.php?page=admin&x=1", "query"},
		{"https://c.example/index.php?page=%61dmin", "query"},
		{"https://c.example/index.php?page=home", ""},
		{"https://c.example/index.php", ""},
	}
	for _, tc := range tests {
		u, err := Normalize(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if r := rs.Match(u); r != nil {
			got = r.Name
		}
		if got != tc.rule {
			t.Errorf("%s: rule %q, want %q", tc.url, got, tc.rule)
		}
	}
}
