// Package synth is MatTools' task-synthesis pipeline (arXiv 2505.10852
// §3; upstream's inputs and outputs in src/code_segments/ and
// src/question_generation/): Split cuts unit-test files into their test
// functions, each with the fixtures and set-up it uses, Generate asks an
// OpenAI-compatible model for the triplet of each (the properties the test
// asserts, a question, the verification code) with MatTools' three prompts
// and for a reference solution with this project's fourth, and the checks
// (CheckProperties) compare a triplet with the test it came from. See
// docs/synthesis.md.
package synth

import (
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

// DefaultPython is the interpreter Split runs (with -I) when none is given:
// the benchmark sandbox's Python 3.11. split.py only parses (ast), so any
// Python 3.9 or later gives the same segments.
const DefaultPython = "/opt/mattools-sandbox/bin/python3"

//go:embed split.py
var splitScript string

// File is one split unit-test file. Imports, Functions, Classes and
// Variables are the source segments of its module-level imports, function
// definitions (decorators included), class definitions and assignments in
// file order: the "imports", "global functions", "classes" and "global
// variables" of MatTools' code_segments/<package>/<file>.json (which came
// from tree-sitter; split.py gives the same text from Python's ast,
// including a comment closing a segment's last line).
type File struct {
	// Path is the file's path as given to Split; Rel its path relative
	// to the tests folder, slash-separated (e.g. "core/test_composition.py").
	Path, Rel                              string
	Imports, Functions, Classes, Variables []string
	Tests                                  []Test
}

// Test is one test function of a file, or a test method of a test class
// (inherited ones included), with what it needs to be read on its own.
type Test struct {
	// ID is Rel "::" Name, or Rel "::" Class "::" Name for a method, as
	// pytest names it (e.g. "test_core.py::test_vacancy").
	ID string
	// Name is the function's name, Class its test class ("" at module
	// level), Line the 1-based line of its def.
	Name, Class string
	Line        int
	// CodeLine is the 1-based line where Code starts (its first decorator).
	CodeLine int
	// Code is the function's source, decorators included, as code_segments
	// lists it (a method's continuation lines keep their indentation).
	Code string
	// Fixtures are the pytest fixtures it requests, transitively, and the
	// autouse ones of its class, file and conftests, in dependency order
	// (a fixture after those it requests); each resolved in its class, then
	// its file, then the conftest.py files nearest first, as pytest does.
	Fixtures []Fixture
	// SetUp are the set-up methods (setUpClass, setup_class, setUp,
	// setup_method) and class attributes of its class and of the test
	// classes of its file it inherits from, base first.
	SetUp []Fixture
	// Builtin are the fixtures pytest itself provides that it requests
	// (tmp_path, monkeypatch, …): left to pytest, not inlined.
	Builtin []string
	// Bases are its class's base classes as written (e.g. "PymatgenTest").
	Bases []string
	// UnitTest is the test with everything of its own file it uses
	// inlined: the file's imports, the module-level names and helpers it
	// uses, the same file's fixtures, and for a method its class with only
	// its attributes, set-up, fixtures and this method. It is the
	// {unit_test_code} of MatTools' question prompt.
	UnitTest string
	// Asserts are its assert statements and assert calls (self.assert…,
	// np.testing.assert_…), in order; Asserts counts them.
	AssertList []Assert
	Asserts    int
	// FileReading is the conftest fixtures it uses (with the conftest
	// imports and the module-level names they use), "" when none: the
	// {file_reading_functions} of the question prompt. (Upstream passed
	// its whole conftest.py; this passes only what the test uses.)
	FileReading string
}

// Fixture is one inlined fixture or set-up member.
type Fixture struct {
	// Name is the fixture's name (its name= argument if it has one), or
	// "<Class>.<method>" / "<Class> (class attribute)" for set-up.
	Name string `json:"name"`
	// File is the file defining it ("" for set-up: the test's own file);
	// Scope is "module", "class <Name>" or the conftest's path.
	File  string `json:"file"`
	Scope string `json:"scope"`
	Code  string `json:"code"`
}

type splitInput struct {
	Path      string   `json:"path"`
	Conftests []string `json:"conftests"`
}

type splitTest struct {
	Name        string    `json:"name"`
	Class       string    `json:"class"`
	Lineno      int       `json:"lineno"`
	CodeLine    int       `json:"code_line"`
	Code        string    `json:"code"`
	Fixtures    []Fixture `json:"fixtures"`
	Setup       []Fixture `json:"setup"`
	Globals     []string  `json:"globals"`
	Builtin     []string  `json:"builtin_fixtures"`
	Bases       []string  `json:"bases"`
	UnitTest    string    `json:"unit_test"`
	FileReading string    `json:"file_reading"`
	Asserts     []Assert  `json:"asserts"`
}

// Assert is one assert of a test, as split.py reads it (AST, never run).
type Assert struct {
	// Line is its 1-based line in the test's file (in the function's own
	// text for CheckProperties); Code its source.
	Line int    `json:"line"`
	Code string `json:"code"`
	// Kind is "equal" (== or an assert_equal-like call against a value),
	// "close" (pytest.approx, np.allclose, assert_allclose…), "truth"
	// (assert x, assert not x, a comparison of two computed values,
	// assertTrue/False) or "opaque" (an assert call whose expected value is
	// not a literal).
	Kind string `json:"kind"`
	// Value is the expected value as canonical JSON (kinds equal and
	// close; literals, names bound to literals earlier in the test,
	// Element("X") as "X", sets and dicts sorted), Truth the truth value
	// of kind truth.
	Value *string `json:"value"`
	Truth *bool   `json:"truth"`
	// Subjects are the sources of its computed operands that call or read
	// an attribute (e.g. "vac.get_multiplicity()"): what computes the
	// asserted value (check (c) looks for them in the question).
	Subjects []string `json:"subjects"`
	// EndLine is its last line; Expr the source of what an assert
	// statement tests (of assert not X: X; "" for a call); ExpectedSrc the
	// source of its literal expected side ("" if none).
	EndLine     int    `json:"end_line"`
	Expr        string `json:"expr"`
	ExpectedSrc string `json:"expected_src"`
	// InRaises says it sits in a with pytest.raises / assertRaises block.
	InRaises bool `json:"in_raises"`
	// Covered says a property maps to it (CheckProperties only).
	Covered bool `json:"covered"`
}

type splitOutput struct {
	Error     string      `json:"error"`
	Imports   []string    `json:"imports"`
	Functions []string    `json:"functions"`
	Classes   []string    `json:"classes"`
	Variables []string    `json:"variables"`
	Tests     []splitTest `json:"tests"`
}

// IsTestFile reports whether name is a pytest test module (test_*.py or
// *_test.py).
func IsTestFile(name string) bool {
	return strings.HasSuffix(name, ".py") && (strings.HasPrefix(name, "test_") || strings.HasSuffix(name, "_test.py"))
}

// SplitDir splits every test file (IsTestFile) under dir, recursively, in
// sorted path order; each file's fixtures resolve through the conftest.py
// files of its folder and of every folder up to dir, nearest first.
// Folders named like test data ("files", "test_files") and hidden ones
// are skipped. Errors name the file (one that does not parse) or the
// interpreter.
func SplitDir(dir, python string) ([]File, error) {
	var rels []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "files" || d.Name() == "test_files" || d.Name() == "__pycache__") {
				return filepath.SkipDir
			}
			return nil
		}
		if IsTestFile(d.Name()) {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("synth: listing the tests under %s: %w", dir, err)
	}
	sort.Strings(rels)
	if len(rels) == 0 {
		return nil, fmt.Errorf("synth: no test file (test_*.py) under %s", dir)
	}
	return Split(dir, rels, python)
}

// Split splits the files rels (slash-separated, relative to dir; a
// conftest.py among them is split too, with no conftest of its own) with
// the embedded split.py under python (DefaultPython if ""), run once as
// "python -I -c script": the files are parsed with ast, never imported or
// run.
func Split(dir string, rels []string, python string) ([]File, error) {
	if python == "" {
		python = DefaultPython
	}
	in := make([]splitInput, len(rels))
	for i, r := range rels {
		p := filepath.Join(dir, filepath.FromSlash(r))
		in[i] = splitInput{Path: p}
		if filepath.Base(p) == "conftest.py" {
			continue
		}
		for d := filepath.Dir(r); ; d = filepath.Dir(d) {
			c := filepath.Join(dir, filepath.FromSlash(d), "conftest.py")
			if _, err := os.Stat(c); err == nil {
				in[i].Conftests = append(in[i].Conftests, c)
			}
			if d == "." || d == "/" {
				break
			}
		}
	}
	var out []splitOutput
	if err := corpus.RunParser("synth", python, splitScript, in, &out); err != nil {
		return nil, err
	}
	if len(out) != len(in) {
		return nil, fmt.Errorf("synth: the Python splitter %s returned %d results for %d files", python, len(out), len(in))
	}
	files := make([]File, len(out))
	for i, o := range out {
		if o.Error != "" {
			return nil, fmt.Errorf("synth: splitting %s: %s", in[i].Path, o.Error)
		}
		f := File{Path: in[i].Path, Rel: rels[i], Imports: o.Imports, Functions: o.Functions, Classes: o.Classes, Variables: o.Variables}
		for _, t := range o.Tests {
			id := rels[i] + "::" + t.Name
			if t.Class != "" {
				id = rels[i] + "::" + t.Class + "::" + t.Name
			}
			f.Tests = append(f.Tests, Test{ID: id, Name: t.Name, Class: t.Class, Line: t.Lineno, CodeLine: t.CodeLine, Code: t.Code,
				Fixtures: t.Fixtures, SetUp: t.Setup, Builtin: t.Builtin, Bases: t.Bases, UnitTest: t.UnitTest, FileReading: t.FileReading,
				AssertList: t.Asserts, Asserts: len(t.Asserts)})
		}
		files[i] = f
	}
	return files, nil
}
