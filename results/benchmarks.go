package results

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sync"
)

// BenchmarkKind says how a benchmark's questions are answered, scored and
// stored: the row type of its results files and the scoring protocols that
// can score it.
type BenchmarkKind string

// The kinds of benchmark.
const (
	// KindToolUsage: each question is answered with generated Python code,
	// run in the sandbox and verified by the question's unit test, property
	// by property (MatTools' layout: question.txt, properties.json,
	// new_unit_test.py; docs/mattools.md §1, §2). Its files hold
	// QuestionRows; metrics are the function runnable rate and the task
	// success rate.
	KindToolUsage BenchmarkKind = "tool-usage"
	// KindMultipleChoice: each question is a multiple-choice item answered
	// with one letter (MatTools' QA sets; docs/mattools.md §4). Its files
	// hold QARows; the metric is the accuracy.
	KindMultipleChoice BenchmarkKind = "multiple-choice"
)

// SuiteMatTools is the suite of MatTools' three benchmarks. The site shows
// the benchmarks of one suite in shared tables (tool usage on its boards,
// both QA sets side by side) and every other suite's in tables of its own.
const SuiteMatTools = "mattools"

// BenchmarkVersion is one version of a benchmark's data: its id (the runs'
// benchmark_version) and the size of its whole question set ("all").
type BenchmarkVersion struct {
	ID string `json:"id"` // e.g. "2025-05"
	// Questions and Properties are the whole set's sizes; Properties is 0
	// for a multiple-choice benchmark.
	Questions  int `json:"questions"`
	Properties int `json:"properties"`
	// UpstreamCommit is the commit of the source the version refers to ("" if none).
	UpstreamCommit string `json:"upstream_commit,omitempty"`
	// CorrectsVersion, for a corrected version, is the version whose
	// questions it holds with some verifications corrected
	// (datasets/corrections.json; docs/benchmark-audit.md, "The corrected
	// version"); Title then names it in table titles ("corrected"). Its
	// runs are scored and shown apart from those of the version it
	// corrects, never mixed.
	CorrectsVersion string `json:"corrects_version,omitempty"`
	Title           string `json:"title,omitempty"`
}

// BenchmarkInfo is one entry of the benchmark registry: what the results
// layer, the plan, the runner and the site need to know of a benchmark
// (its questions are loaded by datasets; its protocols are entries of the
// scoring-protocol registry, protocols.go).
type BenchmarkInfo struct {
	Name Benchmark     `json:"name"` // the runs' benchmark, [a-z0-9-]+
	Kind BenchmarkKind `json:"kind"`
	// Suite groups benchmarks shown in shared tables (SuiteMatTools); ""
	// means the benchmark's own name: tables of its own.
	Suite    string             `json:"suite,omitempty"`
	Versions []BenchmarkVersion `json:"versions"` // oldest first
	// Protocols are the ids of the scoring protocols its runs may record,
	// scored by this project or only imported, in display order; each must
	// be registered for the benchmark's kind.
	Protocols []string `json:"protocols"`
	// Reference is the id of the scored protocol whose per-property
	// outcomes the benchmark audit, the reference solutions and the
	// verified question sets are judged under (MatTools' tool usage:
	// mattools-v1-strict, the only one with per-property outcomes for every
	// executed question; docs/benchmark-audit.md). "" takes the reference
	// of the default benchmark of its kind (Benchmark.Reference): a folder
	// benchmark is judged as MatTools' tool usage is.
	Reference string `json:"reference,omitempty"`
	// Default marks the benchmark of its kind a plan runs when it names
	// none, and the one its [tool_usage] benchmark_version and corrected
	// versions apply to (MatTools' tool usage); at most one per kind.
	Default bool `json:"-"`
	// Title names the benchmark on the site ("Tool usage", "Code QA");
	// Description is one sentence saying what it asks; Headline is the id
	// of its headline metric ("task_success_rate", "accuracy"); Column, if
	// set, labels its columns in a table shared with the other benchmarks
	// of its suite ("Code": "Code accuracy (%)").
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Headline    string `json:"headline,omitempty"`
	Column      string `json:"column,omitempty"`
	// Recorded marks a benchmark registered at run time (a folder
	// benchmark): its runs carry this entry as the run extension
	// ExtensionBenchmark, and reading such a run registers it, so that the
	// site and the validators know it without its folder.
	Recorded bool `json:"-"`
}

// Version returns the registered version id; ok is false for a version
// the benchmark does not have.
func (b BenchmarkInfo) Version(id string) (v BenchmarkVersion, ok bool) {
	i := slices.IndexFunc(b.Versions, func(v BenchmarkVersion) bool { return v.ID == id })
	if i < 0 {
		return BenchmarkVersion{}, false
	}
	return b.Versions[i], true
}

// SuiteName returns the suite the benchmark's tables belong to: Suite, or
// the benchmark's own name when Suite is empty.
func (b BenchmarkInfo) SuiteName() string {
	if b.Suite == "" {
		return string(b.Name)
	}
	return b.Suite
}

// The MatTools benchmarks, registered at start-up. Tool usage is MatTools'
// real-world benchmark (49 questions, 138 properties); the QA benchmarks
// are its two multiple-choice sets about pymatgen (code: 34,621 questions,
// doc: 34,604). See docs/mattools.md §1, §4.
const (
	BenchmarkToolUsage Benchmark = "tool-usage"
	BenchmarkQACode    Benchmark = "qa-code"
	BenchmarkQADoc     Benchmark = "qa-doc"
)

// matToolsManifest declares MatTools' three benchmarks as data, as a
// folder benchmark's benchmark.json declares its own: a JSON object
// {"benchmarks": [entry, …]} in display order, each entry a BenchmarkInfo
// by its fields' JSON names plus "default" (BenchmarkInfo.Default);
// docs/architecture.md, "Add a benchmark". Its names must be the constants
// above and its versions those of vocab.go (manifest_internal_test.go).
//
//go:embed mattools.json
var matToolsManifest []byte

var (
	benchmarkMu       sync.RWMutex
	benchmarkRegistry = mustDecodeBenchmarks("results/mattools.json", matToolsManifest)
)

// manifestEntry is one entry of a benchmark manifest: BenchmarkInfo, whose
// Default is never written to a run, plus "default".
type manifestEntry struct {
	BenchmarkInfo
	Default bool `json:"default,omitempty"`
}

// mustDecodeBenchmarks decodes a benchmark manifest (see matToolsManifest)
// and checks each entry as RegisterBenchmark does; it panics on an unknown
// field, an invalid entry or a second default of a kind, naming the file
// and the entry: the manifest is embedded, so a bad one fails every test
// and never reaches a user.
func mustDecodeBenchmarks(file string, data []byte) []BenchmarkInfo {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m struct {
		Benchmarks []manifestEntry `json:"benchmarks"`
	}
	if err := dec.Decode(&m); err != nil {
		panic(fmt.Sprintf("%s: %v", file, err))
	}
	var out []BenchmarkInfo
	for i, e := range m.Benchmarks {
		b := e.BenchmarkInfo
		b.Default = e.Default
		err := checkInfo(b)
		if j := slices.IndexFunc(out, func(r BenchmarkInfo) bool { return r.Default && b.Default && r.Kind == b.Kind }); err == nil && j >= 0 {
			err = fmt.Errorf("benchmark %s: %s is the default %s benchmark already", b.Name, out[j].Name, b.Kind)
		}
		if err == nil && slices.ContainsFunc(out, func(r BenchmarkInfo) bool { return r.Name == b.Name }) {
			err = fmt.Errorf("benchmark %s: a second entry", b.Name)
		}
		if err != nil {
			panic(fmt.Sprintf("%s: benchmarks[%d]: %v", file, i, err))
		}
		out = append(out, b)
	}
	return out
}

var benchmarkName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// RegisterBenchmark adds b to the registry, after the benchmarks already
// there (display order). Errors: a name already registered or not
// [a-z0-9-]+, an unknown kind, no version, a version without questions,
// a protocol that is not registered for the benchmark's kind, a reference
// protocol that is not one of its scored protocols, or a second default
// benchmark of a kind.
func RegisterBenchmark(b BenchmarkInfo) error {
	if err := checkInfo(b); err != nil {
		return err
	}
	benchmarkMu.Lock()
	defer benchmarkMu.Unlock()
	if i := slices.IndexFunc(benchmarkRegistry, func(r BenchmarkInfo) bool { return r.Default && b.Default && r.Kind == b.Kind && r.Name != b.Name }); i >= 0 {
		return fmt.Errorf("benchmark %s: %s is the default %s benchmark already", b.Name, benchmarkRegistry[i].Name, b.Kind)
	}
	if i := slices.IndexFunc(benchmarkRegistry, func(r BenchmarkInfo) bool { return r.Name == b.Name }); i >= 0 {
		if reflect.DeepEqual(benchmarkRegistry[i], b) {
			return nil // the same entry again (a plan parsed twice, a second run of it read)
		}
		return fmt.Errorf("benchmark %s: already registered, differently", b.Name)
	}
	b.Versions, b.Protocols = slices.Clone(b.Versions), slices.Clone(b.Protocols)
	benchmarkRegistry = append(benchmarkRegistry, b)
	return nil
}

// checkInfo returns the first reason b is not a valid registry entry by
// itself (name, kind, versions, protocols, reference), or nil.
func checkInfo(b BenchmarkInfo) error {
	if !benchmarkName.MatchString(string(b.Name)) {
		return fmt.Errorf("benchmark %q: a name is lower-case letters, digits and single hyphens", b.Name)
	}
	if b.Kind != KindToolUsage && b.Kind != KindMultipleChoice {
		return fmt.Errorf("benchmark %s: kind %q; want %s or %s", b.Name, b.Kind, KindToolUsage, KindMultipleChoice)
	}
	if len(b.Versions) == 0 {
		return fmt.Errorf("benchmark %s: no version", b.Name)
	}
	for _, v := range b.Versions {
		if v.ID == "" || v.Questions < 1 || v.Properties < 0 {
			return fmt.Errorf("benchmark %s: version %q has %d questions / %d properties; want an id and ≥ 1 question", b.Name, v.ID, v.Questions, v.Properties)
		}
	}
	for _, id := range b.Protocols {
		if p, ok := LookupScoringProtocol(id); !ok || p.Kind != b.Kind {
			return fmt.Errorf("benchmark %s: protocol %q is not a registered %s protocol", b.Name, id, b.Kind)
		}
	}
	if b.Reference != "" {
		if p, ok := LookupScoringProtocol(b.Reference); !ok || !p.Scored || !slices.Contains(b.Protocols, b.Reference) {
			return fmt.Errorf("benchmark %s: reference protocol %q is not one of its scored protocols", b.Name, b.Reference)
		}
	}
	return nil
}

// ErrUnknownBenchmark is returned (wrapped) for a benchmark the registry does not hold.
var ErrUnknownBenchmark = errors.New("unknown benchmark")

// LookupBenchmark returns the registry's entry for b; ok is false when b is
// not registered.
func LookupBenchmark(b Benchmark) (info BenchmarkInfo, ok bool) {
	benchmarkMu.RLock()
	defer benchmarkMu.RUnlock()
	i := slices.IndexFunc(benchmarkRegistry, func(r BenchmarkInfo) bool { return r.Name == b })
	if i < 0 {
		return BenchmarkInfo{}, false
	}
	return benchmarkRegistry[i], true
}

// RegisteredBenchmarks returns every registered benchmark in display order
// (MatTools' tool usage, qa-code, qa-doc, then others as registered).
func RegisteredBenchmarks() []BenchmarkInfo {
	benchmarkMu.RLock()
	defer benchmarkMu.RUnlock()
	return slices.Clone(benchmarkRegistry)
}

// BenchmarkNames returns the registered benchmarks' names in display order.
func BenchmarkNames() []Benchmark {
	var names []Benchmark
	for _, b := range RegisteredBenchmarks() {
		names = append(names, b.Name)
	}
	return names
}

// BenchmarksOf returns the registered benchmarks of suite s and kind k
// (either "" for any), in display order.
func BenchmarksOf(s string, k BenchmarkKind) []Benchmark {
	var names []Benchmark
	for _, b := range RegisteredBenchmarks() {
		if (s == "" || b.SuiteName() == s) && (k == "" || b.Kind == k) {
			names = append(names, b.Name)
		}
	}
	return names
}

// Kind returns b's kind from the registry; "" for an unregistered benchmark.
func (b Benchmark) Kind() BenchmarkKind {
	info, _ := LookupBenchmark(b)
	return info.Kind
}

// DefaultBenchmark returns the default benchmark of kind k
// (BenchmarkInfo.Default): the one a plan runs when it names none and the
// one its [tool_usage] benchmark_version applies to (tool usage: MatTools'
// tool-usage benchmark); "" when kind k has none.
func DefaultBenchmark(k BenchmarkKind) Benchmark {
	benchmarkMu.RLock()
	defer benchmarkMu.RUnlock()
	if i := slices.IndexFunc(benchmarkRegistry, func(r BenchmarkInfo) bool { return r.Default && r.Kind == k }); i >= 0 {
		return benchmarkRegistry[i].Name
	}
	return ""
}

// Reference returns the id of the protocol b's audit, reference solutions
// and verified question sets are judged under: its registered
// BenchmarkInfo.Reference, else that of the default benchmark of its kind
// (a folder benchmark: mattools-v1-strict, as MatTools' tool usage); ""
// for an unregistered benchmark or a kind without one (multiple choice).
func (b Benchmark) Reference() string {
	info, ok := LookupBenchmark(b)
	if !ok {
		return ""
	}
	if info.Reference != "" {
		return info.Reference
	}
	if d, ok := LookupBenchmark(DefaultBenchmark(info.Kind)); ok {
		return d.Reference
	}
	return ""
}

// Order returns b's position in the registry's display order; an
// unregistered benchmark sorts last.
func (b Benchmark) Order() int {
	benchmarkMu.RLock()
	defer benchmarkMu.RUnlock()
	if i := slices.IndexFunc(benchmarkRegistry, func(r BenchmarkInfo) bool { return r.Name == b }); i >= 0 {
		return i
	}
	return len(benchmarkRegistry)
}

// Title returns b's title from the registry ("Code QA"); the name itself
// for an unregistered benchmark.
func (b Benchmark) Title() string {
	if info, ok := LookupBenchmark(b); ok && info.Title != "" {
		return info.Title
	}
	return string(b)
}

// FullQuestionSet returns the size of the whole benchmark b at a version:
// its questions and (tool-usage kind) properties, from the registry. ok is
// false for an unknown benchmark or version. Version 2025-05 of MatTools:
// tool usage 49 questions / 138 properties; qa-code 34,621 and qa-doc
// 34,604 questions (docs/mattools.md §1, §4).
func FullQuestionSet(b Benchmark, version string) (questions, properties int, ok bool) {
	info, ok := LookupBenchmark(b)
	if !ok {
		return 0, 0, false
	}
	v, ok := info.Version(version)
	return v.Questions, v.Properties, ok
}

// ExtensionBenchmark is the run extension holding the registry entry
// (BenchmarkInfo, as JSON) of a benchmark registered at run time
// (BenchmarkInfo.Recorded): results files of a folder benchmark describe
// their benchmark themselves.
const ExtensionBenchmark = "benchmark"

// BenchmarkRecord returns the extension ExtensionBenchmark for runs of b:
// its registry entry as JSON; ok is false unless b is registered with
// Recorded set (MatTools' benchmarks are not: their runs stay as they were).
func BenchmarkRecord(b Benchmark) (ext json.RawMessage, ok bool) {
	info, ok := LookupBenchmark(b)
	if !ok || !info.Recorded {
		return nil, false
	}
	ext, err := json.Marshal(info)
	return ext, err == nil
}

// checkBenchmark checks the run record's benchmark: given and registered,
// or described by the run's extension ExtensionBenchmark, which it then
// registers (an entry that contradicts the registry is an error).
func checkBenchmark(r *Run) error {
	if r.Benchmark == "" {
		return metaErr("benchmark", "required field missing")
	}
	raw, has := r.Extensions[ExtensionBenchmark]
	if _, ok := LookupBenchmark(r.Benchmark); ok && !has {
		return nil
	}
	if !has {
		return metaErr("benchmark", "unknown value %q", string(r.Benchmark))
	}
	var info BenchmarkInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return metaErr("extensions."+ExtensionBenchmark, "%v", err)
	}
	if info.Name != r.Benchmark {
		return metaErr("extensions."+ExtensionBenchmark, "describes benchmark %q; the run's is %q", info.Name, r.Benchmark)
	}
	info.Recorded = true
	if err := RegisterBenchmark(info); err != nil {
		return metaErr("extensions."+ExtensionBenchmark, "%v", err)
	}
	return nil
}
