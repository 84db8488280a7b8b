package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/browseragent/browseragent/fetch"
	"github.com/browseragent/browseragent/guard"
	"github.com/browseragent/browseragent/tools"
)

// dnsServer is a tiny authoritative DNS server on 127.0.0.1 answering A and
// AAAA from a fixed table (NXDOMAIN for the rest), so a test controls what
// a name resolves to without touching the system's resolver.
type dnsServer struct {
	conn  net.PacketConn
	names map[string][]netip.Addr // "name.test." → addresses
}

func startDNS(t *testing.T, names map[string][]netip.Addr) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &dnsServer{conn: pc, names: names}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); d.serve() }()
	t.Cleanup(func() { pc.Close(); wg.Wait() })
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "udp", addr)
	}}
}

func (d *dnsServer) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(buf[:n])
		if err != nil {
			continue
		}
		q, err := p.Question()
		if err != nil {
			continue
		}
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
		addrs, known := d.names[strings.ToLower(q.Name.String())]
		if !known {
			b = dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RCode: dnsmessage.RCodeNameError})
		}
		_ = b.StartQuestions()
		_ = b.Question(q)
		_ = b.StartAnswers()
		for _, a := range addrs {
			rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
			switch {
			case q.Type == dnsmessage.TypeA && a.Is4():
				_ = b.AResource(rh, dnsmessage.AResource{A: a.As4()})
			case q.Type == dnsmessage.TypeAAAA && a.Is6():
				_ = b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
			}
		}
		msg, err := b.Finish()
		if err == nil {
			_, _ = d.conn.WriteTo(msg, from)
		}
	}
}

// errSafetyNet is the test's own refusal of any address but loopback: it
// runs after the guard's check, so without the guard's a test fails on its
// message instead of connecting anywhere.
var errSafetyNet = errors.New("test safety net: not a loopback address")

// TestWebFetchRefusesDeniedResolvedAddress: a DNS name that matches no rule
// but resolves to a cloud metadata address is refused when the connection
// is made, before any byte is sent, on the first request and after a
// redirect; a name resolving to loopback is fetched as usual.
func TestWebFetchRefusesDeniedResolvedAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://creds.trick.test:"+r.URL.Query().Get("port")+"/latest/meta-data/", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "page %s", r.URL.Path)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	resolver := startDNS(t, map[string][]netip.Addr{
		"loop.trick.test.":   {netip.MustParseAddr("127.0.0.1")},
		"creds.trick.test.":  {netip.MustParseAddr("169.254.169.254")},
		"ecs.trick.test.":    {netip.MustParseAddr("169.254.170.2")},
		"v6.trick.test.":     {netip.MustParseAddr("fd00:ec2::254")},
		"mapped.trick.test.": {netip.MustParseAddr("::ffff:100.100.100.200")},
	})
	rules, err := guard.LoadRules()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var dialed []string
	safety := func(_ context.Context, _, address string, _ syscall.RawConn) error {
		mu.Lock()
		dialed = append(dialed, address)
		mu.Unlock()
		if ap, err := netip.ParseAddrPort(address); err != nil || !ap.Addr().IsLoopback() {
			return errSafetyNet
		}
		return nil
	}
	s := openSessionWith(t, &SessionOptions{Rules: rules, Fetch: &fetch.Options{Resolver: resolver, DialControl: safety}})
	tests := []struct {
		name, url string
		wantErr   bool
		want      string
	}{
		{"name resolving to loopback", "http://loop.trick.test:" + port + "/hello", false, "page /hello"},
		{"name resolving to IMDS", "http://creds.trick.test:" + port + "/latest/meta-data/", true, `at 169.254.169.254:` + port + `: address denied by a sensitive-site rule: 169.254.169.254:` + port + ` is refused by rule "cloud-metadata"`},
		{"name resolving to ECS credentials", "http://ecs.trick.test:" + port + "/v2/credentials", true, `rule "cloud-metadata"`},
		{"name resolving to AWS IPv6 IMDS", "http://v6.trick.test:" + port + "/", true, `[fd00:ec2::254]:` + port + ` is refused by rule "cloud-metadata"`},
		{"name resolving to mapped Alibaba", "http://mapped.trick.test:" + port + "/", true, `rule "cloud-metadata"`},
		{"redirect to a name resolving to IMDS", srv.URL + "/redirect?port=" + port, true, `refused by rule "cloud-metadata"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args, _ := json.Marshal(map[string]string{"url": tc.url})
			res, err := s.Registry.Call(context.Background(), tools.WebFetchName, args, tools.OriginAgent)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError() != tc.wantErr || !strings.Contains(res.Text, tc.want) {
				t.Errorf("IsError=%v text=%q\nwant IsError=%v and %q", res.IsError(), res.Text, tc.wantErr, tc.want)
			}
			if strings.Contains(res.Text, errSafetyNet.Error()) {
				t.Errorf("the guard let the dial through; only the test's safety net stopped it")
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range dialed {
		if ap := netip.MustParseAddrPort(a); !ap.Addr().IsLoopback() {
			t.Errorf("the guard passed a dial to %s on to the next check", a)
		}
	}
}
