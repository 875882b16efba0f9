// Package release freezes leaderboard releases in numbers: the committed
// list of releases (site/releases.json: Release, Parse), their numbers
// manifests (every cell of the tables' CSV downloads: ReadEditionNumbers,
// WriteNumbers, CheckNumbers) with the errata that correct them
// (ReadErrata, RecordErrata), the check that the ranked tables' pages show
// those numbers (CheckShownTables), and, for the releases cut when they were
// frozen in bytes (v1.0-v1.3), their byte manifests (CheckManifest) and the
// rebuild by their own generator commit (BuildFromCommit) from which their
// numbers were taken.
//
// It knows nothing of how pages are made: package site builds the editions
// and calls it. See docs/site.md (Releases).
package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"time"
)

// Release is one leaderboard release, as recorded in releases.json when it
// was cut: its runs are fixed, and its numbers (site/releases/<version>.
// numbers.csv); its pages are rendered by the running code and show Date
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
	// VerifiedSet is the id of the verified question set whose ranked
	// table the release's home page shows (e.g. "verified-v1",
	// benchmarks/mattools-tool-usage/verified-v1.json; see
	// docs/benchmark-audit.md); empty: none (v1.0-v1.2, cut before it
	// existed). A build whose verified set (build-site -verified-set) has
	// another id cannot build the release.
	VerifiedSet string `json:"verified_set,omitempty"`
	// MoreVerifiedSets are the ids of further verified question sets whose
	// tables follow VerifiedSet's (e.g. "verified-v2", of benchmark version
	// 2025-05-corrected-2); empty: none (every release up to v1.4).
	MoreVerifiedSets []string `json:"more_verified_sets,omitempty"`
	// ReferencePages: the release's question pages show the benchmark
	// audit's reference solution of the audit runs it lists, with the
	// diagnoses of its failures (docs/benchmark-audit.md); false for the
	// releases cut before they did (v1.0-v1.3), whose pages are unchanged.
	ReferencePages bool `json:"reference_pages,omitempty"`
}

// File is the committed list of releases, relative to the repository root.
// Every generator commit so far embeds it from there (package site), so a
// rebuild from a commit replaces it at this path (BuildFromCommit).
const File = "site/releases.json"

var versionRE = regexp.MustCompile(`^v[0-9]+(\.[0-9]+){1,2}$`)

// Parse reads a releases manifest ({"releases": [...]}, oldest
// first) and checks it: versions like v1.0 and unique, dates YYYY-MM-DD and
// not decreasing, run ids unique within a release. Errors name the release.
func Parse(data []byte) ([]Release, error) {
	var m struct {
		Releases []Release `json:"releases"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", File, err)
	}
	seen := map[string]bool{}
	prev := ""
	for i, r := range m.Releases {
		where := fmt.Sprintf("%s: release %d (%q)", File, i+1, r.Version)
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
