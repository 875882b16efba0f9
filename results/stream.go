package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
)

// StreamRowGroupRows is the number of rows after which a StreamWriter ends
// a row group: the rows of a row group are held in memory encoded and
// compressed (Parquet writes a row group's column chunks one after the
// other), so a writer's memory is bounded by one row group's, whatever the
// number of rows. A file of at most this many rows has one row group, as
// Write writes it.
const StreamRowGroupRows = 4096

// StreamWriter writes one results file row by row: rows go to
// the Parquet encoder as they come, in row groups of StreamRowGroupRows,
// and are not kept; the run record, which holds the totals of all the
// rows, is given at the end (Close), where it goes into the file's footer
// (key-value metadata, FORMAT.md). The file is written as Write writes it:
// into a temporary file in path's directory ("." + name + ".tmp-*", which
// readers skip), synced, then renamed over path, so that readers see either
// the old file or the whole new one, and a failed or aborted write leaves
// nothing behind. It is validated as Write validates (Validate): each row's
// own rules as it comes, the run record and the rules over all rows
// (question set, uniqueness, totals equal to the rows' sums) at Close,
// from what the writer keeps of each row (tool usage: the row without its
// texts, at most a benchmark's questions; QA: counts only). Not safe for
// concurrent use.
type StreamWriter struct {
	path string
	id   Run // the identity fields of the run, from NewStreamWriter
	tmp  *os.File
	buf  *bufio.Writer
	// One of these, as the benchmark's rows are tool-usage questions or QA items.
	questions *parquet.GenericWriter[QuestionRow]
	items     *parquet.GenericWriter[QAItem]
	qaBatch   []QAItem // QA rows not yet handed to items (qaBatchRows at most)
	rows      int
	// What validation keeps of the rows: tool-usage rows without their
	// texts (checked as they came) and the QA rows' sums.
	slim   []QuestionRow
	qa     qaCheck
	rowErr []error
	err    error // the first write error; the writer is then unusable
	done   bool
}

// NewStreamWriter starts the results file at path of run, whose identity
// (format version, run id, benchmark, system, retrieval source, model,
// round, scoring protocol) and environment's generator and version must be
// final: the identity columns of every row are filled from it, and the
// run record given to Close must agree. The rest of run (totals, warnings,
// usage, times) may change until Close.
func NewStreamWriter(path string, run *Run) (*StreamWriter, error) {
	if run.FormatVersion != FormatVersion {
		return nil, withFile(path, metaErr("format_version", "is %d; this writer writes version %d only", run.FormatVersion, FormatVersion))
	}
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	w := &StreamWriter{path: path, id: identityOf(run), tmp: tmp, buf: bufio.NewWriterSize(tmp, 1<<16)}
	opts := writerOptions(run)
	if run.Benchmark.Kind() == KindMultipleChoice {
		w.items = parquet.NewGenericWriter[QAItem](w.buf, opts...)
	} else {
		w.questions = parquet.NewGenericWriter[QuestionRow](w.buf, opts...)
	}
	return w, nil
}

// identityOf is what of r a StreamWriter fixes at its start.
func identityOf(r *Run) Run {
	return Run{FormatVersion: r.FormatVersion, RunID: r.RunID, Benchmark: r.Benchmark, System: r.System, RetrievalSource: r.RetrievalSource,
		Model: r.Model, Round: r.Round, ScoringProtocol: r.ScoringProtocol,
		Environment: Environment{Generator: r.Environment.Generator, GeneratorVersion: r.Environment.GeneratorVersion}}
}

// WriteQuestion writes the next row of a tool-usage run, after filling its
// identity columns (q is modified). A row that breaks a rule of its own is
// reported by Close, with its 1-based row number; an error here is a
// failure to write, or a row of the wrong kind.
func (w *StreamWriter) WriteQuestion(q *QuestionRow) error {
	if w.questions == nil {
		return w.fail(fmt.Errorf("%s: a %s run holds QA items, not tool-usage questions", w.path, w.id.Benchmark))
	}
	r := &w.id
	q.RunID, q.Benchmark, q.System, q.RetrievalSource = r.RunID, string(r.Benchmark), string(r.System), int32(r.RetrievalSource)
	q.Model, q.Round, q.ScoringProtocol = r.Model, int32(r.Round), r.ScoringProtocol
	w.rows++
	w.rowErr = append(w.rowErr, validateQuestionText(w.rows, q)...)
	w.rowErr = append(w.rowErr, checkPropertyOutcomes(w.rows, w.id.FormatVersion, q)...)
	slim := *q
	slim.Code, slim.FunctionName, slim.FailedProperties, slim.Retrieved, slim.Trace, slim.PropertyOutcomes = "", "", nil, nil, nil, nil
	slim.ErrorExcerpt, slim.StdoutExcerpt, slim.StderrExcerpt, slim.VerificationOutput, slim.Response = nil, nil, nil, nil, nil
	slim.ErrorExcerptBytes, slim.StdoutBytes, slim.StderrBytes, slim.VerificationOutputBytes, slim.ResponseBytes = nil, nil, nil, nil, nil
	w.slim = append(w.slim, slim)
	return w.write(func() error { _, err := w.questions.Write([]QuestionRow{*q}); return err })
}

// WriteQAItem writes the next row of a QA run, after filling its identity
// columns (q is modified); as WriteQuestion.
func (w *StreamWriter) WriteQAItem(q *QAItem) error {
	if w.items == nil {
		return w.fail(fmt.Errorf("%s: a %s run holds tool-usage questions, not QA items", w.path, w.id.Benchmark))
	}
	r := &w.id
	q.RunID, q.Benchmark, q.System, q.RetrievalSource = r.RunID, string(r.Benchmark), string(r.System), int32(r.RetrievalSource)
	q.Model, q.Round, q.ScoringProtocol = r.Model, int32(r.Round), r.ScoringProtocol
	w.rows++
	w.qa.add(w.rows, q)
	return w.write(func() error {
		w.qaBatch = append(w.qaBatch, *q)
		if len(w.qaBatch) < qaBatchRows && w.rows%StreamRowGroupRows != 0 {
			return nil
		}
		return w.flushQA()
	})
}

// qaBatchRows is how many QA rows a StreamWriter hands the encoder at once
// (one call per row costs a fifth more CPU time); the file's bytes do not
// depend on it (tested: they are Write's, which hands all rows at once).
const qaBatchRows = 256

// flushQA hands the batched QA rows to the encoder.
func (w *StreamWriter) flushQA() error {
	if len(w.qaBatch) == 0 {
		return nil
	}
	_, err := w.items.Write(w.qaBatch)
	w.qaBatch = w.qaBatch[:0]
	return err
}

// write runs one write of the encoder and ends the row group every
// StreamRowGroupRows rows.
func (w *StreamWriter) write(do func() error) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return w.fail(fmt.Errorf("%s: write after Close", w.path))
	}
	err := do()
	if err == nil && w.rows%StreamRowGroupRows == 0 {
		if w.questions != nil {
			err = w.questions.Flush()
		} else {
			err = w.items.Flush()
		}
	}
	if err != nil {
		return w.fail(fmt.Errorf("%s: row %d: %w", w.path, w.rows, err))
	}
	return nil
}

func (w *StreamWriter) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return err
}

// Rows returns the number of rows written so far.
func (w *StreamWriter) Rows() int { return w.rows }

// Close validates the file with its final run record run (format version,
// identity and generator as given to NewStreamWriter) and the rows
// written, writes the footer with the run record and replaces path with
// the file. Errors from validation are *FormatError values naming path,
// as Write's; on any error nothing is left at path's side and path is
// untouched. Close after Abort or a failed write returns the first error.
func (w *StreamWriter) Close(run *Run) (err error) {
	if w.done {
		return errors.New(w.path + ": closed twice")
	}
	w.done = true
	defer func() {
		if err != nil {
			w.tmp.Close()
			os.Remove(w.tmp.Name())
		}
	}()
	if w.err != nil {
		return w.err
	}
	if got := identityOf(run); !equalIdentity(&got, &w.id) {
		return fmt.Errorf("%s: the run record's identity or generator changed during the write (%s, %s/%s; started as %s, %s/%s)",
			w.path, got.RunID, got.Environment.Generator, got.Environment.GeneratorVersion, w.id.RunID, w.id.Environment.Generator, w.id.Environment.GeneratorVersion)
	}
	errs := validateRecord(run)
	if run.Benchmark.Kind() == KindMultipleChoice {
		errs = append(errs, w.qa.finish(run.Totals)...)
	} else if run.Benchmark.Kind() == KindToolUsage {
		errs = append(errs, w.rowErr...)
		errs = append(errs, validateToolUsage(&File{Run: *run, Questions: w.slim})...)
	}
	if err := errors.Join(errs...); err != nil {
		return withFile(w.path, err)
	}
	runJSON, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("%s: encoding run metadata: %w", w.path, err)
	}
	kvs := keyValueMetadata(run, runJSON)
	// In key order, as parquet-go writes the options' metadata (Write).
	slices.SortFunc(kvs, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	for _, kv := range kvs {
		if w.questions != nil {
			w.questions.SetKeyValueMetadata(kv[0], kv[1])
		} else {
			w.items.SetKeyValueMetadata(kv[0], kv[1])
		}
	}
	if w.questions != nil {
		err = w.questions.Close()
	} else if err = w.flushQA(); err == nil {
		err = w.items.Close()
	}
	if err == nil {
		err = w.buf.Flush()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", w.path, err)
	}
	return atomicfile.Commit(w.tmp, w.path, 0o644)
}

func equalIdentity(a, b *Run) bool {
	return a.FormatVersion == b.FormatVersion && a.RunID == b.RunID && a.Benchmark == b.Benchmark && a.System == b.System &&
		a.RetrievalSource == b.RetrievalSource && a.Model == b.Model && a.Round == b.Round && a.ScoringProtocol == b.ScoringProtocol &&
		a.Environment.Generator == b.Environment.Generator && a.Environment.GeneratorVersion == b.Environment.GeneratorVersion
}

// Abort ends the write without a file: the temporary file is removed and
// path is untouched. Abort after Close does nothing.
func (w *StreamWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.fail(errors.New(w.path + ": aborted"))
	w.tmp.Close()
	os.Remove(w.tmp.Name())
}
