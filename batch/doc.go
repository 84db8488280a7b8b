// Package batch runs a list of URLs through a job (a plain fetch or a
// rendering) and writes one JSON line per URL, with retries, per-host
// limits, robots.txt, shards and resume.
package batch
