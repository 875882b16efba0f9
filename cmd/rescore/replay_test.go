package main

// The scoring acceptance check: MatTools' recorded GPT answers,
// replayed over HTTP through the runner with scoring, get per question the
// same verdicts as rescore's rescoring of the same published jsonl, under
// both protocols.
//
// Two modes:
//   - by default (make test, CI): gpt-4o-2024-08-06 round 1, three
//     questions, replayed and rescored here;
//   - with MATTOOLS_REPLAY_DIR and MATTOOLS_RESCORED_DIR (make replay-check):
//     the results files `make replay` and rescore wrote there, which must
//     hold the 9 runs (3 GPT models × rounds 1–3) × 2 protocols.

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/replay"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

func TestReplayedRunsScoreAsRescore(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to replay MatTools' recorded GPT batches")
	replayDir, rescoredDir := os.Getenv("MATTOOLS_REPLAY_DIR"), os.Getenv("MATTOOLS_RESCORED_DIR")
	if replayDir != "" && rescoredDir != "" {
		pairs := compareDirs(t, replayDir, rescoredDir)
		if len(pairs) != 18 {
			t.Errorf("%d runner runs with a rescored counterpart; want 3 GPT models × 3 rounds × 2 protocols = 18", len(pairs))
		}
		return
	}
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	const model = "gpt-4o-2024-08-06"
	questions := []string{"test_vacancy", "test_pchip_eval", "test_boltzmann"}

	// The runner, replaying round 1 over HTTP on 127.0.0.1, scoring three questions.
	batches, err := replay.LoadRecorded(root, []int{1}, []string{model})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := replay.NewServer(0, batches...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(rs)
	defer hs.Close()
	p, err := plan.Parse([]byte(fmt.Sprintf("rounds = 1\nconcurrency = 4\n[[models]]\nname = %q\nbase_url = %q\ntemperature = 0.7\n",
		model, hs.URL+"/round{round}/v1")), "replay-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := scoring.Restrict(bench, questions); err != nil {
		t.Fatal(err)
	}
	sc, err := scoring.Open(context.Background(), "auto", root, sandbox.Options{Slots: 2, Python: python})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	runnerOut := t.TempDir()
	res, err := runner.Run(context.Background(), runner.Options{Plan: p, DataRoot: root, PromptsCache: t.TempDir(), OutDir: runnerOut, Scorer: sc, Benchmark: bench})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d runs; want one per protocol", len(res))
	}

	// rescore, on the published jsonl of the same run.
	rescoredOut := t.TempDir()
	var stdout, stderr bytes.Buffer
	in := filepath.Join(root, replay.PureAgentDir, "round1", model)
	if code := run(context.Background(), []string{"-quiet", "-slots", "2", "-out", rescoredOut, "-questions", strings.Join(questions, ","), in},
		&stdout, &stderr); code != exitOK {
		t.Fatalf("rescore: exit %d: %s", code, stderr.String())
	}
	if pairs := compareDirs(t, runnerOut, rescoredOut); len(pairs) != 2 {
		t.Errorf("%d runner runs with a rescored counterpart; want 2", len(pairs))
	}
}

// pair is a runner run and the rescored run of the same published code.
type pair struct{ runner, rescored *results.File }

// compareDirs matches every tool-usage runner run in runnerDir with the
// rescored run in rescoredDir derived from the published run of the same
// model and round, under the same protocol, and checks that they have the
// same question set and, question by question, the same code, verdict,
// cause, runnable and properties passed. It logs one line per pair with the
// totals next to the published ones, and returns the pairs.
func compareDirs(t *testing.T, runnerDir, rescoredDir string) []pair {
	t.Helper()
	runs, err := results.ReadDir(runnerDir)
	if err != nil {
		t.Fatal(err)
	}
	rescored, err := results.ReadDir(rescoredDir)
	if err != nil {
		t.Fatal(err)
	}
	byOrigin := map[string]*results.File{}
	for _, f := range rescored {
		byOrigin[f.Run.Provenance.DerivedFrom+"|"+f.Run.ScoringProtocol] = f
	}
	published := publishedTotals(t)
	var pairs []pair
	equal, compared := 0, 0
	for _, f := range runs {
		r := f.Run
		if r.Provenance.Kind != results.ProvenanceRunner || r.Benchmark != results.BenchmarkToolUsage {
			continue
		}
		imported := results.Run{Provenance: results.Provenance{Kind: results.ProvenanceImported}, Benchmark: results.BenchmarkToolUsage,
			System: r.System, RetrievalSource: r.RetrievalSource, Model: r.Model, ScoringProtocol: results.ProtocolMatToolsOriginal,
			QuestionSet: results.QuestionSet{Name: results.QuestionSetAll}, Round: r.Round}
		g := byOrigin[results.MakeRunID(&imported)+"|"+r.ScoringProtocol]
		if g == nil {
			t.Errorf("%s: no rescored run of %s round %d under %s in %s", r.RunID, r.Model, r.Round, r.ScoringProtocol, rescoredDir)
			continue
		}
		pairs = append(pairs, pair{f, g})
		if a, b := r.QuestionSet, g.Run.QuestionSet; a.Name != b.Name || a.Questions != b.Questions || a.Properties != b.Properties ||
			strings.Join(a.IDs, ",") != strings.Join(b.IDs, ",") {
			t.Errorf("%s: question set %+v; rescored %+v", r.RunID, a, b)
		}
		if len(f.Questions) != 49 || len(g.Questions) != 49 {
			t.Fatalf("%s: %d rows, rescored %d; want 49", r.RunID, len(f.Questions), len(g.Questions))
		}
		same := 0
		for i, q := range f.Questions {
			compared++
			h := g.Questions[i]
			if a, b := outcome(q), outcome(h); a != b || q.Code != h.Code || q.FunctionName != h.FunctionName {
				t.Errorf("%s %s: runner %s; rescore %s (same code: %v)", r.RunID, q.QuestionID, a, b, q.Code == h.Code && q.FunctionName == h.FunctionName)
				continue
			}
			same++
		}
		equal += same
		pub := published[r.Model+"|"+fmt.Sprint(r.Round)]
		t.Logf("%-24s r%d %-18s runner: runnable %2d/%d, passed %2d/%d | rescore: %2d/%d, %2d/%d | equal %d/49 | published %s",
			r.Model, r.Round, r.ScoringProtocol, *r.Totals.Runnable, r.Totals.Questions, *r.Totals.PropertiesPassed, r.Totals.Properties,
			*g.Run.Totals.Runnable, g.Run.Totals.Questions, *g.Run.Totals.PropertiesPassed, g.Run.Totals.Properties, same, pub)
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].runner.Run.RunID < pairs[j].runner.Run.RunID })
	t.Logf("%d of %d question outcomes equal (verdict, cause, runnable, properties passed, code) in %d runs", equal, compared, len(pairs))
	return pairs
}

// outcome renders what must agree between a runner row and a rescored row
// (besides the code, compared apart).
func outcome(q results.QuestionRow) string {
	rn, pp := "null", "null"
	if q.Runnable != nil {
		rn, pp = boolText(*q.Runnable), itoa(int(*q.PropertiesPassed))
	}
	return fmt.Sprintf("%s %s/%q runnable=%s passed=%s", q.QuestionID, q.Verdict, q.VerdictCause, rn, pp)
}

// publishedTotals reads the published runnable and success counts (out of
// 49 and 138) of the single-LLM runs by "model|round".
func publishedTotals(t *testing.T) map[string]string {
	t.Helper()
	fh, err := os.Open("../../results/published/testdata/paper-runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, rec := range recs[1:] {
		// family,model,method,round,runnable,runnable_total,success,success_total,source
		if rec[0] == "pure_agent_test" {
			out[rec[1]+"|"+rec[3]] = fmt.Sprintf("runnable %s/%s, success %s/%s", rec[4], rec[5], rec[6], rec[7])
		}
	}
	return out
}
