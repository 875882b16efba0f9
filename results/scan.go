package results

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// This file reads results files for the leaderboard: the run
// record from the footer's key-value metadata and only the row columns a
// reader needs, so that memory holds the aggregates and a few small
// columns per question, never every row's texts, and QA item rows (7,192
// per imported run) not at all.

// SummaryOptions configure ReadSummary.
type SummaryOptions struct {
	// CodeKey, when not nil, is applied to each tool-usage row's code as it
	// is read (the code itself is not kept); its results are
	// Summary.CodeKeys, and the code is checked to be valid UTF-8 (Validate's
	// rule). Code that is empty or all white space is passed too.
	CodeKey func(code string) string
	// Check, when not nil, is called with each file read and validated,
	// its rows whole (before Compact drops them); its error is
	// Summary.CheckErr, which does not make the file invalid. ScanDir
	// calls it from several goroutines at once.
	Check func(f *File) error
	// Compact keeps each tool-usage file's rows as Summary.Rows
	// (SummaryRow: the summary columns only, strings shared) and leaves
	// File.Questions nil, so that a build holds tens of bytes per row
	// rather than a QuestionRow's hundreds. ScanDir shares the
	// rows' strings (question ids, verdicts, causes, code keys) and the run
	// records' strings, string lists and string maps (question ids of the
	// question set, libraries, parameters: read-only afterwards) across all
	// its files.
	Compact bool
}

// SummaryRow is a tool-usage row as the leaderboard keeps it for a whole
// build (SummaryOptions.Compact): the summary columns the pages count,
// under QuestionRow's names and types. Its optional values point into
// arrays shared by the rows of one file, not one allocation each.
type SummaryRow struct {
	QuestionID       string
	Verdict          string
	VerdictCause     string
	QuestionIndex    int32
	PropertyCount    int32
	Runnable         *bool
	PropertiesPassed *int32
	PromptTokens     *int64
	CompletionTokens *int64
	LatencyMS        *int64
	// Outcomes are the row's per-property outcomes (format v3's
	// property_outcomes) without their messages, in the unit test's order;
	// nil when the row has none. TallySummaryProperties scores a question
	// set defined by properties on them.
	Outcomes []PropertyPass
}

// PropertyPass is one property's outcome as a SummaryRow keeps it: the
// property's name and whether its check passed (PropertyOutcome without
// the message).
type PropertyPass struct {
	Property string
	Passed   bool
}

// SummaryRows returns the summary columns of rows, in order (nil for none);
// their optional values are copied into arrays shared by the returned rows.
func SummaryRows(rows []QuestionRow) []SummaryRow { return summaryRows(rows, nil) }

// summaryRows is SummaryRows with each string replaced by in's (nil: kept).
func summaryRows(rows []QuestionRow, in func(string) string) []SummaryRow {
	if len(rows) == 0 {
		return nil
	}
	if in == nil {
		in = func(s string) string { return s }
	}
	out := make([]SummaryRow, len(rows))
	var nb, n32, n64 int
	for i := range rows {
		q := &rows[i]
		if q.Runnable != nil {
			nb++
		}
		if q.PropertiesPassed != nil {
			n32++
		}
		for _, p := range []*int64{q.PromptTokens, q.CompletionTokens, q.LatencyMS} {
			if p != nil {
				n64++
			}
		}
	}
	bools, i32s, i64s := make([]bool, 0, nb), make([]int32, 0, n32), make([]int64, 0, n64)
	opt64 := func(p *int64) *int64 {
		if p == nil {
			return nil
		}
		i64s = append(i64s, *p)
		return &i64s[len(i64s)-1]
	}
	for i := range rows {
		q, s := &rows[i], &out[i]
		*s = SummaryRow{QuestionID: in(q.QuestionID), Verdict: in(q.Verdict), VerdictCause: in(q.VerdictCause),
			QuestionIndex: q.QuestionIndex, PropertyCount: q.PropertyCount}
		if q.Runnable != nil {
			bools = append(bools, *q.Runnable)
			s.Runnable = &bools[len(bools)-1]
		}
		if q.PropertiesPassed != nil {
			i32s = append(i32s, *q.PropertiesPassed)
			s.PropertiesPassed = &i32s[len(i32s)-1]
		}
		s.PromptTokens, s.CompletionTokens, s.LatencyMS = opt64(q.PromptTokens), opt64(q.CompletionTokens), opt64(q.LatencyMS)
		if len(q.PropertyOutcomes) > 0 {
			s.Outcomes = make([]PropertyPass, len(q.PropertyOutcomes))
			for j, o := range q.PropertyOutcomes {
				s.Outcomes[j] = PropertyPass{Property: in(o.Property), Passed: o.Passed}
			}
		}
	}
	return out
}

// QuestionRow returns the row with s's columns set and every other field
// zero (ReadDetails' columns are added by the caller).
func (s *SummaryRow) QuestionRow() QuestionRow {
	return QuestionRow{QuestionID: s.QuestionID, Verdict: s.Verdict, VerdictCause: s.VerdictCause, QuestionIndex: s.QuestionIndex,
		PropertyCount: s.PropertyCount, Runnable: s.Runnable, PropertiesPassed: s.PropertiesPassed, PromptTokens: s.PromptTokens,
		CompletionTokens: s.CompletionTokens, LatencyMS: s.LatencyMS}
}

// sharedStrings interns strings across the files ScanDir reads at once,
// and the string lists and string maps of their run records (share).
type sharedStrings struct {
	mu    sync.Mutex
	m     map[string]string
	lists map[string][]string
	maps  map[string]map[string]string
}

func newSharedStrings() *sharedStrings {
	return &sharedStrings{m: map[string]string{}, lists: map[string][]string{}, maps: map[string]map[string]string{}}
}

func (sh *sharedStrings) intern(s string) string {
	if v, ok := sh.m[s]; ok {
		return v
	}
	sh.m[s] = s
	return s
}

// contentKey encodes a list of strings unambiguously (each length-prefixed).
func contentKey(list ...string) string {
	var b strings.Builder
	for _, x := range list {
		b.WriteString(strconv.Itoa(len(x)))
		b.WriteByte(':')
		b.WriteString(x)
	}
	return b.String()
}

// share replaces, in the value v points to, every string by its interned
// copy and every []string and map[string]string by an earlier one with
// the same contents (a run's question ids, libraries, parameters), so that
// runs of one configuration hold one copy. The values are read-only
// afterwards, as a loaded run record is. Other maps (json.RawMessage
// values) are left as they are.
func (sh *sharedStrings) share(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(sh.intern(v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			sh.share(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				sh.share(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Len() == 0 || !v.CanSet() {
			return
		}
		if v.Type() == reflect.TypeFor[[]string]() {
			list := v.Interface().([]string)
			key := contentKey(list...)
			if prev, ok := sh.lists[key]; ok {
				v.Set(reflect.ValueOf(prev))
				return
			}
			for i := range list {
				list[i] = sh.intern(list[i])
			}
			sh.lists[key] = list
			return
		}
		for i := range v.Len() {
			sh.share(v.Index(i))
		}
	case reflect.Map:
		if v.Len() == 0 || !v.CanSet() || v.Type() != reflect.TypeFor[map[string]string]() {
			return
		}
		m := v.Interface().(map[string]string)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		kv := make([]string, 0, 2*len(keys))
		for _, k := range keys {
			kv = append(kv, k, m[k])
		}
		key := contentKey(kv...)
		if prev, ok := sh.maps[key]; ok {
			v.Set(reflect.ValueOf(prev))
			return
		}
		shared := make(map[string]string, len(m))
		for k, x := range m {
			shared[sh.intern(k)] = sh.intern(x)
		}
		sh.maps[key] = shared
		v.Set(reflect.ValueOf(shared))
	}
}

// Summary is a results file as the leaderboard's tables read it.
type Summary struct {
	// File holds the run record and, for tool usage, one QuestionRow per
	// row with only the summary columns set (identity, question,
	// property count, outcome, verdict and cause, tokens, latency, and the
	// per-property outcomes of format v3, checked against the outcome); its
	// texts, retrieved context and trace are empty: ReadDetails reads them.
	// QA files keep no rows (QAItems is nil): their counts were checked
	// against the totals and are kept per item in File.QA (CompactQA).
	File *File
	// CodeKeys holds SummaryOptions.CodeKey of each row's code, in row
	// order (nil without CodeKey).
	CodeKeys []string
	// Rows are the tool-usage rows with SummaryOptions.Compact (File.Questions
	// is then nil), in row order.
	Rows []SummaryRow
	// CheckErr is SummaryOptions.Check's error.
	CheckErr error
}

// nestedRow is the projection of QuestionRow on the two list columns a
// question page shows; ReadDetails reads the flat columns it shows one by
// one (scanColumn) and these through parquet-go's row reader, only when a
// row has an element (hasElements).
type nestedRow struct {
	Retrieved []RetrievedChunk `parquet:"retrieved,list"`
	Trace     []TraceStage     `parquet:"trace,list"`
}

// ReadSummary reads the results file at path for the leaderboard's tables:
// the run record (checked as Read checks it) and only the columns of
// summaryQuestions (tool usage) or summaryQA (QA), each checked by Validate's
// rules, then the rows' identity columns against the run. The rules on
// columns it does not read (the texts' UTF-8 and byte lengths, the
// retrieved context, the trace) are ReadDetails' and Read's. Errors are
// *FormatError values naming path, the row and the field, as Read's.
func ReadSummary(path string, o SummaryOptions) (*Summary, error) {
	return readSummary(path, o, nil)
}

func readSummary(path string, o SummaryOptions, shared *sharedStrings) (*Summary, error) {
	// The file is read once, whole (as Read reads it): its column chunks are
	// read twice each (checkChunk, then the pages), which through the
	// file itself cost a system call apiece.
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := decodeSummary(data, o)
	if err != nil {
		return nil, withFile(path, err)
	}
	s.File.Path = path
	if o.Check != nil {
		s.CheckErr = o.Check(s.File)
	}
	if o.Compact {
		if shared == nil {
			shared = newSharedStrings()
		}
		shared.mu.Lock()
		shared.share(reflect.ValueOf(&s.File.Run))
		s.Rows = summaryRows(s.File.Questions, shared.intern)
		for i, k := range s.CodeKeys {
			s.CodeKeys[i] = shared.intern(k)
		}
		shared.mu.Unlock()
		s.File.Questions = nil
	}
	return s, nil
}

func decodeSummary(data []byte, o SummaryOptions) (s *Summary, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, &FormatError{Err: fmt.Errorf("not a readable Parquet file: the reader failed: %v", p)}
		}
	}()
	pf, f, err := openRun(data)
	if err != nil {
		return nil, err
	}
	s = &Summary{File: f}
	run := &f.Run
	if run.Benchmark.Kind() == KindMultipleChoice {
		if f.QAItems, err = summaryQA(pf, data); err != nil {
			return nil, err
		}
	} else {
		if f.Questions, err = summaryQuestions(pf, data); err != nil {
			return nil, err
		}
		if err := readPropertyOutcomes(pf, data, f.Questions); err != nil {
			return nil, err
		}
		if o.CodeKey != nil && len(f.Questions) > 0 {
			if s.CodeKeys, err = codeKeys(pf, data, o.CodeKey); err != nil {
				return nil, err
			}
		}
	}
	if err := checkIdentity(f); err != nil {
		return nil, err
	}
	if err := Validate(f); err != nil {
		return nil, err
	}
	if len(f.QAItems) > 0 {
		f.QA = CompactQA(f.QAItems)
	}
	f.QAItems = nil
	for i := range f.Questions { // share the run's strings rather than one copy per row
		q := &f.Questions[i]
		q.RunID, q.Benchmark, q.System, q.Model, q.ScoringProtocol = run.RunID, string(run.Benchmark), string(run.System), run.Model, run.ScoringProtocol
	}
	return s, nil
}

// ReadDetails returns the rows of the tool-usage results file at path with
// the columns a question page shows (question index and id, code, function
// name, the error, stdout and stderr excerpts and their original byte
// lengths, the retrieved context and the trace; the two lists read only
// when some row has an element: nestedRow; and the per-property outcomes of
// format v3, which a question page lists as passed and failed) set, and
// every other field zero, after checking the file's footer and run record
// as ReadSummary does and these columns by Validate's rules. Errors are
// *FormatError values naming path, the row and the field.
func ReadDetails(path string) ([]QuestionRow, error) {
	data, err := os.ReadFile(path) // whole, as ReadSummary reads it
	if err != nil {
		return nil, err
	}
	rows, err := decodeDetails(data)
	if err != nil {
		return nil, withFile(path, err)
	}
	return rows, nil
}

func decodeDetails(data []byte) (out []QuestionRow, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &FormatError{Err: fmt.Errorf("not a readable Parquet file: the reader failed: %v", p)}
		}
	}()
	pf, f, err := openRun(data)
	if err != nil {
		return nil, err
	}
	if f.Run.Benchmark.Kind() == KindMultipleChoice {
		return nil, metaErr("benchmark", "is %s: QA files have no question details", f.Run.Benchmark)
	}
	n := int(min(max(pf.NumRows(), 0), MaxRows))
	out = make([]QuestionRow, n)
	text := func(pick func(q *QuestionRow) *string) func(int, parquet.Value) {
		return func(i int, v parquet.Value) { *pick(&out[i]) = string(v.ByteArray()) }
	}
	optText := func(pick func(q *QuestionRow) **string) func(int, parquet.Value) {
		return func(i int, v parquet.Value) {
			if !v.IsNull() {
				s := string(v.ByteArray())
				*pick(&out[i]) = &s
			}
		}
	}
	optNum := func(pick func(q *QuestionRow) **int64) func(int, parquet.Value) {
		return func(i int, v parquet.Value) { *pick(&out[i]) = optInt64(v) }
	}
	// The columns of the page, each read on its own: parquet-go's row
	// reader keeps buffers per column and per page.
	cols := []column{
		{"question_index", kindInt, true, func(i int, v parquet.Value) { out[i].QuestionIndex = int32(v.Int64()) }},
		{"question_id", kindString, true, text(func(q *QuestionRow) *string { return &q.QuestionID })},
		{"code", kindString, true, text(func(q *QuestionRow) *string { return &q.Code })},
		{"function_name", kindString, true, text(func(q *QuestionRow) *string { return &q.FunctionName })},
		{"error_excerpt", kindString, false, optText(func(q *QuestionRow) **string { return &q.ErrorExcerpt })},
		{"stdout_excerpt", kindString, false, optText(func(q *QuestionRow) **string { return &q.StdoutExcerpt })},
		{"stderr_excerpt", kindString, false, optText(func(q *QuestionRow) **string { return &q.StderrExcerpt })},
		{"error_excerpt_bytes", kindInt, false, optNum(func(q *QuestionRow) **int64 { return &q.ErrorExcerptBytes })},
		{"stdout_bytes", kindInt, false, optNum(func(q *QuestionRow) **int64 { return &q.StdoutBytes })},
		{"stderr_bytes", kindInt, false, optNum(func(q *QuestionRow) **int64 { return &q.StderrBytes })},
	}
	if err := scanColumns(pf, data, cols); err != nil {
		return nil, err
	}
	nested := false
	for _, name := range []string{"retrieved", "trace"} {
		has, err := hasElements(pf, data, name)
		if err != nil {
			return nil, err
		}
		nested = nested || has
	}
	if nested {
		rows, err := readColumns[nestedRow](pf, data)
		if err != nil {
			return nil, err
		}
		if len(rows) != n {
			return nil, &FormatError{Field: "retrieved", Err: fmt.Errorf("holds %d rows for the file's %d", len(rows), n)}
		}
		for i, d := range rows {
			q := &out[i]
			if len(d.Retrieved) > 0 {
				q.Retrieved = d.Retrieved
			}
			if len(d.Trace) > 0 {
				q.Trace = d.Trace
				for j := range q.Trace {
					if len(q.Trace[j].RetrievedIDs) == 0 {
						q.Trace[j].RetrievedIDs = nil
					}
				}
			}
		}
	}
	if err := readPropertyOutcomes(pf, data, out); err != nil {
		return nil, err
	}
	var errs []error
	for i := range out {
		errs = append(errs, validateQuestionText(i+1, &out[i])...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// outcomesRow is the projection of QuestionRow on its per-property
// outcomes (format v3), which the summary reads to check them against
// properties_passed.
type outcomesRow struct {
	PropertyOutcomes []PropertyOutcome `parquet:"property_outcomes,list"`
}

// readPropertyOutcomes sets the per-property outcomes of rows from pf, when
// some row has one (the column is absent from v1 and v2 files).
func readPropertyOutcomes(pf *parquet.File, data []byte, rows []QuestionRow) error {
	has, err := hasElements(pf, data, "property_outcomes")
	if err != nil || !has {
		return err
	}
	got, err := readColumns[outcomesRow](pf, data)
	if err != nil {
		return err
	}
	if len(got) != len(rows) {
		return &FormatError{Field: "property_outcomes", Err: fmt.Errorf("holds %d rows for the file's %d", len(got), len(rows))}
	}
	for i := range got {
		if len(got[i].PropertyOutcomes) > 0 {
			rows[i].PropertyOutcomes = got[i].PropertyOutcomes
		}
	}
	return nil
}

// hasElements reports whether any row of pf has an element in the list
// column name (absent: false): whether any value of its leaves reaches
// their maximum definition level. Only those leaves' pages are decoded.
func hasElements(pf *parquet.File, data []byte, name string) (bool, error) {
	var buf []parquet.Value
	for _, path := range pf.Schema().Columns() {
		if len(path) == 0 || path[0] != name {
			continue
		}
		leaf, ok := pf.Schema().Lookup(path...)
		if !ok {
			continue
		}
		if buf == nil {
			buf = make([]parquet.Value, 1024)
		}
		for gi, rg := range pf.RowGroups() {
			if err := checkChunk(pf.Metadata().RowGroups[gi].Columns[leaf.ColumnIndex].MetaData, data); err != nil {
				return false, &FormatError{Err: fmt.Errorf("not a readable Parquet file: %w", err)}
			}
			found, err := func() (bool, error) {
				pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
				defer pages.Close()
				for {
					p, err := pages.ReadPage()
					if errors.Is(err, io.EOF) {
						return false, nil
					}
					if err != nil {
						return false, &FormatError{Field: name, Err: err}
					}
					vr := p.Values()
					for {
						k, err := vr.ReadValues(buf)
						for _, v := range buf[:k] {
							if v.DefinitionLevel() == leaf.MaxDefinitionLevel {
								parquet.Release(p)
								return true, nil
							}
						}
						if errors.Is(err, io.EOF) {
							break
						}
						if err != nil {
							parquet.Release(p)
							return false, &FormatError{Field: name, Err: err}
						}
						if k == 0 {
							parquet.Release(p)
							return false, &FormatError{Field: name, Err: errors.New("no progress reading values")}
						}
					}
					parquet.Release(p)
				}
			}()
			if err != nil || found {
				return found, err
			}
		}
	}
	return false, nil
}

// openRun checks the footer of the file data (the whole file), opens it and
// decodes its run record as Read does, without reading any page.
func openRun(data []byte) (*parquet.File, *File, error) {
	r, size := bytes.NewReader(data), int64(len(data))
	if err := checkFooter(r, size); err != nil {
		return nil, nil, &FormatError{Err: err}
	}
	pf, err := parquet.OpenFile(r, size, openOptions...)
	if err != nil {
		return nil, nil, &FormatError{Err: fmt.Errorf("not a Parquet file: %w", err)}
	}
	var decoded int64
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if c.MetaData.TotalUncompressedSize < 0 {
				return nil, nil, &FormatError{Err: fmt.Errorf("not a Parquet file: a column chunk claims %d bytes", c.MetaData.TotalUncompressedSize)}
			}
			decoded += c.MetaData.TotalUncompressedSize
			if codec := c.MetaData.Codec; codec == format.Lz4 || codec == format.Lz4Raw || codec == format.LZO {
				return nil, nil, &FormatError{Err: fmt.Errorf("column %s is compressed with %v, which this reader refuses; write zstd, snappy, gzip, brotli or none",
					strings.Join(c.MetaData.PathInSchema, "."), codec)}
			}
		}
	}
	if decoded > MaxDecodedBytes {
		return nil, nil, &FormatError{Err: fmt.Errorf("the columns decompress to %d bytes, over the reader's cap of %d", decoded, MaxDecodedBytes)}
	}
	version, ok := pf.Lookup(MetaFormatVersion)
	if !ok {
		return nil, nil, metaErr(MetaFormatVersion, "missing: not a MatTools results file")
	}
	fileVersion, err := strconv.Atoi(version)
	if err != nil || fileVersion < 1 || fileVersion > FormatVersion {
		return nil, nil, metaErr(MetaFormatVersion, "is %q; this reader supports versions 1 to %d", version, FormatVersion)
	}
	runJSON, ok := pf.Lookup(MetaRun)
	if !ok {
		return nil, nil, metaErr(MetaRun, "missing")
	}
	if errs := checkRequired(runJSON); len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	f := &File{}
	dec := json.NewDecoder(strings.NewReader(runJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f.Run); err != nil {
		return nil, nil, metaErr(MetaRun, "invalid JSON: %v", err)
	}
	run := &f.Run
	if run.FormatVersion != fileVersion {
		return nil, nil, metaErr("format_version", "is %d but %s is %d", run.FormatVersion, MetaFormatVersion, fileVersion)
	}
	for _, kv := range []struct{ key, want string }{
		{MetaRowKind, rowKind(run.Benchmark)}, {MetaBenchmark, string(run.Benchmark)},
		{MetaBenchmarkVersion, run.BenchmarkVersion}, {MetaScoringProtocol, run.ScoringProtocol},
		{MetaGenerator, run.Environment.Generator}, {MetaGeneratorVersion, run.Environment.GeneratorVersion},
	} {
		if got, _ := pf.Lookup(kv.key); got != kv.want {
			return nil, nil, metaErr(kv.key, "is %q but %s says %q", got, MetaRun, kv.want)
		}
	}
	return pf, f, nil
}

// readColumns checks the page headers of the column chunks that T reads
// (as checkPages does for a whole file) and reads every row as T: only
// those columns are decoded (parquet-go converts the file's row groups to
// T's schema; columns T lacks are never read).
func readColumns[T any](pf *parquet.File, data []byte) ([]T, error) {
	want := map[string]bool{}
	for _, field := range parquet.SchemaOf(new(T)).Fields() {
		want[field.Name()] = true
	}
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			if len(c.MetaData.PathInSchema) == 0 || !want[c.MetaData.PathInSchema[0]] {
				continue
			}
			if err := checkChunk(c.MetaData, data); err != nil {
				return nil, &FormatError{Err: fmt.Errorf("not a readable Parquet file: %w", err)}
			}
		}
	}
	return readRows[T](pf)
}

// ScanDir reads every results file under dir with ReadSummary, as
// ReadDirReport reads them (recursively, lexical path order, names
// starting with "." skipped, a missing dir gives nothing; an unreadable or
// invalid file is returned in invalid with its path, best-effort run id and
// error; the error is a walk error or two valid files with the same run id,
// naming both), with up to GOMAXPROCS files read at once. The summaries
// are in path order.
func ScanDir(dir string, o SummaryOptions) (sums []*Summary, invalid []Invalid, err error) {
	paths, err := resultsPaths(dir)
	if err != nil {
		return nil, nil, err
	}
	type result struct {
		s   *Summary
		err error
	}
	res := make([]result, len(paths))
	shared := newSharedStrings()
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(paths), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				s, err := readSummary(paths[i], o, shared)
				res[i] = result{s, err}
			}
		}()
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	byID := map[string]string{}
	var errs []error
	for i, p := range paths {
		s, err := res[i].s, res[i].err
		if err != nil {
			if e := (*FormatError)(nil); !errors.As(err, &e) && !strings.Contains(err.Error(), p) {
				err = fmt.Errorf("%s: %w", p, err)
			}
			invalid = append(invalid, Invalid{Path: p, RunID: PeekRunID(p), Err: err})
			continue
		}
		if prev, dup := byID[s.File.Run.RunID]; dup {
			errs = append(errs, fmt.Errorf("%s: run_id %q already used by %s", p, s.File.Run.RunID, prev))
			continue
		}
		byID[s.File.Run.RunID] = p
		sums = append(sums, s)
	}
	return sums, invalid, errors.Join(errs...)
}

// columnKind is what a flat column must hold.
type columnKind int

const (
	kindInt columnKind = iota
	kindBool
	kindString
)

// scanColumn reads the flat column name of pf page by page and calls fn
// with each row's value (null for a null or, when the column is absent and
// not required, every row); only that column's pages are decoded. The
// column must hold kind (integers of any width; strings as byte arrays)
// and one value per row. parquet-go's pages are released as they are done,
// so fn must copy what it keeps of a byte array.
func scanColumn(pf *parquet.File, data []byte, name string, kind columnKind, required bool, fn func(row int, v parquet.Value) error) error {
	return scanColumnBuf(pf, data, name, kind, required, nil, fn)
}

// scanColumnBuf is scanColumn reading values into buf (nil: its own).
func scanColumnBuf(pf *parquet.File, data []byte, name string, kind columnKind, required bool, buf []parquet.Value, fn func(row int, v parquet.Value) error) error {
	total := pf.NumRows()
	if total < 0 || total > MaxRows {
		return metaErr("rows", "the file claims %d rows; a results file holds at most %d", total, MaxRows)
	}
	leaf, ok := pf.Schema().Lookup(name)
	if !ok {
		if required {
			return metaErr("columns", "required column %q is missing", name)
		}
		for i := range int(total) {
			if err := fn(i, parquet.Value{}); err != nil {
				return err
			}
		}
		return nil
	}
	if leaf.MaxRepetitionLevel > 0 {
		return metaErr("columns", "column %q is repeated; want one value per row", name)
	}
	row := 0
	if len(buf) == 0 {
		buf = make([]parquet.Value, 1024)
	}
	for gi, rg := range pf.RowGroups() {
		if err := checkChunk(pf.Metadata().RowGroups[gi].Columns[leaf.ColumnIndex].MetaData, data); err != nil {
			return &FormatError{Err: fmt.Errorf("not a readable Parquet file: %w", err)}
		}
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		err := func() error {
			defer pages.Close()
			for {
				p, err := pages.ReadPage()
				if errors.Is(err, io.EOF) {
					return nil
				}
				if err != nil {
					return &FormatError{Row: row + 1, Field: name, Err: err}
				}
				vr := p.Values()
				for {
					n, err := vr.ReadValues(buf)
					for _, v := range buf[:n] {
						if row >= int(total) {
							parquet.Release(p)
							return &FormatError{Field: name, Err: fmt.Errorf("holds more values than the file's %d rows", total)}
						}
						if !v.IsNull() {
							k := v.Kind()
							if ok := (kind == kindInt && (k == parquet.Int32 || k == parquet.Int64)) || (kind == kindBool && k == parquet.Boolean) ||
								(kind == kindString && (k == parquet.ByteArray || k == parquet.FixedLenByteArray)); !ok {
								parquet.Release(p)
								return rowErr(row+1, name, "holds a %v value", k)
							}
						} else if required {
							parquet.Release(p)
							return rowErr(row+1, name, "is null; the column is required")
						}
						if err := fn(row, v); err != nil {
							parquet.Release(p)
							return err
						}
						row++
					}
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						parquet.Release(p)
						return &FormatError{Row: row + 1, Field: name, Err: err}
					}
					if n == 0 {
						parquet.Release(p)
						return &FormatError{Row: row + 1, Field: name, Err: errors.New("no progress reading values")}
					}
				}
				parquet.Release(p)
			}
		}()
		if err != nil {
			return err
		}
	}
	if row != int(total) {
		return &FormatError{Field: name, Err: fmt.Errorf("holds %d values for the file's %d rows", row, total)}
	}
	return nil
}

// interner shares the strings of a column with few distinct values
// (verdicts, causes, identity columns).
type interner map[string]string

func (in interner) get(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}

func optInt64(v parquet.Value) *int64 {
	if v.IsNull() {
		return nil
	}
	x := v.Int64()
	return &x
}

func optInt32(v parquet.Value) *int32 {
	if v.IsNull() {
		return nil
	}
	x := int32(v.Int64())
	return &x
}

// column is one flat column a summary reads: its name, kind, whether the
// format requires it, and where its values go.
type column struct {
	name     string
	kind     columnKind
	required bool
	set      func(row int, v parquet.Value)
}

func scanColumns(pf *parquet.File, data []byte, cols []column) error {
	buf := make([]parquet.Value, 1024) // one for all the columns: each is done before the next
	for _, c := range cols {
		if err := scanColumnBuf(pf, data, c.name, c.kind, c.required, buf, func(row int, v parquet.Value) error { c.set(row, v); return nil }); err != nil {
			return err
		}
	}
	return nil
}

// identityColumns are the seven identity columns of rows of type T.
func identityColumns(in interner, id func(row int) (runID, bench, sys *string, src *int32, model *string, round *int32, proto *string)) []column {
	str := func(pick func(row int) *string) func(int, parquet.Value) {
		return func(row int, v parquet.Value) { *pick(row) = in.get(v.ByteArray()) }
	}
	num := func(pick func(row int) *int32) func(int, parquet.Value) {
		return func(row int, v parquet.Value) { *pick(row) = int32(v.Int64()) }
	}
	return []column{
		{"run_id", kindString, true, str(func(i int) *string { p, _, _, _, _, _, _ := id(i); return p })},
		{"benchmark", kindString, true, str(func(i int) *string { _, p, _, _, _, _, _ := id(i); return p })},
		{"system", kindString, true, str(func(i int) *string { _, _, p, _, _, _, _ := id(i); return p })},
		{"retrieval_source", kindInt, true, num(func(i int) *int32 { _, _, _, p, _, _, _ := id(i); return p })},
		{"model", kindString, true, str(func(i int) *string { _, _, _, _, p, _, _ := id(i); return p })},
		{"round", kindInt, true, num(func(i int) *int32 { _, _, _, _, _, p, _ := id(i); return p })},
		{"scoring_protocol", kindString, true, str(func(i int) *string { _, _, _, _, _, _, p := id(i); return p })},
	}
}

// summaryQuestions reads the summary columns of a tool-usage file.
func summaryQuestions(pf *parquet.File, data []byte) ([]QuestionRow, error) {
	n := int(min(max(pf.NumRows(), 0), MaxRows))
	rows := make([]QuestionRow, n)
	in := interner{}
	cols := identityColumns(in, func(i int) (*string, *string, *string, *int32, *string, *int32, *string) {
		q := &rows[i]
		return &q.RunID, &q.Benchmark, &q.System, &q.RetrievalSource, &q.Model, &q.Round, &q.ScoringProtocol
	})
	cols = append(cols,
		column{"question_index", kindInt, true, func(i int, v parquet.Value) { rows[i].QuestionIndex = int32(v.Int64()) }},
		column{"question_id", kindString, true, func(i int, v parquet.Value) { rows[i].QuestionID = string(v.ByteArray()) }},
		column{"property_count", kindInt, true, func(i int, v parquet.Value) { rows[i].PropertyCount = int32(v.Int64()) }},
		column{"runnable", kindBool, false, func(i int, v parquet.Value) {
			if !v.IsNull() {
				b := v.Boolean()
				rows[i].Runnable = &b
			}
		}},
		column{"properties_passed", kindInt, false, func(i int, v parquet.Value) { rows[i].PropertiesPassed = optInt32(v) }},
		column{"verdict", kindString, true, func(i int, v parquet.Value) { rows[i].Verdict = in.get(v.ByteArray()) }},
		column{"verdict_cause", kindString, true, func(i int, v parquet.Value) { rows[i].VerdictCause = in.get(v.ByteArray()) }},
		column{"prompt_tokens", kindInt, false, func(i int, v parquet.Value) { rows[i].PromptTokens = optInt64(v) }},
		column{"completion_tokens", kindInt, false, func(i int, v parquet.Value) { rows[i].CompletionTokens = optInt64(v) }},
		column{"latency_ms", kindInt, false, func(i int, v parquet.Value) { rows[i].LatencyMS = optInt64(v) }},
	)
	if err := scanColumns(pf, data, cols); err != nil {
		return nil, err
	}
	return rows, nil
}

// summaryQA reads the count columns of a QA file.
func summaryQA(pf *parquet.File, data []byte) ([]QAItem, error) {
	n := int(min(max(pf.NumRows(), 0), MaxRows))
	rows := make([]QAItem, n)
	in := interner{}
	cols := identityColumns(in, func(i int) (*string, *string, *string, *int32, *string, *int32, *string) {
		q := &rows[i]
		return &q.RunID, &q.Benchmark, &q.System, &q.RetrievalSource, &q.Model, &q.Round, &q.ScoringProtocol
	})
	cols = append(cols,
		column{"item_index", kindInt, true, func(i int, v parquet.Value) { rows[i].ItemIndex = int32(v.Int64()) }},
		column{"questions", kindInt, true, func(i int, v parquet.Value) { rows[i].Questions = int32(v.Int64()) }},
		column{"correct", kindInt, true, func(i int, v parquet.Value) { rows[i].Correct = int32(v.Int64()) }},
		column{"correct_lenient", kindInt, false, func(i int, v parquet.Value) { rows[i].CorrectLenient = optInt32(v) }},
		column{"answer_text_bytes", kindInt, false, func(i int, v parquet.Value) { rows[i].AnswerTextBytes = optInt64(v) }},
	)
	if err := scanColumns(pf, data, cols); err != nil {
		return nil, err
	}
	return rows, nil
}

// QAOutcomes are a QA file's rows as the leaderboard keeps them for a whole
// build (CompactQA): per item, in item_index order, its questions and
// correct answers, two bytes each rather than a QAItem's hundred and more,
// so that the interval over items of a QA accuracy needs no row (34,621
// items of a runner's run: about 140 KB).
type QAOutcomes struct {
	// Items fingerprints the items (FNV-1a 64 of each one's item_index and
	// questions, in item_index order): runs with equal Items hold the same
	// items, so their outcomes can be averaged item by item.
	Items uint64
	// Questions is each item's number of questions (nil: one each);
	// Correct its correct answers under MatTools' strict extraction and
	// Lenient under the lenient one (nil when the rows have no
	// correct_lenient, which is set on all rows or none).
	Questions, Correct, Lenient []uint16
	// Why, when not "", says why no per-item outcomes are kept (two rows of
	// one item_index, an item of more than 65,535 questions); the slices
	// are nil then.
	Why string
}

// Len returns the number of items.
func (o *QAOutcomes) Len() int { return len(o.Correct) }

// QuestionsOf returns item i's number of questions.
func (o *QAOutcomes) QuestionsOf(i int) int {
	if o.Questions == nil {
		return 1
	}
	return int(o.Questions[i])
}

// CompactQA returns items' outcomes in compact form, sorted by item_index
// (items is not modified). The counts are those Validate checked (correct
// and correct_lenient within 0–questions).
func CompactQA(items []QAItem) *QAOutcomes {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(items[a].ItemIndex, items[b].ItemIndex) })
	o := &QAOutcomes{Correct: make([]uint16, len(items))}
	ones := true
	for k, i := range order {
		q := &items[i]
		if k > 0 && items[order[k-1]].ItemIndex == q.ItemIndex {
			return &QAOutcomes{Why: fmt.Sprintf("rows %d and %d are both of item_index %d", order[k-1]+1, i+1, q.ItemIndex)}
		}
		if q.Questions > math.MaxUint16 || q.Questions < 0 {
			return &QAOutcomes{Why: fmt.Sprintf("row %d holds %d questions; per-item outcomes are kept for up to %d", i+1, q.Questions, math.MaxUint16)}
		}
		ones = ones && q.Questions == 1
		if q.CorrectLenient != nil && o.Lenient == nil {
			o.Lenient = make([]uint16, len(items))
		}
	}
	if !ones {
		o.Questions = make([]uint16, len(items))
	}
	h := fnv.New64a()
	var buf [8]byte
	for k, i := range order {
		q := &items[i]
		binary.LittleEndian.PutUint32(buf[:4], uint32(q.ItemIndex))
		binary.LittleEndian.PutUint32(buf[4:], uint32(q.Questions))
		h.Write(buf[:])
		if o.Questions != nil {
			o.Questions[k] = uint16(q.Questions)
		}
		o.Correct[k] = uint16(min(max(q.Correct, 0), q.Questions))
		if o.Lenient != nil && q.CorrectLenient != nil {
			o.Lenient[k] = uint16(min(max(*q.CorrectLenient, 0), q.Questions))
		}
	}
	o.Items = h.Sum64()
	return o
}

// codeKeys applies key to each row's code after checking that it is valid
// UTF-8 (Validate's rule, on the one text column a summary reads).
func codeKeys(pf *parquet.File, data []byte, key func(string) string) ([]string, error) {
	keys := make([]string, int(min(max(pf.NumRows(), 0), MaxRows)))
	err := scanColumn(pf, data, "code", kindString, true, func(i int, v parquet.Value) error {
		b := v.ByteArray()
		if !utf8.Valid(b) {
			return rowErr(i+1, "code", "is not valid UTF-8, a sign of capping; code is never capped or truncated")
		}
		keys[i] = key(string(b))
		return nil
	})
	return keys, err
}
