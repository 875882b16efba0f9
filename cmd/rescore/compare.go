package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results/published"
)

// verdictDiff is one question × protocol whose verdicts two stores disagree on.
type verdictDiff struct {
	Run, Question, Protocol string
	Here, There             string // "verdict cause runnable properties", or "absent"
}

// compareStores compares, question by question and protocol by protocol,
// every row of here (just made) with the same run's row in there (e.g. the
// committed store): verdict, cause, runnable and properties passed. It
// returns the number of rows compared, the disagreements (a row absent from
// either side is one) sorted by run, question and protocol, and the runs of
// here that there does not hold.
func compareStores(here, there *published.Reexecuted) (compared int, diffs []verdictDiff, missingRuns []string) {
	text := func(v published.ReexecutedVerdict) string {
		return fmt.Sprintf("%s %q runnable=%v properties=%d", v.Verdict, v.Cause, v.Runnable, v.PropertiesPassed)
	}
	for id, run := range here.Runs {
		other, ok := there.Runs[id]
		if !ok {
			missingRuns = append(missingRuns, id)
			continue
		}
		key := func(v published.ReexecutedVerdict) string { return v.QuestionID + "\x00" + v.Protocol }
		theirs := map[string]published.ReexecutedVerdict{}
		for _, v := range other.Rows {
			theirs[key(v)] = v
		}
		seen := map[string]bool{}
		for _, v := range run.Rows {
			compared++
			seen[key(v)] = true
			t, ok := theirs[key(v)]
			switch {
			case !ok:
				diffs = append(diffs, verdictDiff{id, v.QuestionID, v.Protocol, text(v), "absent"})
			case text(t) != text(v):
				diffs = append(diffs, verdictDiff{id, v.QuestionID, v.Protocol, text(v), text(t)})
			}
		}
		for k, t := range theirs {
			if !seen[k] {
				diffs = append(diffs, verdictDiff{id, t.QuestionID, t.Protocol, "absent", text(t)})
			}
		}
	}
	sort.Slice(diffs, func(i, j int) bool {
		a, b := diffs[i], diffs[j]
		if a.Run != b.Run {
			return a.Run < b.Run
		}
		if a.Question != b.Question {
			return a.Question < b.Question
		}
		return a.Protocol < b.Protocol
	})
	sort.Strings(missingRuns)
	return compared, diffs, missingRuns
}

// reportComparison prints compareStores' result and returns an error when
// any row disagrees.
func reportComparison(w io.Writer, hereName, thereName string, here, there *published.Reexecuted) error {
	compared, diffs, missing := compareStores(here, there)
	fmt.Fprintf(w, "compare: %s, %s (question × protocol) of %s compared with %s: %d equal, %d %s\n",
		words.Count(len(here.Runs)-len(missing), "run", "runs"), words.Count(compared, "verdict", "verdicts"), hereName, thereName,
		compared-countHere(diffs), len(diffs), words.Noun(len(diffs), "differs", "differ"))
	for _, id := range missing {
		fmt.Fprintf(w, "  run %s: not in %s\n", id, thereName)
	}
	for _, d := range diffs {
		fmt.Fprintf(w, "  %s %s %s: %s here, %s there\n", d.Run, d.Question, d.Protocol, d.Here, d.There)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d verdicts differ from %s", len(diffs), thereName)
	}
	return nil
}

// countHere counts the disagreements on rows that here holds.
func countHere(diffs []verdictDiff) int {
	n := 0
	for _, d := range diffs {
		if d.Here != "absent" {
			n++
		}
	}
	return n
}
