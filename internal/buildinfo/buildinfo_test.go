package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestRevisionOf(t *testing.T) {
	const hash = "5246c42a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"
	for _, tc := range []struct {
		name     string
		settings map[string]string
		version  string
		want     string
	}{
		{"committed tree", map[string]string{"vcs.revision": hash, "vcs.modified": "false"}, "(devel)", hash},
		{"uncommitted changes", map[string]string{"vcs.revision": hash, "vcs.modified": "true"}, "(devel)", hash + "+dirty"},
		{"module version", nil, "v1.2.3", "v1.2.3"},
		{"no VCS information", map[string]string{"GOAMD64": "v3"}, "(devel)", ""},
		{"nothing", nil, "", ""},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "m", Version: tc.version}}
		for k, v := range tc.settings {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		if got := revisionOf(info); got != tc.want {
			t.Errorf("%s: revisionOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCleanAndShort(t *testing.T) {
	const hash = "5246c42a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"
	for _, tc := range []struct {
		rev   string
		clean bool
		short string
	}{
		{hash, true, "5246c42"},
		{hash + "+dirty", false, "5246c42+dirty"},
		{"v1.2.3", true, "v1.2.3"},
		{"", false, ""},
	} {
		if got := Clean(tc.rev); got != tc.clean {
			t.Errorf("Clean(%q) = %t, want %t", tc.rev, got, tc.clean)
		}
		if got := Short(tc.rev); got != tc.short {
			t.Errorf("Short(%q) = %q, want %q", tc.rev, got, tc.short)
		}
	}
}
