package results

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
)

// v2RAGFile is the tool-usage run of TestV2RowsRoundTripAndValidate: three
// questions, one with retrieved context, a trace and capped texts.
func v2RAGFile() *File {
	f := toolUsageFile()
	f.Run = ragRun()
	q := &f.Questions[1]
	q.Retrieved = []RetrievedChunk{{ChunkID: "c-17", Source: "pymatgen/core/structure.py", Score: 0.83, Rank: 1},
		{ChunkID: "c-4", Source: "pymatgen/core/sites.py", Score: 0.71, Rank: 2}}
	q.Trace = []TraceStage{
		{Stage: "retrieve", LatencyMS: 40, RetrievedIDs: []string{"c-17", "c-4", "c-9"}},
		{Stage: "generate", PromptTokens: 900, CompletionTokens: 120, LatencyMS: 2100},
		{Stage: "execute", LatencyMS: 1830, Verdict: string(VerdictPartial), StopReason: "complete-dict"}}
	q.ErrorExcerptBytes = ptr(int64(len(*q.ErrorExcerpt)))
	q.StdoutExcerpt, q.StdoutBytes = ptr("printed"), ptr(int64(7000))
	f.Questions[0].PromptTokens, f.Questions[0].CompletionTokens = ptr(int64(300)), ptr(int64(90))
	return f
}

// TestSummaryAndDetailsAreProjectionsOfRead: ReadSummary's rows are Read's
// rows with only the summary columns, its code keys are those of each
// row's code, and ReadDetails' rows are Read's with only the question
// page's columns.
func TestSummaryAndDetailsAreProjectionsOfRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.parquet")
	if err := Write(path, v2RAGFile()); err != nil {
		t.Fatal(err)
	}
	full, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSummary(path, SummaryOptions{CodeKey: func(code string) string { return "len" + string(rune('0'+len(code)%10)) }})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.File.Run, full.Run) || s.File.Path != path {
		t.Errorf("run record differs:\n got %+v\nwant %+v", s.File.Run, full.Run)
	}
	var wantSum, wantDet []QuestionRow
	for _, q := range full.Questions {
		wantSum = append(wantSum, QuestionRow{RunID: q.RunID, Benchmark: q.Benchmark, System: q.System, RetrievalSource: q.RetrievalSource,
			Model: q.Model, Round: q.Round, ScoringProtocol: q.ScoringProtocol, QuestionIndex: q.QuestionIndex, QuestionID: q.QuestionID,
			PropertyCount: q.PropertyCount, Runnable: q.Runnable, PropertiesPassed: q.PropertiesPassed, Verdict: q.Verdict,
			VerdictCause: q.VerdictCause, PromptTokens: q.PromptTokens, CompletionTokens: q.CompletionTokens, LatencyMS: q.LatencyMS})
		wantDet = append(wantDet, QuestionRow{QuestionIndex: q.QuestionIndex, QuestionID: q.QuestionID, Code: q.Code, FunctionName: q.FunctionName,
			ErrorExcerpt: q.ErrorExcerpt, StdoutExcerpt: q.StdoutExcerpt, StderrExcerpt: q.StderrExcerpt, ErrorExcerptBytes: q.ErrorExcerptBytes,
			StdoutBytes: q.StdoutBytes, StderrBytes: q.StderrBytes, Retrieved: q.Retrieved, Trace: q.Trace})
	}
	if !reflect.DeepEqual(s.File.Questions, wantSum) {
		t.Errorf("summary rows:\n got %+v\nwant %+v", s.File.Questions, wantSum)
	}
	// Codes of 28, 25 and 0 bytes.
	if want := []string{"len8", "len5", "len0"}; !reflect.DeepEqual(s.CodeKeys, want) {
		t.Errorf("code keys %q, want %q", s.CodeKeys, want)
	}
	det, err := ReadDetails(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(det, wantDet) {
		t.Errorf("detail rows:\n got %+v\nwant %+v", det, wantDet)
	}
	if s2, err := ReadSummary(path, SummaryOptions{}); err != nil || s2.CodeKeys != nil {
		t.Errorf("without CodeKey: keys %v, err %v", s2.CodeKeys, err)
	}
}

// TestSummaryOfQAKeepsNoRows: a QA run's summary is its run record; its
// rows were counted against the totals and are not kept.
func TestSummaryOfQAKeepsNoRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qa.parquet")
	if err := Write(path, qaFile()); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSummary(path, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.File.QAItems != nil || s.File.Questions != nil || *s.File.Run.Totals.Correct != 6 {
		t.Errorf("QA summary: %d items, %d questions, correct %d; want no rows and 6 correct", len(s.File.QAItems), len(s.File.Questions), *s.File.Run.Totals.Correct)
	}
	if _, err := ReadDetails(path); err == nil || !strings.Contains(err.Error(), path+":metadata: benchmark: is qa-code") {
		t.Errorf("ReadDetails of a QA file: %v", err)
	}
}

// writeUnchecked writes f with runJSON as its run record, bypassing Write's validation.
func writeUnchecked(t *testing.T, path string, f *File) {
	t.Helper()
	f.fillIdentity()
	runJSON, err := json.Marshal(&f.Run)
	if err != nil {
		t.Fatal(err)
	}
	data, err := encode(f, runJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSummaryAndDetailsNameFileRowAndField: each reader applies
// Validate's rules to the columns it reads and names the file, the row and
// the field of what is wrong.
func TestSummaryAndDetailsNameFileRowAndField(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		mutate  func(f *File)
		details bool // the rule is on a column only ReadDetails reads
		want    string
	}{
		{"verdict", func(f *File) { f.Questions[1].Verdict = "fine" }, false, `:row 2: verdict: unknown value "fine"`},
		{"totals", func(f *File) { f.Run.Totals.PropertiesPassed = ptr(4) }, false, ":metadata: totals.properties_passed: is 4 but the rows add up to 5"},
		{"capped code", func(f *File) { f.Questions[0].Code = "def f():\n    return '\xe2\x82" }, false, ":row 1: code: is not valid UTF-8"},
		{"excerpt bytes", func(f *File) { f.Questions[1].ErrorExcerptBytes = ptr(int64(3)) }, true, ":row 2: error_excerpt_bytes: is 3 but the stored text has 23 bytes"},
		{"trace", func(f *File) { f.Questions[1].Trace[1].Stage = "" }, true, ":row 2: trace[1].stage: required field missing"},
	}
	keep := SummaryOptions{CodeKey: func(string) string { return "" }}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+Extension)
			f := v2RAGFile()
			tt.mutate(f)
			writeUnchecked(t, path, f)
			_, sumErr := ReadSummary(path, keep)
			_, detErr := ReadDetails(path)
			err := sumErr
			if tt.details {
				if sumErr != nil {
					t.Errorf("ReadSummary checks a column it does not read: %v", sumErr)
				}
				err = detErr
			}
			if err == nil || !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant %s…%s", err, path, tt.want)
			}
		})
	}
}

// TestScanDirReportsAsReadDirReport: ScanDir finds, orders, skips and
// reports the same files as ReadDirReport (v1 files, a corrupted one, a
// temporary one), reading them in parallel.
func TestScanDirReportsAsReadDirReport(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"tool-usage.parquet", "qa.parquet"} {
		data, err := os.ReadFile(filepath.Join("testdata", "v1", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sub", name), data, 0o644); err != nil {
			if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "sub", name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := Write(filepath.Join(dir, "v2.parquet"), v2RAGFile()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.parquet"), []byte("PAR1 not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".v2.parquet.tmp-1.parquet"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, invalid, err := ReadDirReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	sums, sinvalid, err := ScanDir(dir, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != len(files) || len(files) != 3 {
		t.Fatalf("ScanDir read %d files, ReadDirReport %d; want 3", len(sums), len(files))
	}
	for i := range files {
		if !reflect.DeepEqual(sums[i].File.Run, files[i].Run) || sums[i].File.Path != files[i].Path {
			t.Errorf("file %d: %s, want %s", i, sums[i].File.Path, files[i].Path)
		}
	}
	if !reflect.DeepEqual(sinvalid, invalid) || len(invalid) != 1 || invalid[0].RunID != "broken" {
		t.Errorf("invalid: %v, want %v (broken)", sinvalid, invalid)
	}
	if _, _, err := ScanDir(filepath.Join(dir, "absent"), SummaryOptions{}); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
}

// TestDetailsWithoutListsAreProjectionsOfRead: a file whose rows have no
// retrieved context and no trace (the list columns are not read then) gives
// ReadDetails' rows as Read's, those columns nil.
func TestDetailsWithoutListsAreProjectionsOfRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plain.parquet")
	f := toolUsageFile()
	f.Questions[1].ErrorExcerptBytes = ptr(int64(len(*f.Questions[1].ErrorExcerpt)))
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	full, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []QuestionRow
	for _, q := range full.Questions {
		if len(q.Retrieved) > 0 || len(q.Trace) > 0 {
			t.Fatalf("question %s has list elements; the test wants none", q.QuestionID)
		}
		want = append(want, QuestionRow{QuestionIndex: q.QuestionIndex, QuestionID: q.QuestionID, Code: q.Code, FunctionName: q.FunctionName,
			ErrorExcerpt: q.ErrorExcerpt, StdoutExcerpt: q.StdoutExcerpt, StderrExcerpt: q.StderrExcerpt, ErrorExcerptBytes: q.ErrorExcerptBytes,
			StdoutBytes: q.StdoutBytes, StderrBytes: q.StderrBytes})
	}
	det, err := ReadDetails(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(det, want) {
		t.Errorf("detail rows:\n got %+v\nwant %+v", det, want)
	}
}

// TestCompactSummaryRows: with Compact, a summary keeps each row's summary
// columns as a SummaryRow (the values of Read's rows; QuestionRow gives them
// back), no QuestionRow, and ScanDir shares equal strings across files;
// Check sees the rows whole and its error is CheckErr, not an invalid file.
func TestCompactSummaryRows(t *testing.T) {
	dir := t.TempDir()
	a, b := v2RAGFile(), v2RAGFile()
	b.Run.RunID += "-b"
	for _, f := range []*File{a, b} {
		if err := Write(filepath.Join(dir, f.Run.RunID+Extension), f); err != nil {
			t.Fatal(err)
		}
	}
	full, err := Read(filepath.Join(dir, a.Run.RunID+Extension))
	if err != nil {
		t.Fatal(err)
	}
	var checked atomic.Int32 // ScanDir calls Check from its readers at once
	o := SummaryOptions{CodeKey: func(code string) string { return strings.Repeat("k", 1+len(code)%3) }, Compact: true,
		Check: func(f *File) error {
			if len(f.Questions) != 3 {
				t.Errorf("Check saw %d rows, want 3", len(f.Questions))
			}
			checked.Add(1)
			if strings.HasSuffix(f.Run.RunID, "-b") {
				return errors.New("refused")
			}
			return nil
		}}
	sums, invalid, err := ScanDir(dir, o)
	if err != nil || len(invalid) != 0 || len(sums) != 2 || checked.Load() != 2 {
		t.Fatalf("ScanDir: %d summaries, invalid %v, %d checked, %v", len(sums), invalid, checked.Load(), err)
	}
	if strings.HasSuffix(sums[0].File.Run.RunID, "-b") { // "…-b.parquet" sorts first
		sums[0], sums[1] = sums[1], sums[0]
	}
	if sums[0].CheckErr != nil || sums[1].CheckErr == nil || sums[1].CheckErr.Error() != "refused" {
		t.Errorf("CheckErr: %v and %v, want nil and refused", sums[0].CheckErr, sums[1].CheckErr)
	}
	for _, s := range sums {
		if s.File.Questions != nil || len(s.Rows) != 3 {
			t.Fatalf("%s: %d questions and %d rows; want none and 3", s.File.Run.RunID, len(s.File.Questions), len(s.Rows))
		}
		for i := range s.Rows {
			q := &full.Questions[i]
			want := QuestionRow{QuestionIndex: q.QuestionIndex, QuestionID: q.QuestionID, PropertyCount: q.PropertyCount, Runnable: q.Runnable,
				PropertiesPassed: q.PropertiesPassed, Verdict: q.Verdict, VerdictCause: q.VerdictCause, PromptTokens: q.PromptTokens,
				CompletionTokens: q.CompletionTokens, LatencyMS: q.LatencyMS}
			if got := s.Rows[i].QuestionRow(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s row %d:\n got %+v\nwant %+v", s.File.Run.RunID, i+1, got, want)
			}
		}
	}
	x, y := sums[0], sums[1]
	for i := range x.Rows {
		for _, p := range [][2]string{{x.Rows[i].QuestionID, y.Rows[i].QuestionID}, {x.Rows[i].Verdict, y.Rows[i].Verdict}, {x.CodeKeys[i], y.CodeKeys[i]}} {
			if unsafe.StringData(p[0]) != unsafe.StringData(p[1]) {
				t.Errorf("row %d: %q is not shared between the two files", i+1, p[0])
			}
		}
	}
	if !reflect.DeepEqual(x.File.Run, full.Run) {
		t.Errorf("run record with shared strings:\n got %+v\nwant %+v", x.File.Run, full.Run)
	}
	if ids := x.File.Run.QuestionSet.IDs; len(ids) == 0 || unsafe.SliceData(ids) != unsafe.SliceData(y.File.Run.QuestionSet.IDs) {
		t.Errorf("question set ids %q: not one list shared by the two runs", ids)
	}
	if got := SummaryRows(full.Questions); len(got) != 3 || *got[0].PromptTokens != 300 || got[0].PromptTokens == full.Questions[0].PromptTokens {
		t.Errorf("SummaryRows: %+v; want its own copy of row 1's 300 prompt tokens", got)
	}
}
