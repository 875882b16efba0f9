package site

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"time"
)

// Release is one frozen leaderboard release, as recorded in releases.json
// when it was cut. Its pages are a pure function of its runs, the benchmark,
// the paper-only values and the generator at GeneratorCommit: they show Date
// and GeneratorCommit, never the build time.
type Release struct {
	Version string `json:"version"` // "v1.0"; also its URL path
	Date    string `json:"date"`    // release date, YYYY-MM-DD
	// GeneratorCommit is the commit of this project whose code generated the release.
	GeneratorCommit string `json:"generator_commit"`
	Title           string `json:"title"`
	Notes           string `json:"notes"`
	// Runs are the run ids of the results files the release is built from.
	Runs []string `json:"runs"`
}

// ReleasesFile is the committed manifest, relative to the repository root.
const ReleasesFile = "site/releases.json"

//go:embed releases.json
var releasesJSON []byte

// DefaultReleases returns the committed releases, oldest first.
func DefaultReleases() ([]Release, error) { return ParseReleases(releasesJSON) }

var versionRE = regexp.MustCompile(`^v[0-9]+(\.[0-9]+){1,2}$`)

// ParseReleases reads a releases manifest ({"releases": [...]}, oldest
// first) and checks it: versions like v1.0 and unique, dates YYYY-MM-DD and
// not decreasing, run ids unique within a release. Errors name the release.
func ParseReleases(data []byte) ([]Release, error) {
	var m struct {
		Releases []Release `json:"releases"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", ReleasesFile, err)
	}
	seen := map[string]bool{}
	prev := ""
	for i, r := range m.Releases {
		where := fmt.Sprintf("%s: release %d (%q)", ReleasesFile, i+1, r.Version)
		if !versionRE.MatchString(r.Version) || r.Version == "latest" {
			return nil, fmt.Errorf("%s: version: want v<major>.<minor>, e.g. v1.0", where)
		}
		if seen[r.Version] {
			return nil, fmt.Errorf("%s: version: listed twice", where)
		}
		seen[r.Version] = true
		if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
			return nil, fmt.Errorf("%s: date: %w", where, err)
		}
		if r.Date < prev {
			return nil, fmt.Errorf("%s: date: %s is before the previous release's %s (list releases oldest first)", where, r.Date, prev)
		}
		prev = r.Date
		ids := map[string]bool{}
		for _, id := range r.Runs {
			if ids[id] {
				return nil, fmt.Errorf("%s: runs: %q listed twice", where, id)
			}
			ids[id] = true
		}
	}
	return m.Releases, nil
}
