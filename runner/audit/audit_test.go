package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// TestFailedPropertiesNameTheirDiagnoses: the list of the properties the
// reference fails gives each its diagnosis, or "undiagnosed"; a mattools-v1
// partial credit is said to be not attributable. The table has a column of
// MatTools' tool usage's scored protocols each, v1 and strict.
func TestFailedPropertiesNameTheirDiagnoses(t *testing.T) {
	po := []results.PropertyOutcome{{Property: "a", Passed: true}, {Property: "b", Message: "b: wrong"}, {Property: "c", Message: "c: wrong"}}
	rep := &Report{Questions: []*QuestionReport{{ID: "q", Properties: 3, DataFiles: true, Reference: "executed",
		Outcomes: map[string]*Outcome{
			results.ProtocolMatToolsV1:       {Verdict: "partial", Passed: 1},
			results.ProtocolMatToolsV1Strict: {Verdict: "partial", Passed: 1, Properties: po},
		}, Timing: &Timing{Question: "q", WallSeconds: 1, CPUSeconds: 0.5}}},
		Totals:    []Total{{Protocol: results.ProtocolMatToolsV1Strict, Passed: 1, Properties: 3, Executed: 1, Questions: 1}},
		benchmark: results.BenchmarkToolUsage}
	var b bytes.Buffer
	printReport(&b, rep, datasets.Diagnoses{"q/b": {Category: "verification bug"}})
	for _, want := range []string{"question  data  reference  v1   strict  wall s  CPU s  controls v1  controls strict  flags\n",
		"q         yes   executed   1/3  1/3     1.0     0.5    0 0 0        0 0 0            0\n",
		"  q (mattools-v1: 1 of 3, not attributable to properties)\n", "  q b (mattools-v1-strict): verification bug\n",
		"  q c (mattools-v1-strict): undiagnosed\n", "reference: 1 of 3 properties passed under mattools-v1-strict (1 of 1 questions executed)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestReadReferenceNamesTheFile: a reference that defines no function, or
// two, is refused naming its file; a missing one is absent.
func TestReadReferenceNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.py"), []byte("def a():\n    pass\ndef b():\n    pass\n"), 0o644)
	if _, _, _, err := readReference(dir, "q"); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "q.py")+": defines 2 top-level functions") {
		t.Errorf("two functions: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "r.py"), []byte("import os\n\ndef  solve ():\n    def inner():\n        pass\n    return {}\n"), 0o644)
	if _, fn, ok, err := readReference(dir, "r"); err != nil || !ok || fn != "solve" {
		t.Errorf("one function: %q %v %v", fn, ok, err)
	}
	if _, _, ok, err := readReference(dir, "absent"); ok || err != nil {
		t.Errorf("absent: %v %v", ok, err)
	}
}

// TestTableColumnsAreTheBenchmarksProtocols: a benchmark scored under one
// protocol only (mattools-v1-strict, its kind's default's reference) gets
// one column of it for the reference and one for the controls, and the
// verified set and totals name that protocol.
func TestTableColumnsAreTheBenchmarksProtocols(t *testing.T) {
	if err := results.RegisterBenchmark(results.BenchmarkInfo{Name: "audit-strict-only", Kind: results.KindToolUsage,
		Versions: []results.BenchmarkVersion{{ID: "1", Questions: 1, Properties: 2}}, Protocols: []string{results.ProtocolMatToolsV1Strict}}); err != nil {
		t.Fatal(err)
	}
	po := []results.PropertyOutcome{{Property: "a", Passed: true}, {Property: "b", Message: "b: wrong"}}
	qs := []*QuestionReport{{ID: "q", Properties: 2, DataFiles: true, Reference: "executed",
		Outcomes: map[string]*Outcome{results.ProtocolMatToolsV1Strict: {Verdict: "partial", Passed: 1, Properties: po}},
		Controls: map[string]map[string]int{kindNone: {results.ProtocolMatToolsV1Strict: 1}},
		Timing:   &Timing{Question: "q", WallSeconds: 2, CPUSeconds: 1}}}
	rep := &Report{Questions: qs, Verified: verifiedSet(qs, nil, results.Benchmark("audit-strict-only").Reference()), benchmark: "audit-strict-only"}
	var b bytes.Buffer
	printReport(&b, rep, nil)
	for _, want := range []string{"question  data  reference  strict  wall s  CPU s  controls strict  flags\n",
		"q         yes   executed   1/2     2.0     1.0    1 0 0            0\n", // None, wrong type, True
		"  q b (mattools-v1-strict): undiagnosed\n",
		"verified question set: 1 properties of 1 questions (the reference passes them under mattools-v1-strict;"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
