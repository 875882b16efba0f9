// Package datasets loads the MatTools benchmarks as data: the 49 questions
// of the real-world tool-usage benchmark with their 138 properties and
// verification code, in the published evaluation order, and the data files
// each question reads with their presence in a given copy of the data.
//
// The root it reads is a MatTools checkout or download (MATTOOLS_DATA),
// laid out as github.com/Grenzlinie/MatTools. This is a leaf package: it
// imports no other package of the project.
package datasets

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// EnvVar is the environment variable naming the MatTools data root.
const EnvVar = "MATTOOLS_DATA"

// The size of the tool-usage benchmark (docs/mattools.md §1).
const (
	NumQuestions  = 49
	NumProperties = 138
)

// QuestionsDir is where the tool-usage questions live, relative to the root.
const QuestionsDir = "src/question_segments/pymatgen_analysis_defects"

// Question is one question of the tool-usage benchmark.
type Question struct {
	Index int    // 0-based position in the published evaluation order
	ID    string // the question folder name, e.g. "test_vacancy"; also the verification function's name
	// Text is question.txt as published (not stripped).
	Text string
	// Properties are the expected properties in properties.json order.
	Properties []Property
	// UnitTest is new_unit_test.py: defines ID(properties) returning "ok" or
	// a list of error strings followed by the error count and property count.
	UnitTest string
	// DataFiles are the files the question reads (manifest order), relative to
	// the root's src/ folder, which is /app in MatTools' container.
	DataFiles []DataFile
	// WholeDataDir marks a question that may read any file of the root's
	// src/tool_source_code (a folder benchmark whose manifest gives
	// data_dir, such as a synthesised benchmark of pymatgen's tests): the
	// sandbox mounts the whole folder, read-only, instead of DataFiles.
	WholeDataDir bool
	// Env is what the sandbox's environment gains for this question
	// (NAME=value; a folder benchmark's manifest env, e.g.
	// PMG_TEST_FILES_DIR=/app/tool_source_code/pymatgen/tests/files).
	Env []string
	// Modules are a folder benchmark's modules (its manifest's modules, e.g.
	// a pytest stand-in) as files by name ("pytest.py"): the sandbox puts
	// them in /sbx beside the function, as synth's check (b) ran the
	// reference solutions; UnitTest already registers them for the
	// verification. Nil for MatTools' questions.
	Modules map[string][]byte
}

// Property is one expected property of a question, from properties.json.
// properties.json is descriptive only: scoring uses the unit test.
type Property struct {
	Name        string
	Description string
	Format      string          // free text such as "int" or "np.allclose"; "" when absent
	Value       json.RawMessage // usually a JSON string holding a Python literal
}

// ValueText returns the expected value as text: the string itself when the
// value is a JSON string, otherwise its JSON encoding.
func (p Property) ValueText() string {
	var s string
	if json.Unmarshal(p.Value, &s) == nil {
		return s
	}
	return string(p.Value)
}

// DataFile is one data file a question reads.
type DataFile struct {
	Path    string // relative to the root's src/ folder, e.g. "tool_source_code/…/GaN.vasp"
	Present bool   // the file exists in the loaded root and can be opened
	Bytes   int64  // its size when present
}

// Benchmark is the loaded tool-usage benchmark.
type Benchmark struct {
	Root   string
	Commit string // the upstream commit of the root (UPSTREAM_COMMIT or .git), "" if unknown
	// Version is the benchmark version the questions are (the runs'
	// benchmark_version): "2025-05" for MatTools' tool usage; "" means
	// the registry's first version.
	Version   string
	Questions []Question
}

// Properties returns the total number of properties (138 for the full benchmark).
func (b *Benchmark) Properties() int {
	n := 0
	for _, q := range b.Questions {
		n += len(q.Properties)
	}
	return n
}

// Executable reports whether every data file of q is present in the root.
func (q *Question) Executable() bool {
	for _, f := range q.DataFiles {
		if !f.Present {
			return false
		}
	}
	return true
}

// Question returns the question with the given id.
func (b *Benchmark) Question(id string) (*Question, bool) {
	for i := range b.Questions {
		if b.Questions[i].ID == id {
			return &b.Questions[i], true
		}
	}
	return nil, false
}

// FormatError is a problem in a file of the data root. It prints as
// "file:row: field: reason" (row and field when known).
type FormatError struct {
	File  string
	Row   int // 1-based line or row; 0 when not applicable
	Field string
	Err   error
}

func (e *FormatError) Error() string {
	s := e.File
	if e.Row > 0 {
		s += ":" + strconv.Itoa(e.Row)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Err.Error()
}

func (e *FormatError) Unwrap() error { return e.Err }

//go:embed manifest.csv
var manifestCSV []byte

// ManifestEntry is one question of the benchmark manifest (datasets/manifest.csv).
type ManifestEntry struct {
	Index      int      // 0-based position in the published evaluation order
	ID         string   // question folder name
	Properties int      // number of properties (MatTools' ref_sub_tasks_list); -1: not checked (a folder benchmark)
	DataFiles  []string // files the question reads, relative to the root's src/ folder
}

// Manifest returns the 49 questions of the benchmark manifest in the
// published evaluation order. It needs no data root.
func Manifest() []ManifestEntry {
	m, err := manifest()
	if err != nil {
		panic(err) // the embedded manifest is tested
	}
	return m
}

// manifest returns the embedded list of questions in the published order.
func manifest() ([]ManifestEntry, error) {
	r := csv.NewReader(bytes.NewReader(manifestCSV))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("datasets/manifest.csv: %w", err)
	}
	var out []ManifestEntry
	for i, rec := range recs[1:] {
		idx, err1 := strconv.Atoi(rec[0])
		props, err2 := strconv.Atoi(rec[2])
		if err := errors.Join(err1, err2); err != nil {
			return nil, &FormatError{File: "datasets/manifest.csv", Row: i + 2, Err: err}
		}
		if len(out) == 0 || out[len(out)-1].ID != rec[1] {
			if idx != len(out) {
				return nil, &FormatError{File: "datasets/manifest.csv", Row: i + 2, Field: "order", Err: fmt.Errorf("is %d, want %d", idx, len(out))}
			}
			out = append(out, ManifestEntry{Index: idx, ID: rec[1], Properties: props})
		}
		if rec[3] != "" {
			out[len(out)-1].DataFiles = append(out[len(out)-1].DataFiles, rec[3])
		}
	}
	return out, nil
}

// Order returns the 49 question ids in the published evaluation order.
func Order() []string {
	m := Manifest()
	ids := make([]string, len(m))
	for i, e := range m {
		ids[i] = e.ID
	}
	return ids
}

// RootFromEnv returns the data root named by MATTOOLS_DATA, made absolute,
// or an error that says how to get the data when it is unset.
func RootFromEnv() (string, error) {
	root := os.Getenv(EnvVar)
	if root == "" {
		return "", fmt.Errorf("%s is not set: clone https://github.com/Grenzlinie/MatTools (commit %s) and set %s to its path",
			EnvVar, PinnedCommit, EnvVar)
	}
	return filepath.Abs(root)
}

// Version2025_05 is the benchmark version of the MatTools data at
// PinnedCommit (results.BenchmarkVersion2025_05).
const Version2025_05 = "2025-05"

// PinnedCommit is the MatTools commit this project's benchmark version 2025-05 refers to.
const PinnedCommit = "44385630f2acf461512996468fc0b24f44ddcaaf"

// Load reads the tool-usage benchmark from a MatTools-layout root: the 49
// questions in the published evaluation order, each with question.txt,
// properties.json and new_unit_test.py, and the presence of its data files.
// It fails, naming the file, if the root is unreadable, a question folder or
// file is missing or malformed, a question's property count differs from the
// manifest, or the totals are not 49 questions and 138 properties. Question
// folders that the manifest does not list are an error too.
func Load(root string) (*Benchmark, error) {
	m, err := manifest()
	if err != nil {
		return nil, err
	}
	qdir := filepath.Join(root, QuestionsDir)
	entries, err := os.ReadDir(qdir)
	if err != nil {
		return nil, fmt.Errorf("reading the MatTools data root %s: %w", root, err)
	}
	listed := map[string]bool{}
	for _, e := range m {
		listed[e.ID] = true
	}
	for _, e := range entries {
		// Hidden folders and Python caches are not questions.
		if e.IsDir() && !listed[e.Name()] && !strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), "__") {
			return nil, &FormatError{File: filepath.Join(qdir, e.Name()), Err: errors.New("question folder not in the benchmark manifest (datasets/manifest.csv)")}
		}
	}
	b := &Benchmark{Root: root, Commit: upstreamCommit(root), Version: Version2025_05}
	for _, e := range m {
		q, err := loadQuestion(root, qdir, e)
		if err != nil {
			return nil, err
		}
		b.Questions = append(b.Questions, *q)
	}
	if len(b.Questions) != NumQuestions || b.Properties() != NumProperties {
		return nil, fmt.Errorf("%s: %d questions with %d properties; the benchmark has %d with %d",
			qdir, len(b.Questions), b.Properties(), NumQuestions, NumProperties)
	}
	return b, nil
}

func loadQuestion(root, qdir string, e ManifestEntry) (*Question, error) {
	dir := filepath.Join(qdir, e.ID)
	read := func(name string) (string, error) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", fmt.Errorf("question %s: %w", e.ID, err)
		}
		return string(data), nil
	}
	q := &Question{Index: e.Index, ID: e.ID}
	var err error
	if q.Text, err = read("question.txt"); err != nil {
		return nil, err
	}
	if q.UnitTest, err = read("new_unit_test.py"); err != nil {
		return nil, err
	}
	if !strings.Contains(q.UnitTest, "def "+e.ID+"(") {
		return nil, &FormatError{File: filepath.Join(dir, "new_unit_test.py"), Err: fmt.Errorf("does not define %s(properties)", e.ID)}
	}
	props, err := read("properties.json")
	if err != nil {
		return nil, err
	}
	propsPath := filepath.Join(dir, "properties.json")
	if q.Properties, err = parseProperties([]byte(props)); err != nil {
		return nil, &FormatError{File: propsPath, Err: err}
	}
	if e.Properties >= 0 && len(q.Properties) != e.Properties {
		return nil, &FormatError{File: propsPath, Field: "properties",
			Err: fmt.Errorf("has %d properties; the benchmark manifest says %d", len(q.Properties), e.Properties)}
	}
	for _, p := range e.DataFiles {
		df := DataFile{Path: p}
		if f, err := os.Open(filepath.Join(root, "src", filepath.FromSlash(p))); err == nil {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				df.Present, df.Bytes = true, st.Size()
			}
			f.Close()
		}
		q.DataFiles = append(q.DataFiles, df)
	}
	return q, nil
}

// parseProperties decodes properties.json, keeping the properties' order.
func parseProperties(data []byte) ([]Property, error) {
	var doc struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Properties) == 0 {
		return nil, errors.New(`no "properties" object`)
	}
	dec := json.NewDecoder(bytes.NewReader(doc.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New(`"properties" is not an object`)
	}
	var out []Property
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := t.(string)
		var p struct {
			Description string          `json:"description"`
			Format      string          `json:"format"`
			Value       json.RawMessage `json:"value"`
		}
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("property %s: %w", name, err)
		}
		out = append(out, Property{Name: name, Description: p.Description, Format: p.Format, Value: p.Value})
	}
	return out, nil
}

// upstreamCommit returns the commit of a MatTools root: the UPSTREAM_COMMIT
// file of a download, or HEAD of a git checkout; "" if neither is readable.
func upstreamCommit(root string) string {
	if data, err := os.ReadFile(filepath.Join(root, "UPSTREAM_COMMIT")); err == nil {
		return strings.TrimSpace(string(data))
	}
	gitDir := filepath.Join(root, ".git")
	if data, err := os.ReadFile(gitDir); err == nil { // a worktree or submodule: ".git" is a file "gitdir: <path>"
		if dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(root, dir)
			}
			gitDir = dir
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !ok {
		return strings.TrimSpace(string(head))
	}
	for _, dir := range []string{gitDir, commonDir(gitDir)} {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(data))
		}
	}
	f, err := os.Open(filepath.Join(commonDir(gitDir), "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, _ := io.ReadAll(f)
	for _, line := range strings.Split(string(data), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
			return sha
		}
	}
	return ""
}

// commonDir returns the shared git folder of a worktree's git folder (its
// "commondir" file), or gitDir itself.
func commonDir(gitDir string) string {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	dir := strings.TrimSpace(string(data))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return dir
}
