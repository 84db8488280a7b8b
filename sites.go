// Package browseragent holds what the whole program embeds from the
// repository root. go:embed cannot reach parent directories, so the default
// sensitive-sites rules live here and cmd hands them to guard.
package browseragent

import _ "embed"

// DefaultSites is sensitive-sites.yaml, the built-in sensitive-site rules
// (see guard.LoadRules).
//
//go:embed sensitive-sites.yaml
var DefaultSites []byte
