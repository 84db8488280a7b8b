package mcpclient

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
)

// legacyDiscoveryClient is the client a login discovers with. It follows
// the 2025-03-26 specification for servers without protected-resource
// metadata: the authorization server is the MCP server's origin, its
// metadata at <origin>/.well-known/oauth-authorization-server (else the
// default endpoints /authorize, /token and /register, which the go-sdk
// supplies). Such servers often mount the authorization server under a
// path, so the metadata's issuer is <origin>/oauth rather than the origin
// the go-sdk checks it against; that issuer is accepted when it is on the
// MCP server's own origin and no protected-resource metadata was found
// (the older specification names no other issuer to compare with).
func legacyDiscoveryClient(base *http.Client, serverURL string) *http.Client {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return base
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c := *base
	c.Transport = &legacyDiscovery{base: rt, origin: u.Scheme + "://" + u.Host}
	return &c
}

type legacyDiscovery struct {
	base   http.RoundTripper
	origin string
	prm    atomic.Bool // protected-resource metadata was found
}

func (l *legacyDiscovery) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	p := req.URL.Path
	if strings.HasPrefix(p, "/.well-known/oauth-protected-resource") {
		l.prm.Store(true)
		return resp, nil
	}
	if l.prm.Load() || req.URL.Scheme+"://"+req.URL.Host != l.origin ||
		(p != "/.well-known/oauth-authorization-server" && p != "/.well-known/openid-configuration") {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var meta map[string]any
	if json.Unmarshal(body, &meta) == nil {
		if iss, ok := meta["issuer"].(string); ok && iss != l.origin && strings.HasPrefix(iss, l.origin+"/") {
			meta["issuer"] = l.origin
			if b, err := json.Marshal(meta); err == nil {
				body = b
			}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp, nil
}
