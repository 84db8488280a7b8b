package fetch

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ParseCookieFile reads cookies in the Netscape cookies.txt format that
// curl, wget and browser extensions write (domain, subdomains flag, path,
// secure, expiry, name, value, tab separated; "#HttpOnly_" before a
// domain) into a jar, which sends each cookie only to its own site.
func ParseCookieFile(data []byte) (http.CookieJar, error) {
	jar, _ := cookiejar.New(nil) // never fails without options
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		line = strings.TrimPrefix(line, "#HttpOnly_")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("line %d is not a cookie: want 7 tab-separated fields (domain, subdomains, path, secure, expiry, name, value), got %d", n, len(f))
		}
		domain := strings.TrimPrefix(f[0], ".")
		scheme := "http"
		if strings.EqualFold(f[3], "TRUE") {
			scheme = "https"
		}
		c := &http.Cookie{Name: f[5], Value: f[6], Path: f[2], Secure: scheme == "https"}
		if strings.EqualFold(f[1], "TRUE") {
			c.Domain = domain
		}
		if exp, err := strconv.ParseInt(f[4], 10, 64); err == nil && exp > 0 {
			c.Expires = time.Unix(exp, 0)
		}
		jar.SetCookies(&url.URL{Scheme: scheme, Host: domain, Path: "/"}, []*http.Cookie{c})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return jar, nil
}
