package aggregate_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

func TestClassify(t *testing.T) {
	n := func(k int32) *int32 { return &k }
	check := func(verdict, cause string, passed *int32, want aggregate.Outcome, wantOK bool) {
		t.Helper()
		got, ok := aggregate.Classify(&results.QuestionRow{Verdict: verdict, VerdictCause: cause, PropertiesPassed: passed})
		if got != want || ok != wantOK {
			t.Errorf("Classify(%s, %q) = %q %v, want %q %v", verdict, cause, got, ok, want, wantOK)
		}
		got, ok = aggregate.ClassifyRow(&results.SummaryRow{Verdict: verdict, VerdictCause: cause, PropertiesPassed: passed})
		if got != want || ok != wantOK {
			t.Errorf("ClassifyRow(%s, %q) = %q %v, want %q %v", verdict, cause, got, ok, want, wantOK)
		}
	}
	check("correct", "", n(3), aggregate.OutcomeCorrect, true)
	check("partial", "", n(1), aggregate.OutcomePartial, true)
	check("partial", "", n(0), aggregate.OutcomeWrongValues, true)
	check("not-runnable", "exception:ImportError", nil, aggregate.OutcomeImportError, true)
	check("not-runnable", "exception:ModuleNotFoundError", nil, aggregate.OutcomeImportError, true)
	check("not-runnable", "exception:AttributeError", nil, aggregate.OutcomeAttributeError, true)
	check("not-runnable", "exception:UnboundLocalError", nil, aggregate.OutcomeNameError, true)
	check("not-runnable", "exception:ValueError", nil, aggregate.OutcomeOtherException, true)
	check("not-runnable", "timeout", nil, aggregate.OutcomeTimeout, true)
	check("not-runnable", "no-output", nil, aggregate.OutcomeNoDict, true)
	check("not-runnable", "killed", nil, aggregate.OutcomeOtherNotRunnable, true)
	check("verification-crash", "verify-output", nil, aggregate.OutcomeVerificationCrash, true)
	check("data-missing", "", nil, "", false)
	check("unknown", "", nil, "", false)
}

// TestTaxonomyOfTheReexecutedSingleLLMRuns checks the failure
// taxonomy of every re-executed published single-LLM configuration against
// the committed verdicts (results/published/reexecuted*.json) read here
// directly: per outcome, the count and the questions; the GPT-4o round 1
// ImportError questions are named. MATTOOLS_TAXONOMY_OUT=file writes the
// taxonomy of those configurations there (for the closing note).
func TestTaxonomyOfTheReexecutedSingleLLMRuns(t *testing.T) {
	_, lb := realLeaderboard(t)
	// The store is reexecuted.json and its part files beside it
	// (reexecuted-<part>.json: runs keyed "<run id>@<part>").
	names, err := filepath.Glob("../../results/published/reexecuted*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no store files: %v", err)
	}
	type storeRun struct {
		Rows [][]any `json:"rows"`
	}
	store := struct{ Runs map[string]storeRun }{Runs: map[string]storeRun{}}
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var part struct {
			Runs map[string]storeRun `json:"runs"`
		}
		if err := json.Unmarshal(raw, &part); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for id, r := range part.Runs {
			store.Runs[id] = r
		}
	}
	var report strings.Builder
	checked := 0
	for _, c := range lb.Configurations {
		if c.Key.System != results.SystemSingleLLM || c.Key.Provenance != "rescored:imported" {
			continue
		}
		tx := c.Taxonomy()
		if tx == nil {
			t.Fatalf("%s: no taxonomy", c.Key)
		}
		// Expected, from the store: rows [question_id, protocol, verdict, cause, runnable, properties_passed].
		want := map[aggregate.Outcome]int{}
		var importR1 []string
		total := 0
		for round := 1; round <= 3; round++ {
			id := fmt.Sprintf("imported__tool-usage__single-llm__s0__%s__mattools-original__r%d", c.Key.Model, round)
			run, ok := store.Runs[id]
			if !ok {
				t.Fatalf("no verdicts of %s", id)
			}
			rows := run.Rows
			if c.Key.BenchmarkVersion != results.BenchmarkVersion2025_05 {
				// The corrected version's verdicts of the questions it changes
				// replace the published version's.
				fixed, ok := store.Runs[id+"@"+c.Key.BenchmarkVersion]
				if !ok {
					t.Fatalf("no verdicts of %s@%s", id, c.Key.BenchmarkVersion)
				}
				type qp struct{ q, protocol any }
				fix := map[qp][]any{}
				for _, row := range fixed.Rows {
					fix[qp{row[0], row[1]}] = row
				}
				rows = nil
				for _, row := range run.Rows {
					if f, ok := fix[qp{row[0], row[1]}]; ok {
						row = f
					}
					rows = append(rows, row)
				}
			}
			for _, row := range rows {
				if row[1] != c.Key.ScoringProtocol {
					continue
				}
				passed := int32(row[5].(float64))
				o, ok := aggregate.Classify(&results.QuestionRow{Verdict: row[2].(string), VerdictCause: row[3].(string), PropertiesPassed: &passed})
				if !ok {
					continue
				}
				want[o]++
				total++
				if round == 1 && o == aggregate.OutcomeImportError {
					importR1 = append(importR1, row[0].(string))
				}
			}
		}
		if tx.Outcomes != total {
			t.Errorf("%s: %d outcomes, the store has %d", c.Key, tx.Outcomes, total)
		}
		sum := 0
		for _, o := range aggregate.Outcomes {
			sum += tx.Counts[o]
			if tx.Counts[o] != want[o] {
				t.Errorf("%s: %s %d, the store %d", c.Key, o, tx.Counts[o], want[o])
			}
		}
		if sum != tx.Outcomes {
			t.Errorf("%s: counts sum to %d of %d", c.Key, sum, tx.Outcomes)
		}
		var gotR1 []string
		for _, e := range tx.Examples[aggregate.OutcomeImportError] {
			if slices.Contains(e.Rounds, 1) {
				gotR1 = append(gotR1, e.QuestionID)
			}
		}
		if !slices.Equal(gotR1, importR1) {
			t.Errorf("%s: ImportError questions of round 1 %v, the store %v", c.Key, gotR1, importR1)
		}
		if c.Key.Model == "gpt-4o-2024-08-06" && c.Key.ScoringProtocol == results.ProtocolMatToolsV1 {
			wantQ := []string{"test_pchip_eval", "test_substitution", "test_get_avg_chg", "test_get_SRH_coef", "test_get_local_extrema", "test_group_docs", "test_closest_sc_mat"}
			if !slices.Equal(gotR1, wantQ) {
				t.Errorf("GPT-4o round 1 ImportError questions %v, want %v", gotR1, wantQ)
			}
		}
		fmt.Fprintf(&report, "\n%s · single LLM · %s · benchmark %s (%d outcomes = %s)\n", c.Model.DisplayName, c.Key.ScoringProtocol, c.Key.BenchmarkVersion, tx.Outcomes, c.Key.QuestionSet)
		for _, o := range aggregate.Outcomes {
			if n := tx.Counts[o]; n > 0 {
				var qs []string
				for _, e := range tx.Examples[o] {
					qs = append(qs, fmt.Sprintf("%s%v", e.QuestionID, e.Rounds))
				}
				fmt.Fprintf(&report, "  %-20s %3d  %5.1f%%  %s\n", o.Title(), n, tx.Share(o), strings.Join(qs, " "))
			}
		}
		fmt.Fprintf(&report, "  ImportError in round 1: %s\n", strings.Join(importR1, ", "))
		checked++
	}
	if want := 5 * 2 * (1 + len(datasets.CorrectedVersions())); checked != want {
		t.Errorf("%d re-executed single-LLM configurations, want %d: 5 models × 2 protocols × %d benchmark versions (published, each corrected one)", checked, want, 1+len(datasets.CorrectedVersions()))
	}
	t.Log(report.String())
	if out := os.Getenv("MATTOOLS_TAXONOMY_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
