package published

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
)

var goodSummary = &mattoolstest.Summary{Correct: 10, Partial: 5, FunctionErrors: 34, PropertiesCorrect: 20}

// TestImportFixture imports a small hand-made root: a scored single-LLM run,
// an unscored agentic run, a self-reflection run with a byte-identical copy
// outside any roundN folder (skipped) and one that is not a copy (round 0),
// and one QA model with items sharing a source.
func TestImportFixture(t *testing.T) {
	root := mattoolstest.NewRoot(t)
	root.AddRun("src/pure_agent_test/round1/model-a", goodSummary)
	root.AddRun("src/agentic_RAG_test/round1/model-a_method3", nil)
	root.AddRun("src/mtr_rag_test/round2/model-a_4", goodSummary)
	same, _ := os.ReadFile(filepath.Join(root.Dir, "src/mtr_rag_test/round2/model-a_4", GenerationFile))
	root.Write("src/mtr_rag_test/model-a_4/"+GenerationFile, same) // byte-identical to round2's
	root.Write("src/mtr_rag_test/model-b_4/function_generation_results.jsonl", mattoolstest.JSONL(func(int) string { return "" }))
	root.Write("qa_benchmark/test_results/gemini-1.5-pro/evaluation_results_code_gemini-1.5-pro.csv", mattoolstest.QACSV([][3]any{
		{"pymatgen/a.py/__init__", 5, 4}, {"pymatgen/b.py/B", 3, 3}, {"pymatgen/a.py/__init__", 2, 0},
	}))
	imp, err := Read(root.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*results.File{}
	for _, f := range imp.Files {
		got[f.Run.RunID] = f
	}
	if len(imp.Files) != 5 {
		t.Errorf("%d files: %v", len(imp.Files), keys(got))
	}
	single := got["imported__tool-usage__single-llm__s0__model-a__mattools-original__r1"]
	if single == nil || *single.Run.Totals.Runnable != 15 || *single.Run.Totals.PropertiesPassed != 20 || !single.Run.Totals.Scored {
		t.Fatalf("single-LLM run = %+v", single)
	}
	if agentic := got["imported__tool-usage__agentic-rag__s3__model-a__mattools-original__r1"]; agentic == nil || agentic.Run.Totals.Scored {
		t.Errorf("agentic run should be imported unscored: %+v", agentic)
	}
	if mtr := got["imported__tool-usage__self-reflection-rag__s4__model-a__mattools-original__r2"]; mtr == nil || mtr.Run.TopK != 5 {
		t.Errorf("self-reflection run = %+v", mtr)
	}
	if r0 := got["imported__tool-usage__self-reflection-rag__s4__model-b__mattools-original__r0"]; r0 == nil || r0.Run.Totals.Scored {
		t.Errorf("round-0 run = %+v", r0)
	}
	if len(imp.Duplicates) != 1 || imp.Duplicates[0].Folder != "src/mtr_rag_test/model-a_4" || imp.Duplicates[0].SameAs != "src/mtr_rag_test/round2/model-a_4" {
		t.Errorf("duplicates = %+v", imp.Duplicates)
	}
	qa := got["imported__qa-code__single-llm__s0__gemini-1.5-pro__mattools-original__r1"]
	if qa == nil || qa.Run.Totals.Questions != 10 || *qa.Run.Totals.Correct != 7 || len(qa.QAItems) != 3 ||
		qa.QAItems[2].Questions != 2 || qa.QAItems[2].Correct != 0 || qa.Run.ModelDisplayName != "Gemini-1.5-Pro" {
		t.Errorf("QA run = %+v", qa)
	}
	out := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "stale.parquet"), []byte("old"), 0o644)
	if err := imp.WriteAll(out); err != nil {
		t.Fatal(err)
	}
	files, err := results.ReadDir(out)
	if err != nil || len(files) != 5 {
		t.Errorf("ReadDir after WriteAll: %d files, %v", len(files), err)
	}
}

func keys(m map[string]*results.File) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestImportRejectsBadInput: each malformed input stops the import with an
// error naming the file and the row or cell.
func TestImportRejectsBadInput(t *testing.T) {
	const run = "src/pure_agent_test/round1/model-a"
	tests := []struct {
		name  string
		setup func(r *mattoolstest.Root)
		want  []string // substrings of the error
	}{
		{"truncated xlsx", func(r *mattoolstest.Root) {
			r.AddRun(run, goodSummary)
			data, _ := os.ReadFile(filepath.Join(r.Dir, run, SummaryFile))
			r.Write(run+"/"+SummaryFile, data[:len(data)/2])
		}, []string{run + "/accuracy_summary.xlsx: not a readable xlsx"}},
		{"xlsx incorrect ≠ function errors", func(r *mattoolstest.Root) {
			r.AddRun(run, nil)
			cells := goodSummary.Cells()
			cells["H2"] = 33
			r.XLSX(run+"/"+SummaryFile, cells)
		}, []string{"accuracy_summary.xlsx: cells E2=H2: Incorrect 34 ≠ Function Errors 33"}},
		{"xlsx runnable rate", func(r *mattoolstest.Root) {
			r.AddRun(run, nil)
			cells := goodSummary.Cells()
			cells["F2"] = 31.0
			r.XLSX(run+"/"+SummaryFile, cells)
		}, []string{"cells F2=(B2−H2)/B2·100"}},
		{"xlsx text in a count", func(r *mattoolstest.Root) {
			r.AddRun(run, nil)
			cells := goodSummary.Cells()
			cells["C3"] = "twenty"
			r.XLSX(run+"/"+SummaryFile, cells)
		}, []string{"accuracy_summary.xlsx: cell C3: is \"twenty\", want a number"}},
		{"xlsx wrong header", func(r *mattoolstest.Root) {
			r.AddRun(run, nil)
			cells := goodSummary.Cells()
			cells["H1"] = "Errors"
			r.XLSX(run+"/"+SummaryFile, cells)
		}, []string{"cell H1: header is \"Errors\", want \"Function Errors\""}},
		{"jsonl with 48 lines", func(r *mattoolstest.Root) {
			r.AddRun(run, goodSummary)
			data, _ := os.ReadFile(filepath.Join(r.Dir, run, GenerationFile))
			lines := strings.SplitAfter(string(data), "\n")
			r.Write(run+"/"+GenerationFile, []byte(strings.Join(lines[:48], "")))
		}, []string{run + "/function_generation_results.jsonl: has 48 lines; want one per question (49)"}},
		{"jsonl invalid line", func(r *mattoolstest.Root) {
			r.AddRun(run, goodSummary)
			data, _ := os.ReadFile(filepath.Join(r.Dir, run, GenerationFile))
			lines := strings.SplitAfter(string(data), "\n")
			lines[6] = "{\"question_file_path\": \"test_get_avg_chg\", \"function\": \n"
			r.Write(run+"/"+GenerationFile, []byte(strings.Join(lines, "")))
		}, []string{run + "/function_generation_results.jsonl:7: invalid JSON"}},
		{"jsonl out of order", func(r *mattoolstest.Root) {
			r.AddRun(run, goodSummary)
			data, _ := os.ReadFile(filepath.Join(r.Dir, run, GenerationFile))
			lines := strings.SplitAfter(string(data), "\n")
			lines[0], lines[1] = lines[1], lines[0]
			r.Write(run+"/"+GenerationFile, []byte(strings.Join(lines, "")))
		}, []string{"jsonl:1: question_file_path: is \"test_parsing_and_grouping_NamedDefects\"; the published evaluation order has \"test_vacancy\""}},
		{"unknown family", func(r *mattoolstest.Root) {
			r.AddRun("src/lightrag_test/round1/gpt-4o", goodSummary)
		}, []string{"src/lightrag_test/round1/gpt-4o: unknown MatTools result family \"lightrag_test\""}},
		{"folder name without method", func(r *mattoolstest.Root) {
			r.AddRun("src/RAG_agent_test/round1/gpt-4o", goodSummary)
		}, []string{"src/RAG_agent_test/round1/gpt-4o: run folder name \"gpt-4o\" does not match <model>_method<1-4>"}},
		{"QA CSV without Overall", func(r *mattoolstest.Root) {
			csv := mattoolstest.QACSV([][3]any{{"pymatgen/a.py/A", 5, 4}, {"pymatgen/b.py/B", 3, 3}})
			lines := strings.SplitAfter(string(csv), "\n")
			r.Write("qa_benchmark/test_results/m/evaluation_results_code_m.csv", []byte(strings.Join(lines[:3], "")))
		}, []string{"evaluation_results_code_m.csv:3: Source: no Overall row"}},
		{"QA CSV Overall disagrees with per-source sums", func(r *mattoolstest.Root) {
			csv := string(mattoolstest.QACSV([][3]any{{"pymatgen/a.py/A", 5, 4}, {"pymatgen/a.py/A", 3, 3}}))
			// A naive sum of the cumulative rows (5 + 8 = 13) instead of the last row per source (8).
			csv = strings.Replace(csv, "Overall,8,7,1,87.50%", "Overall,13,11,2,84.62%", 1)
			r.Write("qa_benchmark/test_results/m/evaluation_results_doc_m.csv", []byte(csv))
		}, []string{"evaluation_results_doc_m.csv:4: Overall: says 11/13 but the last rows of the 1 sources add up to 7/8"}},
		{"QA CSV accuracy cell", func(r *mattoolstest.Root) {
			csv := strings.Replace(string(mattoolstest.QACSV([][3]any{{"pymatgen/a.py/A", 5, 4}})), "80.00%", "80%", 1)
			r.Write("qa_benchmark/test_results/m/evaluation_results_doc_m.csv", []byte(csv))
		}, []string{"evaluation_results_doc_m.csv:2: Accuracy: \"80%\", want \"80.00%\""}},
		{"QA CSV counts going down", func(r *mattoolstest.Root) {
			csv := strings.Replace(string(mattoolstest.QACSV([][3]any{{"pymatgen/a.py/A", 5, 4}, {"pymatgen/a.py/A", 3, 3}})),
				"pymatgen/a.py/A,8,7,1,87.50%", "pymatgen/a.py/A,4,3,1,75.00%", 1)
			r.Write("qa_benchmark/test_results/m/evaluation_results_doc_m.csv", []byte(csv))
		}, []string{"evaluation_results_doc_m.csv:3: Total Questions: source \"pymatgen/a.py/A\" goes from 4/5 to 3/4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mattoolstest.NewRoot(t)
			tt.setup(r)
			_, err := Read(r.Dir, Options{})
			if err == nil {
				t.Fatal("import succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestImportSkipsUnknownFamiliesWhenAsked(t *testing.T) {
	r := mattoolstest.NewRoot(t)
	r.AddRun("src/lightrag_test/round1/gpt-4o", goodSummary)
	r.AddRun("src/pure_agent_test/round1/gpt-4o", goodSummary)
	imp, err := Read(r.Dir, Options{SkipUnknownFamilies: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Files) != 1 || len(imp.Warnings) == 0 || !strings.Contains(strings.Join(imp.Warnings, "\n"), `unknown MatTools result family "lightrag_test"`) {
		t.Errorf("files %d, warnings %q", len(imp.Files), imp.Warnings)
	}
}

func TestImportUnreadableRoot(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-root")
	_, err := Read(missing, Options{})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("error = %v, want it to name %s", err, missing)
	}
}
