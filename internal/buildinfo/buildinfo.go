// Package buildinfo says which code the running binary was built from, for
// records that must name the code that made them.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// DirtySuffix ends a revision built from a checkout that differed from its
// commit: uncommitted changes or untracked files, as git status lists them
// (Go's vcs.modified).
const DirtySuffix = "+dirty"

// Revision returns the VCS revision the running binary was built from (the
// full commit hash, with DirtySuffix when its checkout differed from it),
// else its main module's version when it was built from a module version
// (go install …@v1.2.3), else "" (a build without VCS information: go run or
// go build with -buildvcs=false, and tests).
func Revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return revisionOf(info)
}

// revisionOf is Revision for the given build information.
func revisionOf(info *debug.BuildInfo) string {
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if dirty {
			rev += DirtySuffix
		}
		return rev
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return ""
}

// Clean reports whether rev names one committed state of the code: known, and
// not built from uncommitted changes.
func Clean(rev string) bool {
	return rev != "" && !strings.HasSuffix(rev, DirtySuffix)
}

// Short returns rev with its commit hash cut to 7 digits (how commits are
// named in prose), keeping DirtySuffix; a module version is returned whole.
func Short(rev string) string {
	hash, dirty := strings.CutSuffix(rev, DirtySuffix)
	if len(hash) == 40 && strings.Trim(hash, "0123456789abcdef") == "" {
		hash = hash[:7]
	}
	if dirty {
		return hash + DirtySuffix
	}
	return hash
}
