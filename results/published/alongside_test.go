package published

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestEnvironmentDifferences puts beside sampleStore's run the same code
// re-executed in a second environment, where test_b becomes runnable and
// test_a's strict count changes, writes and reads the store back, and checks
// that exactly those two pairs differ, each with both sides and both
// environment ids; a run of other code is not compared.
func TestEnvironmentDifferences(t *testing.T) {
	st := sampleStore()
	const id = "imported__tool-usage__single-llm__s0__m__mattools-original__r1"
	mainRun := st.Runs[id]
	env := ReexecutionEnvironment{Sandbox: results.Sandbox{Backend: "local", Version: "bubblewrap 0.8.0", TimeoutSeconds: 1200, LockSHA256: "tasks"},
		Libraries: map[string]string{"pymatgen": "2024.8.9", "ase": "3.23.0"}}
	other := env.EnvironmentID()
	st.Environments[other] = env
	st.Runs[AlongsideKey(id, "tasks")] = &ReexecutedRun{Source: mainRun.Source, Environment: other, Rows: []ReexecutedVerdict{
		{QuestionID: "test_a", Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: -1},
		{QuestionID: "test_a", Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: 4},
		{QuestionID: "test_b", Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: 2},
		{QuestionID: "test_c", Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: 1},
	}}
	// Other code under the same label is never compared.
	st.Runs["imported__x__r2"] = &ReexecutedRun{Source: mainRun.Source, Environment: mainRun.Environment, Rows: mainRun.Rows[:1]}
	st.Runs[AlongsideKey("imported__x__r2", "tasks")] = &ReexecutedRun{Source: results.SourceFile{Path: "p", SHA256: strings.Repeat("cd", 32)},
		Environment: other, Rows: []ReexecutedVerdict{{QuestionID: "test_b", Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: 2}}}
	path := filepath.Join(t.TempDir(), ReexecutedFile)
	if err := st.Write(path, map[string]int{"test_a": 0, "test_b": 1, "test_c": 2}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReexecuted(path)
	if err != nil {
		t.Fatal(err)
	}
	diffs, compared := back.EnvironmentDifferences("tasks")
	if compared != 3 {
		t.Errorf("%d pairs compared, want 3 (test_a twice, test_b strict; test_c has no main row)", compared)
	}
	var got []string
	for _, d := range diffs {
		got = append(got, d.QuestionID+" "+d.Protocol+" "+string(d.Main.Verdict)+"/"+itoa(d.Main.PropertiesPassed)+" → "+
			string(d.Other.Verdict)+"/"+itoa(d.Other.PropertiesPassed)+" "+boolText(d.MainEnvironment == mainRun.Environment && d.OtherEnvironment == other))
	}
	want := "test_a mattools-v1-strict partial/3 → partial/4 true|test_b mattools-v1-strict not-runnable/0 → correct/2 true"
	if strings.Join(got, "|") != want {
		t.Errorf("differences\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	// The same differences as the file the importer writes for the site,
	// read back through results.
	cmpPath := filepath.Join(t.TempDir(), results.EnvironmentComparisonFile)
	if err := back.EnvironmentComparison("tasks", nil).Write(cmpPath); err != nil {
		t.Fatal(err)
	}
	c, err := results.ReadEnvironmentComparison(cmpPath)
	if err != nil {
		t.Fatal(err)
	}
	if c.Label != "tasks" || c.Compared != 3 || len(c.Differences) != 2 || c.Differences[1].QuestionID != "test_b" ||
		c.Differences[1].Main.Verdict != results.VerdictNotRunnable || c.Differences[1].Other.PropertiesPassed != 2 ||
		c.Environments[other].Libraries["ase"] != "3.23.0" || c.Differences[1].Main.Environment != mainRun.Environment {
		t.Errorf("comparison %+v", c)
	}
	if back.EnvironmentComparison("other", nil) != nil {
		t.Error("a comparison for a label the store lacks")
	}
	if back.EnvironmentComparison("tasks", map[string]bool{"imported__y__r1": true}) != nil {
		t.Error("a comparison of runs that are not in the store")
	}
	if c := back.EnvironmentComparison("tasks", map[string]bool{id: true}); c == nil || len(c.Differences) != 2 || c.Compared != 3 {
		t.Errorf("the comparison of run %s alone: %+v", id, c)
	}
	if d, n := back.EnvironmentDifferences("other"); len(d) != 0 || n != 0 {
		t.Errorf("an absent label: %d differences of %d", len(d), n)
	}
	for _, bad := range []string{"", "Tasks", "1x", "a@b", "a b"} {
		if CheckAlongsideLabel(bad) == nil {
			t.Errorf("label %q accepted", bad)
		}
	}
	if err := CheckAlongsideLabel("tasks"); err != nil {
		t.Error(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
