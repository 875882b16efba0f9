package site

import (
	_ "embed"

	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// releasesJSON is release.File, embedded: every generator commit reads its
// releases from there, so that a rebuild from a commit (release.BuildFromCommit)
// can replace them.
//
//go:embed releases.json
var releasesJSON []byte

// DefaultReleases returns the committed releases (release.File), oldest first.
func DefaultReleases() ([]release.Release, error) { return release.Parse(releasesJSON) }
