package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
)

// Key-value metadata keys of a results file. MetaRun holds the whole Run as
// JSON; the others repeat its main fields so that a file describes itself to
// tools that only show key-value metadata.
const (
	MetaFormatVersion    = "mattools.format_version"
	MetaRun              = "mattools.run"
	MetaRowKind          = "mattools.row_kind"
	MetaBenchmark        = "mattools.benchmark"
	MetaBenchmarkVersion = "mattools.benchmark_version"
	MetaScoringProtocol  = "mattools.scoring_protocol"
	MetaGenerator        = "mattools.generator"
	MetaGeneratorVersion = "mattools.generator_version"
)

// Row kinds (MetaRowKind): which row type a file holds.
const (
	RowKindToolUsageQuestion = "tool-usage-question"
	RowKindQAItem            = "qa-item"
)

// MaxDecodedBytes caps the decompressed size of a results file's columns
// as its footer states it (the QA code set's whole run is about 30 MB).
const MaxDecodedBytes = 1 << 30

// MaxRows is the most rows a results file may hold: far above the largest
// run (the 34,621 questions of the QA code set), far below what would
// exhaust memory.
const MaxRows = 1 << 22

// Extension is the file name extension of results files.
const Extension = ".parquet"

func rowKind(b Benchmark) string {
	if b.Kind() == KindMultipleChoice {
		return RowKindQAItem
	}
	return RowKindToolUsageQuestion
}

// Write validates f and writes it to path atomically: into a temporary file
// in the same directory, synced, then renamed over path, so that readers see
// either the old file or the whole new one and a failed write leaves nothing
// behind. The identity columns of the rows are filled in from f.Run (f is
// modified). Errors from validation are *FormatError values naming path.
func Write(path string, f *File) error {
	f.fillIdentity()
	if f.Run.FormatVersion != FormatVersion {
		return withFile(path, metaErr("format_version", "is %d; this writer writes version %d only", f.Run.FormatVersion, FormatVersion))
	}
	if err := Validate(f); err != nil {
		return withFile(path, err)
	}
	runJSON, err := json.Marshal(&f.Run)
	if err != nil {
		return fmt.Errorf("%s: encoding run metadata: %w", path, err)
	}
	data, err := encode(f, runJSON)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFileAtomic(path, data, 0o644)
}

// encode returns the Parquet bytes of f with runJSON as the run record,
// unchecked.
func encode(f *File, runJSON []byte) ([]byte, error) {
	r := &f.Run
	opts := writerOptions(r)
	for _, kv := range keyValueMetadata(r, runJSON) {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	var buf bytes.Buffer
	var err error
	if r.Benchmark.Kind() == KindMultipleChoice {
		err = writeRows(&buf, f.QAItems, opts)
	} else {
		err = writeRows(&buf, f.Questions, opts)
	}
	return buf.Bytes(), err
}

// writerOptions are the Parquet writer options of a results file of run r
// beside its key-value metadata (Write and StreamWriter).
func writerOptions(r *Run) []parquet.WriterOption {
	return []parquet.WriterOption{
		parquet.Compression(resultsZstd),
		parquet.CreatedBy(r.Environment.Generator, r.Environment.GeneratorVersion, ""),
	}
}

// keyValueMetadata is the key-value metadata of a results file of run r,
// runJSON its run record, in the order written.
func keyValueMetadata(r *Run, runJSON []byte) [][2]string {
	return [][2]string{
		{MetaFormatVersion, strconv.Itoa(r.FormatVersion)},
		{MetaRowKind, rowKind(r.Benchmark)},
		{MetaBenchmark, string(r.Benchmark)},
		{MetaBenchmarkVersion, r.BenchmarkVersion},
		{MetaScoringProtocol, r.ScoringProtocol},
		{MetaGenerator, r.Environment.Generator},
		{MetaGeneratorVersion, r.Environment.GeneratorVersion},
		{MetaRun, string(runJSON)},
	}
}

func writeRows[T any](w io.Writer, rows []T, opts []parquet.WriterOption) error {
	pw := parquet.NewGenericWriter[T](w, opts...)
	if _, err := pw.Write(rows); err != nil {
		return err
	}
	return pw.Close()
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, creating the directory if needed. On error the
// temporary file is removed and path is untouched (internal/atomicfile).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return atomicfile.WriteFile(path, data, perm)
}

// Read reads and validates one results file of any format version from 1
// to FormatVersion. A file of a later version, a required field of the run
// record that is missing (each named, e.g. "question_set: required field
// missing"; the checks that would only follow from it are skipped), a
// missing required column, rows that disagree with the run metadata, or any
// rule of Validate broken give *FormatError values naming path (joined when
// several).
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := decode(data)
	if err != nil {
		return nil, withFile(path, err)
	}
	f.Path = path
	return f, nil
}

// openOptions are the parquet-go options of every reader here: the page
// index and bloom filters are never needed, and parquet-go's reader of the
// page index panics on some damaged files (found by FuzzDecode).
var openOptions = []parquet.FileOption{parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true)}

// decode reads a results file from data. parquet-go may panic on a damaged
// file: a panic is recovered as a *FormatError, so that a hostile file (a
// submission) cannot crash the command reading it.
func decode(data []byte) (f *File, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, &FormatError{Err: fmt.Errorf("not a readable Parquet file: the reader failed: %v", p)}
		}
	}()
	if err := checkFooter(bytes.NewReader(data), int64(len(data))); err != nil {
		return nil, &FormatError{Err: err}
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), openOptions...)
	if err != nil {
		return nil, &FormatError{Err: fmt.Errorf("not a Parquet file: %w", err)}
	}
	// The column chunks' decompressed size, as the footer states it, is
	// bounded before any page is read.
	var decoded int64
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.TotalUncompressedSize < 0 {
				return nil, &FormatError{Err: fmt.Errorf("not a Parquet file: a column chunk claims %d bytes", c.MetaData.TotalUncompressedSize)}
			}
			decoded += c.MetaData.TotalUncompressedSize
			if codec := c.MetaData.Codec; codec == format.Lz4 || codec == format.Lz4Raw || codec == format.LZO {
				// parquet-go's LZ4 decoder doubles its buffer until a damaged
				// page fits, without end (found by FuzzDecode); LZO it cannot read.
				return nil, &FormatError{Err: fmt.Errorf("column %s is compressed with %v, which this reader refuses; write zstd, snappy, gzip, brotli or none",
					strings.Join(c.MetaData.PathInSchema, "."), codec)}
			}
		}
	}
	if decoded > MaxDecodedBytes {
		return nil, &FormatError{Err: fmt.Errorf("the columns decompress to %d bytes, over the reader's cap of %d", decoded, MaxDecodedBytes)}
	}
	if err := checkPages(pf, data); err != nil {
		return nil, &FormatError{Err: fmt.Errorf("not a readable Parquet file: %w", err)}
	}
	version, ok := pf.Lookup(MetaFormatVersion)
	if !ok {
		return nil, metaErr(MetaFormatVersion, "missing: not a MatTools results file")
	}
	fileVersion, err := strconv.Atoi(version)
	if err != nil || fileVersion < 1 || fileVersion > FormatVersion {
		return nil, metaErr(MetaFormatVersion, "is %q; this reader supports versions 1 to %d", version, FormatVersion)
	}
	runJSON, ok := pf.Lookup(MetaRun)
	if !ok {
		return nil, metaErr(MetaRun, "missing")
	}
	if errs := checkRequired(runJSON); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	f = &File{}
	dec := json.NewDecoder(strings.NewReader(runJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f.Run); err != nil {
		return nil, metaErr(MetaRun, "invalid JSON: %v", err)
	}
	r := &f.Run
	if r.FormatVersion != fileVersion {
		return nil, metaErr("format_version", "is %d but %s is %d", r.FormatVersion, MetaFormatVersion, fileVersion)
	}
	for key, want := range map[string]string{
		MetaRowKind: rowKind(r.Benchmark), MetaBenchmark: string(r.Benchmark),
		MetaBenchmarkVersion: r.BenchmarkVersion, MetaScoringProtocol: r.ScoringProtocol,
		MetaGenerator: r.Environment.Generator, MetaGeneratorVersion: r.Environment.GeneratorVersion,
	} {
		if got, _ := pf.Lookup(key); got != want {
			return nil, metaErr(key, "is %q but %s says %q", got, MetaRun, want)
		}
	}
	if r.Benchmark.Kind() == KindMultipleChoice {
		f.QAItems, err = readRows[QAItem](pf)
	} else {
		f.Questions, err = readRows[QuestionRow](pf)
	}
	if err != nil {
		return nil, err
	}
	for i := range f.Questions { // an empty list reads back as nil, as it was written
		q := &f.Questions[i]
		if len(q.FailedProperties) == 0 {
			q.FailedProperties = nil
		}
		if len(q.Retrieved) == 0 {
			q.Retrieved = nil
		}
		if len(q.Trace) == 0 {
			q.Trace = nil
		}
		if len(q.PropertyOutcomes) == 0 {
			q.PropertyOutcomes = nil
		}
		for j := range q.Trace {
			if len(q.Trace[j].RetrievedIDs) == 0 {
				q.Trace[j].RetrievedIDs = nil
			}
		}
	}
	if err := checkIdentity(f); err != nil {
		return nil, err
	}
	if err := Validate(f); err != nil {
		return nil, err
	}
	return f, nil
}

// requiredFields are the fields of the run record (mattools.run) that
// FORMAT.md marks required, as dotted paths. A nested one is required when
// its parent is present (provenance.submission is itself required only for
// submitted runs, which Validate checks).
var requiredFields = []string{
	"format_version", "run_id", "benchmark", "benchmark_version", "system", "retrieval_source", "model", "round",
	"scoring_protocol", "generation", "question_set", "provenance", "environment", "totals",
	"question_set.name", "question_set.questions",
	"provenance.kind", "provenance.submission.folder", "provenance.submission.metadata_sha256",
	"environment.generator",
	"totals.scored", "totals.questions",
}

// checkRequired returns one *FormatError per required field missing (or
// null) from the run record's JSON. Fields under a missing parent are not
// reported again; JSON that is not an object is left to the decoder.
func checkRequired(runJSON string) []error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(runJSON), &top); err != nil {
		return nil
	}
	var errs []error
	for _, path := range requiredFields {
		obj := top
		parts := strings.Split(path, ".")
		for _, parent := range parts[:len(parts)-1] {
			var next map[string]json.RawMessage
			if raw, ok := obj[parent]; !ok || json.Unmarshal(raw, &next) != nil || next == nil {
				obj = nil // parent missing, null or not an object: reported elsewhere
				break
			}
			obj = next
		}
		if obj == nil && len(parts) > 1 {
			continue
		}
		if raw, ok := obj[parts[len(parts)-1]]; !ok || string(raw) == "null" {
			errs = append(errs, metaErr(path, "required field missing"))
		}
	}
	return errs
}

// readRows reads every row as T after checking that the file has each
// required (non-optional, non-list) column of T.
func readRows[T any](pf *parquet.File) ([]T, error) {
	want := parquet.SchemaOf(new(T))
	have := map[string]bool{}
	for _, col := range pf.Schema().Columns() {
		have[col[0]] = true
	}
	for _, field := range want.Fields() {
		// Required scalar columns must be present; optional and list columns may be absent.
		if field.Leaf() && !field.Optional() && !have[field.Name()] {
			return nil, metaErr("columns", "required column %q is missing", field.Name())
		}
	}
	// The footer's row count is the writer's claim: it bounds the rows read,
	// but memory grows with the rows actually decoded (a damaged or hostile
	// footer claiming billions of rows must not allocate them up front).
	total := pf.NumRows()
	if total < 0 || total > MaxRows {
		return nil, metaErr("rows", "the file claims %d rows; a results file holds at most %d", total, MaxRows)
	}
	var rows []T
	buf := make([]T, min(int(total), 1024))
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	for int64(len(rows)) < total {
		k, err := r.Read(buf[:min(len(buf), int(total)-len(rows))])
		rows = append(rows, buf[:k]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &FormatError{Row: len(rows) + 1, Err: err}
		}
		if k == 0 {
			return nil, &FormatError{Row: len(rows) + 1, Err: errors.New("no progress reading rows")}
		}
	}
	n := len(rows)
	rows = rows[:n]
	// A list column the file does not have reads as one zero element per
	// row (parquet-go fills the absent group); it is absent, so empty.
	var absent []int
	t := reflect.TypeFor[T]()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("parquet"), ",")
		if k := t.Field(i).Type.Kind(); k == reflect.Slice && name != "" && !have[name] {
			absent = append(absent, i)
		}
	}
	for j := range rows {
		v := reflect.ValueOf(&rows[j]).Elem()
		for _, i := range absent {
			v.Field(i).SetZero()
		}
	}
	return rows, nil
}

func checkIdentity(f *File) error {
	r := &f.Run
	check := func(row int, runID, bench, sys string, src int32, model string, round int32, proto string) error {
		switch {
		case runID != r.RunID:
			return rowErr(row, "run_id", "is %q but the run is %q", runID, r.RunID)
		case bench != string(r.Benchmark), sys != string(r.System), src != int32(r.RetrievalSource),
			model != r.Model, round != int32(r.Round), proto != r.ScoringProtocol:
			return rowErr(row, "", "identity columns (benchmark, system, retrieval_source, model, round, scoring_protocol) disagree with the run metadata")
		}
		return nil
	}
	for i, q := range f.Questions {
		if err := check(i+1, q.RunID, q.Benchmark, q.System, q.RetrievalSource, q.Model, q.Round, q.ScoringProtocol); err != nil {
			return err
		}
	}
	for i, q := range f.QAItems {
		if err := check(i+1, q.RunID, q.Benchmark, q.System, q.RetrievalSource, q.Model, q.Round, q.ScoringProtocol); err != nil {
			return err
		}
	}
	return nil
}

// withFile sets File on every *FormatError inside err.
func withFile(path string, err error) error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var fe *FormatError
		if errors.As(e, &fe) && fe.File == "" {
			fe.File = path
		}
	}
	return err
}

// resultsPaths lists the results files (*.parquet) under dir, recursively,
// in lexical path order, skipping names that start with "." (temporary
// files of an interrupted write). A missing dir gives none and no error.
func resultsPaths(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, Extension) && !strings.HasPrefix(d.Name(), ".") {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	return paths, err
}

// ReadDir reads every results file (*.parquet) under dir, recursively, in
// lexical path order. Files whose names start with "." are skipped
// (temporary files of an interrupted write). A missing dir gives no files and
// no error. Two files with the same run id are an error naming both.
func ReadDir(dir string) ([]*File, error) {
	paths, err := resultsPaths(dir)
	if err != nil {
		return nil, err
	}
	files := make([]*File, 0, len(paths))
	byID := map[string]string{}
	var errs []error
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := byID[f.Run.RunID]; dup {
			errs = append(errs, fmt.Errorf("%s: run_id %q already used by %s", p, f.Run.RunID, prev))
			continue
		}
		byID[f.Run.RunID] = p
		files = append(files, f)
	}
	return files, errors.Join(errs...)
}
