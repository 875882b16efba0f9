package published

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

func sampleStore() *Reexecuted {
	st := NewReexecuted()
	env := ReexecutionEnvironment{Sandbox: results.Sandbox{Backend: "local", Version: "bubblewrap 0.8.0", TimeoutSeconds: 60},
		Libraries: map[string]string{"pymatgen": "2024.8.9"}}
	id := env.EnvironmentID()
	st.Environments[id] = env
	st.Runs["imported__tool-usage__single-llm__s0__m__mattools-original__r1"] = &ReexecutedRun{
		Source:      results.SourceFile{Path: "src/pure_agent_test/round1/m/function_generation_results.jsonl", SHA256: strings.Repeat("ab", 32)},
		Environment: id,
		Rows: []ReexecutedVerdict{
			{QuestionID: "test_b", Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictNotRunnable, Cause: "exception:ImportError"},
			{QuestionID: "test_a", Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: -1},
			{QuestionID: "test_a", Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: 3},
		},
	}
	// A run of the store's second form: per-property outcomes (none for
	// a mattools-v1 partial question).
	st.Runs["imported__tool-usage__single-llm__s0__m__mattools-original__r2"] = &ReexecutedRun{
		Source:      results.SourceFile{Path: "src/pure_agent_test/round2/m/function_generation_results.jsonl", SHA256: strings.Repeat("cd", 32)},
		Environment: id,
		Rows: []ReexecutedVerdict{
			{QuestionID: "test_a", Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: 1,
				HasOutcomes: true, Outcomes: []results.PropertyOutcome{}},
			{QuestionID: "test_a", Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: 1,
				HasOutcomes: true, Outcomes: []results.PropertyOutcome{{Property: "p1", Passed: true}, {Property: "p2", Message: "p2 mismatch: 1.0 != 2.0"}}},
			{QuestionID: "test_b", Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictNotRunnable, Cause: "exception:ImportError",
				HasOutcomes: true, Outcomes: []results.PropertyOutcome{{Property: "q", Message: "not-runnable: exception:ImportError"}}},
			{QuestionID: "test_b", Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictNotRunnable, Cause: "exception:ImportError",
				HasOutcomes: true, Outcomes: []results.PropertyOutcome{{Property: "q", Message: "not-runnable: exception:ImportError"}}},
		},
	}
	return st
}

// TestReexecutedStoreRoundTrip writes a store and reads it back: rows in
// evaluation order, one per line, and the same content.
func TestReexecutedStoreRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), ReexecutedFile)
	st := sampleStore()
	if err := st.Write(path, map[string]int{"test_a": 0, "test_b": 1}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "\n   [\"test_a\",\"mattools-v1\",\"partial\",\"\",true,-1],\n   [\"test_a\",\"mattools-v1-strict\",\"partial\",\"\",true,3],\n   [\"test_b\",") {
		t.Errorf("rows not one per line in evaluation order:\n%s", data)
	}
	back, err := ReadReexecuted(path)
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range st.Runs {
		b := back.Runs[id]
		if b == nil || b.Source != r.Source || b.Environment != r.Environment || len(b.Rows) != len(r.Rows) {
			t.Fatalf("run %s read back as %+v", id, b)
		}
		for i := range r.Rows {
			if !reflect.DeepEqual(b.Rows[i], r.Rows[i]) {
				t.Errorf("row %d: %+v, want %+v", i, b.Rows[i], r.Rows[i])
			}
		}
	}
	if !strings.Contains(string(data), `["test_a","mattools-v1-strict","partial","",true,1,[["p1",true,""],["p2",false,"p2 mismatch: 1.0 != 2.0"]]]`) ||
		!strings.Contains(string(data), `["test_a","mattools-v1","partial","",true,1,[]]`) {
		t.Errorf("per-property outcomes not written as [property, passed, message]:\n%s", data)
	}
	if b := back.Runs["imported__tool-usage__single-llm__s0__m__mattools-original__r1"].Rows[0]; b.HasOutcomes || b.Outcomes != nil {
		t.Errorf("a six-field row read back with outcomes: %+v", b)
	}
	if b := back.Runs["imported__tool-usage__single-llm__s0__m__mattools-original__r2"].Rows[0]; !b.HasOutcomes || b.Outcomes == nil {
		t.Errorf("a mattools-v1 partial row's empty outcomes read back as not recorded: %+v", b)
	}
	if empty, err := ReadReexecuted(filepath.Join(t.TempDir(), "none.json")); err != nil || len(empty.Runs) != 0 {
		t.Errorf("a missing store: %v, %v", empty, err)
	}
	if c, err := CommittedReexecuted(); err != nil || c.Runs == nil {
		t.Errorf("the committed store: %v", err)
	}
}

// TestReexecutedStoreRejects names the run and field of bad content.
func TestReexecutedStoreRejects(t *testing.T) {
	path := filepath.Join(t.TempDir(), ReexecutedFile)
	if err := sampleStore().Write(path, nil); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	for _, c := range []struct{ from, to, want string }{
		{`"partial","",true,3]`, `"partial","",true,-3]`, "properties_passed: -3 under mattools-v1-strict"},
		{`"not-runnable"`, `"data-missing"`, `verdict: "data-missing" is not the verdict of an executed question`},
		{`"mattools-v1-strict","not`, `"mattools-original","not`, `protocol: "mattools-original"`},
		{`,true,-1]`, `,true]`, "got 5 fields"},
		{`"test_b"`, `"test_a"`, "question test_a appears twice under mattools-v1-strict"},
		{`"environment": "`, `"environment": "0`, "is not among the environments"},
		{`"pymatgen": "2024.8.9"`, `"pymatgen": "2024.8.10"`, "its content hashes to"},
		{`"sha256":"abab`, `"sha256":"ab`, "want a path and a 64-digit SHA-256"},
		{`["p1",true,""]`, `["p1",false,""]`, "runs.imported__tool-usage__single-llm__s0__m__mattools-original__r2.rows[1]: property_outcomes: 0 of its 2 properties passed but properties_passed is 1"},
		{`["p1",true,""]`, `["p2",true,""]`, `property_outcomes[1].property: "p2" appears twice`},
		{`["p1",true,""]`, `["p1",true]`, "property_outcomes[0]: want [property, passed, message], got 2 fields"},
		{`["p1",true,""]`, `["",true,""]`, "property_outcomes[0].property: empty"},
		{`["q",false,"not-runnable: exception:ImportError"]]]`, `["q",1,""]]]`, "property_outcomes[0].passed"},
		{`"exception:ImportError",false,0,[["q",false,"not-runnable: exception:ImportError"]]]`, `"exception:ImportError",false,0,[]]`, "empty"},
	} {
		bad := strings.Replace(string(good), c.from, c.to, 1)
		if bad == string(good) {
			t.Fatalf("%q not in the store", c.from)
		}
		_, err := parseReexecuted([]byte(bad), "x.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.json") {
			t.Errorf("%s → %s: %v; want %q", c.from, c.to, err, c.want)
		}
	}
}

// TestStoredOutcomesCut cuts long messages at a UTF-8 boundary, marks the
// cut, and leaves short ones alone.
func TestStoredOutcomesCut(t *testing.T) {
	long := strings.Repeat("é", ReexecutedMessageBytes) // 2 bytes each
	got := StoredOutcomes([]results.PropertyOutcome{{Property: "a", Message: long}, {Property: "b", Passed: true}})
	if m := got[0].Message; !strings.HasSuffix(m, "…") || len(m) != ReexecutedMessageBytes+len("…") || !utf8.ValidString(m) {
		t.Errorf("cut message: %d bytes %q", len(m), m)
	}
	if got[1].Message != "" || !got[1].Passed {
		t.Errorf("short outcome changed: %+v", got[1])
	}
	if e := StoredOutcomes(nil); e == nil || len(e) != 0 {
		t.Errorf("StoredOutcomes(nil) = %#v; want an empty, non-nil list", e)
	}
	odd := strings.Repeat("a", ReexecutedMessageBytes-1) + "é" // the cap falls inside é
	if m := StoredOutcomes([]results.PropertyOutcome{{Property: "a", Message: odd}})[0].Message; m != strings.Repeat("a", ReexecutedMessageBytes-1)+"…" {
		t.Errorf("cut inside a rune: %q", m)
	}
}

// TestCorrectedRun: a run's verdicts in a corrected version are the
// published ones with the corrected questions' replaced; verdicts made for
// other code, in another environment or lacking a corrected question are
// refused, saying which.
func TestCorrectedRun(t *testing.T) {
	v, _ := datasets.LookupCorrectedVersion(datasets.Version2025_05Corrected1)
	row := func(q, p string, passed int) ReexecutedVerdict {
		return ReexecutedVerdict{QuestionID: q, Protocol: p, Verdict: results.VerdictPartial, PropertiesPassed: passed}
	}
	main := &ReexecutedRun{Source: results.SourceFile{SHA256: "aa"}, Environment: "env1", Rows: []ReexecutedVerdict{
		row("test_vacancy", results.ProtocolMatToolsV1, 7), row("test_antisite_generator", results.ProtocolMatToolsV1, 0)}}
	cor := &ReexecutedRun{Source: main.Source, Environment: "env1", Rows: []ReexecutedVerdict{row("test_antisite_generator", results.ProtocolMatToolsV1, 1)}}
	got, err := correctedRun(main, cor, v)
	if err != nil {
		t.Fatal(err)
	}
	passed := map[string]int{}
	for _, r := range got.Rows {
		passed[r.QuestionID] = r.PropertiesPassed
	}
	if len(got.Rows) != 2 || passed["test_vacancy"] != 7 || passed["test_antisite_generator"] != 1 {
		t.Errorf("rows %+v; want test_vacancy's published verdict and test_antisite_generator's corrected one", got.Rows)
	}
	if got, err := correctedRun(main, nil, v); got != nil || err != nil {
		t.Errorf("no verdicts in the version: %v, %v; want none and no error", got, err)
	}
	other := *cor
	other.Environment = "env2"
	if _, err := correctedRun(main, &other, v); err == nil || !strings.Contains(err.Error(), "another environment (env2, not env1)") {
		t.Errorf("other environment: %v", err)
	}
	if _, err := correctedRun(main, &ReexecutedRun{Source: main.Source, Environment: "env1"}, v); err == nil ||
		!strings.Contains(err.Error(), "question test_antisite_generator (mattools-v1) not re-executed in this version") {
		t.Errorf("corrected question missing: %v", err)
	}
}

// TestReexecutedStoreParts writes runs kept beside the main ones (keys
// "<run id>@<part>") to one file per part and reads them back as one store;
// a store of the single-file form still loads, and writing it moves those
// runs to their part files; a part file holding another part's run is an
// error naming the file and run.
func TestReexecutedStoreParts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ReexecutedFile)
	st := sampleStore()
	main := "imported__tool-usage__single-llm__s0__m__mattools-original__r2"
	other := ReexecutionEnvironment{Sandbox: results.Sandbox{Backend: "local", Version: "bubblewrap 0.8.0", TimeoutSeconds: 1200}}
	st.Environments[other.EnvironmentID()] = other
	st.Runs[AlongsideKey(main, "tasks")] = &ReexecutedRun{Source: st.Runs[main].Source, Environment: other.EnvironmentID(), Rows: st.Runs[main].Rows[1:2]}
	st.Runs[VersionKey(main, "2025-05-corrected-2")] = &ReexecutedRun{Source: st.Runs[main].Source, Environment: st.Runs[main].Environment, Rows: st.Runs[main].Rows[2:]}
	order := map[string]int{"test_a": 0, "test_b": 1}

	// The single-file form: every run in the main file.
	if err := writeStoreFile(path, reexecutedAbout, st.Environments, st.Runs, keysOf(st.Runs)); err != nil {
		t.Fatal(err)
	}
	single, err := ReadReexecuted(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(single.Runs, st.Runs) || !reflect.DeepEqual(single.Environments, st.Environments) {
		t.Fatalf("the single-file form read back differs")
	}
	if err := single.Write(path, order); err != nil {
		t.Fatal(err)
	}
	files := map[string][]string{ // file → its run keys
		ReexecutedFile:                        {main, "imported__tool-usage__single-llm__s0__m__mattools-original__r1"},
		"reexecuted-tasks.json":               {AlongsideKey(main, "tasks")},
		"reexecuted-2025-05-corrected-2.json": {VersionKey(main, "2025-05-corrected-2")},
	}
	for name, want := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		one, err := parseReexecuted(data, name)
		if err != nil {
			t.Fatal(err)
		}
		got := keysOf(one.Runs)
		if sort.Strings(want); !reflect.DeepEqual(got, want) {
			t.Errorf("%s holds %v, want %v", name, got, want)
		}
		if name == "reexecuted-tasks.json" && (len(one.Environments) != 1 || one.Environments[other.EnvironmentID()].Sandbox.TimeoutSeconds != 1200) {
			t.Errorf("%s: environments %v, want only its run's", name, one.Environments)
		}
	}
	back, err := ReadReexecuted(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Runs, single.Runs) || !reflect.DeepEqual(back.Environments, st.Environments) {
		t.Errorf("the split store read back differs") // single's rows sorted by its Write
	}
	// Written again, byte for byte the same files.
	before, _ := os.ReadFile(filepath.Join(dir, "reexecuted-2025-05-corrected-2.json"))
	if err := back.Write(path, order); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "reexecuted-2025-05-corrected-2.json")); string(after) != string(before) {
		t.Errorf("a part file changed on a second write")
	}

	// A run keyed for another part.
	bad := map[string]*ReexecutedRun{VersionKey(main, "2025-05-corrected-1"): st.Runs[main]}
	if err := writeStoreFile(filepath.Join(dir, "reexecuted-tasks.json"), reexecutedAbout, st.Environments, bad, keysOf(bad)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadReexecuted(path); err == nil || !strings.Contains(err.Error(), "reexecuted-tasks.json: runs."+VersionKey(main, "2025-05-corrected-1")+": not a run of part \"tasks\"") {
		t.Errorf("a part file holding another part's run: %v", err)
	}
}

// TestCommittedStoreFiles: every committed file of the store is under the
// repository's 2 MiB limit per file, holds only its part's runs (the
// committed store loads), and is what Write makes of it (byte for byte).
func TestCommittedStoreFiles(t *testing.T) {
	st, err := CommittedReexecuted()
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(committedReexecuted, "reexecuted*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no committed store files: %v", err)
	}
	dir := t.TempDir()
	// The evaluation order: that of the rows of the run with most of them
	// (every run keeps its rows in it).
	var longest *ReexecutedRun
	for _, r := range st.Runs {
		if longest == nil || len(r.Rows) > len(longest.Rows) {
			longest = r
		}
	}
	order := map[string]int{}
	for _, v := range longest.Rows {
		if _, ok := order[v.QuestionID]; !ok {
			order[v.QuestionID] = len(order)
		}
	}
	if err := st.Write(filepath.Join(dir, ReexecutedFile), order); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, _ := committedReexecuted.ReadFile(name)
		if len(data) > 2<<20 {
			t.Errorf("results/published/%s: %d bytes, over 2 MiB: split the store further", name, len(data))
		}
		again, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(again) != string(data) {
			t.Errorf("results/published/%s: not what Write makes of the committed store (%v)", name, err)
		}
		t.Logf("results/published/%s: %d bytes", name, len(data))
	}
}

func keysOf(m map[string]*ReexecutedRun) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
