package fakerunner_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/e2e/fakerunner"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fakerunner.Cleanup()
	os.Exit(code)
}

const gpt4o = "gpt-4o-2024-08-06"

// TestFakeNoneModelRuns checks the fixture's 6 runs against what the data
// root and the scorer give: every executable question runnable (the
// function returns a dict), no property passed (every value is None, and
// every unit test of the executable questions checks the type of each
// value before comparing it), the question set of the re-executed published
// runs (so that the fake model and GPT-4o share the 28-question table), and
// a rate ranking that puts GPT-4o above the fake model by task success
// although the fake model's runnable rate is 100.
func TestFakeNoneModelRuns(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to run a fake model through the runner and the sandbox")
	res := fakerunner.Run(t, root)
	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var executable, props int
	for _, q := range bench.Questions {
		if q.Executable() {
			executable++
			props += len(q.Properties)
		}
	}
	if executable == 0 {
		t.Fatalf("%s: no executable question", root)
	}
	if want := fakerunner.Rounds * len(bench.Questions); res.Requests != want || res.Executions+res.Reused != want {
		t.Errorf("%d model requests, %d answers scored (%d of them reused); want %d rounds × %d questions", res.Requests,
			res.Executions+res.Reused, res.Reused, fakerunner.Rounds, len(bench.Questions))
	}
	if want := len(bench.Questions); !fakerunner.ExecuteEveryRound && res.Executions != want {
		t.Errorf("%d answers executed, want each of the %d questions once (identical code in every round)", res.Executions, want)
	}

	files, err := results.ReadDir(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 6 {
		t.Fatalf("%d results files, want 3 rounds × 2 protocols", len(files))
	}

	// The question set of the re-executed published runs, as make import
	// builds them (published.Read with the committed re-executed verdicts).
	imp, err := published.Read(root, published.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gpt := map[string][]*results.File{} // protocol → re-executed GPT-4o single-LLM runs
	for _, f := range imp.Files {
		r := f.Run
		if r.Provenance.Kind == results.ProvenanceRescored && r.Provenance.Origin == results.ProvenanceImported &&
			r.Benchmark == results.BenchmarkToolUsage && r.BenchmarkVersion == results.BenchmarkVersion2025_05 && r.System == results.SystemSingleLLM && r.Model == gpt4o {
			gpt[r.ScoringProtocol] = append(gpt[r.ScoringProtocol], f)
		}
	}

	seen := map[string]bool{}
	for _, f := range files {
		r := f.Run
		key := fmt.Sprintf("%s r%d", r.ScoringProtocol, r.Round)
		if seen[key] || r.Round < 1 || r.Round > fakerunner.Rounds {
			t.Errorf("%s: round %d of protocol %s twice or out of range", r.RunID, r.Round, r.ScoringProtocol)
		}
		seen[key] = true
		if r.Provenance.Kind != results.ProvenanceRunner || r.Model != fakerunner.Model || r.ModelDisplayName != fakerunner.DisplayName ||
			r.Benchmark != results.BenchmarkToolUsage || r.System != results.SystemSingleLLM || r.RetrievalSource != 0 {
			t.Errorf("%s: provenance %q, model %q (%q), benchmark %s, system %s, source %d", r.RunID, r.Provenance.Kind, r.Model,
				r.ModelDisplayName, r.Benchmark, r.System, r.RetrievalSource)
		}
		if r.Environment.Sandbox == nil || r.Environment.Libraries["pymatgen"] == "" {
			t.Errorf("%s: no sandbox or pymatgen version recorded: %+v", r.RunID, r.Environment)
		}

		// Totals: every executable question runnable, nothing passed.
		tot := r.Totals
		if !tot.Scored || tot.Questions != executable || tot.Properties != props || tot.Runnable == nil || *tot.Runnable != executable ||
			tot.PropertiesPassed == nil || *tot.PropertiesPassed != 0 || tot.QuestionsCorrect == nil || *tot.QuestionsCorrect != 0 ||
			tot.QuestionsPartial == nil || *tot.QuestionsPartial != executable {
			t.Errorf("%s: totals %s; want %d questions / %d properties, %d runnable, 0 passed, 0 correct, %d partial",
				r.RunID, totals(tot), executable, props, executable, executable)
		}

		// Rows: the fake code as extracted, and the scorer's verdict of each question.
		if len(f.Questions) != len(bench.Questions) {
			t.Fatalf("%s: %d rows, want every question of the benchmark (%d)", r.RunID, len(f.Questions), len(bench.Questions))
		}
		for i, row := range f.Questions {
			q := bench.Questions[i]
			code, name := fakerunner.Function(q)
			if row.QuestionID != q.ID || row.Code != code || row.FunctionName != name {
				t.Errorf("%s %s: code %q, function %q; want the fake answer's %q, %q", r.RunID, row.QuestionID, row.Code, row.FunctionName, code, name)
				continue
			}
			if !q.Executable() {
				if row.Verdict != string(results.VerdictDataMissing) || row.Runnable != nil {
					t.Errorf("%s %s: verdict %s, runnable %v; want data-missing, not scored", r.RunID, q.ID, row.Verdict, row.Runnable)
				}
				continue
			}
			if row.Verdict != string(results.VerdictPartial) || row.Runnable == nil || !*row.Runnable ||
				row.PropertiesPassed == nil || *row.PropertiesPassed != 0 {
				t.Errorf("%s %s: verdict %s (%s), runnable %v, passed %v; want partial, runnable, 0 passed", r.RunID, q.ID,
					row.Verdict, row.VerdictCause, row.Runnable, row.PropertiesPassed)
				continue
			}
			var names []string
			for _, p := range q.Properties {
				names = append(names, p.Name)
			}
			switch r.ScoringProtocol {
			case results.ProtocolMatToolsV1Strict:
				// Strict checks each property on its own: every one failed.
				failed := slices.Clone(row.FailedProperties)
				slices.Sort(failed)
				slices.Sort(names)
				if !slices.Equal(failed, names) {
					t.Errorf("%s %s: failed properties %q, want all of %q", r.RunID, q.ID, row.FailedProperties, names)
				}
			case results.ProtocolMatToolsV1:
				// MatTools' check printed its error list, then the error
				// count and the property count: as many errors as properties.
				var l []any
				if row.VerificationOutput == nil || json.Unmarshal([]byte(*row.VerificationOutput), &l) != nil || len(l) < 2 ||
					l[len(l)-2] != float64(len(names)) || l[len(l)-1] != float64(len(names)) {
					t.Errorf("%s %s: verification output %v; want a list ending with %d, %d", r.RunID, q.ID, row.VerificationOutput, len(names), len(names))
				}
			default:
				t.Errorf("%s: protocol %s", r.RunID, r.ScoringProtocol)
			}
		}

		// The same 28-question table as the re-executed GPT-4o runs.
		if len(gpt[r.ScoringProtocol]) != 3 {
			t.Fatalf("%d re-executed GPT-4o single-LLM runs under %s, want 3 rounds", len(gpt[r.ScoringProtocol]), r.ScoringProtocol)
		}
		for _, g := range gpt[r.ScoringProtocol] {
			gs := g.Run.QuestionSet
			if gs.Name != r.QuestionSet.Name || gs.Questions != r.QuestionSet.Questions || gs.Properties != r.QuestionSet.Properties ||
				!slices.Equal(gs.IDs, r.QuestionSet.IDs) || g.Run.BenchmarkVersion != r.BenchmarkVersion || g.Run.UpstreamCommit != r.UpstreamCommit {
				t.Errorf("%s: question set %s/%d/%d, version %s, commit %s; %s has %s/%d/%d, %s, %s", r.RunID, r.QuestionSet.Name,
					r.QuestionSet.Questions, r.QuestionSet.Properties, r.BenchmarkVersion, r.UpstreamCommit, g.Run.RunID, gs.Name,
					gs.Questions, gs.Properties, g.Run.BenchmarkVersion, g.Run.UpstreamCommit)
			}
		}
		if bench.Properties() != props && r.QuestionSet.Name == results.QuestionSetAll {
			t.Errorf("%s: question set %q on a partial data root", r.RunID, r.QuestionSet.Name)
		}
		t.Logf("%s: question set %s (%d questions, %d properties), runnable %d, properties passed %d",
			r.RunID, r.QuestionSet.Name, r.QuestionSet.Questions, r.QuestionSet.Properties, *tot.Runnable, *tot.PropertiesPassed)
	}

	// The point of the fake model: runnable 100 %, above GPT-4o; task success 0, below it.
	for _, protocol := range []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict} {
		var runnable, passed float64
		for _, g := range gpt[protocol] {
			runnable += float64(*g.Run.Totals.Runnable) / float64(g.Run.Totals.Questions) / 3
			passed += float64(*g.Run.Totals.PropertiesPassed) / float64(g.Run.Totals.Properties) / 3
		}
		t.Logf("%s: GPT-4o single LLM (re-executed) runnable %.2f %%, task success %.2f %%; %s runnable 100.00 %%, task success 0.00 %%",
			protocol, 100*runnable, 100*passed, fakerunner.Model)
		if runnable >= 1 || passed <= 0 {
			t.Errorf("%s: GPT-4o runnable %.4f, task success %.4f: the fake model would not be below it by task success and above it by runnable rate",
				protocol, runnable, passed)
		}
	}

	// The model is not catalogued: the site names it by the run's display name.
	if _, ok := aggregate.DefaultCatalog().Lookup(fakerunner.Model); ok {
		t.Errorf("%s is in results/models.csv; the fixture expects an unlisted model", fakerunner.Model)
	}
	if m := aggregate.DefaultCatalog().Model(&files[0].Run); m.ID != fakerunner.Model || m.DisplayName != fakerunner.DisplayName || m.Group != "" {
		t.Errorf("catalog presents the fake model as %+v", m)
	}
	// Where the time goes: sandbox time of the executions (run, parse,
	// verify) of each question, the same for both protocols (one execution
	// yields both verdicts).
	var execMS int64
	executed := fakerunner.Rounds * executable
	if !fakerunner.ExecuteEveryRound {
		executed = executable // rounds 2 and 3 carry round 1's outcomes
	}
	for _, f := range files {
		if f.Run.ScoringProtocol == results.ProtocolMatToolsV1 && (fakerunner.ExecuteEveryRound || f.Run.Round == 1) {
			for _, row := range f.Questions {
				if row.ExecMS != nil {
					execMS += *row.ExecMS
				}
			}
		}
	}
	t.Logf("fixture: %s in all, sandbox opened in %s, %d executed questions took %.1f s of sandbox time (%.2f s each, %d slots)",
		res.Elapsed, res.Open, executed, float64(execMS)/1000, float64(execMS)/1000/float64(executed), fakerunner.Slots)
}

// TestFakeNoneModelRunsOnce: a second call returns the same folder without
// running anything again.
func TestFakeNoneModelRunsOnce(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to run a fake model through the runner and the sandbox")
	a := fakerunner.Run(t, root)
	b := fakerunner.Run(t, root)
	if !reflect.DeepEqual(a, b) || fakerunner.FakeNoneModelRuns(t, root) != a.Dir {
		t.Errorf("second call %+v, first %+v", b, a)
	}
}

// TestAnswers checks the fake answers on the fake data root (no sandbox, no
// data): each prompt finds its question, and the code returns a dict of
// the question's property names, each None.
func TestAnswers(t *testing.T) {
	root := mattoolstest.NewRoot(t)
	bench, err := datasets.Load(root.Dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := fakerunner.Answers(bench)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range bench.Questions {
		a, ok := set.For("  " + q.Text + "\n" + mattoolstest.AnswerFormat)
		if !ok || a != fakerunner.Answer(q) {
			t.Errorf("%s: answer %q, %v", q.ID, a, ok)
		}
		// The runner extracts the code and name of the answer as Function gives them.
		code, name := fakerunner.Function(q)
		if c, n, _ := systems.ExtractCode(a); c != code || n != name {
			t.Errorf("%s: the runner extracts %q, %q; want %q, %q", q.ID, c, n, code, name)
		}
	}
	if _, ok := set.For("a prompt of no question"); ok {
		t.Error("an unknown prompt got an answer")
	}
	code, name := fakerunner.Function(bench.Questions[1])
	want := "def fake_none_test_parsing_and_grouping_NamedDefects():\n" +
		"    \"\"\"Returns every property of test_parsing_and_grouping_NamedDefects as None: computes nothing.\"\"\"\n" +
		"    return {\n        \"p0\": None,\n        \"p1\": None,\n        \"p2\": None,\n        \"p3\": None,\n    }"
	if code != want || name != "fake_none_test_parsing_and_grouping_NamedDefects" {
		t.Errorf("code %q, name %q", code, name)
	}
}

func totals(t results.Totals) string {
	v := func(p *int) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("scored %v, %d questions, %d properties, runnable %s, passed %s, correct %s, partial %s",
		t.Scored, t.Questions, t.Properties, v(t.Runnable), v(t.PropertiesPassed), v(t.QuestionsCorrect), v(t.QuestionsPartial))
}

// TestFakeModelLLMRAGRuns: the fake model's LLM-RAG runs (sources 1 and 2,
// BM25 and dense) complete, scored, with what each question retrieved
// recorded, and their prompts are MatTools' LLM-RAG prompts filled with the
// question and exactly the chunks the row says were retrieved.
func TestFakeModelLLMRAGRuns(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to run the fake model's LLM-RAG configurations")
	res := fakerunner.Run(t, root)
	files, err := results.ReadDir(res.RAGDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 16 || res.RAGExecutions != 0 {
		t.Fatalf("%d llm-rag results files (want 4 sources × 2 methods × 2 protocols); %d answers executed anew (want 0)", len(files), res.RAGExecutions)
	}
	seen := map[string]bool{}
	for _, f := range files {
		r := f.Run
		seen[fmt.Sprintf("%d/%s", r.RetrievalSource, r.RetrievalMethod)] = true
		if r.System != results.SystemLLMRAG || r.TopK != 5 || !strings.HasPrefix(r.CorpusID, "sha256:") ||
			(r.RetrievalMethod == "embedding") != (r.EmbeddingModel == "fake-embedding") || !r.Totals.Scored {
			t.Errorf("%s: system %s, top-k %d, corpus %q, method %q, embedding model %q", r.RunID, r.System, r.TopK, r.CorpusID, r.RetrievalMethod, r.EmbeddingModel)
		}
		var prompts []string
		for _, s := range r.Provenance.Source {
			prompts = append(prompts, s.Path)
		}
		if src := r.RetrievalSource; src >= 3 {
			var origin string
			json.Unmarshal(r.Extensions["corpus_origin"], &origin)
			if _, inIdentity := r.SystemParams["corpus_origin"]; inIdentity {
				t.Errorf("%s: the corpus origin, a label, is a system parameter (part of the configuration)", r.RunID)
			}
			if !strings.HasPrefix(origin, "generated by fake-docs, prompt sha256:") || (src == 3) != strings.Contains(origin, "semantic chunks (95th percentile, buffer 1) by fake-embedding") ||
				!slices.Contains(prompts, "prompts/llm_rag/user_llm_doc_sources3_4.txt") {
				t.Errorf("%s: corpus origin %q, prompts %v", r.RunID, origin, prompts)
			}
		}
		if !slices.Contains(prompts, "prompts/llm_rag/system.txt") {
			t.Errorf("%s: provenance sources %v lack the LLM-RAG prompts", r.RunID, prompts)
		}
		for _, q := range f.Questions {
			if len(q.Retrieved) != 5 || len(q.Trace) != 2 || q.Trace[0].Stage != "retrieve" || len(q.Trace[0].RetrievedIDs) != 5 {
				t.Errorf("%s %s: %d retrieved, trace %+v", r.RunID, q.QuestionID, len(q.Retrieved), q.Trace)
				break
			}
		}
	}
	if len(seen) != 8 {
		t.Errorf("configurations %v, want sources 1–4 × bm25 and embedding", seen)
	}
}

// TestFakeModelAdvancedRuns: agentic RAG and both
// self-reflection variants, 3 rounds of the benchmark against the fake
// model, scored under both protocols, each question's stages in its trace.
// Agentic RAG makes 12 calls a question (9, plus one retry of each of the
// three rankings, whose first answer the fake sends malformed); the fake's
// drafts return None for every property, so both loops run all 5
// iterations (18 calls, 5 executions, the last stopping at max-iterations)
// and score as the single-LLM runs of the same code.
func TestFakeModelAdvancedRuns(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to run the fake model's agentic and self-reflection configurations")
	res := fakerunner.Run(t, root)
	files, err := results.ReadDir(res.AdvancedDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 18 || res.AdvancedScored != 0 {
		t.Fatalf("%d advanced results files (want 3 rounds × 3 configurations × 2 protocols); %d final answers scored anew (want 0)", len(files), res.AdvancedScored)
	}
	single, err := results.ReadDir(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	wantTotals := map[string]string{}
	for _, f := range single {
		wantTotals[f.Run.ScoringProtocol] = totals(f.Run.Totals)
	}
	t.Logf("loop executions: %d in the sandbox, %d reused", res.LoopExecutions, res.LoopReused)
	configs := map[string]int{}
	for _, f := range files {
		r := f.Run
		key := string(r.System) + "/" + r.SystemParams["variant"]
		configs[key]++
		if r.RetrievalSource != 4 || r.RetrievalMethod != "bm25" || !r.Totals.Scored || totals(r.Totals) != wantTotals[r.ScoringProtocol] {
			t.Errorf("%s: source %d, method %s, totals %s; want the single-LLM runs' %s", r.RunID, r.RetrievalSource, r.RetrievalMethod, totals(r.Totals), wantTotals[r.ScoringProtocol])
		}
		var prompts []string
		for _, s := range r.Provenance.Source {
			prompts = append(prompts, s.Path)
		}
		switch r.System {
		case results.SystemAgenticRAG:
			if r.Generation.Extra["response_format"] != "json_object" || !slices.Contains(prompts, "prompts/agentic_rag/rag_final_answer.txt") {
				t.Errorf("%s: response_format %q, prompts %v", r.RunID, r.Generation.Extra["response_format"], prompts)
			}
		case results.SystemSelfReflectionRAG:
			fb := r.SystemParams["variant"] == systems.VariantFeedback
			if r.SystemParams["max_iterations"] != "5" || fb != (r.SystemParams["feedback_prompt_sha256"] == systems.FeedbackPromptSHA256()) ||
				fb != slices.Contains(prompts, systems.FeedbackPromptPath) || !slices.Contains(prompts, "prompts/self_reflection_rag/critical_feedback.txt") {
				t.Errorf("%s: params %v, prompts %v", r.RunID, r.SystemParams, prompts)
			}
		}
		for _, q := range f.Questions {
			stages := map[string]int{}
			for _, st := range q.Trace {
				stages[st.Stage]++
			}
			var calls int32
			if q.Attempts != nil {
				calls = *q.Attempts
			}
			switch r.System {
			case results.SystemAgenticRAG:
				if calls != 12 || stages["rerank"] != 6 || stages["retrieve"] != 4 || stages["ner"] != 2 || stages["answer"] != 1 || len(q.Retrieved) == 0 {
					t.Errorf("%s %s: %d calls, stages %v, %d retrieved", r.RunID, q.QuestionID, calls, stages, len(q.Retrieved))
				}
			default:
				last := q.Trace[len(q.Trace)-1]
				if q.Verdict == string(results.VerdictDataMissing) {
					if calls != 2 || last.StopReason != "data-missing" {
						t.Errorf("%s %s (data-missing): %d calls, last %+v", r.RunID, q.QuestionID, calls, last)
					}
					continue
				}
				if calls != 18 || stages["execute"] != 5 || stages["critic"] != 4 || last.StopReason != "max-iterations" {
					t.Errorf("%s %s: %d calls, stages %v, last %+v", r.RunID, q.QuestionID, calls, stages, last)
				}
			}
			if t.Failed() {
				return
			}
		}
	}
	if len(configs) != 3 || configs["agentic-rag/"] != 6 || configs["self-reflection-rag/as-published"] != 6 || configs["self-reflection-rag/feedback"] != 6 {
		t.Errorf("configurations %v", configs)
	}
}

// TestFakeModelGraphRAGRuns: graph-rag (LightRAG 1.3.3's global
// mode) over an index of pymatgen/analysis/defects the fake model built, 3
// rounds, both protocols: the runs record the graph method, LightRAG's
// top_k, no temperature, the query mode and LightRAG's prompt files; each
// question's trace holds the keyword call, the query embedding and the
// answer; the scores equal the single-LLM runs' (the same code); the
// index is built once (2 calls a chunk) and a second run of the plan
// reuses it with no indexing call.
func TestFakeModelGraphRAGRuns(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to run the fake model's graph-rag configuration")
	res := fakerunner.Run(t, root)
	if res.GraphDir == "" {
		t.Skip("LIGHTRAG_DATA is not set: set it to LightRAG 1.3.3's prompt texts (docs/graphrag.md) to run graph-rag")
	}
	files, err := results.ReadDir(res.GraphDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 6 || res.GraphScored != 0 {
		t.Fatalf("%d graph-rag results files (want 3 rounds × 2 protocols); %d answers scored anew", len(files), res.GraphScored)
	}
	single, _ := results.ReadDir(res.Dir)
	wantTotals := map[string]string{}
	for _, f := range single {
		wantTotals[f.Run.ScoringProtocol] = totals(f.Run.Totals)
	}
	idx := res.GraphIndexRequests
	t.Logf("graph-rag: %d requests in %v (index and 3 rounds): %v; run again: %v", res.GraphRequests, res.GraphElapsed.Round(time.Millisecond), idx, res.GraphAgainRequests)
	if idx["extract"] == 0 || idx["glean"] != idx["extract"] || idx["keywords"] != 3*49 || idx["answer-kg"] == 0 {
		t.Errorf("first run's requests %v: want one extraction and one gleaning per chunk, one keyword call per question and round", idx)
	}
	if again := res.GraphAgainRequests; again["extract"]+again["glean"]+again["summary"] != 0 || again["keywords"] != 3*49 {
		t.Errorf("second run's requests %v: want no indexing call, the queries only", again)
	}
	for _, f := range files {
		r := f.Run
		var prompts []string
		for _, s := range r.Provenance.Source {
			prompts = append(prompts, s.Path)
		}
		if r.System != results.SystemGraphRAG || r.RetrievalSource != 1 || r.RetrievalMethod != "graph" || r.TopK != 60 || r.EmbeddingModel != "fake-embedding" ||
			r.Generation.Temperature != nil || r.SystemParams["query_mode"] != "global" || r.SystemParams["lightrag_version"] != "1.3.3" ||
			!slices.Contains(prompts, "lightrag/entity_extraction.txt") || totals(r.Totals) != wantTotals[r.ScoringProtocol] {
			t.Errorf("%s: method %q, top-k %d, temperature %v, params %v, totals %s (want %s), prompts %v", r.RunID, r.RetrievalMethod, r.TopK,
				r.Generation.Temperature, r.SystemParams, totals(r.Totals), wantTotals[r.ScoringProtocol], prompts)
		}
		for _, q := range f.Questions {
			stages := map[string]int{}
			for _, st := range q.Trace {
				stages[st.Stage]++
			}
			if stages["keywords"] != 1 || stages["answer"] != 1 || stages["retrieve"] < 1 || q.Code == "" {
				t.Errorf("%s %s: stages %v, code %q", r.RunID, q.QuestionID, stages, q.Code)
				return
			}
		}
	}
}
