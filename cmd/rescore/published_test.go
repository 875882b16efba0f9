package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
)

// miniRoot links every entry of the data root but the run families, and of
// these only the single-LLM GPT-4o round-1 run folder: a root with one
// published tool-usage run.
func miniRoot(t *testing.T, root string) string {
	t.Helper()
	mini := t.TempDir()
	// The sandbox runs code under its own uids: they must reach the data.
	for _, d := range []string{mini, filepath.Dir(mini)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	families := map[string]bool{"pure_agent_test": true, "RAG_agent_test": true, "agentic_RAG_test": true, "mtr_rag_test": true}
	link := func(from, to string) {
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(from, to); err != nil {
			t.Fatal(err)
		}
	}
	top, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range top {
		if e.Name() != "src" {
			link(filepath.Join(root, e.Name()), filepath.Join(mini, e.Name()))
		}
	}
	src, err := os.ReadDir(filepath.Join(root, "src"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range src {
		if !families[e.Name()] {
			link(filepath.Join(root, "src", e.Name()), filepath.Join(mini, "src", e.Name()))
		}
	}
	// The run folder is a real folder (the importer's walk does not enter
	// linked folders below src/), its files links.
	run := filepath.Join("src", "pure_agent_test", "round1", "gpt-4o-2024-08-06")
	files, err := os.ReadDir(filepath.Join(root, run))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range files {
		link(filepath.Join(root, run, e.Name()), filepath.Join(mini, run, e.Name()))
	}
	return mini
}

// TestRescorePublishedIsIncremental re-executes two real questions of the
// published single-LLM GPT-4o round-1 run into a store, checks their
// verdicts, that a second invocation re-executes nothing and leaves the
// store byte-identical, and that the importer joins the store with the
// published code into one rescored run per protocol.
func TestRescorePublishedIsIncremental(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to re-execute the published runs")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	mini := miniRoot(t, root)
	store := filepath.Join(t.TempDir(), "reexecuted.json")
	args := []string{"-quiet", "-slots", "2", "-data", mini, "-all-published", "-store", store, "-questions", "test_vacancy,test_boltzmann"}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("first invocation: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "1 published tool-usage runs") || !strings.Contains(stderr.String(), "2 questions to re-execute, 0 kept") {
		t.Errorf("first invocation said:\n%s", stderr.String())
	}
	first, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	st, err := published.ReadReexecuted(store)
	if err != nil {
		t.Fatal(err)
	}
	const id = "imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-original__r1"
	rx := st.Runs[id]
	if rx == nil || len(st.Runs) != 1 || len(st.Environments) != 1 {
		t.Fatalf("store runs %v, %d environments", st.Runs, len(st.Environments))
	}
	env := st.Environments[rx.Environment]
	if env.Libraries["pymatgen"] != "2024.8.9" || env.Sandbox.LockSHA256 != lockSHA256(t) {
		t.Errorf("environment %+v; want pymatgen 2024.8.9 and the lock stamp", env)
	}
	var got []string
	for _, v := range rx.Rows {
		got = append(got, v.QuestionID+" "+v.Protocol+" "+string(v.Verdict)+" "+boolText(v.Runnable)+" "+itoa(v.PropertiesPassed))
	}
	// As TestRescoreJSONLThenParquet finds for the same code.
	want := "test_vacancy mattools-v1 partial true 4|test_vacancy mattools-v1-strict partial true 4|" +
		"test_boltzmann mattools-v1 correct true 1|test_boltzmann mattools-v1-strict correct true 1"
	if strings.Join(got, "|") != want {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	// Per-property outcomes: every property under strict, as many passed
	// as properties_passed; none for mattools-v1's partial test_vacancy.
	for _, v := range rx.Rows {
		passed := 0
		for _, o := range v.Outcomes {
			if o.Passed {
				passed++
			}
			if len(o.Message) > published.ReexecutedMessageBytes+len("…") {
				t.Errorf("%s %s: %s: message of %d bytes", v.QuestionID, v.Protocol, o.Property, len(o.Message))
			}
		}
		want := map[string]int{"test_vacancy": 10, "test_boltzmann": 1}[v.QuestionID]
		if v.Protocol == results.ProtocolMatToolsV1 && v.Verdict == results.VerdictPartial {
			want = 0
		}
		if !v.HasOutcomes || len(v.Outcomes) != want || (want > 0 && passed != v.PropertiesPassed) {
			t.Errorf("%s %s: outcomes %v (recorded %v); want %d, %d passed", v.QuestionID, v.Protocol, v.Outcomes, v.HasOutcomes, want, v.PropertiesPassed)
		}
	}

	stderr.Reset()
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("second invocation: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "0 questions to re-execute, 2 kept") {
		t.Errorf("second invocation said:\n%s", stderr.String())
	}
	if again, _ := os.ReadFile(store); !bytes.Equal(again, first) {
		t.Error("the second invocation changed the store")
	}

	// A store of the first form (rows without per-property outcomes, as
	// committed before) still loads; its questions are re-executed.
	old := strings.ReplaceAll(string(first), `,[["Boltzmann_Filling_Distribution",true,""]]]`, "]")
	if old == string(first) {
		t.Fatalf("test_boltzmann's outcomes not found in the store:\n%s", first)
	}
	if err := os.WriteFile(store, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if first, err := published.ReadReexecuted(store); err != nil || first.Runs[id].Rows[2].HasOutcomes {
		t.Fatalf("the first form's store: %v, row %+v", err, first.Runs[id].Rows[2])
	}
	stderr.Reset()
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("third invocation: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "1 questions to re-execute, 1 kept") || !strings.Contains(stderr.String(), "2 rows without per-property outcomes dropped") {
		t.Errorf("third invocation said:\n%s", stderr.String())
	}
	if again, _ := os.ReadFile(store); !bytes.Equal(again, first) {
		t.Errorf("re-executing the first form's rows gave\n%s\nwant\n%s", again, first)
	}

	imp, err := published.Read(mini, published.Options{Reexecuted: st})
	if err != nil {
		t.Fatal(err)
	}
	var rescored []*results.File
	for _, f := range imp.Files {
		if f.Run.Provenance.Kind == results.ProvenanceRescored {
			rescored = append(rescored, f)
		}
	}
	if len(rescored) != 2 {
		t.Fatalf("%d re-executed runs imported; want 2 (one per protocol)", len(rescored))
	}
	for _, f := range rescored {
		r := f.Run
		if r.Provenance.DerivedFrom != id || r.Provenance.Origin != results.ProvenanceImported || r.QuestionSet.Questions != 2 ||
			r.QuestionSet.Properties != 11 || *r.Totals.Runnable != 2 || *r.Totals.PropertiesPassed != 5 || len(f.Questions) != 49 {
			t.Errorf("%s: %+v, totals %+v, %d rows", r.RunID, r.Provenance, r.Totals, len(f.Questions))
		}
		if !strings.HasPrefix(r.RunID, "rescored-imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__"+r.ScoringProtocol+"__set-executable-") {
			t.Errorf("run id %s", r.RunID)
		}
		if err := results.Validate(f); err != nil {
			t.Error(err)
		}
		with := 0
		for _, q := range f.Questions {
			if len(q.PropertyOutcomes) > 0 {
				with++
			}
		}
		if want := map[string]int{results.ProtocolMatToolsV1: 1, results.ProtocolMatToolsV1Strict: 2}[r.ScoringProtocol]; with != want {
			t.Errorf("%s: %d rows with per-property outcomes; want %d", r.RunID, with, want)
		}
	}
}

// TestRescorePublishedAlongside re-executes the same two questions first into
// the store's main rows, then with -alongside into rows beside them (here in
// the same Python environment under another CPU limit, so under another
// environment id: the path make rescore-published SANDBOX_ENV=tasks takes),
// and checks that the main rows are unchanged, the alongside rows sit under
// "<run id>@again" with their own environment, the importer reads only the
// main rows, the verdicts compare equal, and -alongside is refused without
// -all-published or with a bad label.
func TestRescorePublishedAlongside(t *testing.T) {
	for _, bad := range [][]string{{"-alongside", "tasks", "x.jsonl"}, {"-all-published", "-alongside", "Tasks!"}} {
		var stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"-data", t.TempDir()}, bad...), io.Discard, &stderr); code != exitUsage ||
			!strings.Contains(stderr.String(), "-alongside") {
			t.Errorf("%v: exit %d, %s; want a usage error naming -alongside", bad, code, stderr.String())
		}
	}
	root := mattoolstest.DataRoot(t, "to re-execute the published runs")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	mini := miniRoot(t, root)
	store := filepath.Join(t.TempDir(), "reexecuted.json")
	args := []string{"-quiet", "-slots", "2", "-data", mini, "-all-published", "-store", store, "-questions", "test_vacancy,test_boltzmann"}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("main: exit %d: %s", code, stderr.String())
	}
	first, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), append(args, "-alongside", "again", "-cpu", "200s"), &stdout, &stderr); code != exitOK {
		t.Fatalf("alongside: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "2 questions to re-execute, 0 kept") {
		t.Errorf("alongside invocation said:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "verdicts that differ between the main environment and again: 0 of 4 question × protocol pairs compared") {
		t.Errorf("alongside invocation printed:\n%s", stdout.String())
	}
	st, err := published.ReadReexecuted(store)
	if err != nil {
		t.Fatal(err)
	}
	before, err := published.ReadReexecuted(writeFile(t, first))
	if err != nil {
		t.Fatal(err)
	}
	const id = "imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-original__r1"
	main, other := st.Runs[id], st.Runs[published.AlongsideKey(id, "again")]
	if main == nil || other == nil || len(st.Runs) != 2 || len(st.Environments) != 2 {
		t.Fatalf("store runs %v, %d environments; want the main run and %s@again in two environments", st.Runs, len(st.Environments), id)
	}
	if main.Environment != before.Runs[id].Environment || len(main.Rows) != len(before.Runs[id].Rows) || main.Environment == other.Environment {
		t.Errorf("main rows in %s (before %s), alongside rows in %s", main.Environment, before.Runs[id].Environment, other.Environment)
	}
	if cpu := st.Environments[other.Environment].Sandbox.Limits["cpu"]; cpu != "3m20s" {
		t.Errorf("alongside environment's CPU limit %q, want 3m20s", cpu)
	}
	for i, v := range other.Rows {
		if m := main.Rows[i]; m.QuestionID != v.QuestionID || m.Verdict != v.Verdict || m.PropertiesPassed != v.PropertiesPassed {
			t.Errorf("row %d: main %+v, alongside %+v", i, m, v)
		}
	}
	// A third invocation of either kind keeps everything.
	stderr.Reset()
	if code := run(context.Background(), append(args, "-alongside", "again", "-cpu", "200s"), io.Discard, &stderr); code != exitOK ||
		!strings.Contains(stderr.String(), "0 questions to re-execute, 2 kept") {
		t.Errorf("alongside again: exit %d: %s", code, stderr.String())
	}
	imp, err := published.Read(mini, published.Options{Reexecuted: st})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range imp.Files {
		if f.Run.Provenance.Kind == results.ProvenanceRescored && f.Run.Environment.Sandbox.Limits["cpu"] != st.Environments[main.Environment].Sandbox.Limits["cpu"] {
			t.Errorf("%s: imported from the alongside environment (cpu %s)", f.Run.RunID, f.Run.Environment.Sandbox.Limits["cpu"])
		}
	}
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "store.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
