package content

import (
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestSelfReportedStatusNamesTheHarness: a self-reported submission's
// status names the harness its results files record: this project's
// runner for runs written by run-benchmark (a make-submission folder),
// the submitters' own harness otherwise; either way not yet re-executed,
// never "the authors' own harness" for the runner's runs.
func TestSelfReportedStatusNamesTheHarness(t *testing.T) {
	file := func(gen, ver string) *results.File {
		return &results.File{Run: results.Run{Environment: results.Environment{Generator: gen, GeneratorVersion: ver}}}
	}
	in := map[string]*results.File{"r1": file(results.GeneratorRunner, "v0.3.0"), "r2": file(results.GeneratorRunner, "v0.3.0"), "h1": file("acme-harness", "2.1")}
	for _, c := range []struct {
		runs      []string
		want, not string
	}{
		{[]string{"r1", "r2"}, "this project's runner (or its re-execution) scored these runs on the submitters' machine (generator run-benchmark v0.3.0, as their results files record it) and make-submission made the folder", "own harness"},
		{[]string{"h1"}, "the submitters' own harness scored these runs (generator acme-harness 2.1, as their results files record it)", "runner"},
		{[]string{"r1", "h1"}, "the submitters' own harness scored these runs (generator acme-harness 2.1, run-benchmark v0.3.0,", "this project's runner"},
	} {
		got := selfReportedStatus(c.runs, in)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) || !strings.Contains(got, "Not yet re-executed by this project: its pull request's check re-executes") {
			t.Errorf("runs %q: status %q; want %q and the pending re-execution, not %q", c.runs, got, c.want, c.not)
		}
	}
}
