package site_test

import (
	"reflect"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// TestLoadResultsKeepsCompactRows: on the published runs,
// LoadResults keeps no QuestionRow, only each tool-usage row's summary
// columns (results.SummaryRow, equal to those of results.Read's rows), and
// the leaderboard aggregated from them (aggregate.BuildRows) has the same
// configurations, summaries, failure taxonomies and costs as the one
// aggregated from the whole files (aggregate.Build), and the same
// intervals over questions (tool usage) and over items (QA: a QA file's
// per-item outcomes are kept compact, results.File.QA, equal to
// results.CompactQA of its items).
func TestLoadResultsKeepsCompactRows(t *testing.T) {
	_, dir, files := realData(t)
	loaded, err := site.LoadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Invalid) > 0 || len(loaded.Files) != len(files) {
		t.Fatalf("%d files, invalid %v; want the %d files of results.ReadDir", len(loaded.Files), loaded.Invalid, len(files))
	}
	rows, qa := 0, 0
	for i, f := range loaded.Files {
		want := files[i]
		if f.Questions != nil || f.QAItems != nil || f.Run.RunID != want.Run.RunID {
			t.Fatalf("file %d: run %s with %d questions and %d QA items; want run %s without rows", i, f.Run.RunID, len(f.Questions), len(f.QAItems), want.Run.RunID)
		}
		got, ok := loaded.Rows[f.Run.RunID]
		if want.Run.Benchmark.Kind() == results.KindMultipleChoice {
			if ok {
				t.Errorf("QA run %s has %d rows kept", f.Run.RunID, len(got))
			}
			if w := results.CompactQA(want.QAItems); f.QA == nil || f.QA.Why != "" || !reflect.DeepEqual(f.QA, w) {
				t.Errorf("QA run %s: compact outcomes %+v differ from those of its %d items", f.Run.RunID, f.QA, len(want.QAItems))
			} else {
				qa++
			}
			continue
		}
		if !reflect.DeepEqual(got, results.SummaryRows(want.Questions)) {
			t.Errorf("run %s: its %d compact rows differ from the summary columns of its %d rows", f.Run.RunID, len(got), len(want.Questions))
		}
		rows += len(got)
	}
	if rows == 0 || qa == 0 {
		t.Fatalf("%d tool-usage rows, %d QA runs with per-item outcomes", rows, qa)
	}
	cat := aggregate.DefaultCatalog()
	a, b := aggregate.BuildRows(loaded.Files, loaded.Rows, cat), aggregate.Build(files, cat)
	if len(a.Configurations) != len(b.Configurations) {
		t.Fatalf("%d configurations from the compact rows, %d from the files", len(a.Configurations), len(b.Configurations))
	}
	taxonomies := 0
	for i, c := range a.Configurations {
		d := b.Configurations[i]
		if c.Key != d.Key || !reflect.DeepEqual(c.Summaries, d.Summaries) || !reflect.DeepEqual(c.Taxonomy(), d.Taxonomy()) || !reflect.DeepEqual(c.Cost(), d.Cost()) ||
			!reflect.DeepEqual(c.QIntervals, d.QIntervals) || !reflect.DeepEqual(c.NoQInterval, d.NoQInterval) {
			t.Errorf("configuration %s differs from %s built from the whole files", c.Key, d.Key)
		}
		if c.Taxonomy() != nil {
			taxonomies++
		}
	}
	if taxonomies == 0 {
		t.Error("no configuration has a failure taxonomy: the rows were not compared")
	}
	t.Logf("%d files, %d tool-usage rows, %d QA runs with per-item outcomes, %d configurations (%d with a taxonomy)", len(files), rows, qa, len(a.Configurations), taxonomies)
}
