// Package check checks results files against the benchmark they claim: for
// tool-usage runs of benchmark version 2025-05 (and its corrected versions,
// which hold the same questions), that every question row
// names a question of the manifest at its published position with its
// property count. results.Validate checks a file on its own; this package
// adds what needs the benchmark (package datasets).
package check

import (
	"errors"
	"fmt"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// AgainstManifest returns an error (a *results.FormatError per bad row,
// joined) when a tool-usage run of version 2025-05 or a corrected version
// of it has a row whose
// question id, question index or property count disagrees with
// datasets.Manifest(). Other runs pass unchecked. Subsets are fine: only
// the rows present are checked.
func AgainstManifest(f *results.File) error {
	if f.Run.Benchmark != results.BenchmarkToolUsage { // datasets.Manifest is MatTools' tool usage's; no other benchmark has one
		return nil
	}
	if _, corrected := datasets.LookupCorrectedVersion(f.Run.BenchmarkVersion); f.Run.BenchmarkVersion != results.BenchmarkVersion2025_05 && !corrected {
		return nil
	}
	byID := map[string]datasets.ManifestEntry{}
	for _, e := range datasets.Manifest() {
		byID[e.ID] = e
	}
	var errs []error
	for i, q := range f.Questions {
		e, ok := byID[q.QuestionID]
		switch {
		case !ok:
			errs = append(errs, &results.FormatError{Row: i + 1, Field: "question_id", Err: fmt.Errorf("%q is not a question of benchmark version 2025-05", q.QuestionID)})
		case int(q.QuestionIndex) != e.Index:
			errs = append(errs, &results.FormatError{Row: i + 1, Field: "question_index", Err: fmt.Errorf("is %d; %s is question %d of the published order", q.QuestionIndex, q.QuestionID, e.Index)})
		case int(q.PropertyCount) != e.Properties:
			errs = append(errs, &results.FormatError{Row: i + 1, Field: "property_count", Err: fmt.Errorf("is %d; %s has %d properties", q.PropertyCount, q.QuestionID, e.Properties)})
		}
	}
	return errors.Join(errs...)
}
