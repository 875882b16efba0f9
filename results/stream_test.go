package results

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestStreamWriterWritesWhatWriteWrites: a tool-usage run of
// fewer than StreamRowGroupRows rows streamed row by row is the file Write
// writes, byte for byte (one row group, the same footer).
func TestStreamWriterWritesWhatWriteWrites(t *testing.T) {
	dir := t.TempDir()
	f := toolUsageFile()
	if err := Write(filepath.Join(dir, "write.parquet"), f); err != nil {
		t.Fatal(err)
	}
	g := toolUsageFile()
	w, err := NewStreamWriter(filepath.Join(dir, "stream.parquet"), &g.Run)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Questions {
		if err := w.WriteQuestion(&g.Questions[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(&g.Run); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "write.parquet"))
	b, _ := os.ReadFile(filepath.Join(dir, "stream.parquet"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		at := 0
		for at < min(len(a), len(b)) && a[at] == b[at] {
			at++
		}
		t.Errorf("streamed file (%d bytes) differs from Write's (%d bytes) from byte %d: %q, Write's %q", len(b), len(a), at, b[at:min(at+80, len(b))], a[at:min(at+80, len(a))])
	}
	// QA runs, whose rows the writer hands the encoder qaBatchRows at a
	// time: the same bytes as Write's (all rows at once) below, at and
	// above a batch, up to one row group.
	for _, n := range []int{1, qaBatchRows, qaBatchRows + 45, StreamRowGroupRows} {
		f := qaRun(n)
		wp, sp := filepath.Join(dir, fmt.Sprintf("qa-write-%d.parquet", n)), filepath.Join(dir, fmt.Sprintf("qa-stream-%d.parquet", n))
		if err := Write(wp, f); err != nil {
			t.Fatal(err)
		}
		if err := streamQA(t, sp, qaRun(n)); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(wp)
		b, _ := os.ReadFile(sp)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("QA run of %d rows: the streamed file (%d bytes) differs from Write's (%d bytes)", n, len(b), len(a))
		}
	}
}

// qaRun is a QA run of n one-question rows, every third correct (strict)
// and every second correct (lenient), with its totals.
func qaRun(n int) *File {
	r := Run{FormatVersion: FormatVersion, Benchmark: BenchmarkQACode, BenchmarkVersion: BenchmarkVersion2025_05, System: SystemSingleLLM,
		Model: "m", Round: 1, ScoringProtocol: ProtocolQAV1, QuestionSet: QuestionSet{Name: "stream", Questions: n},
		Provenance: Provenance{Kind: ProvenanceRunner}, Environment: Environment{Generator: "results-test", GeneratorVersion: "dev"}}
	r.RunID = MakeRunID(&r)
	f := &File{Run: r}
	correct, lenient := 0, 0
	for i := range n {
		row := qaRow(i)
		correct, lenient = correct+int(row.Correct), lenient+int(*row.CorrectLenient)
		f.QAItems = append(f.QAItems, row)
	}
	f.Run.Totals = Totals{Scored: true, Questions: n, Correct: &correct, CorrectLenient: &lenient}
	return f
}

// qaRow is qaRun's row i.
func qaRow(i int) QAItem {
	c, l := int32(0), int32(0)
	if i%3 == 0 {
		c = 1
	}
	if i%2 == 0 {
		l = 1
	}
	text := strings.Repeat("answer ", i%7) + "A"
	return QAItem{ItemIndex: int32(i), Item: "q-" + string(rune('a'+i%26)), Questions: 1, Correct: c, CorrectLenient: ptr(l),
		AnswerText: &text, AnswerTextBytes: ptr(int64(len(text)))}
}

func streamQA(t *testing.T, path string, f *File) error {
	t.Helper()
	w, err := NewStreamWriter(path, &f.Run)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.QAItems {
		row := f.QAItems[i]
		if err := w.WriteQAItem(&row); err != nil {
			t.Fatal(err)
		}
	}
	return w.Close(&f.Run)
}

// TestStreamWriterRowGroupsReadBack: 9,000 QA rows streamed are three row
// groups (4,096 + 4,096 + 808) that read back as the rows written, with the
// run record (3,000 correct: rows 0, 3, 6, …; 4,500 lenient) in the footer.
func TestStreamWriterRowGroupsReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qa.parquet")
	f := qaRun(9000)
	if err := streamQA(t, path, f); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if *got.Run.Totals.Correct != 3000 || *got.Run.Totals.CorrectLenient != 4500 || len(got.QAItems) != 9000 {
		t.Fatalf("totals %+v, %d rows", got.Run.Totals, len(got.QAItems))
	}
	f.fillIdentity()
	if !reflect.DeepEqual(got.QAItems, f.QAItems) || !reflect.DeepEqual(got.Run, f.Run) {
		t.Error("rows or run record read back differ from those written")
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	pf, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for _, rg := range pf.RowGroups() {
		sizes = append(sizes, rg.NumRows())
	}
	if !reflect.DeepEqual(sizes, []int64{4096, 4096, 808}) {
		t.Errorf("row groups of %v rows; want 4096, 4096, 808", sizes)
	}
}

// TestStreamWriterValidatesAndLeavesNothing: a row breaking a rule of its
// own (row 5's answer_text_bytes below its text's length) and totals that
// are not the rows' sums fail Close, naming the file, row and field, and
// leave neither the file nor a temporary one; Abort leaves nothing either.
func TestStreamWriterValidatesAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad.parquet")
	f := qaRun(10)
	f.QAItems[4].AnswerTextBytes = ptr(int64(0))
	*f.Run.Totals.Correct = 5 // the rows hold 4 (0, 3, 6, 9)
	err := streamQA(t, path, f)
	var fe *FormatError
	if err == nil || !errors.As(err, &fe) || fe.File != path ||
		!strings.Contains(err.Error(), path+":row 5: answer_text_bytes: is 0 but the stored text has") ||
		!strings.Contains(err.Error(), "totals.correct: is 5 but the rows add up to 4") {
		t.Errorf("Close: %v; want the file, row 5's answer_text_bytes and totals.correct named", err)
	}
	w, err := NewStreamWriter(filepath.Join(dir, "aborted.parquet"), &f.Run)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteQAItem(&f.QAItems[0])
	w.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
	// A run record whose identity changed is refused.
	g := toolUsageFile()
	w, err = NewStreamWriter(path, &g.Run)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Questions {
		w.WriteQuestion(&g.Questions[i])
	}
	g.Run.Round = 3
	if err := w.Close(&g.Run); err == nil || !strings.Contains(err.Error(), "identity or generator changed") {
		t.Errorf("Close with another round: %v", err)
	}
}
