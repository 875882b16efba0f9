package datasets

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
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
}

// Correction is the edit of one question's verification code
// (new_unit_test.py), with the original unit test's line it follows.
type Correction struct {
	Question   string   `json:"question"`   // the question id
	Properties []string `json:"properties"` // the properties whose check changes
	Test       string   `json:"test"`       // the original test and line it follows, e.g. "tests/test_finder.py::test_defect_finder, l.14 …"
	Reason     string   `json:"reason"`
	Edits      []Edit   `json:"edits"`
}

// Edit replaces the one occurrence of Find in a question's verification
// code with Replace.
type Edit struct {
	Find    string `json:"find"`
	Replace string `json:"replace"`
}

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
			file := filepath.Join(b.Root, QuestionsDir, cor.Question, "new_unit_test.py")
			if n := strings.Count(q.UnitTest, e.Find); n != 1 {
				return nil, &FormatError{File: file, Field: fmt.Sprintf("correction %s edit %d", v.ID, i+1),
					Err: fmt.Errorf("its text occurs %d times, want once: %q", n, e.Find)}
			}
			q.UnitTest = strings.Replace(q.UnitTest, e.Find, e.Replace, 1)
		}
	}
	c.Version = v.ID
	return &c, nil
}
