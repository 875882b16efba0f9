package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// CodeSegmentsDir is the folder of MatTools' tree-sitter splits of the
// unit-test files, relative to the data root (one folder per package).
const CodeSegmentsDir = "src/code_segments"

// CodeSegments is one file of MatTools' code_segments/<package>/: the
// split of one unit-test file.
type CodeSegments struct {
	UUID string `json:"uuid"`
	// Filename is the absolute path on the author's machine, e.g.
	// "/Users/…/src/tool_source_code/pymatgen-analysis-defects/tests/test_core.py".
	Filename  string   `json:"filename"`
	Imports   []string `json:"imports"`
	Classes   []string `json:"classes"`
	Functions []string `json:"global functions"`
	Variables []string `json:"global variables"`
}

// Comparison outcomes of one upstream function (SegmentDiff.Outcome).
const (
	SegmentEqual   = "equal"   // same name and code, in the same file
	SegmentMoved   = "moved"   // same name and code, in another file of this copy
	SegmentDiffers = "differs" // same name, other code
	SegmentMissing = "missing" // no function of that name in this copy's files
	SegmentExtra   = "extra"   // in this copy's files only
)

// SegmentDiff is one function in the comparison of Split with MatTools'
// code_segments.
type SegmentDiff struct {
	// Name is the function's name; File its file upstream (relative to the
	// tests folder), Here the file of this copy that holds it ("" if none).
	Name, File, Here string
	// Test says it is a test function (named test*, not a fixture).
	Test    bool
	Outcome string
}

// SegmentComparison is CompareCodeSegments' result.
type SegmentComparison struct {
	// Files is the number of upstream segment files; ImportsEqual those
	// whose imports equal Split's, in order.
	Files, ImportsEqual int
	// Functions lists every upstream function (file order) then this
	// copy's extra ones.
	Functions []SegmentDiff
}

// Count returns how many upstream functions (tests only, or all) have the
// outcome.
func (c SegmentComparison) Count(outcome string, testsOnly bool) int {
	n := 0
	for _, f := range c.Functions {
		if f.Outcome == outcome && (f.Test || !testsOnly) {
			n++
		}
	}
	return n
}

var (
	defName    = regexp.MustCompile(`(?m)^\s*(?:async\s+)?def\s+(\w+)`)
	topDefName = regexp.MustCompile(`(?m)^(?:async\s+)?def\s+(\w+)`)
)

// LastFunctionName returns the name of the last top-level function
// defined in code (a reference solution's: helpers come first), "" if none.
func LastFunctionName(code string) string {
	m := topDefName.FindAllStringSubmatch(code, -1)
	if m == nil {
		return ""
	}
	return m[len(m)-1][1]
}

// FunctionName returns the name of the function defined in a segment (its
// first def), "" if none.
func FunctionName(code string) string {
	m := defName.FindStringSubmatch(code)
	if m == nil {
		return ""
	}
	return m[1]
}

// CompareCodeSegments splits the unit-test files that MatTools' code
// segments of package (e.g. "pymatgen_analysis_defects") came from, as
// they are in this data root (the part of each upstream filename from
// "src/" on, under root), and compares the global functions by name and
// code, and each file's imports. A function found in another file of the
// copy with the same code is SegmentMoved (the copy's tests are a later
// revision than the split). Errors name the file.
func CompareCodeSegments(root, pkg, python string) (*SegmentComparison, error) {
	dir := filepath.Join(root, filepath.FromSlash(CodeSegmentsDir), pkg)
	var jsons []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() && strings.HasSuffix(p, ".json") {
			jsons = append(jsons, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("synth: code segments: %w", err)
	}
	sort.Strings(jsons)
	var segs []CodeSegments
	var testsDir string
	var rels []string
	for _, p := range jsons {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("synth: code segments: %w", err)
		}
		var s CodeSegments
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("synth: code segments %s: %w", p, err)
		}
		fn := filepath.ToSlash(s.Filename)
		i := strings.Index(fn, "/src/tool_source_code/")
		j := strings.Index(fn, "/tests/")
		if i < 0 || j < i {
			return nil, fmt.Errorf("synth: code segments %s: filename %q is not under src/tool_source_code/<package>/tests/", p, s.Filename)
		}
		td := filepath.Join(root, filepath.FromSlash(fn[i+1:j+len("/tests")]))
		if testsDir != "" && td != testsDir {
			return nil, fmt.Errorf("synth: code segments %s: tests folder %s, the others' %s", p, td, testsDir)
		}
		testsDir = td
		segs = append(segs, s)
		rels = append(rels, fn[j+len("/tests/"):])
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("synth: no code segments under %s", dir)
	}
	files, err := Split(testsDir, rels, python)
	if err != nil {
		return nil, err
	}
	type here struct {
		file, code string
	}
	ours := map[string]here{}
	for _, f := range files {
		for _, c := range f.Functions {
			ours[FunctionName(c)] = here{f.Rel, c}
		}
	}
	res := &SegmentComparison{Files: len(segs)}
	seen := map[string]bool{}
	for i, s := range segs {
		if equalStrings(s.Imports, files[i].Imports) {
			res.ImportsEqual++
		}
		for _, c := range s.Functions {
			n := FunctionName(c)
			seen[n] = true
			d := SegmentDiff{Name: n, File: rels[i], Test: isTestFunc(c)}
			h, ok := ours[n]
			switch {
			case !ok:
				d.Outcome = SegmentMissing
			case h.code != c:
				d.Here, d.Outcome = h.file, SegmentDiffers
			case h.file != rels[i]:
				d.Here, d.Outcome = h.file, SegmentMoved
			default:
				d.Here, d.Outcome = h.file, SegmentEqual
			}
			res.Functions = append(res.Functions, d)
		}
	}
	for _, f := range files {
		for _, c := range f.Functions {
			if n := FunctionName(c); !seen[n] {
				res.Functions = append(res.Functions, SegmentDiff{Name: n, Here: f.Rel, Test: isTestFunc(c), Outcome: SegmentExtra})
			}
		}
	}
	return res, nil
}

// isTestFunc reports whether a function segment is a test: named test*
// and not a fixture.
func isTestFunc(code string) bool {
	return strings.HasPrefix(FunctionName(code), "test") && !strings.Contains(code[:strings.Index(code, "def ")], "fixture")
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
