package aggregate

import (
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// Badge is how a configuration's outcomes were obtained, as the leaderboard
// shows it beside a row.
type Badge string

// The badges.
const (
	// BadgePublished: MatTools' own totals, imported as published (scoring
	// protocol mattools-original); per-question outcomes unknown.
	BadgePublished Badge = "as published"
	// BadgeReexecuted: stored generated code re-executed by this project in
	// its sandbox: MatTools' published code (provenance rescored, origin
	// imported) or the code of an earlier runner run (origin runner).
	BadgeReexecuted Badge = "re-executed"
	// BadgeRunner: answers obtained and scored by this project's runner
	// (including replays of recorded answers).
	BadgeRunner Badge = "runner"
	// BadgeSubmitted: results submitted by their authors and scored by
	// their own harness, as submitted: self-reported until this project
	// re-executes them (BadgeVerified).
	BadgeSubmitted Badge = "self-reported"
	// BadgeVerified: submitted code re-executed by this project, with the
	// verdicts it recorded outside the submission (results/submission
	// LoadVerified); never a claim of the submitter.
	BadgeVerified Badge = "verified"
)

// BadgeOf returns the badge of a configuration provenance
// (results.Configuration.Provenance: "imported", "rescored:imported",
// "runner", "rescored:runner", "submitted:<folder>",
// "rescored:submitted:<folder>").
func BadgeOf(provenance string) Badge {
	kind, rest, _ := strings.Cut(provenance, ":")
	switch results.ProvenanceKind(kind) {
	case results.ProvenanceImported:
		return BadgePublished
	case results.ProvenanceRunner:
		return BadgeRunner
	case results.ProvenanceSubmitted:
		return BadgeSubmitted
	case results.ProvenanceRescored:
		origin, _, _ := strings.Cut(rest, ":")
		switch results.ProvenanceKind(origin) {
		case results.ProvenanceImported:
			return BadgeReexecuted
		case results.ProvenanceRunner:
			return BadgeReexecuted
		case results.ProvenanceSubmitted:
			return BadgeVerified
		}
	}
	return Badge(provenance)
}

// Family returns the answers a configuration provenance scores: "published"
// for MatTools' published answers (imported or re-executed), "runner" for
// this project's runner (scored as it ran or rescored), and
// "submitted:<folder>" for a submission (as submitted or verified). Rows of
// one family and one configuration identity score the same answers, so the
// leaderboard shows them as one row with a column per scoring protocol.
func Family(provenance string) string {
	kind, rest, _ := strings.Cut(provenance, ":")
	if results.ProvenanceKind(kind) == results.ProvenanceRescored {
		kind, rest, _ = strings.Cut(rest, ":")
	}
	switch results.ProvenanceKind(kind) {
	case results.ProvenanceImported:
		return "published"
	case results.ProvenanceSubmitted:
		return "submitted:" + rest
	}
	return kind
}

// Identity returns what a configuration is apart from how it was scored:
// benchmark and its version, system, retrieval source, model, variant,
// generation settings, system parameters and provenance family (Family).
// Configurations with equal identity differ only in scoring protocol,
// question set and badge: the leaderboard joins those of one question set
// into one row, one column per scoring protocol.
func (c *Configuration) Identity() string {
	k := c.Key
	return strings.Join([]string{string(k.Benchmark), k.BenchmarkVersion, string(k.System), strconv.Itoa(k.RetrievalSource), k.Model,
		k.Variant, k.Settings, k.SystemParams, Family(k.Provenance)}, "|")
}
