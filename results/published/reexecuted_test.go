package published

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		if b == nil || b.Source != r.Source || b.Environment != r.Environment || len(b.Rows) != 3 {
			t.Fatalf("run %s read back as %+v", id, b)
		}
		for i := range r.Rows {
			if b.Rows[i] != r.Rows[i] {
				t.Errorf("row %d: %+v, want %+v", i, b.Rows[i], r.Rows[i])
			}
		}
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
