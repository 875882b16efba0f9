package synth

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Test-data references a test's text can make (DataFiles): pymatgen's
// f"{TEST_FILES_DIR}/<path>" (tests/files), its VASP_IN_DIR and
// VASP_OUT_DIR (tests/files/io/vasp/inputs, outputs), and the defects
// tests' test_dir / "<path>" (tests/test_files).
var (
	testFilesRef = regexp.MustCompile(`\{TEST_FILES_DIR\}(/[^"'{}\s]*)?(\{)?`)
	testFilesUse = regexp.MustCompile(`\bTEST_FILES_DIR\b`)
	vaspDirRef   = regexp.MustCompile(`\b(VASP_IN_DIR|VASP_OUT_DIR)\b\}?(/[^"'{}\s]*)?`)
	testDirRef   = regexp.MustCompile(`\btest_dir\s*/\s*["']([^"'{}]+)["']`)
	importParen  = regexp.MustCompile(`(?s)\bfrom\s+[\w.]+\s+import\s*\([^)]*\)`)
	importStmt   = regexp.MustCompile(`(?m)^\s*(from\s+[\w.]+\s+)?import\s.*$`)
)

// DataFiles lists the test-data files and folders a test refers to in its
// inlined text (UnitTest and FileReading), relative to the tests folder,
// and which of them are missing under testsDir; unresolved says it uses
// TEST_FILES_DIR in a way the patterns cannot follow (a path built from
// variables). A test with no reference needs no data. This is a textual
// heuristic: paths built at run time are not seen.
func DataFiles(t Test, testsDir string) (refs, missing []string, unresolved bool) {
	text := t.UnitTest + "\n" + t.FileReading
	seen := map[string]bool{}
	add := func(rel string) {
		rel = strings.Trim(rel, "/")
		if rel == "" || seen[rel] {
			return
		}
		seen[rel] = true
		refs = append(refs, rel)
		if _, err := os.Stat(filepath.Join(testsDir, filepath.FromSlash(rel))); err != nil {
			missing = append(missing, rel)
		}
	}
	n := 0
	for _, m := range testFilesRef.FindAllStringSubmatch(text, -1) {
		n++
		if m[2] != "" {
			// A placeholder right after the literal part: the folder
			// before it must exist, the rest is not known.
			unresolved = true
		}
		add("files/" + strings.TrimPrefix(m[1], "/"))
	}
	code := importStmt.ReplaceAllString(importParen.ReplaceAllString(text, ""), "")
	if len(testFilesUse.FindAllString(code, -1)) > n {
		unresolved = true
	}
	for _, m := range vaspDirRef.FindAllStringSubmatch(code, -1) {
		sub := "inputs"
		if m[1] == "VASP_OUT_DIR" {
			sub = "outputs"
		}
		add("files/io/vasp/" + sub + "/" + strings.TrimPrefix(m[2], "/"))
	}
	for _, m := range testDirRef.FindAllStringSubmatch(text, -1) {
		add("test_files/" + m[1])
	}
	return refs, missing, unresolved
}
