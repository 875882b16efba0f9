package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// TestRescoreJSONLThenParquet rescores three real questions of MatTools'
// single-LLM GPT-4o round 1 from its jsonl, then rescores our own Parquet
// output, and checks both give the same verdicts and counts.
func TestRescoreJSONLThenParquet(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to rescore the MatTools runs")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	in := filepath.Join(root, "src", "pure_agent_test", "round1", "gpt-4o-2024-08-06")
	out1, out2 := t.TempDir(), t.TempDir()
	questions := "test_vacancy,test_pchip_eval,test_boltzmann"
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-quiet", "-slots", "2", "-out", out1, "-questions", questions, in}, &stdout, &stderr); code != exitOK {
		t.Fatalf("rescore jsonl: exit %d: %s", code, stderr.String())
	}
	files, err := filepath.Glob(filepath.Join(out1, "*.parquet"))
	if err != nil || len(files) != 2 {
		t.Fatalf("outputs %v (%v); want one file per protocol", files, err)
	}
	// want: test_vacancy gets 4 of 10 properties, test_boltzmann is correct
	// (1 of 1), test_pchip_eval imports a name pymatgen-analysis-defects
	// 2024.7.19 does not have: not runnable under both protocols.
	want := map[string]string{
		"test_vacancy":    "partial  true 4",
		"test_boltzmann":  "correct  true 1",
		"test_pchip_eval": "not-runnable exception:ImportError false 0",
	}
	first := map[string]string{}
	for _, path := range files {
		f, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		r := f.Run
		if r.Provenance.Kind != results.ProvenanceRescored || r.Provenance.DerivedFrom != "imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-original__r1" ||
			r.System != results.SystemSingleLLM || r.Model != "gpt-4o-2024-08-06" || r.Round != 1 {
			t.Errorf("%s: run identity %+v", path, r)
		}
		if r.QuestionSet.Questions != 3 || r.QuestionSet.Properties != 12 || r.QuestionSet.Name == results.QuestionSetAll {
			t.Errorf("%s: question set %+v; want the 3-question subset with 10+1+1 properties", path, r.QuestionSet)
		}
		if r.Environment.Libraries["pymatgen"] != "2024.8.9" || r.Environment.Sandbox == nil || r.Environment.Sandbox.TimeoutSeconds != scoring.DefaultLimits.Wall.Seconds() ||
			r.Environment.Sandbox.Limits["cpu"] != scoring.DefaultLimits.CPU.String() || r.Environment.Sandbox.LockSHA256 != lockSHA256(t) {
			t.Errorf("%s: environment %+v; want the lock stamp %s", path, r.Environment, lockSHA256(t))
		}
		if *r.Totals.Runnable != 2 || *r.Totals.PropertiesPassed != 5 {
			t.Errorf("%s: runnable %d, passed %d; want 2 (vacancy, boltzmann) and 5 (4 + 1)", path, *r.Totals.Runnable, *r.Totals.PropertiesPassed)
		}
		for _, q := range f.Questions {
			// Every scored strict row has its per-property outcomes (format v3).
			if q.Verdict != string(results.VerdictDataMissing) && r.ScoringProtocol == results.ProtocolMatToolsV1Strict && len(q.PropertyOutcomes) != int(q.PropertyCount) {
				t.Errorf("%s: %s has %d property outcomes for %d properties", path, q.QuestionID, len(q.PropertyOutcomes), q.PropertyCount)
			}
			if q.Verdict == string(results.VerdictDataMissing) {
				continue
			}
			got := q.Verdict + " " + q.VerdictCause + " " + boolText(*q.Runnable) + " " + itoa(int(*q.PropertiesPassed))
			if got != want[q.QuestionID] {
				t.Errorf("%s %s: %q, want %q", r.ScoringProtocol, q.QuestionID, got, want[q.QuestionID])
			}
			first[r.ScoringProtocol+"/"+q.QuestionID] = got
			if q.ExecMS == nil || *q.ExecMS <= 0 || q.StdoutExcerpt == nil {
				t.Errorf("%s %s: exec_ms %v, stdout excerpt %v; want both (the code ran)", r.ScoringProtocol, q.QuestionID, q.ExecMS, q.StdoutExcerpt)
			}
			// The check's output is recorded under mattools-v1 ("ok" for the
			// correct question, as json.dumps prints it: "ok" quoted; the JSON list of errors and counts for the
			// partial one); strict names the failed properties instead.
			switch {
			case q.QuestionID == "test_pchip_eval":
				if q.VerificationOutput != nil || len(q.FailedProperties) != 0 || q.ErrorExcerpt == nil || !strings.Contains(*q.ErrorExcerpt, "ImportError") {
					t.Errorf("%s %s: not runnable, but verification %v, failed %q, error %v", r.ScoringProtocol, q.QuestionID, q.VerificationOutput, q.FailedProperties, q.ErrorExcerpt)
				}
			case r.ScoringProtocol == results.ProtocolMatToolsV1:
				if q.VerificationOutput == nil || (q.QuestionID == "test_boltzmann") != (*q.VerificationOutput == `"ok"`) ||
					q.QuestionID == "test_vacancy" && !strings.HasSuffix(*q.VerificationOutput, ", 6, 10]") || len(q.FailedProperties) != 0 {
					t.Errorf("v1 %s: verification output %q, failed %q; want \"ok\" or a list ending in 6, 10 (6 errors of 10)", q.QuestionID, deref(q.VerificationOutput), q.FailedProperties)
				}
			default:
				if q.VerificationOutput != nil || len(q.FailedProperties) != int(q.PropertyCount-*q.PropertiesPassed) {
					t.Errorf("strict %s: verification output %v, failed %q; want none and %d names", q.QuestionID, q.VerificationOutput, q.FailedProperties, q.PropertyCount-*q.PropertiesPassed)
				}
			}
		}
	}
	// Rescoring our own Parquet (the code it stores) gives the same verdicts.
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"-quiet", "-out", out2, "-questions", questions, files[0]}, &stdout, &stderr); code != exitOK {
		t.Fatalf("rescore parquet: exit %d: %s", code, stderr.String())
	}
	files2, _ := filepath.Glob(filepath.Join(out2, "*.parquet"))
	for _, path := range files2 {
		f, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range f.Questions {
			if q.Runnable == nil {
				continue
			}
			got := q.Verdict + " " + q.VerdictCause + " " + boolText(*q.Runnable) + " " + itoa(int(*q.PropertiesPassed))
			if got != first[f.Run.ScoringProtocol+"/"+q.QuestionID] {
				t.Errorf("parquet rescoring %s %s: %q; jsonl rescoring gave %q", f.Run.ScoringProtocol, q.QuestionID, got, first[f.Run.ScoringProtocol+"/"+q.QuestionID])
			}
		}
	}
	if !strings.Contains(stdout.String(), "mattools-v1-strict") {
		t.Errorf("summary: %q", stdout.String())
	}
}

// TestRescoreBadInputNamesTheFile: a jsonl with a wrong question order is
// refused with the file, line and field.
func TestRescoreBadInputNamesTheFile(t *testing.T) {
	root := mattoolstest.NewRoot(t)
	root.Write("src/pure_agent_test/round1/fake-model/function_generation_results.jsonl",
		[]byte(`{"question_file_path": "test_pchip_eval", "function": "", "function_name": ""}`+"\n"))
	dir := filepath.Join(root.Dir, "src/pure_agent_test/round1/fake-model")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-quiet", "-data", root.Dir, "-out", t.TempDir(), dir}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "function_generation_results.jsonl:1: question_file_path") {
		t.Errorf("exit %d, stderr %q; want 1 and an error naming the file, line 1 and question_file_path", code, stderr.String())
	}
}

// lockSHA256 is the SHA-256 of sandbox-env/requirements.lock, which
// scripts/sandbox-env.sh stamps into the sandbox's Python environment.
func lockSHA256(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../sandbox-env/requirements.lock")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func itoa(n int) string { return strconv.Itoa(n) }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestRescoredIDsKeepTheStoredIdentity: rescorings of runner runs that
// differ only in system parameters, or of two submitters' runs, get distinct
// run ids; a rescoring of imported code keeps its v1 id whatever its top-k.
func TestRescoredIDsKeepTheStoredIdentity(t *testing.T) {
	b := &datasets.Benchmark{Commit: results.UpstreamCommit}
	stored := func(mutate func(r *results.Run)) *storedRun {
		f := &results.File{Run: results.Run{System: results.SystemLLMRAG, RetrievalSource: 4, Model: "m", Round: 1,
			Provenance: results.Provenance{Kind: results.ProvenanceRunner}}}
		mutate(&f.Run)
		f.Run.RunID = results.MakeRunID(&f.Run)
		for i, id := range datasets.Order() {
			f.Questions = append(f.Questions, results.QuestionRow{QuestionIndex: int32(i), QuestionID: id, Code: "def f(): pass"})
		}
		s, err := storedFromFile(f, "in.parquet", results.SourceFile{Path: "in.parquet"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sub := func(folder string) func(r *results.Run) {
		return func(r *results.Run) {
			r.Provenance = results.Provenance{Kind: results.ProvenanceSubmitted,
				Submission: &results.Submission{Folder: folder, MetadataSHA256: strings.Repeat("0", 64)}}
		}
	}
	runs := map[string]*storedRun{
		"bm25":      stored(func(r *results.Run) { r.RetrievalMethod, r.TopK = "bm25", 5 }),
		"embedding": stored(func(r *results.Run) { r.RetrievalMethod, r.EmbeddingModel, r.TopK = "embedding", "e", 5 }),
		"params": stored(func(r *results.Run) {
			r.RetrievalMethod, r.TopK, r.SystemParams = "bm25", 5, map[string]string{"k1": "1.2"}
		}),
		"variant": stored(func(r *results.Run) { r.RetrievalMethod, r.TopK, r.Variant = "bm25", 5, "cot" }),
		"sub-a":   stored(sub("a")),
		"sub-b":   stored(sub("b")),
	}
	seen := map[string]string{}
	for name, s := range runs {
		run := baseRun(s, results.ProtocolMatToolsV1, b)
		if other, dup := seen[run.RunID]; dup {
			t.Errorf("rescorings of %s and %s share the id %s", name, other, run.RunID)
		}
		seen[run.RunID] = name
		if v := results.Validate(&results.File{Run: run}); v != nil && strings.Contains(v.Error(), "provenance") {
			t.Errorf("%s: %v", name, v)
		}
	}
	imp := stored(func(r *results.Run) {
		r.Provenance = results.Provenance{Kind: results.ProvenanceImported, Citation: "c"}
		r.TopK = 5
	})
	bare := stored(func(r *results.Run) {
		r.Provenance = results.Provenance{Kind: results.ProvenanceImported, Citation: "c"}
	})
	if a, b := baseRun(imp, results.ProtocolMatToolsV1, b).RunID, baseRun(bare, results.ProtocolMatToolsV1, b).RunID; a != b {
		t.Errorf("rescored imported ids depend on top-k: %s, %s", a, b)
	}
}

// TestRescoreKeepsRetrievedContext: rescoring a run of a retrieving system
// keeps, row by row, what was retrieved and the stage trace (the question
// pages of the rescored run show the same context).
func TestRescoreKeepsRetrievedContext(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to rescore a stored run")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	in := filepath.Join(root, "src", "pure_agent_test", "round1", "gpt-4o-2024-08-06")
	out1, out2 := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-quiet", "-out", out1, "-questions", "test_boltzmann", in}, &stdout, &stderr); code != exitOK {
		t.Fatalf("rescore: exit %d: %s", code, stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(out1, "*.parquet"))
	if len(files) == 0 {
		t.Fatal("no output")
	}
	f, err := results.Read(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// Make it a stored llm-rag run whose rows record their context.
	r := &f.Run
	r.System, r.RetrievalSource, r.RetrievalMethod, r.TopK = results.SystemLLMRAG, 1, "bm25", 5
	r.CorpusID = "sha256:" + strings.Repeat("ab", 32)
	r.RunID = results.MakeRunID(r)
	for i := range f.Questions {
		f.Questions[i].Retrieved = []results.RetrievedChunk{{ChunkID: "pymatgen/core/structure.py#3", Source: "pymatgen/core/structure.py", Score: 7.25, Rank: 1}}
		f.Questions[i].Trace = []results.TraceStage{{Stage: "retrieve", LatencyMS: 2, RetrievedIDs: []string{"pymatgen/core/structure.py#3"}}}
	}
	stored := filepath.Join(t.TempDir(), r.RunID+results.Extension)
	if err := results.Write(stored, f); err != nil {
		t.Fatal(err)
	}
	if code := run(context.Background(), []string{"-quiet", "-out", out2, "-questions", "test_boltzmann", stored}, &stdout, &stderr); code != exitOK {
		t.Fatalf("rescore the llm-rag run: exit %d: %s", code, stderr.String())
	}
	outs, _ := filepath.Glob(filepath.Join(out2, "*.parquet"))
	if len(outs) != 2 {
		t.Fatalf("outputs %v", outs)
	}
	for _, p := range outs {
		g, err := results.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if g.Run.System != results.SystemLLMRAG || g.Run.CorpusID != r.CorpusID {
			t.Errorf("%s: system %s, corpus %s", p, g.Run.System, g.Run.CorpusID)
		}
		for _, q := range g.Questions {
			if len(q.Retrieved) != 1 || q.Retrieved[0].Score != 7.25 || len(q.Trace) != 1 || q.Trace[0].Stage != "retrieve" {
				t.Errorf("%s %s: retrieved %+v, trace %+v; want the stored run's", p, q.QuestionID, q.Retrieved, q.Trace)
			}
		}
	}
}

// TestRescoredRunsDescribeRunTimeSystems: the rescoring of a run of a
// system registered at run time (described by its run's extension
// "system", which reading the run registers) carries the same
// description, so that readers that do not link the system accept it;
// the rescoring of a paper system's run carries none.
func TestRescoredRunsDescribeRunTimeSystems(t *testing.T) {
	b := &datasets.Benchmark{Commit: results.UpstreamCommit}
	const described = `{"name":"rescore-toy","title":"Rescore toy","board":"llm-rag","retrieval":{"plan_sources":true}}`
	for sys, want := range map[results.System]string{"rescore-toy": described, results.SystemSingleLLM: ""} {
		f := &results.File{Run: results.Run{System: sys, Model: "m", Round: 1, Provenance: results.Provenance{Kind: results.ProvenanceRunner}}}
		if want != "" {
			f.Run.RetrievalSource = 2
			f.Run.Extensions = map[string]json.RawMessage{results.ExtensionSystem: json.RawMessage(want)}
		}
		f.Run.RunID = results.MakeRunID(&f.Run)
		results.Validate(f) // registers the described system, as results.Read does
		if !results.KnownSystem(sys) {
			t.Fatalf("%s: not registered by reading its run", sys)
		}
		s, err := storedFromFile(f, "in.parquet", results.SourceFile{Path: "in.parquet"})
		if err != nil {
			t.Fatal(err)
		}
		run := baseRun(s, results.ProtocolMatToolsV1Strict, b)
		if got := string(run.Extensions[results.ExtensionSystem]); got != want || len(run.Extensions) != min(len(want), 1) {
			t.Errorf("%s: rescored run's extensions %s; want %s = %s and no other", sys, run.Extensions, results.ExtensionSystem, want)
		}
	}
}
