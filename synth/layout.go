package synth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// ReviewVersion is the "review" value of a review.json.
const ReviewVersion = "synth-review/1"

// TaskReview is one synthesised task's review.json: what each check found,
// for the person who approves it.
type TaskReview struct {
	Review string `json:"review"`
	// Test is the test's ID; Folder the task's folder (and verification
	// function) name.
	Test   string `json:"test"`
	Folder string `json:"folder"`
	// Model is the model that wrote the triplet; Prompts the four prompt
	// files with their SHA-256.
	Model   string       `json:"model"`
	Prompts []PromptFile `json:"prompts"`
	// Parse lists the steps whose answer held no block to cut out.
	Parse []string `json:"parse"`
	// A, B and C are the checks' results; Problems all their reasons
	// (empty: the task passed and is in the benchmark).
	A        *CheckResult `json:"check_a"`
	B        *ExecResult  `json:"check_b"`
	C        []string     `json:"check_c"`
	Problems []string     `json:"problems"`
}

// Passed says the task passed every check.
func (r TaskReview) Passed() bool { return len(r.Problems) == 0 }

// RunChecks runs checks (a), (b) and (c) on the triplets of tests
// (Triplet.ID = Test.ID, in the same order) and returns one review each.
func RunChecks(ctx context.Context, sb sandbox.Sandbox, root, python string, tests []Test, ts []Triplet, model string, prompts []PromptFile, wall time.Duration) ([]TaskReview, error) {
	if len(tests) != len(ts) {
		return nil, fmt.Errorf("synth: %d tests for %d triplets", len(tests), len(ts))
	}
	revs := make([]TaskReview, len(ts))
	var in []CheckInput
	var ex []ExecInput
	var exIdx []int
	for i, tr := range ts {
		if tr.ID != tests[i].ID {
			return nil, fmt.Errorf("synth: triplet %d is of %s, not of test %s", i, tr.ID, tests[i].ID)
		}
		r := TaskReview{Review: ReviewVersion, Test: tr.ID, Model: model, Prompts: prompts}
		for step, v := range map[string]*string{StepProperties: tr.PropertiesJSON, StepQuestion: tr.Question, StepUnitTest: tr.NewUnitTest, StepReference: tr.Reference} {
			if v == nil {
				r.Parse = append(r.Parse, step)
			}
		}
		sort.Strings(r.Parse)
		for _, s := range r.Parse {
			r.Problems = append(r.Problems, "step "+s+": the answer held no block to cut out")
		}
		in = append(in, CheckInput{Code: tests[i].Code, PropertiesJSON: tr.PropertiesJSON})
		r.C = CheckLeak(tr.Question, tests[i])
		if tr.PropertiesJSON != nil && tr.NewUnitTest != nil {
			if _, props, err := ParsePropertiesJSON(*tr.PropertiesJSON); err == nil {
				e := ExecInput{UnitTest: *tr.NewUnitTest, Test: tests[i]}
				if tr.Reference != nil {
					e.Reference = *tr.Reference
				}
				for _, p := range props {
					e.Properties = append(e.Properties, p.Name)
				}
				ex = append(ex, e)
				exIdx = append(exIdx, i)
			}
		}
		revs[i] = r
	}
	ca, err := CheckProperties(python, in)
	if err != nil {
		return nil, err
	}
	var cb []ExecResult
	if sb != nil && len(ex) > 0 {
		if cb, err = CheckExecution(ctx, sb, root, ex, wall); err != nil {
			return nil, err
		}
	}
	for i := range revs {
		a := ca[i]
		revs[i].A = &a
		revs[i].Problems = append(revs[i].Problems, a.Problems...)
	}
	for k, i := range exIdx {
		if cb == nil {
			break
		}
		b := cb[k]
		revs[i].B = &b
		revs[i].Problems = append(revs[i].Problems, b.Problems...)
		if ts[i].Reference == nil {
			revs[i].Problems = append(revs[i].Problems, "no reference solution to run")
		}
	}
	for i := range revs {
		if revs[i].B == nil {
			revs[i].Problems = append(revs[i].Problems, "check (b) did not run")
		}
		revs[i].Problems = append(revs[i].Problems, revs[i].C...)
	}
	return revs, nil
}

var nonIdent = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// folderNames gives each test a folder name that is a Python identifier
// (the verification function is renamed to it): the test's name where it
// is unique, else Class_name, else file stem, class and name joined by
// "__".
func folderNames(tests []Test) []string {
	count := map[string]int{}
	for _, t := range tests {
		count[t.Name]++
	}
	names := make([]string, len(tests))
	seen := map[string]bool{}
	for i, t := range tests {
		n := t.Name
		if count[n] > 1 && t.Class != "" {
			n = t.Class + "_" + t.Name
		}
		if seen[n] {
			file, _, _ := strings.Cut(t.ID, "::")
			n = nonIdent.ReplaceAllString(strings.TrimSuffix(file, ".py"), "_") + "__" + strings.Trim(t.Class+"__"+t.Name, "_")
		}
		seen[n] = true
		names[i] = n
	}
	return names
}

// ManifestFormat is the "format" value of a benchmark.json.
const ManifestFormat = "synth-benchmark/1"

// Manifest is a synthesised benchmark's benchmark.json: what a loader of
// the folder needs besides MatTools' three files per question.
type Manifest struct {
	// Format is ManifestFormat (set by WriteLayout).
	Format string `json:"format"`
	// Name and Version identify the benchmark (e.g. "pymatgen_core",
	// "0.1"); the questions are under src/question_segments/<Name>/.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Tests is the tests folder synthesised from, relative to the data
	// root; DataCommit the data root's upstream commit (its
	// UPSTREAM_COMMIT), "" when unknown.
	Tests      string `json:"tests"`
	DataCommit string `json:"data_commit"`
	// DataDir is the folder of the data root the tasks read, relative to
	// it, mounted in the sandbox at /app/tool_source_code with /app the
	// working directory, as check (b) ran them (DataDirDefault when
	// empty); Env the sandbox environment they need (PMG_TEST_FILES_DIR).
	DataDir string   `json:"data_dir"`
	Env     []string `json:"env"`
	Model   string   `json:"model"`
	// Prompts are the four prompt files with their SHA-256.
	Prompts []PromptFile `json:"prompts"`
	// Questions are the folders of the tasks that passed, in test order;
	// Properties the number of properties of each (properties.json's
	// keys); Excluded the tests that did not pass, with their reasons.
	Questions  []string            `json:"questions"`
	Properties map[string]int      `json:"properties"`
	Excluded   map[string][]string `json:"excluded"`
	// Modules are the Python modules the verifications import that the
	// sandbox lacks, provided by the folder (datasets.FolderManifest.Modules):
	// {"pytest": PytestModule} when a task's verification imports pytest.
	Modules map[string]string `json:"modules,omitempty"`
}

// PytestModule is where WriteLayout puts the pytest stand-in
// (pytest_standin.py) in the folder, relative to it.
const PytestModule = "support/pytest.py"

// importsPytest matches a verification's import of pytest.
var importsPytest = regexp.MustCompile(`(?m)^\s*(import\s+pytest\b|from\s+pytest\b)`)

// DataDirDefault is Manifest.DataDir when none is given: the data root's
// tool sources and test files.
const DataDirDefault = "src/tool_source_code"

// SandboxEnv is the environment the tasks run with (Manifest.Env):
// pymatgen's tests read TEST_FILES_DIR from PMG_TEST_FILES_DIR.
var SandboxEnv = []string{"PMG_TEST_FILES_DIR=" + PymatgenTestFiles}

// WriteLayout writes the synthesised benchmark under dir in MatTools'
// layout (src/question_segments/<package>/<question>/question.txt,
// properties.json, new_unit_test.py): one folder per task that passed
// every check, plus its reference_solution.py and review.json; the tasks
// that failed get only their review.json, under dir/excluded/<question>/;
// dir/benchmark.json is the manifest, dir/review.html the review page of
// every task (ReviewPage). The verification function is
// renamed to the folder's name, as MatTools' reviewers did. The whole
// folder is written under a temporary name and renamed into place, so an
// earlier one is replaced only by a complete one; an existing dir that is
// not a synthesised benchmark (no benchmark.json) is an error, untouched.
func WriteLayout(dir string, m Manifest, tests []Test, ts []Triplet, revs []TaskReview) error {
	if len(tests) != len(ts) || len(ts) != len(revs) {
		return fmt.Errorf("synth: %d tests, %d triplets, %d reviews", len(tests), len(ts), len(revs))
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	names := folderNames(tests)
	m.Format, m.Questions, m.Properties, m.Excluded = ManifestFormat, nil, map[string]int{}, map[string][]string{}
	if m.DataDir == "" {
		m.DataDir = DataDirDefault
	}
	if m.Env == nil {
		m.Env = SandboxEnv
	}
	var page []ReviewTask
	usesPytest := false
	for i, tr := range ts {
		r := revs[i]
		r.Folder = names[i]
		page = append(page, ReviewTask{Review: r, Question: deref(tr.Question), Properties: deref(tr.PropertiesJSON),
			Verification: deref(tr.NewUnitTest), Reference: deref(tr.Reference), Excluded: !r.Passed()})
		base := filepath.Join(tmp, "excluded", names[i])
		if r.Passed() {
			base = filepath.Join(tmp, "src", "question_segments", m.Name, names[i])
			m.Questions = append(m.Questions, names[i])
			if _, props, err := ParsePropertiesJSON(*tr.PropertiesJSON); err == nil {
				m.Properties[names[i]] = len(props)
			}
		} else {
			m.Excluded[tr.ID] = r.Problems
		}
		if err := os.MkdirAll(base, 0o755); err != nil {
			return err
		}
		files := map[string][]byte{}
		if r.Passed() {
			var props bytes.Buffer
			if err := json.Indent(&props, []byte(*tr.PropertiesJSON), "", "    "); err != nil {
				return fmt.Errorf("synth: %s: properties JSON: %w", tr.ID, err)
			}
			ut := *tr.NewUnitTest
			if n := FunctionName(ut); n != "" {
				ut = strings.Replace(ut, "def "+n+"(", "def "+names[i]+"(", 1)
			}
			files["question.txt"] = []byte(*tr.Question + "\n")
			files["properties.json"] = props.Bytes()
			files["new_unit_test.py"] = []byte(ut + "\n")
			usesPytest = usesPytest || importsPytest.MatchString(ut)
			files["reference_solution.py"] = []byte(*tr.Reference + "\n")
		}
		rb, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		files["review.json"] = append(rb, '\n')
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(base, name), b, 0o644); err != nil {
				return err
			}
		}
	}
	if usesPytest {
		// The sandbox's environment has no pytest: the folder provides the
		// stand-in check (b) ran the verifications with, which the loader
		// registers before each (datasets.FolderManifest.Modules).
		if err := os.MkdirAll(filepath.Join(tmp, "support"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, filepath.FromSlash(PytestModule)), []byte(pytestStandin), 0o644); err != nil {
			return err
		}
		m.Modules = map[string]string{"pytest": PytestModule}
	}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "benchmark.json"), append(mb, '\n'), 0o644); err != nil {
		return err
	}
	html, err := ReviewPage(m, page)
	if err != nil {
		return fmt.Errorf("synth: review page: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ReviewPageFile), html, 0o644); err != nil {
		return err
	}
	// Only an earlier synthesised benchmark is replaced, never another folder.
	if _, err := os.Stat(dir); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "benchmark.json")); err != nil {
			return fmt.Errorf("synth: %s exists and holds no benchmark.json: refusing to replace it", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	return os.Rename(tmp, dir)
}
