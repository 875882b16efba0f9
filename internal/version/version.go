// Package version reports the version of this project's programs, recorded
// on every run they write and on every page of the leaderboard.
package version

import (
	"runtime"
	"runtime/debug"
)

// Commit is the git commit the programs were built from. The Makefile sets
// it with -ldflags "-X github.com/mattools-leaderboard/leaderboard/internal/version.Commit=…";
// otherwise it comes from the build info, or is "unknown".
var Commit = ""

// String returns Commit, or the VCS revision in the build info (with
// "-dirty" when modified), or the module version, or "unknown".
func String() string {
	if Commit != "" {
		return Commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" {
		return rev + dirty
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return "unknown"
}

// Go returns the Go version the programs were built with.
func Go() string { return runtime.Version() }
