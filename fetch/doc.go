// Package fetch is web_fetch's HTTP client: it gets a page over plain HTTP
// and hands the body to package extract. It keeps to timeouts, caps redirects
// and body size, decodes gzip, deflate and br, and has the guard check every
// connection. The package never prints; its errors are *extract.Error values
// (the one error type of a page) whose message is one sentence.
package fetch
