package site

import (
	"context"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// ReleaseRuns reads what Build reads from o.ResultsDir, o.SubmissionsDir
// with o.VerifiedDir, and o.AuditDir (loadInputs), checks release r's runs
// as Build does (checkRuns: a listed run that is invalid, or of a missing or
// invalid submission, is an error naming it) and returns r's runs as Build
// gathers them for r's edition (releaseRuns): files are those of the results
// files and submissions, each compact with its tool-usage rows in rows (as
// Build gives them to aggregate.BuildRows); audit are the benchmark audit's;
// missing are the run ids present nowhere. For the tests of package site.
func ReleaseRuns(o Options, r release.Release) (files []*results.File, rows map[string][]results.SummaryRow, audit []*results.File, missing []string, err error) {
	in, err := loadInputs(o, func(string, ...any) {})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	o.Releases = []release.Release{r}
	if err := checkRuns(context.Background(), o, in, &Report{}); err != nil {
		return nil, nil, nil, nil, err
	}
	byID := map[string]*results.File{}
	for _, f := range in.files {
		byID[f.Run.RunID] = f
	}
	files, audit, missing = releaseRuns(r, byID, in.auditByID)
	return files, in.rows, audit, missing, nil
}
