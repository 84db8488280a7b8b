package guard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestParseRulesEmptyDocuments(t *testing.T) {
	for _, y := range []string{"", "# only a comment\n", "---\nversion: 1\nrules: []\n", "version: 1\nrules: []\n---\n"} {
		if _, err := ParseRules([]byte(y), "f"); err != nil {
			t.Errorf("%q: %v", y, err)
		}
	}
}

// TestLoadRulesWarnsWhenReplacing: a user rule reusing a built-in's name
// replaces it, and says so (the warning and Rule.Replaces, which `sites
// list` prints); a disabled entry naming no rule says that nothing is off.
func TestLoadRulesWarnsWhenReplacing(t *testing.T) {
	base := []byte("version: 1\nrules:\n  - name: bank\n    hosts: [bank.example]\n    action: deny\n  - name: mail\n    hosts: [mail.example]\n    action: ask\n")
	dir := t.TempDir()
	user := filepath.Join(dir, "user.yaml")
	write(t, user, "version: 1\nrules:\n  - name: bank\n    hosts: [bank.example]\n    action: ask\n  - name: mial\n    disabled: true\n  - name: mine\n    hosts: [mine.example]\n    action: ask\n")
	extra := filepath.Join(dir, "extra.yaml")
	write(t, extra, "version: 1\nrules:\n  - name: mine\n    disabled: true\n")
	rs, err := loadOver(base, user, extra)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		user + `:3: rule "bank" replaces the built-in rule of the same name (built-in:3); give it another name to keep both`,
		user + `:6: rule "mial" is disabled, but no earlier rule has that name: nothing is turned off (see ` + "`browseragent sites list`)",
		extra + `:3: rule "mine" turns off the rule of the same name (` + user + `:8)`,
	}
	if diff := cmp.Diff(want, rs.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	var replaces []string
	for _, r := range rs.List() {
		replaces = append(replaces, r.Name+"<"+r.Replaces)
	}
	if diff := cmp.Diff([]string{"bank<built-in:3", "mail<"}, replaces); diff != "" {
		t.Errorf("Replaces (-want +got):\n%s", diff)
	}
}

// TestRuleHostsWithPortsAndLoopback: "host:port" scopes a rule to a port
// (a URL without one has its scheme's default), and every spelling of this
// machine is one host.
func TestRuleHostsWithPortsAndLoopback(t *testing.T) {
	rs, err := ParseRules([]byte(`version: 1
rules:
  - name: dev-admin
    hosts: ["127.0.0.1:8765"]
    action: deny
  - name: local
    hosts: [localhost]
    paths: [/admin]
    action: ask
  - name: tls-only
    hosts: ["secure.example:443"]
    action: ask
  - name: alt-port
    hosts: ["*.corp.example:8443", "*:9999", "[::1]:7000"]
    action: ask
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.List()[0].Hosts; !cmp.Equal(got, []string{"127.0.0.1:8765"}) {
		t.Errorf("hosts = %q, want the port kept", got)
	}
	cases := []struct{ url, want string }{
		{"http://127.0.0.1:8765/", "dev-admin"},
		{"http://127.0.0.1:8766/", "-"},
		{"http://127.0.0.1/", "-"},
		{"http://0.0.0.0:8765/x", "dev-admin"},
		{"http://[::]:8765/", "dev-admin"},
		{"http://[::1]:8765/", "dev-admin"},
		{"http://localhost:8765/", "dev-admin"},
		{"http://app.localhost:8765/", "dev-admin"},
		{"http://127.0.0.2:8765/", "dev-admin"},
		{"http://0:8765/", "dev-admin"},
		{"http://2130706433:8765/", "dev-admin"},
		{"http://[::ffff:127.0.0.1]:8765/", "dev-admin"},
		{"ws://127.0.0.1:8765/socket", "dev-admin"},
		{"http://0.0.0.0:3000/admin", "local"},
		{"http://127.0.0.1:3000/admin", "local"},
		{"http://[::]/admin/users", "local"},
		{"http://127.0.0.1.nip.io:8765/", "-"},
		{"http://128.0.0.1:8765/", "-"},
		{"https://secure.example/", "tls-only"},
		{"https://secure.example:443/", "tls-only"},
		{"wss://secure.example/", "tls-only"},
		{"http://secure.example/", "-"},
		{"https://secure.example:8443/", "-"},
		{"https://a.corp.example:8443/", "alt-port"},
		{"https://a.corp.example/", "-"},
		{"http://anything.example:9999/", "alt-port"},
		{"http://localhost:7000/", "alt-port"},
	}
	for _, c := range cases {
		got := "-"
		if r := rs.Match(mustURL(t, c.url)); r != nil {
			got = r.Name
		}
		if got != c.want {
			t.Errorf("Match(%s) = %s, want %s", c.url, got, c.want)
		}
	}
}

// TestCheckAddress: the resolved address of a connection is judged by the
// deny rules naming that address, port-scoped ones on their port only.
func TestCheckAddress(t *testing.T) {
	rs := defaultRules(t)
	user, err := ParseRules([]byte("version: 1\nrules:\n  - name: local-admin\n    hosts: [\"127.0.0.1:8765\"]\n    action: deny\n  - name: ask-only\n    hosts: [10.0.0.5]\n    action: ask\n  - name: path-only\n    hosts: [10.0.0.6]\n    paths: [/secret]\n    action: deny\n"), "u.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		rules *Rules
		addr  string
		want  string // rule name in the refusal, or "" for allowed
	}{
		{rs, "169.254.169.254:80", "cloud-metadata"},
		{rs, "169.254.169.254:443", "cloud-metadata"},
		{rs, "169.254.170.2:80", "cloud-metadata"},
		{rs, "169.254.170.23:80", "cloud-metadata"},
		{rs, "169.254.0.23:80", "cloud-metadata"},
		{rs, "100.100.100.200:80", "cloud-metadata"},
		{rs, "192.0.0.192:80", "cloud-metadata"},
		{rs, "[fd00:ec2::254]:80", "cloud-metadata"},
		{rs, "[fd00:ec2::23]:80", "cloud-metadata"},
		{rs, "[::ffff:169.254.169.254]:80", "cloud-metadata"},
		{rs, "[fe80::1%eth0]:80", ""},
		{rs, "169.254.169.253:80", ""},
		{rs, "127.0.0.1:8080", ""},
		{rs, "93.184.216.34:443", ""},
		{user, "127.0.0.1:8765", "local-admin"},
		{user, "[::1]:8765", "local-admin"},
		{user, "127.0.0.1:8766", ""},
		{user, "10.0.0.5:80", ""},
		{user, "10.0.0.6:80", ""},
		{rs, "not-an-address", "not an ip:port"},
	}
	for _, c := range cases {
		err := c.rules.checkAddress(c.addr)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckAddress(%s) = %v, want allowed", c.addr, err)
		case c.want != "" && (err == nil || !errors.Is(err, errAddressDenied) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckAddress(%s) = %v, want a refusal naming %s", c.addr, err, c.want)
		}
	}
}

// BenchmarkLoadRules200k layers a file of 200 000 rules, all new names, over
// the defaults: the merge is linear (it was quadratic: 4 minutes).
func BenchmarkLoadRules200k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.yaml")
	if err := os.WriteFile(path, bigRules(200_000), 0o644); err != nil {
		b.Fatal(err)
	}
	defaultRules(b)
	b.ResetTimer()
	for b.Loop() {
		rs, err := LoadRules(path)
		if err != nil {
			b.Fatal(err)
		}
		if rs.Len() < 200_000 {
			b.Fatalf("only %d rules", rs.Len())
		}
	}
}

// BenchmarkYAMLNodes200k is LoadRules200k's peer: yaml.v3 reading the same
// file into nodes, the part of the load browseragent does not own.
func BenchmarkYAMLNodes200k(b *testing.B) {
	data := bigRules(200_000)
	for b.Loop() {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			b.Fatal(err)
		}
	}
}

func bigRules(n int) []byte {
	var sb strings.Builder
	sb.WriteString("version: 1\nrules:\n")
	for i := range n {
		fmt.Fprintf(&sb, "  - name: r%d\n    hosts: [h%d.example, \"*.h%d.example\"]\n    action: ask\n", i, i, i)
	}
	return []byte(sb.String())
}
