package buildinfo

import (
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDescribeBuild: the version says which build this is from what Go
// recorded, never the bare "(devel)" of a plain go build.
func TestDescribeBuild(t *testing.T) {
	built := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "496ef69b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f"}, {Key: "vcs.time", Value: "2026-11-30T22:10:00Z"}}
	tests := []struct {
		name  string
		bi    debug.BuildInfo
		built time.Time
		want  string
	}{
		{"go install of a tag", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}}, built, "v1.4.0 (built 2026-12-02, go1.26.8)"},
		{"go build in a checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs}, built,
			"dev (revision 496ef69b1c2d, committed 2026-11-30, go1.26.8)"},
		{"with local changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: append(slices.Clone(vcs), debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, built,
			"dev (revision 496ef69b1c2d+dirty, committed 2026-11-30, go1.26.8)"},
		{"nothing stamped", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, built, "dev (built 2026-12-02, go1.26.8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, describeBuild(&tt.bi, tt.built)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
