package published

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// The store's runs map holds, under each published run id, the verdicts the
// importer joins with the published code: those of the store's main
// environment (the pinned one, sandbox-env/requirements.lock). Verdicts of
// the same code re-executed in another recorded environment are kept beside
// them, never in their place, under the key AlongsideKey(run id, label)
// ("<run id>@<label>", e.g. "…__r1@tasks" for the environment of
// sandbox-env/requirements-tasks.lock; make rescore-published
// SANDBOX_ENV=tasks), each with its own environment id. The importer never
// reads them (it looks runs up by their id), so the leaderboard's runs and
// their verdicts do not change; EnvironmentDifferences compares the two.
// See docs/sandbox.md ("Two environments").

// Verdicts of the same code scored by a corrected benchmark version's
// verification (datasets/corrections.json; make rescore-published
// BENCHMARK_VERSION=2025-05-corrected-1) are kept beside them too, under
// VersionKey(run id, version) ("…__r1@2025-05-corrected-1"), for the
// version's corrected questions only and in the main environment: the
// importer makes of them and the main verdicts of the other questions
// (whose code and verification are the published ones) the run's
// rescorings in that version (reexecutedFiles), runs of their own.
// A label starts with a letter and a version with a digit: the keys never
// clash.

// VersionKey is the store key of a published run's verdicts in the
// corrected benchmark version version.
func VersionKey(runID, version string) string { return runID + "@" + version }

// alongsideLabel is what a label may be: lower-case letters, digits and
// '-', starting with a letter.
var alongsideLabel = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// CheckAlongsideLabel returns an error unless label can name an environment
// kept beside the main one.
func CheckAlongsideLabel(label string) error {
	if !alongsideLabel.MatchString(label) {
		return fmt.Errorf("environment label %q: want lower-case letters, digits and '-', starting with a letter", label)
	}
	return nil
}

// AlongsideKey is the store key of a published run's verdicts in the
// environment labelled label, kept beside its main verdicts.
func AlongsideKey(runID, label string) string { return runID + "@" + label }

// EnvironmentDifference is one question of one published run under one
// scoring protocol whose verdict, runnability or properties passed differ
// between the store's main environment and the one labelled Label. Both
// sides are given, never combined.
type EnvironmentDifference struct {
	RunID, QuestionID, Protocol string
	Label                       string // the other environment's label, e.g. "tasks"
	MainEnvironment             string // environment ids (keys of Reexecuted.Environments)
	OtherEnvironment            string
	Main, Other                 ReexecutedVerdict
}

// EnvironmentDifferences returns every question × protocol that both the
// main environment and the environment labelled label re-executed, for the
// same code (source SHA-256), whose verdict, runnable flag or properties
// passed differ, sorted by question, protocol, then run id; and how many
// such question × protocol pairs were compared. Questions only one side
// executed are not compared.
func (st *Reexecuted) EnvironmentDifferences(label string) (diffs []EnvironmentDifference, compared int) {
	for id, main := range st.Runs {
		if strings.Contains(id, "@") {
			continue
		}
		other := st.Runs[AlongsideKey(id, label)]
		if other == nil || other.Source.SHA256 != main.Source.SHA256 {
			continue
		}
		mine := map[string]ReexecutedVerdict{}
		for _, v := range main.Rows {
			mine[v.QuestionID+"/"+v.Protocol] = v
		}
		for _, o := range other.Rows {
			m, ok := mine[o.QuestionID+"/"+o.Protocol]
			if !ok {
				continue
			}
			compared++
			if m.Verdict != o.Verdict || m.Runnable != o.Runnable || m.PropertiesPassed != o.PropertiesPassed {
				diffs = append(diffs, EnvironmentDifference{RunID: id, QuestionID: o.QuestionID, Protocol: o.Protocol, Label: label,
					MainEnvironment: main.Environment, OtherEnvironment: other.Environment, Main: m, Other: o})
			}
		}
	}
	sort.Slice(diffs, func(i, j int) bool {
		a, b := diffs[i], diffs[j]
		if a.QuestionID != b.QuestionID {
			return a.QuestionID < b.QuestionID
		}
		if a.Protocol != b.Protocol {
			return a.Protocol < b.Protocol
		}
		return a.RunID < b.RunID
	})
	return diffs, compared
}

// TasksEnvironmentLabel labels the tasks environment's verdicts in the
// store (make rescore-published SANDBOX_ENV=tasks: the pinned environment
// plus ASE and dscribe; docs/sandbox.md, "Two environments").
const TasksEnvironmentLabel = "tasks"

// EnvironmentComparison returns EnvironmentDifferences(label) of the runs
// whose ids only holds (nil: every run) in the results format the site
// reads (results.EnvironmentComparison), with the environments it names;
// nil when none of them was re-executed in the environment labelled label.
func (st *Reexecuted) EnvironmentComparison(label string, only map[string]bool) *results.EnvironmentComparison {
	if only != nil {
		sub := &Reexecuted{About: st.About, Environments: st.Environments, Runs: map[string]*ReexecutedRun{}}
		for id, r := range st.Runs {
			if base, _, _ := strings.Cut(id, "@"); only[base] {
				sub.Runs[id] = r
			}
		}
		st = sub
	}
	found := false
	for id := range st.Runs {
		if strings.HasSuffix(id, "@"+label) {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	diffs, compared := st.EnvironmentDifferences(label)
	c := &results.EnvironmentComparison{
		About: "Published MatTools answers re-executed by this project in two environments whose verdicts differ: main, the pinned sandbox " +
			"environment every verdict of the leaderboard uses, and " + label + " (docs/sandbox.md, \"Two environments\"); written by cmd/import-mattools " +
			"from results/published/reexecuted.json. The two sides are never averaged.",
		Label: label, Environments: map[string]results.ComparedEnvironment{}, Compared: compared, Differences: []results.EnvironmentDifference{}}
	side := func(env string, v ReexecutedVerdict) results.EnvironmentOutcome {
		if e, ok := st.Environments[env]; ok {
			c.Environments[env] = results.ComparedEnvironment{Libraries: e.Libraries, Sandbox: e.Sandbox}
		}
		return results.EnvironmentOutcome{Environment: env, Verdict: v.Verdict, Runnable: v.Runnable, PropertiesPassed: v.PropertiesPassed}
	}
	for _, d := range diffs {
		c.Differences = append(c.Differences, results.EnvironmentDifference{RunID: d.RunID, QuestionID: d.QuestionID, Protocol: d.Protocol,
			Main: side(d.MainEnvironment, d.Main), Other: side(d.OtherEnvironment, d.Other)})
	}
	return c
}
