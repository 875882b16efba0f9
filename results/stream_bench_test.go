package results

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkQAFile writes a QA run of n rows (qaRun) with Write, which
// holds every row, and with StreamWriter, whose rows come one at a time.
// live-B is what the rows hold on the heap (live bytes after a
// collection) once they are all there: for Write the File built, for the
// stream writer its state just before Close.
//
//	go test ./results -run '^$' -bench QAFile -benchmem -benchtime 3x
func BenchmarkQAFile(b *testing.B) {
	live := func() int64 {
		runtime.GC()
		runtime.GC() // twice: sync.Pool keeps its items over one collection
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	for _, n := range []int{5000, 40000} {
		b.Run(fmt.Sprintf("Write/rows=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "qa.parquet")
			var held int64
			var f *File
			for b.Loop() {
				f = nil
				base := live()
				f = qaRun(n)
				held = live() - base
				if err := Write(path, f); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(held), "live-B")
			b.ReportMetric(float64(held)/float64(n), "live-B/row")
		})
		b.Run(fmt.Sprintf("Stream/rows=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "qa.parquet")
			one := qaRun(1) // the run record; rows are made one at a time
			var held int64
			for b.Loop() {
				base := live()
				w, err := NewStreamWriter(path, &one.Run)
				if err != nil {
					b.Fatal(err)
				}
				correct, lenient := 0, 0
				for i := range n {
					row := qaRow(i)
					correct, lenient = correct+int(row.Correct), lenient+int(*row.CorrectLenient)
					if err := w.WriteQAItem(&row); err != nil {
						b.Fatal(err)
					}
				}
				held = live() - base
				run := one.Run
				run.QuestionSet.Questions = n
				run.Totals = Totals{Scored: true, Questions: n, Correct: &correct, CorrectLenient: &lenient}
				if err := w.Close(&run); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(held), "live-B")
			b.ReportMetric(float64(held)/float64(n), "live-B/row")
		})
	}
}
