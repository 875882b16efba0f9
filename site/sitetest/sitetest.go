// Package sitetest makes the small, hand-made inputs the site's tests share:
// a 3-question benchmark and a set of runs (2 models, 3 rounds) that
// exercises every board, every run status and hostile text. Only tests
// import it.
package sitetest

import (
	"fmt"
	"path/filepath"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// HostileModel is a model id and HostileDisplayName a display name that
// would inject markup if any page, figure or download failed to escape them.
const (
	HostileModel       = `evil<script>alert(1)</script>&amp;`
	HostileDisplayName = `Evil <script>alert("name")</script> &amp; Co`
	// HostileCode is generated code that closes its container and opens a script.
	HostileCode = "def f():\n    return {'a': '</code></pre><script>alert(\"code\")</script> &lt;b&gt; &amp;'}\n"
	// HostileStage and HostileChunkID are a stage name and a chunk id of a
	// stage trace that would inject markup if the question page failed to
	// escape them.
	HostileStage   = `<script>alert("stage")</script>`
	HostileChunkID = `</code><script>alert("chunk")</script>`
)

// Questions are the fixture's three questions: real ids of the benchmark's
// first three questions with 10 + 4 + 1 = 15 properties.
var Questions = []struct {
	ID    string
	Props int
}{{"test_vacancy", 10}, {"test_parsing_and_grouping_NamedDefects", 4}, {"test_pchip_eval", 1}}

// Benchmark returns a 3-question benchmark in memory: statements with
// markdown (a list and a code block), properties and one missing data file.
func Benchmark() *datasets.Benchmark {
	b := &datasets.Benchmark{Root: "/fixture", Commit: results.UpstreamCommit}
	for i, q := range Questions {
		dq := datasets.Question{Index: i, ID: q.ID,
			Text: fmt.Sprintf("Compute the properties of **%s**:\n\n- first item\n- second <b>raw</b> item\n\n```python\nfrom pymatgen.core import Structure\n```\n", q.ID)}
		for p := 0; p < q.Props; p++ {
			dq.Properties = append(dq.Properties, datasets.Property{Name: fmt.Sprintf("prop_%d", p),
				Description: "a property <i>with</i> markup", Format: "int", Value: []byte(fmt.Sprintf(`"%d"`, p))})
		}
		dq.DataFiles = []datasets.DataFile{{Path: "tool_source_code/x/" + q.ID + ".vasp", Present: i != 1, Bytes: 100}}
		b.Questions = append(b.Questions, dq)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// Counts of the fixture's tool-usage runs, per round (1–3), out of 3
// questions and 15 properties. GPT-4o single LLM: runnable [2, 3, 1] → 66.67 ±
// 27.22 (population std); properties passed [5, 9, 3] → 37.78 ± 16.63.
var (
	SingleRunnable = [3]int{2, 3, 1}
	SinglePassed   = [3]int{5, 9, 3}
)

func baseRun(bench results.Benchmark, sys results.System, src int, model, protocol string, kind results.ProvenanceKind, round int) results.Run {
	r := results.Run{
		FormatVersion: results.FormatVersion, Benchmark: bench, BenchmarkVersion: results.BenchmarkVersion2025_05,
		UpstreamCommit: results.UpstreamCommit, System: sys, RetrievalSource: src, Model: model, Round: round,
		ScoringProtocol: protocol, Provenance: results.Provenance{Kind: kind},
		Environment: results.Environment{Generator: "sitetest", GeneratorVersion: "fixture"},
	}
	if model == HostileModel {
		r.ModelDisplayName = HostileDisplayName
	}
	if kind == results.ProvenanceImported {
		r.Provenance.Citation = "fixture: MatTools-like imported run"
	}
	if bench.Kind() == results.KindMultipleChoice {
		r.QuestionSet = results.QuestionSet{Name: "tiny-qa", Questions: 10}
	} else {
		r.QuestionSet = results.QuestionSet{Name: "tiny", Questions: 3, Properties: 15}
		for _, q := range Questions {
			r.QuestionSet.IDs = append(r.QuestionSet.IDs, q.ID)
		}
	}
	return r
}

// imported returns an imported tool-usage run with run totals only (verdict unknown).
func imported(sys results.System, src int, model string, round, runnable, passed int, scored bool) *results.File {
	r := baseRun(results.BenchmarkToolUsage, sys, src, model, results.ProtocolMatToolsOriginal, results.ProvenanceImported, round)
	r.Totals = results.Totals{Scored: scored, Questions: 3, Properties: 15}
	if scored {
		r.Totals.Runnable, r.Totals.PropertiesPassed = ptr(runnable), ptr(passed)
	} else {
		r.Warnings = []string{"no accuracy_summary.xlsx: this run was never scored"}
	}
	r.RunID = results.MakeRunID(&r)
	f := &results.File{Run: r}
	for i, q := range Questions {
		code := fmt.Sprintf("def solve_%d():\n    # %s round %d\n    return {'x': %d}\n", i, sys, round, i)
		if model == HostileModel {
			code = HostileCode
		}
		f.Questions = append(f.Questions, results.QuestionRow{QuestionIndex: int32(i), QuestionID: q.ID,
			PropertyCount: int32(q.Props), Code: code, FunctionName: fmt.Sprintf("solve_%d", i), Verdict: string(results.VerdictUnknown)})
	}
	return f
}

// runner returns a runner run with per-question outcomes: question 0 correct,
// question 1 partial (2 of 4, with a two-stage trace of hostile text),
// question 2 not runnable.
func runner(model string, round int) *results.File {
	r := baseRun(results.BenchmarkToolUsage, results.SystemSingleLLM, 0, model, results.ProtocolMatToolsV1, results.ProvenanceRunner, round)
	r.Totals = results.Totals{Scored: true, Questions: 3, Properties: 15, Runnable: ptr(2), PropertiesPassed: ptr(12),
		QuestionsCorrect: ptr(1), QuestionsPartial: ptr(1)}
	r.RunID = results.MakeRunID(&r)
	code := "def f():\n    return {}\n"
	if model == HostileModel {
		code = HostileCode
	}
	f := &results.File{Run: r, Questions: []results.QuestionRow{
		{QuestionIndex: 0, QuestionID: Questions[0].ID, PropertyCount: 10, Code: code, FunctionName: "f",
			Runnable: ptr(true), PropertiesPassed: ptr(int32(10)), Verdict: string(results.VerdictCorrect)},
		{QuestionIndex: 1, QuestionID: Questions[1].ID, PropertyCount: 4, Code: code, FunctionName: "f",
			Runnable: ptr(true), PropertiesPassed: ptr(int32(2)), Verdict: string(results.VerdictPartial),
			ErrorExcerpt: ptr("prop_1: expected <1> but got <script>alert('err')</script>"),
			Trace: []results.TraceStage{{Stage: "generate", PromptTokens: 120, CompletionTokens: 40, LatencyMS: 900},
				{Stage: HostileStage, RetrievedIDs: []string{HostileChunkID}, Verdict: string(results.VerdictPartial), StopReason: HostileStage}}},
		{QuestionIndex: 2, QuestionID: Questions[2].ID, PropertyCount: 1, Code: "", FunctionName: "",
			Runnable: ptr(false), PropertiesPassed: ptr(int32(0)), Verdict: string(results.VerdictNotRunnable), VerdictCause: "empty-code"},
	}}
	return f
}

// qa returns an imported QA run of 10 questions in two items.
func qa(bench results.Benchmark, model string, correct int) *results.File {
	r := baseRun(bench, results.SystemSingleLLM, 0, model, results.ProtocolMatToolsOriginal, results.ProvenanceImported, 1)
	r.Totals = results.Totals{Scored: true, Questions: 10, Correct: ptr(correct)}
	r.RunID = results.MakeRunID(&r)
	first := min(correct, 6)
	return &results.File{Run: r, QAItems: []results.QAItem{
		{ItemIndex: 0, Item: "pymatgen/core/structure.py/Structure", Questions: 6, Correct: int32(first)},
		{ItemIndex: 1, Item: "pymatgen/core/sites.py/Site", Questions: 4, Correct: int32(correct - first)},
	}}
}

// GPT4o is the fixture's catalogued model.
const GPT4o = "gpt-4o-2024-08-06"

// Runs returns the fixture runs:
//   - single LLM, imported, mattools-original: GPT-4o rounds 1–3 (SingleRunnable,
//     SinglePassed) and the hostile model rounds 1–3 (runnable [1, 1, 1], passed [3, 3, 3]);
//   - LLM-RAG source 4, imported: GPT-4o rounds 1–3 (runnable [3, 2, 3], passed [12, 10, 11]);
//   - agentic RAG source 4, imported: GPT-4o round 1 unscored;
//   - self-reflection RAG source 4, imported: GPT-4o round 0 (outside rounds), runnable 3, passed 14;
//   - single LLM, runner, mattools-v1: the hostile model rounds 1–3 with per-question verdicts;
//   - QA, imported: Gemini-1.5-Flash code 7/10, doc 8/10; the hostile model code 2/10, doc 1/10 (one round each).
func Runs() []*results.File {
	var fs []*results.File
	for i := 0; i < 3; i++ {
		fs = append(fs,
			imported(results.SystemSingleLLM, 0, GPT4o, i+1, SingleRunnable[i], SinglePassed[i], true),
			imported(results.SystemSingleLLM, 0, HostileModel, i+1, 1, 3, true),
			imported(results.SystemLLMRAG, 4, GPT4o, i+1, []int{3, 2, 3}[i], []int{12, 10, 11}[i], true),
			runner(HostileModel, i+1),
		)
	}
	fs = append(fs,
		imported(results.SystemAgenticRAG, 4, GPT4o, 1, 0, 0, false),
		imported(results.SystemSelfReflectionRAG, 4, GPT4o, 0, 3, 14, true),
		qa(results.BenchmarkQACode, "gemini-1.5-flash", 7), qa(results.BenchmarkQADoc, "gemini-1.5-flash", 8),
		qa(results.BenchmarkQACode, HostileModel, 2), qa(results.BenchmarkQADoc, HostileModel, 1),
	)
	return fs
}

// CorrectedRuns returns runner runs of the corrected benchmark version
// results.BenchmarkVersion2025_05Corrected1: the runner runs of Runs (the
// hostile model, single LLM, mattools-v1, rounds 1–3) with that version,
// the same rows. The version corrects none of the fixture's Questions, so
// on their pages these runs' verdicts are those of the published version's
// runs (docs/benchmark-audit.md, "The corrected version").
func CorrectedRuns() []*results.File {
	var fs []*results.File
	for i := 0; i < 3; i++ {
		f := runner(HostileModel, i+1)
		f.Run.BenchmarkVersion = results.BenchmarkVersion2025_05Corrected1
		f.Run.RunID = results.MakeRunID(&f.Run)
		fs = append(fs, f)
	}
	return fs
}

// WriteRuns writes Runs() as results files under dir (one file per run,
// named by run id) and returns them as read back.
func WriteRuns(dir string) ([]*results.File, error) {
	for _, f := range Runs() {
		if err := results.Write(filepath.Join(dir, f.Run.RunID+results.Extension), f); err != nil {
			return nil, err
		}
	}
	return results.ReadDir(dir)
}
