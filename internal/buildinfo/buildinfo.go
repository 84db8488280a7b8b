// Package buildinfo says which build of browseragent is running. It is
// its own small package so that the command line's client (browsercli/wire),
// which runs before the program's other packages initialise, says it as
// the rest of the program does: a session's daemon serves only a command
// of its own build.
package buildinfo

import (
	"os"
	"runtime/debug"
	"strings"
	"time"
)

// version is set at build time with
// -ldflags "-X github.com/browseragent/browseragent/internal/buildinfo.version=...".
var version = ""

// Version is the build's version: the one set at build time, else what Go
// recorded (describeBuild).
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	var built time.Time
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			built = st.ModTime()
		}
	}
	return describeBuild(bi, built)
}

// describeBuild says which browseragent this is from what Go recorded: the
// module version (go install …@v1.2.3), else "dev"; the VCS revision and
// its commit date when the build stamped them, else the date the binary
// was built (its file's time, since Go records none); the Go version. A
// plain `go build` outside a repository records only "(devel)", which
// says nothing.
func describeBuild(bi *debug.BuildInfo, built time.Time) string {
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	var rev, when string
	dirty := false
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, kv.Value); err == nil {
				when = "committed " + t.UTC().Format("2006-01-02")
			}
		case "vcs.modified":
			dirty = kv.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+dirty"
		}
		parts = append(parts, "revision "+rev)
	}
	if when == "" && !built.IsZero() {
		when = "built " + built.UTC().Format("2006-01-02")
	}
	if when != "" {
		parts = append(parts, when)
	}
	if bi.GoVersion != "" {
		parts = append(parts, bi.GoVersion)
	}
	if len(parts) == 0 {
		return v
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}
