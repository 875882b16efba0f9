package datasets

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// corrections.json lists the corrected versions of the tool-usage
// benchmark (docs/benchmark-audit.md, "The corrected version").
//
//go:embed corrections.json
var correctionsJSON []byte

// CorrectedVersion is one corrected version of MatTools' tool-usage
// benchmark: the questions of Base with some verifications edited.
type CorrectedVersion struct {
	ID          string       `json:"id"`   // the runs' benchmark_version, e.g. "2025-05-corrected-1"
	Base        string       `json:"base"` // the version it corrects, "2025-05"
	Title       string       `json:"title"`
	Description string       `json:"description"` // one sentence: what differs from Base
	Corrections []Correction `json:"corrections"`
	// Helpers are Python functions an edit's Replace may insert by name,
	// written "{{helper:NAME}}" (each function's text, at its own
	// indentation), so that a check shared by many questions is written
	// once.
	Helpers map[string]string `json:"helpers,omitempty"`
}

// Correction is the edit of one question's verification code
// (new_unit_test.py) or text (question.txt), with what it follows: the
// original unit test's line (Test), or the line of the question or its
// test that the benchmark audit flagged (Cites) and the flags (Flags,
// docs/benchmark-audit.md).
type Correction struct {
	Question   string   `json:"question"`             // the question id
	Properties []string `json:"properties,omitempty"` // the properties whose check changes (none for a text-only correction)
	Test       string   `json:"test,omitempty"`       // the original test and line it follows, e.g. "tests/test_finder.py::test_defect_finder, l.14 …"
	Cites      string   `json:"cites,omitempty"`      // the question's line the correction answers, e.g. "question.txt l.11 \"Format: dict.\""
	Flags      []string `json:"flags,omitempty"`      // the audit's flags it answers, e.g. "refuses-equivalent keys"
	Reason     string   `json:"reason"`
	Edits      []Edit   `json:"edits"`
}

// Edit replaces the one occurrence of Find in a question's file with
// Replace: its verification code (File "" or "new_unit_test.py") or its
// text ("question.txt").
type Edit struct {
	File    string `json:"file,omitempty"`
	Find    string `json:"find"`
	Replace string `json:"replace"`
}

// Files an Edit may change.
const (
	UnitTestFile     = "new_unit_test.py"
	QuestionTextFile = "question.txt"
)

// Version2025_05Corrected1 is the first corrected version of 2025-05:
// three verifications corrected as the original unit tests check.
const Version2025_05Corrected1 = "2025-05-corrected-1"

// CorrectedVersions returns the corrected versions of the tool-usage
// benchmark (datasets/corrections.json), oldest first. It needs no data
// root; the embedded file is tested.
func CorrectedVersions() []CorrectedVersion {
	var f struct {
		Versions []CorrectedVersion `json:"versions"`
	}
	if err := json.Unmarshal(correctionsJSON, &f); err != nil {
		panic(fmt.Errorf("datasets/corrections.json: %w", err))
	}
	return f.Versions
}

// LookupCorrectedVersion returns the corrected version id; ok is false for
// any other id (2025-05 among them).
func LookupCorrectedVersion(id string) (v CorrectedVersion, ok bool) {
	vs := CorrectedVersions()
	i := slices.IndexFunc(vs, func(v CorrectedVersion) bool { return v.ID == id })
	if i < 0 {
		return CorrectedVersion{}, false
	}
	return vs[i], true
}

// Corrected returns the question's correction in v, if v corrects it.
func (v CorrectedVersion) Corrected(question string) (Correction, bool) {
	i := slices.IndexFunc(v.Corrections, func(c Correction) bool { return c.Question == question })
	if i < 0 {
		return Correction{}, false
	}
	return v.Corrections[i], true
}

// VerificationQuestions returns the ids of the questions whose
// verification v edits (a correction of question.txt alone changes no
// verdict of the same code), in v's order.
func (v CorrectedVersion) VerificationQuestions() []string {
	var ids []string
	for _, c := range v.Corrections {
		for _, e := range c.Edits {
			if e.File == "" || e.File == UnitTestFile {
				ids = append(ids, c.Question)
				break
			}
		}
	}
	return ids
}

// LoadVersion reads the tool-usage benchmark from a MatTools-layout root
// (Load) in benchmark version version: "" or "2025-05", the published
// questions; a corrected version (CorrectedVersions), the published
// questions with its edits applied to their verification code. Errors:
// those of Load; an unknown version; an edit whose text does not occur
// exactly once in its question's new_unit_test.py (the root is not the
// data the correction was written for), naming the file.
func LoadVersion(root, version string) (*Benchmark, error) {
	b, err := Load(root)
	if err != nil || version == "" || version == Version2025_05 {
		return b, err
	}
	v, ok := LookupCorrectedVersion(version)
	if !ok {
		return nil, fmt.Errorf("tool-usage benchmark version %q: not %s nor one of datasets/corrections.json", version, Version2025_05)
	}
	return v.Apply(b)
}

// Apply returns a copy of b (benchmark version v.Base) in version v: its
// questions with the verification code edited; b is left as it is.
// Errors name the question's new_unit_test.py and the edit when its text
// does not occur exactly once.
func (v CorrectedVersion) Apply(b *Benchmark) (*Benchmark, error) {
	if b.Version != "" && b.Version != v.Base {
		return nil, fmt.Errorf("version %s corrects version %s; the questions are version %s", v.ID, v.Base, b.Version)
	}
	c := *b
	c.Questions = slices.Clone(b.Questions)
	for _, cor := range v.Corrections {
		q, ok := c.Question(cor.Question)
		if !ok {
			return nil, fmt.Errorf("version %s: question %s is not in the benchmark", v.ID, cor.Question)
		}
		for i, e := range cor.Edits {
			target := &q.UnitTest
			switch e.File {
			case "", UnitTestFile:
				e.File = UnitTestFile
			case QuestionTextFile:
				target = &q.Text
			default:
				return nil, fmt.Errorf("version %s: %s edit %d: file %q, want %s or %s", v.ID, cor.Question, i+1, e.File, UnitTestFile, QuestionTextFile)
			}
			file := filepath.Join(b.Root, QuestionsDir, cor.Question, e.File)
			if n := strings.Count(*target, e.Find); n != 1 {
				return nil, &FormatError{File: file, Field: fmt.Sprintf("correction %s edit %d", v.ID, i+1),
					Err: fmt.Errorf("its text occurs %d times, want once: %q", n, e.Find)}
			}
			repl, err := v.expandHelpers(e.Replace)
			if err != nil {
				return nil, fmt.Errorf("version %s: %s edit %d: %w", v.ID, cor.Question, i+1, err)
			}
			*target = strings.Replace(*target, e.Find, repl, 1)
		}
	}
	c.Version = v.ID
	return &c, nil
}

var helperRef = regexp.MustCompile(`\{\{helper:([A-Za-z0-9_]+)\}\}`)

// expandHelpers replaces every "{{helper:NAME}}" of s with v.Helpers[NAME];
// an unknown name is an error.
func (v CorrectedVersion) expandHelpers(s string) (string, error) {
	var err error
	out := helperRef.ReplaceAllStringFunc(s, func(m string) string {
		name := helperRef.FindStringSubmatch(m)[1]
		h, ok := v.Helpers[name]
		if !ok && err == nil {
			err = fmt.Errorf("helper %q is not among the version's helpers", name)
		}
		return h
	})
	return out, err
}
