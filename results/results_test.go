package results

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// toolUsageFile is a tiny hand-made tool-usage run: 3 questions (4 + 2 + 1
// properties): one correct, one partial (1 of 2), one not runnable.
func toolUsageFile() *File {
	r := Run{
		FormatVersion: FormatVersion, Benchmark: BenchmarkToolUsage, BenchmarkVersion: BenchmarkVersion2025_05,
		UpstreamCommit: UpstreamCommit, System: SystemSingleLLM, Model: "fake-model", Round: 2,
		ScoringProtocol: ProtocolMatToolsV1,
		Generation:      GenerationParams{Temperature: ptr(0.0), Source: "plan"},
		QuestionSet:     QuestionSet{Name: "tiny", Questions: 3, Properties: 7, IDs: []string{"q_a", "q_b", "q_c"}},
		Provenance:      Provenance{Kind: ProvenanceRunner},
		Environment:     Environment{Generator: "results-test", GeneratorVersion: "dev", Libraries: map[string]string{"pymatgen": "2024.8.9"}},
		Totals: Totals{Scored: true, Questions: 3, Runnable: ptr(2), QuestionsCorrect: ptr(1), QuestionsPartial: ptr(1),
			Properties: 7, PropertiesPassed: ptr(5)},
		Usage:     &Usage{Calls: 3, PromptTokens: 300, CompletionTokens: 90},
		StartedAt: ptr(time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)),
	}
	r.RunID = MakeRunID(&r)
	return &File{Run: r, Questions: []QuestionRow{
		{QuestionIndex: 0, QuestionID: "q_a", PropertyCount: 4, Code: "def f():\n    return {'a': 1}", FunctionName: "f",
			Runnable: ptr(true), PropertiesPassed: ptr(int32(4)), Verdict: string(VerdictCorrect), LatencyMS: ptr(int64(1200))},
		{QuestionIndex: 1, QuestionID: "q_b", PropertyCount: 2, Code: "<script>alert(1)</script>", FunctionName: "g",
			Runnable: ptr(true), PropertiesPassed: ptr(int32(1)), Verdict: string(VerdictPartial), ErrorExcerpt: ptr("b: Expected 2 but got 3")},
		{QuestionIndex: 2, QuestionID: "q_c", PropertyCount: 1, Code: "", FunctionName: "",
			Runnable: ptr(false), PropertiesPassed: ptr(int32(0)), Verdict: string(VerdictNotRunnable), VerdictCause: "empty-code"},
	}}
}

func TestWriteReadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "run.parquet")
	want := toolUsageFile()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Run, want.Run) {
		t.Errorf("run differs:\n got %+v\nwant %+v", got.Run, want.Run)
	}
	if !reflect.DeepEqual(got.Questions, want.Questions) {
		t.Errorf("rows differ:\n got %+v\nwant %+v", got.Questions, want.Questions)
	}
	if got.Questions[1].Model != "fake-model" || got.Questions[1].Round != 2 {
		t.Errorf("identity columns not filled: %+v", got.Questions[1])
	}
	if got.Run.RunID != "runner__tool-usage__single-llm__s0__fake-model__mattools-v1__tiny__r2" {
		t.Errorf("run id = %s", got.Run.RunID)
	}
	if rate, _ := got.Run.Totals.FunctionRunnableRate(); rate != 100*2.0/3 {
		t.Errorf("runnable rate = %v", rate)
	}
	if rate, _ := got.Run.Totals.TaskSuccessRate(); rate != 100*5.0/7 {
		t.Errorf("success rate = %v", rate)
	}
}

func TestQARoundTrip(t *testing.T) {
	r := Run{FormatVersion: FormatVersion, Benchmark: BenchmarkQACode, BenchmarkVersion: "2025-05", System: SystemSingleLLM,
		Model: "m", ScoringProtocol: ProtocolMatToolsOriginal,
		QuestionSet: QuestionSet{Name: QuestionSetAll, Questions: 8},
		Provenance:  Provenance{Kind: ProvenanceImported, Citation: "test"}, Environment: Environment{Generator: "t"},
		Totals: Totals{Scored: true, Questions: 8, Correct: ptr(6)}}
	r.RunID = MakeRunID(&r)
	f := &File{Run: r, QAItems: []QAItem{
		{ItemIndex: 0, Item: "pymatgen/a.py/X", Questions: 5, Correct: 4},
		{ItemIndex: 1, Item: "pymatgen/a.py/X", Questions: 3, Correct: 2},
	}}
	path := filepath.Join(t.TempDir(), "qa.parquet")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.QAItems, f.QAItems) || len(got.Questions) != 0 {
		t.Errorf("QA rows differ: %+v", got.QAItems)
	}
	if acc, _ := got.Run.Totals.Accuracy(); acc != 75 {
		t.Errorf("accuracy = %v, want 75", acc)
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(f *File)
		want   string // substring of the error
	}{
		{"unknown system", func(f *File) { f.Run.System = "agent" }, `system: unknown value "agent"`},
		{"bad run id", func(f *File) { f.Run.RunID = "a/b" }, "run_id"},
		{"imported without citation", func(f *File) { f.Run.Provenance.Kind = ProvenanceImported }, "provenance.citation"},
		{"totals disagree with rows", func(f *File) { f.Run.Totals.Runnable = ptr(3) }, "totals.runnable: is 3 but 2 rows are runnable"},
		{"passed disagrees", func(f *File) { f.Run.Totals.PropertiesPassed = ptr(6) }, "totals.properties_passed: is 6 but the rows add up to 5"},
		{"correct must pass all", func(f *File) { f.Questions[0].PropertiesPassed = ptr(int32(3)) }, "row 1: properties_passed"},
		{"unknown verdict", func(f *File) { f.Questions[2].Verdict = "crashed" }, `row 3: verdict: unknown value "crashed"`},
		{"duplicate question", func(f *File) { f.Questions[2].QuestionID = "q_a" }, "row 3: question_id"},
		{"question count", func(f *File) { f.Questions = f.Questions[:2] }, "question_set.questions: is 3 but the file has 2"},
		{"half null outcome", func(f *File) { f.Questions[0].Runnable = nil }, "row 1: runnable: runnable and properties_passed must both"},
		{"retrieval source", func(f *File) { f.Run.RetrievalSource = 7 }, "retrieval_source: is 7"},
		{"unscored with totals", func(f *File) { f.Run.Totals.Scored = false }, "totals.scored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := toolUsageFile()
			tt.mutate(f)
			path := filepath.Join(t.TempDir(), "run.parquet")
			err := Write(path, f)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write error = %v, want it to contain %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Errorf("error is not a *FormatError: %T", err)
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
				t.Errorf("a failed write left files behind: %v", entries)
			}
		})
	}
}

func TestDataMissingRowsAreOutsideTheQuestionSet(t *testing.T) {
	f := toolUsageFile()
	f.Run.QuestionSet = QuestionSet{Name: "executable", Questions: 2, Properties: 6, IDs: []string{"q_a", "q_b"}}
	f.Run.Totals = Totals{Scored: true, Questions: 2, Runnable: ptr(2), Properties: 6, PropertiesPassed: ptr(5)}
	f.Run.RunID = MakeRunID(&f.Run)
	f.Questions[2].Runnable, f.Questions[2].PropertiesPassed = nil, nil
	f.Questions[2].Verdict, f.Questions[2].VerdictCause = string(VerdictDataMissing), ""
	path := filepath.Join(t.TempDir(), "run.parquet")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err != nil {
		t.Fatal(err)
	}
}

func TestReadRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.parquet")
	os.WriteFile(junk, []byte("not parquet"), 0o644)
	if _, err := Read(junk); err == nil || !strings.Contains(err.Error(), "junk.parquet:metadata: not a Parquet file") {
		t.Errorf("Read(junk) error = %v", err)
	}
}

func TestReadDirRejectsDuplicateRunIDs(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "a.parquet"), toolUsageFile()); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "b", "c.parquet"), toolUsageFile()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".d.parquet.tmp-1"), []byte("partial"), 0o644)
	files, err := ReadDir(dir)
	if len(files) != 1 || err == nil || !strings.Contains(err.Error(), "already used by") {
		t.Errorf("ReadDir = %d files, %v", len(files), err)
	}
	if files, err := ReadDir(filepath.Join(dir, "missing")); len(files) != 0 || err != nil {
		t.Errorf("missing dir: %d files, %v", len(files), err)
	}
}

func TestConfigurationSeparatesProtocolsAndSubsets(t *testing.T) {
	a := toolUsageFile().Run
	b := a
	b.Round = 3
	if a.Configuration() != b.Configuration() {
		t.Error("rounds of one configuration differ")
	}
	c := a
	c.ScoringProtocol = ProtocolMatToolsV1Strict
	d := a
	d.QuestionSet.Questions = 2
	e := a
	e.Provenance.Kind = ProvenanceRescored
	for _, other := range []Run{c, d, e} {
		if a.Configuration() == other.Configuration() {
			t.Errorf("%s and %s share a configuration", a.Configuration(), other.Configuration())
		}
	}
	if got := a.Configuration().String(); got != "tool-usage/single-llm/source-0/fake-model/mattools-v1/tiny/3/runner" {
		t.Errorf("String() = %s", got)
	}
}
