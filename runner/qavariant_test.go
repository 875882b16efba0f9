package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
)

// answerC is a fake model that answers every question "Answer: C": MatTools'
// exact rule rejects it, the lenient rule reads C.
func answerC(t *testing.T) *llmtest.Server {
	return llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Content: "Answer: C", PromptTokens: 100, CompletionTokens: 3}
	}})
}

// runQAVariants runs the "Answer: C" model on code (path, variant
// codeVariant) and doc (docPath, docVariant) sets and checks each run
// against the variant qaaudit derives: its question-set name, size and IDs,
// its baselines extension, strict accuracy 0 and lenient correct = the
// variant's items keyed C.
func runQAVariants(t *testing.T, codePath, codeVariant, docPath, docVariant string) {
	root := mattoolstest.NewRoot(t).Dir
	srv := answerC(t)
	p := mustPlan(t, fmt.Sprintf(`rounds = 1
benchmarks = ["qa-code", "qa-doc"]
[qa_sets.qa-code]
path = %q
name = "sample"
variant = %q
[qa_sets.qa-doc]
path = %q
name = "sample"
variant = %q
[[models]]
name = "answers-c"
base_url = %q
`, codePath, codeVariant, docPath, docVariant, srv.URL))
	res, err := Run(context.Background(), Options{Plan: p, DataRoot: root, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d runs", len(res))
	}
	for i, c := range []struct{ path, variant string }{{codePath, codeVariant}, {docPath, docVariant}} {
		f := readRun(t, res[i].Path)
		r := f.Run
		orig, err := datasets.LoadQA(c.path)
		if err != nil {
			t.Fatal(err)
		}
		want, info, err := qaaudit.Variant(orig, c.variant)
		if err != nil {
			t.Fatal(err)
		}
		nC := 0
		for _, q := range want.Questions {
			if q.CorrectAnswer == "C" {
				nC++
			}
		}
		if r.QuestionSet.Name != "sample-"+c.variant || r.QuestionSet.Questions != len(want.Questions) || len(r.QuestionSet.IDs) != len(want.Questions) {
			t.Errorf("%s: question set %s of %d (%d ids), want sample-%s of %d", r.Benchmark, r.QuestionSet.Name, r.QuestionSet.Questions, len(r.QuestionSet.IDs), c.variant, len(want.Questions))
		}
		for k, q := range f.QAItems {
			if q.Item != want.Questions[k].ID || *q.CorrectAnswer != want.Questions[k].CorrectAnswer || *q.ExtractedLenient != "C" || *q.ExtractedStrict != "Answer: C" {
				t.Errorf("%s row %d: %s key %s lenient %q strict %q", r.Benchmark, k, q.Item, *q.CorrectAnswer, *q.ExtractedLenient, *q.ExtractedStrict)
			}
		}
		if *r.Totals.Correct != 0 || *r.Totals.CorrectLenient != nC {
			t.Errorf("%s: correct %d lenient %d, want 0 and %d", r.Benchmark, *r.Totals.Correct, *r.Totals.CorrectLenient, nC)
		}
		var b qaaudit.Baselines
		if err := json.Unmarshal(r.Extensions[qaaudit.ExtensionBaselines], &b); err != nil {
			t.Fatalf("%s: baselines extension: %v (%s)", r.Benchmark, err, r.Extensions[qaaudit.ExtensionBaselines])
		}
		if wb := qaaudit.Audit("", want).Baselines(); b != wb {
			t.Errorf("%s: baselines %+v, want %+v", r.Benchmark, b, wb)
		}
		// The variant marker: which variant of which set, by which derivation.
		var vi qaaudit.VariantInfo
		if err := json.Unmarshal(r.Extensions[qaaudit.ExtensionVariant], &vi); err != nil {
			t.Fatalf("%s: variant extension: %v (%s)", r.Benchmark, err, r.Extensions[qaaudit.ExtensionVariant])
		}
		info.Of = "sample"
		if vi != info || vi.Variant != c.variant || vi.Algorithm != qaaudit.VariantAlgorithm || vi.OfQuestions != len(orig.Questions) ||
			vi.Questions != len(want.Questions) || vi.Questions != vi.OfQuestions-vi.Malformed-vi.Leaked {
			t.Errorf("%s: variant %+v, want %+v", r.Benchmark, vi, info)
		}
		// Format diagnostics: every answer rejected by the exact rule and
		// read as C by the lenient one.
		var fm qaaudit.Format
		if err := json.Unmarshal(r.Extensions[qaaudit.ExtensionFormat], &fm); err != nil {
			t.Fatalf("%s: format extension: %v", r.Benchmark, err)
		}
		n := len(want.Questions)
		if wf := (qaaudit.Format{Answers: n, StrictRejected: n, LenientFound: n, ModelLetters: [5]int{0, 0, n, 0, 0}, KeyLetters: b.Letters}); fm != wf {
			t.Errorf("%s: format %+v, want %+v", r.Benchmark, fm, wf)
		}
		t.Logf("%s %s: %d items, letters %v, strict 0/%d, lenient %d/%d = %.2f%%; baselines: constant %s %d, leak heuristic %d; format %+v",
			r.Benchmark, r.QuestionSet.Name, r.QuestionSet.Questions, b.Letters, n, nC, n,
			100*float64(nC)/float64(n), b.ConstantLetter, b.ConstantCorrect, b.LeakCorrect, fm)
	}
}

// TestQAVariantsOnTwentyQuestions runs the balanced and the clean variant of
// the hand-written 20-question set (5 items per letter when balanced).
func TestQAVariantsOnTwentyQuestions(t *testing.T) {
	abs, _ := filepath.Abs("testdata/qa20.json")
	runQAVariants(t, abs, qaaudit.VariantBalanced, abs, qaaudit.VariantClean)
}

// TestQAVariantsOnTheRealSample runs the balanced code set and the clean
// doc set of the real sample, then the other two.
func TestQAVariantsOnTheRealSample(t *testing.T) {
	dir := os.Getenv("MATTOOLS_QA_SAMPLE")
	if dir == "" {
		t.Skip("MATTOOLS_QA_SAMPLE is not set (the folder with qa_120.json and qa_doc_120.json; CI sets it)")
	}
	code, doc := filepath.Join(dir, "qa_120.json"), filepath.Join(dir, "qa_doc_120.json")
	runQAVariants(t, code, qaaudit.VariantBalanced, doc, qaaudit.VariantClean)
	runQAVariants(t, code, qaaudit.VariantClean, doc, qaaudit.VariantBalanced)
}

// The plan accepts exactly the variants qaaudit derives.
func TestPlanQAVariantsAreQAAuditVariants(t *testing.T) {
	if fmt.Sprint(plan.QAVariants) != fmt.Sprint(qaaudit.Variants) {
		t.Errorf("plan.QAVariants %v, qaaudit.Variants %v", plan.QAVariants, qaaudit.Variants)
	}
}
