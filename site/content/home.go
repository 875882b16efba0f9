package content

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// The benchmark's paper and upstream repository, linked from every edition's
// home page.
const (
	PaperURL    = "https://arxiv.org/abs/2505.10852"
	UpstreamURL = "https://github.com/Grenzlinie/MatTools"
)

// citeText says how to cite an edition: the release (version, date,
// generator commit) and the benchmark's paper.
func citeText(e *Edition) string {
	if !e.Frozen {
		return "The preview is not a release and changes with every build: cite a release (its version, date and generator commit) instead."
	}
	s := fmt.Sprintf("MatTools leaderboard, release %s (%s)", e.Version, e.Date)
	if e.GeneratorCommit != "" {
		s += ", generator commit " + e.GeneratorCommit
	}
	return s + ". Please also cite the benchmark: S. Liu et al., “MatTools: Benchmarking Large Language Models for Materials Science Tools”, arXiv:2505.10852 (2025)."
}

// bibtex is the BibTeX entry of a release ("" for the preview).
func bibtex(e *Edition) string {
	if !e.Frozen {
		return ""
	}
	key := "mattools_leaderboard_" + strings.NewReplacer(".", "_", "-", "_").Replace(e.Version)
	note := "Release " + e.Version
	if e.GeneratorCommit != "" {
		note += ", generator commit " + e.GeneratorCommit
	}
	return fmt.Sprintf("@misc{%s,\n  title  = {MatTools leaderboard, release %s},\n  year   = {%s},\n  note   = {%s},\n  howpublished = {Leaderboard of the MatTools benchmark (arXiv:2505.10852)}\n}",
		key, e.Version, strings.SplitN(e.Date, "-", 2)[0], note)
}

// newItem is one configuration with runs that the previous release lacks.
type newItem struct {
	Text string `json:"text"`
	Href string `json:"href"`
	Runs int    `json:"runs"`
}

// newSubmission is a submission of the edition with runs or verified
// records that the previous release lacks.
type newSubmission struct {
	Folder string    `json:"folder"`
	Text   string    `json:"text"` // model · system
	Href   string    `json:"href"` // its entry on the submissions page
	Badge  badgeView `json:"badge"`
	What   string    `json:"what"` // what is new: its runs, or its verified records
}

// newSubmissions lists the edition's submissions (editionSubmissions) with
// runs or verified records that are not in old (the previous release's run
// ids), by folder: a submission added, or one verified since.
func newSubmissions(e *Edition, old map[string]bool) []newSubmission {
	in := map[string]bool{}
	for _, f := range e.Files {
		in[f.Run.RunID] = true
	}
	count := func(ids []string) (present, added int) {
		for _, id := range ids {
			if in[id] {
				present++
				if !old[id] {
					added++
				}
			}
		}
		return present, added
	}
	out := []newSubmission{}
	for _, s := range editionSubmissions(e) {
		runs, newRuns := count(s.Runs)
		verified, newVerified := count(s.Verified)
		if newRuns == 0 && newVerified == 0 {
			continue
		}
		m := s.Metadata
		ns := newSubmission{Folder: s.Folder, Href: SubmissionsPath + "/#" + s.Folder,
			Text:  submissionModel(e.Catalog, m).DisplayName + " · " + aggregate.SystemTitle(results.System(m.System)),
			Badge: newBadge(aggregate.BadgeSubmitted)}
		if verified > 0 {
			ns.Badge = newBadge(aggregate.BadgeVerified)
		}
		switch {
		case newRuns > 0 && verified > 0:
			ns.What = fmt.Sprintf("added with its verified records (%s, %s)", plural(runs, "run"), plural(verified, "verified record"))
		case newRuns > 0:
			ns.What = fmt.Sprintf("added (%s)", plural(runs, "run"))
		default:
			ns.What = fmt.Sprintf("verified since %s (%s)", e.Previous, plural(newVerified, "verified record"))
		}
		out = append(out, ns)
	}
	return out
}

// newInEdition lists, for the home page, the configurations of the edition
// that have runs its previous release lacks, in leaderboard order, and the
// submissions added or verified since (newSubmissions).
func newInEdition(v *views, e *Edition) map[string]any {
	out := map[string]any{"previous": e.Previous, "items": []newItem{}, "runs": 0, "submissions": []newSubmission{}}
	if e.Previous == "" {
		return out
	}
	old := map[string]bool{}
	for _, id := range e.PreviousRuns {
		old[id] = true
	}
	out["submissions"] = newSubmissions(e, old)
	var items []newItem
	total := 0
	for _, c := range v.lb.Configurations {
		n := 0
		for _, r := range c.Runs {
			if !old[r.ID()] {
				n++
			}
		}
		if n == 0 {
			continue
		}
		total += n
		text := fmt.Sprintf("%s · %s", c.Model.DisplayName, c.SystemLabel())
		if c.Key.RetrievalSource > 0 {
			text += fmt.Sprintf(" · source %d", c.Key.RetrievalSource)
		}
		// The home page's lead is MatTools' tool usage: items of another benchmark name it.
		if c.Key.Benchmark != results.BenchmarkToolUsage {
			text = string(c.Key.Benchmark) + " · " + text
		}
		text += fmt.Sprintf(" · %s · benchmark version %s · %s · question set %s", aggregate.BadgeOf(c.Key.Provenance), c.Key.BenchmarkVersion, c.Key.ScoringProtocol, c.Key.QuestionSet)
		items = append(items, newItem{Text: text, Href: confHref(c), Runs: n})
	}
	// The benchmark audit's runs (reference solution and trivial baselines:
	// unranked rows, never configurations) and a verified question set the
	// previous release did not show are new too.
	for _, f := range e.Audit {
		if old[f.Run.RunID] {
			continue
		}
		total++
		items = append(items, newItem{Text: fmt.Sprintf("Benchmark audit · %s · benchmark version %s · %s · question set %s (unranked row of the tool-usage tables)",
			auditLabels[f.Run.System], f.Run.BenchmarkVersion, f.Run.ScoringProtocol, f.Run.QuestionSet.Name), Href: "methodology/#benchmark-audit", Runs: 1})
	}
	var sets []string
	if e.VerifiedSet != nil && e.PreviousVerifiedSet != e.VerifiedSet.ID {
		sets = append(sets, fmt.Sprintf("The verified question set %s (%s; %d questions, %d properties) and its ranked table.",
			e.VerifiedSet.ID, e.VerifiedSet.Name, e.VerifiedSet.Questions, e.VerifiedSet.Properties))
	}
	for _, vs := range e.MoreVerifiedSets {
		if !slices.Contains(e.PreviousMoreVerifiedSets, vs.ID) {
			sets = append(sets, fmt.Sprintf("The verified question set %s (%s; %d questions, %d properties, benchmark version %s) and its ranked table.",
				vs.ID, vs.Name, vs.Questions, vs.Properties, vs.BenchmarkVersion))
		}
	}
	if len(sets) > 0 {
		out["verified_set"] = strings.Join(sets, " ")
	}
	if items == nil {
		items = []newItem{}
	}
	out["configs"] = len(items)
	if len(items) > ListRows { // bounded: every configuration is in the tables and on its system's page
		cut := newCut(ListRows, len(items), ListRows, "the first", "configurations", "", "")
		cut.Text = strings.TrimSuffix(cut.Text, ".") + "; every configuration is in the leaderboard tables (and their CSV downloads) and on its system's page."
		out["cut"] = cut
		items = items[:ListRows]
	}
	out["items"], out["runs"] = items, total
	return out
}
