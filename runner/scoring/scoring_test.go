package scoring_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// sandboxPython is the sandbox's Python environment (make sandbox-env).
func sandboxPython() string {
	if p := os.Getenv("MATTOOLS_SANDBOX_PYTHON"); p != "" {
		return p
	}
	return "/opt/mattools-sandbox"
}

// openSandbox opens the local sandbox with the pinned Python environment, or
// skips (fails under CI, which installs both) naming what is missing.
func openSandbox(t testing.TB, dataDirs ...string) sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Open(context.Background(), "auto", sandbox.Options{Slots: 2, Python: sandboxPython(), DataDirs: dataDirs})
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox with the pinned Python environment (run `make setup` as root): %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// fixtureRoot makes an empty MatTools-layout data root readable by the sandbox uid.
func fixtureRoot(t testing.TB) string {
	dir, err := os.MkdirTemp("", "scoring-fixture-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	if err := os.MkdirAll(filepath.Join(dir, "src", "tool_source_code"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fixtureTest is a unit test in MatTools' generated template (the one 19 of
// the 49 questions use verbatim): three properties a (int), b (str) and c
// (a tuple holding a pymatgen Element), plus d checked with np.allclose.
const fixtureTest = `def test_fixture(properties):
    import numpy as np
    import warnings
    from pymatgen.core.periodic_table import Element
    expected_properties = {
        "a": {"format": "int", "value": 7},
        "b": {"format": "str", "value": "Ga site"},
        "c": {"format": "tuple", "value": (Element('Mg'), 2)},
        "d": {"format": "np.allclose", "value": [1.0, 2.0]},
    }
    if properties.get("warn"):
        warnings.warn("comparing values")
    errors = []
    for property_name, expected_info in expected_properties.items():
        expected_value = expected_info['value']
        expected_format = expected_info['format']
        if property_name not in properties:
            errors.append(f"{property_name} not found in input properties")
            continue
        actual_value = properties[property_name]
        if expected_format != "np.allclose" and not isinstance(actual_value, eval(expected_format)):
            errors.append(f"{property_name} is not of type {expected_format}")
            continue
        if expected_format == "np.allclose":
            if not np.allclose(actual_value, expected_value):
                errors.append(f"{property_name}: Expected value close to {expected_value} but got {actual_value}")
        else:
            if actual_value != expected_value:
                errors.append(f"{property_name}: Expected {expected_value} but got {actual_value}")
    if errors:
        errors.append(len(errors))
        errors.append(len(expected_properties))
        return errors
    else:
        return "ok"
`

func fixtureQuestion() *datasets.Question {
	q := &datasets.Question{ID: "test_fixture", UnitTest: fixtureTest}
	for _, n := range []string{"a", "b", "c", "d"} {
		q.Properties = append(q.Properties, datasets.Property{Name: n})
	}
	return q
}

type want struct {
	verdict  results.Verdict
	cause    string
	runnable bool
	passed   int
}

// TestQuirkFixtures pins the verdict of each MatTools quirk under both
// protocols (docs/mattools.md §2.4).
func TestQuirkFixtures(t *testing.T) {
	const good = `from pymatgen.core import Element
import numpy as np
def f():
    return {"a": 7, "b": "Ga site", "c": (Element("Mg"), 2), "d": np.array([1.0, 2.0])}
`
	tests := []struct {
		name, code, fn string
		v1, strict     want
	}{
		{name: "all correct", code: good, fn: "f",
			// c's Element sits in a tuple: v1 never restores placeholders inside
			// tuples, so c fails there (4 − 1 error = 3); strict restores it.
			v1: want{results.VerdictPartial, "", true, 3}, strict: want{results.VerdictCorrect, "", true, 4}},
		{name: "error text containing ok", fn: "f", code: `import numpy as np
def f():
    return {"a": 7, "b": "broken", "d": [1.0, 2.0]}
`,
			// v1: "b: Expected Ga site but got broken" contains "ok" → the question is correct with all 4.
			v1: want{results.VerdictCorrect, "", true, 4}, strict: want{results.VerdictPartial, "", true, 2}},
		{name: "np.array( in stdout", fn: "f", code: `class A:
    def __repr__(self):
        return "np.array([1.0, 2.0])"
def f():
    return {"a": 7, "b": "Ga site", "d": A()}
`,
			// v1's first pass turns np.array( into np.'__ARRAY_0__' → literal_eval fails.
			v1: want{results.VerdictNotRunnable, scoring.CauseUnparseable, false, 0}, strict: want{results.VerdictPartial, "", true, 3}},
		{name: "Element Mg inside a string value", fn: "f", code: `def f():
    return {"a": 7, "b": "Element Mg site", "d": [1.0, 2.0]}
`,
			v1: want{results.VerdictNotRunnable, scoring.CauseUnparseable, false, 0}, strict: want{results.VerdictPartial, "", true, 2}},
		{name: "placeholder inside a tuple", fn: "f", code: `from pymatgen.core import Element
def f():
    return {"c": (Element("Mg"), 2)}
`,
			// v1: c stays ('__ELEMENT_0__', 2) → "c: Expected … but got …" plus 3 missing → 4 − 4 = 0.
			v1: want{results.VerdictPartial, "", true, 0}, strict: want{results.VerdictPartial, "", true, 1}},
		{name: "debug print before the dict", fn: "f", code: `def f():
    print("computing properties...")
    return {"a": 7, "b": "Ga site", "d": [1.0, 2.0]}
`,
			v1: want{results.VerdictNotRunnable, scoring.CauseUnparseable, false, 0}, strict: want{results.VerdictPartial, "", true, 3}},
		{name: "stderr warning during verification", fn: "f", code: `def f():
    return {"a": 8, "b": "Ga site", "d": [1.0, 2.0], "warn": True}
`,
			// v1 reads stdout and stderr together: the warning precedes the JSON list → not JSON → function error.
			v1: want{results.VerdictVerificationCrash, scoring.CauseVerifyOutput, false, 0}, strict: want{results.VerdictPartial, "", true, 2}},
		{name: "float128 array", fn: "f", code: `import numpy as np
def f():
    return {"a": 7, "b": "Ga site", "d": np.array([1.0, 2.0], dtype=np.longdouble)}
`,
			// repr says dtype=float128: both protocols read it as float64; c is missing.
			v1: want{results.VerdictPartial, "", true, 3}, strict: want{results.VerdictPartial, "", true, 3}},
		{name: "required parameters", fn: "f", code: `def f(path):
    return {"a": 7}
`,
			v1: want{results.VerdictNotRunnable, scoring.CauseRequiredParameters, false, 0}, strict: want{results.VerdictNotRunnable, scoring.CauseRequiredParameters, false, 0}},
		{name: "missing function name", fn: "compute", code: `def f():
    return {"a": 7}
`,
			v1: want{results.VerdictNotRunnable, scoring.CauseMissingFunction, false, 0}, strict: want{results.VerdictNotRunnable, scoring.CauseMissingFunction, false, 0}},
		{name: "empty code", fn: "", code: "  \n",
			v1: want{results.VerdictNotRunnable, scoring.CauseEmptyCode, false, 0}, strict: want{results.VerdictNotRunnable, scoring.CauseEmptyCode, false, 0}},
		{name: "syntax error", fn: "f", code: "def f(:\n    return {}\n",
			v1: want{results.VerdictNotRunnable, scoring.CauseSyntaxError, false, 0}, strict: want{results.VerdictNotRunnable, scoring.CauseSyntaxError, false, 0}},
		{name: "exception", fn: "f", code: "def f():\n    return {'a': open('tool_source_code/missing.vasp').read()}\n",
			v1: want{results.VerdictNotRunnable, "exception:FileNotFoundError", false, 0}, strict: want{results.VerdictNotRunnable, "exception:FileNotFoundError", false, 0}},
		{name: "not a dict", fn: "f", code: "def f():\n    return [7]\n",
			v1: want{results.VerdictNotRunnable, scoring.CauseNoDict, false, 0}, strict: want{results.VerdictNotRunnable, scoring.CauseNoDict, false, 0}},
		{name: "shape error inside np.allclose", fn: "f", code: "def f():\n    return {'a': 7, 'b': 'Ga site', 'd': [1.0, 2.0, 3.0]}\n",
			// v1: the test raises ValueError → exit 1 → failure text, not a list → function error;
			// strict: the crash costs only d.
			v1: want{results.VerdictVerificationCrash, scoring.CauseVerifyOutput, false, 0}, strict: want{results.VerdictPartial, "", true, 2}},
	}
	sb := openSandbox(t)
	s := &scoring.Scorer{Sandbox: sb, Root: fixtureRoot(t)}
	q := fixtureQuestion()
	var wg sync.WaitGroup
	got := make([]*scoring.Scored, len(tests))
	errs := make([]error, len(tests))
	for i, tt := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.Score(context.Background(), q, scoring.Submission{Code: tt.code, FunctionName: tt.fn})
		}()
	}
	wg.Wait()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			for _, c := range []struct {
				o    scoring.Outcome
				want want
			}{{got[i].Outcomes[results.ProtocolMatToolsV1], tt.v1}, {got[i].Outcomes[results.ProtocolMatToolsV1Strict], tt.strict}} {
				g := want{c.o.Verdict, c.o.Cause, c.o.Runnable, c.o.PropertiesPassed}
				if g != c.want {
					t.Errorf("%s: got %+v, want %+v\n  detail: %s\n  errors: %q\n  stdout: %q\n  stderr: %s",
						c.o.Protocol, g, c.want, c.o.Detail, c.o.Errors, got[i].Stdout, tailString(got[i].Stderr, 800))
				}
			}
		})
	}
}

// TestTimeoutIsNotRunnable: a function that never returns is killed at the
// wall-clock limit and is not runnable under both protocols.
func TestTimeoutIsNotRunnable(t *testing.T) {
	sb := openSandbox(t)
	s := &scoring.Scorer{Sandbox: sb, Root: fixtureRoot(t), Limits: sandbox.Limits{Wall: 3e9}}
	got, err := s.Score(context.Background(), fixtureQuestion(), scoring.Submission{Code: "def f():\n    while True:\n        pass\n", FunctionName: "f"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []scoring.Outcome{got.Outcomes[results.ProtocolMatToolsV1], got.Outcomes[results.ProtocolMatToolsV1Strict]} {
		if o.Verdict != results.VerdictNotRunnable || o.Cause != scoring.CauseTimeout {
			t.Errorf("%s: %s/%s; want not-runnable/timeout", o.Protocol, o.Verdict, o.Cause)
		}
	}
}

// TestDataMissingIsNotExecuted: a question whose data file is absent is
// data-missing under both protocols, without running anything.
func TestDataMissingIsNotExecuted(t *testing.T) {
	q := fixtureQuestion()
	q.DataFiles = []datasets.DataFile{{Path: "tool_source_code/x/CHGCAR.Fe3O4.vasp", Present: false}}
	s := &scoring.Scorer{Sandbox: nil, Root: "/nonexistent"}
	got, err := s.Score(context.Background(), q, scoring.Submission{Code: "def f():\n    return {}\n", FunctionName: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcomes[results.ProtocolMatToolsV1].Verdict != results.VerdictDataMissing || got.Outcomes[results.ProtocolMatToolsV1Strict].Verdict != results.VerdictDataMissing {
		t.Errorf("verdicts %s, %s; want data-missing", got.Outcomes[results.ProtocolMatToolsV1].Verdict, got.Outcomes[results.ProtocolMatToolsV1Strict].Verdict)
	}
}

func tailString(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// TestPropertyOutcomes: the per-property outcomes each protocol gives
// (Outcome.Properties, the rows' property_outcomes) agree with its credit:
// strict names every property of the unit test with its own error, v1 gives
// them only when it credits all (a partial v1 credit is a count of error
// strings), and a question that did not run fails every property with its
// verdict as message. The rows FillRow fills pass results.Validate.
func TestPropertyOutcomes(t *testing.T) {
	s := &scoring.Scorer{Sandbox: openSandbox(t), Root: fixtureRoot(t)}
	q := fixtureQuestion()
	score := func(code string) *scoring.Scored {
		t.Helper()
		out, err := s.Score(context.Background(), q, scoring.Submission{Code: code, FunctionName: "f"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	type po = results.PropertyOutcome
	// b is wrong, and "…but got broken" holds "ok": v1 credits all 4.
	out := score("def f():\n    return {'a': 7, 'b': 'broken', 'd': [1.0, 2.0]}\n")
	wantStrict := []po{{Property: "a", Passed: true}, {Property: "b", Message: "b: Expected Ga site but got broken"},
		{Property: "c", Message: "c not found in input properties"}, {Property: "d", Passed: true}}
	if !slices.Equal(out.Outcomes[results.ProtocolMatToolsV1Strict].Properties, wantStrict) {
		t.Errorf("strict outcomes %+v\nwant %+v", out.Outcomes[results.ProtocolMatToolsV1Strict].Properties, wantStrict)
	}
	allPassed := []po{{Property: "a", Passed: true}, {Property: "b", Passed: true}, {Property: "c", Passed: true}, {Property: "d", Passed: true}}
	if out.Outcomes[results.ProtocolMatToolsV1].Verdict != results.VerdictCorrect || !slices.Equal(out.Outcomes[results.ProtocolMatToolsV1].Properties, allPassed) {
		t.Errorf("v1 %s, outcomes %+v; want correct with all passed", out.Outcomes[results.ProtocolMatToolsV1].Verdict, out.Outcomes[results.ProtocolMatToolsV1].Properties)
	}
	// c's Element in a tuple: v1 fails c (one error string), partial 3.
	out2 := score("from pymatgen.core import Element\ndef f():\n    return {'a': 7, 'b': 'Ga site', 'c': (Element('Mg'), 2), 'd': [1.0, 2.0]}\n")
	if out2.Outcomes[results.ProtocolMatToolsV1].Verdict != results.VerdictPartial || out2.Outcomes[results.ProtocolMatToolsV1].Properties != nil || !slices.Equal(out2.Outcomes[results.ProtocolMatToolsV1Strict].Properties, allPassed) {
		t.Errorf("v1 %s with outcomes %+v (want partial, none); strict %+v", out2.Outcomes[results.ProtocolMatToolsV1].Verdict, out2.Outcomes[results.ProtocolMatToolsV1].Properties, out2.Outcomes[results.ProtocolMatToolsV1Strict].Properties)
	}
	out3 := score("def f():\n    raise ValueError('no')\n")
	for _, o := range []scoring.Outcome{out3.Outcomes[results.ProtocolMatToolsV1], out3.Outcomes[results.ProtocolMatToolsV1Strict]} {
		if o.Verdict != results.VerdictNotRunnable || len(o.Properties) != 4 || o.Properties[2] != (po{Property: "c", Message: "not-runnable: exception:ValueError"}) {
			t.Errorf("%s: %s, outcomes %+v", o.Protocol, o.Verdict, o.Properties)
		}
	}
	for _, p := range scoring.Protocols {
		f := &results.File{Run: results.Run{FormatVersion: results.FormatVersion, RunID: "t", Benchmark: results.BenchmarkToolUsage,
			BenchmarkVersion: results.BenchmarkVersion2025_05, System: results.SystemSingleLLM, Model: "m", Round: 1, ScoringProtocol: p,
			QuestionSet: results.QuestionSet{Name: "fixture", Questions: 3, Properties: 12, IDs: []string{"q0", "q1", "q2"}},
			Provenance:  results.Provenance{Kind: results.ProvenanceRunner}, Environment: results.Environment{Generator: "t"}}}
		for i, sc := range []*scoring.Scored{out, out2, out3} {
			row := results.QuestionRow{QuestionIndex: int32(i), QuestionID: fmt.Sprintf("q%d", i), PropertyCount: 4}
			sc.FillRow(&row, p)
			f.Questions = append(f.Questions, row)
		}
		f.Run.Totals, _ = results.Tally(f.Questions, f.Run.QuestionSet)
		if err := results.Validate(f); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if got := f.Questions[0].PropertyOutcomes; p == results.ProtocolMatToolsV1Strict && !slices.Equal(got, wantStrict) {
			t.Errorf("row outcomes %+v", got)
		}
	}
}
