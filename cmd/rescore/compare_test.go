package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
)

func TestCompareStoresFindsEveryDisagreement(t *testing.T) {
	row := func(q, p string, v results.Verdict, cause string, runnable bool, n int) published.ReexecutedVerdict {
		return published.ReexecutedVerdict{QuestionID: q, Protocol: p, Verdict: v, Cause: cause, Runnable: runnable, PropertiesPassed: n}
	}
	here, there := published.NewReexecuted(), published.NewReexecuted()
	here.Runs["r1"] = &published.ReexecutedRun{Rows: []published.ReexecutedVerdict{
		row("test_a", "mattools-v1", results.VerdictCorrect, "", true, 3),
		row("test_a", "mattools-v1-strict", results.VerdictPartial, "", true, 2),
		row("test_b", "mattools-v1", results.VerdictNotRunnable, "timeout", false, 0),
	}}
	here.Runs["r2"] = &published.ReexecutedRun{}
	there.Runs["r1"] = &published.ReexecutedRun{Rows: []published.ReexecutedVerdict{
		row("test_a", "mattools-v1", results.VerdictCorrect, "", true, 3),
		row("test_a", "mattools-v1-strict", results.VerdictPartial, "", true, 1),                   // properties differ
		row("test_b", "mattools-v1", results.VerdictNotRunnable, "exception:ValueError", false, 0), // cause differs
		row("test_c", "mattools-v1", results.VerdictCorrect, "", true, 1),                          // absent here
	}}
	compared, diffs, missing := compareStores(here, there)
	if compared != 3 || len(diffs) != 3 || len(missing) != 1 || missing[0] != "r2" {
		t.Fatalf("compared %d, diffs %+v, missing %v; want 3 compared, 3 diffs, r2 missing", compared, diffs, missing)
	}
	if diffs[0].Question != "test_a" || !strings.Contains(diffs[0].Here, "properties=2") || !strings.Contains(diffs[0].There, "properties=1") ||
		diffs[1].Question != "test_b" || !strings.Contains(diffs[1].There, "exception:ValueError") ||
		diffs[2].Question != "test_c" || diffs[2].Here != "absent" {
		t.Errorf("diffs = %+v", diffs)
	}
	var out bytes.Buffer
	if err := reportComparison(&out, "new.json", "old.json", here, there); err == nil || !strings.Contains(out.String(), "3 verdicts (question × protocol) of new.json compared with old.json: 1 equal, 3 differ") {
		t.Errorf("report: err %v, output %q", err, out.String())
	}
}
