package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/runner/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/llm/llmtest"
)

// answerSet is a scripted model for real tests: it answers the four
// steps as a careful model would, from the test's own asserts (read by
// split.py): one property per assert (its literal expected side, or
// True/False for an assert x / assert not x), a question naming them, a
// verification comparing each, and a reference solution that is the
// test's own code with each assert replaced by recording the value it
// checks. wrongValue and leak spoil it: the first property's value
// changed, the question quoting the expression of the first assert.
type answerSet struct {
	p                *Prompts
	tests            []Test
	wrongValue, leak bool
}

type recorded struct {
	value, format, record string
	a                     Assert
}

func recordable(t Test) []recorded {
	var out []recorded
	for _, a := range t.AssertList {
		if a.InRaises || a.Kind == "opaque" {
			continue
		}
		switch {
		case (a.Kind == "equal" || a.Kind == "close") && a.ExpectedSrc != "" && len(a.Subjects) == 1:
			f := "any"
			if a.Kind == "close" {
				f = "np.allclose"
			}
			out = append(out, recorded{a.ExpectedSrc, f, a.Subjects[0], a})
		case a.Kind == "truth" && a.Expr != "":
			v := "True"
			if a.Truth != nil && !*a.Truth {
				v = "False"
			}
			out = append(out, recorded{v, "bool", "bool(" + a.Expr + ")", a})
		}
	}
	return out
}

func (s *answerSet) propsJSON(t Test) string {
	type prop struct {
		Description string `json:"description"`
		Format      string `json:"format"`
		Value       string `json:"value"`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"JSON_File_Name\": %q,\n  \"properties\": {", t.Name)
	for i, r := range recordable(t) {
		v := r.value
		if s.wrongValue && i == 0 {
			v = `"a wrong value"`
		}
		pj, _ := json.Marshal(prop{"the value asserted at line " + fmt.Sprint(r.a.Line), r.format, v})
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    \"p%d\": %s", i, pj)
	}
	b.WriteString("\n  }\n}")
	return b.String()
}

func verification(name, propsJSON string) string {
	_, props, err := ParsePropertiesJSON(propsJSON)
	if err != nil {
		return "not json: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "def %s(properties):\n    import numpy as np\n    import pytest\n    from pytest import approx\n", name)
	b.WriteString("    try:\n        from pymatgen.core import Element, Species\n    except ImportError:\n        pass\n    expected = {\n")
	for _, p := range props {
		var v string
		json.Unmarshal(p.Value, &v)
		fmt.Fprintf(&b, "        %q: (lambda: %s, %q),\n", p.Name, v, p.Format)
	}
	b.WriteString(`    }
    errors = []
    for name, (value, fmt) in expected.items():
        if name not in properties:
            errors.append(f"{name} not found in input properties")
            continue
        actual, want = properties[name], None
        try:
            want = value()
            if fmt == "np.allclose" and not isinstance(want, approx):
                ok = bool(np.allclose(actual, want, rtol=1e-3))
            else:
                ok = bool(actual == want)
        except Exception:
            ok = False
        if not ok:
            errors.append(f"{name}: Expected {want!r} but got {actual!r}")
    return "ok" if not errors else errors + [len(errors), len(expected)]
`)
	return b.String()
}

// reference rewrites the test: each recorded assert becomes
// _r["pN"] = (<what it checks>), and solve() runs the test function (its
// fixtures resolved by name, a method on an instance after setUp) and
// returns _r.
func reference(t Test) string {
	lines := strings.SplitAfter(t.Code, "\n")
	for i, r := range recordable(t) {
		from, to := r.a.Line-t.CodeLine, r.a.EndLine-t.CodeLine
		indent := lines[from][:len(lines[from])-len(strings.TrimLeft(lines[from], " \t"))]
		if from == 0 {
			continue
		}
		end := ""
		if strings.HasSuffix(lines[to], "\n") {
			end = "\n"
		}
		lines[from] = fmt.Sprintf("%s_r[\"p%d\"] = (%s)%s", indent, i, r.record, end)
		for k := from + 1; k <= to; k++ {
			lines[k] = ""
		}
	}
	code := strings.Join(lines, "")
	body := strings.Replace(t.UnitTest, t.Code, code, 1)
	return HoistFuture("import sys\nsys.path.insert(0, \"/sbx\")\n_r = {}\n\n"+t.FileReading+"\n\n"+body) + fmt.Sprintf(`

def solve():
    import inspect
    import unittest
    g = globals()
    fx = {v._synth_fixture: v for v in list(g.values()) if getattr(v, "_synth_fixture", None)}
    cache = {}

    def val(n):
        if n not in cache:
            f = fx[n]
            cache[n] = f(*[val(a) for a in inspect.signature(f).parameters])
        return cache[n]

    if %q:
        cls = g[%q]
        obj = cls(%q) if issubclass(cls, unittest.TestCase) else cls()
        if hasattr(obj, "setUp"):
            obj.setUp()
        m = getattr(obj, %q)
    else:
        m = g[%q]
    m(*[val(a) for a in inspect.signature(m).parameters])
    return dict(_r)
`, t.Class, t.Class, t.Name, t.Name, t.Name)
}

func (s *answerSet) respond(r llmtest.Request) llmtest.Reply {
	first := r.Messages[0].Content
	user := r.Messages[len(r.Messages)-1].Content
	var t *Test
	for i := range s.tests {
		if strings.Contains(user, s.tests[i].Code) || (first == s.p.UnitTest && strings.Contains(user, fmt.Sprintf("%q", s.tests[i].Name))) {
			t = &s.tests[i]
			break
		}
	}
	if t == nil {
		return llmtest.Reply{Content: "no test recognised"}
	}
	switch {
	case first == s.p.Extract:
		return llmtest.Reply{Content: "```json\n" + s.propsJSON(*t) + "\n```"}
	case first == s.p.QuestionSystem:
		q := "As a materials scientist, compute the properties of " + t.Name + "."
		if s.leak {
			for _, r := range recordable(*t) {
				if len(r.a.Subjects) > 0 {
					q += " Use `" + r.a.Subjects[0] + "`."
					break
				}
			}
		}
		return llmtest.Reply{Content: "<question>\n" + q + "\n</question>"}
	case first == s.p.UnitTest:
		return llmtest.Reply{Content: "```python\n" + verification(t.Name, user) + "```"}
	default:
		return llmtest.Reply{Content: "```python\n" + reference(*t) + "```"}
	}
}

// pipelineTests are three defects tests and four pymatgen tests whose
// data the data root has.
var pipelineTests = []struct{ dir, id string }{
	{DefectsTestsDir, "test_core.py::test_vacancy"},
	{DefectsTestsDir, "test_core.py::test_adsorbate"},
	{DefectsTestsDir, "test_utils.py::test_group_docs"},
	{"src/tool_source_code/pymatgen/tests", "core/test_composition.py::TestComposition::test_hill_formula"},
	{"src/tool_source_code/pymatgen/tests", "symmetry/test_groups.py::TestSpaceGroup::test_attr"},
	{"src/tool_source_code/pymatgen/tests", "core/test_periodic_table.py::TestElement::test_radii"},
	// reads tests/files/cif/Li2O.cif through TEST_FILES_DIR
	{"src/tool_source_code/pymatgen/tests", "analysis/test_energy_models.py::TestEwaldElectrostaticModel::test_get_energy"},
}

func runPipeline(t *testing.T, root string, tests []Test, set *answerSet) ([]Triplet, []TaskReview) {
	t.Helper()
	srv := llmtest.New(t, llmtest.Options{Responder: set.respond})
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "scripted", MaxRetries: llm.NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate(context.Background(), tests, set.p, c, Options{Journal: filepath.Join(t.TempDir(), "j.jsonl"), Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Triplets) != len(tests) || res.Completions != 4*len(tests) {
		t.Fatalf("generated %+v", res)
	}
	sb := openSandbox(t, filepath.Join(root, "src", "tool_source_code"))
	revs, err := RunChecks(context.Background(), sb, root, DefaultPython, tests, res.Triplets, "scripted", set.p.Files, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range revs {
		if r.B == nil || r.B.Test.Status != "passed" {
			t.Errorf("%s: the test itself did not pass: %+v", tests[i].ID, r.B)
		}
	}
	return res.Triplets, revs
}

// TestPipelineScripted: a scripted model drives split → four calls →
// checks (a), (b), (c) for three defects tests and three pymatgen tests:
// every triplet passes; a second answer set with a wrong expected value
// and a leaking question is caught, each by its named reason.
func TestPipelineScripted(t *testing.T) {
	py := needPython(t)
	root := mattoolstest.DataRoot(t, "to synthesise from real unit tests")
	p, err := LoadPrompts(root)
	if err != nil {
		t.Fatal(err)
	}
	var tests []Test
	for _, pt := range pipelineTests {
		file, _, _ := strings.Cut(pt.id, "::")
		files, err := Split(filepath.Join(root, pt.dir), []string{file}, py)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, x := range files[0].Tests {
			if x.ID == pt.id {
				tests, found = append(tests, x), true
			}
		}
		if !found {
			t.Fatalf("no test %s", pt.id)
		}
	}
	ts, revs := runPipeline(t, root, tests, &answerSet{p: p, tests: tests})
	for _, r := range revs {
		if !r.Passed() {
			t.Errorf("%s: %q", r.Test, r.Problems)
		}
	}
	// The layout: MatTools' three files, the reference and the review.
	dir := filepath.Join(t.TempDir(), "bench")
	if err := WriteLayout(dir, Manifest{Name: "scripted", Version: "0.1", Model: "scripted", Prompts: p.Files}, tests, ts, revs); err != nil {
		t.Fatal(err)
	}
	q := filepath.Join(dir, "src", "question_segments", "scripted", "test_hill_formula")
	for _, f := range []string{"question.txt", "properties.json", "new_unit_test.py", "reference_solution.py", "review.json"} {
		if _, err := os.Stat(filepath.Join(q, f)); err != nil {
			t.Error(err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(q, "new_unit_test.py")); !strings.HasPrefix(string(b), "def test_hill_formula(properties):") {
		t.Errorf("new_unit_test.py starts %.60q", b)
	}
	var m Manifest
	if b, err := os.ReadFile(filepath.Join(dir, "benchmark.json")); err != nil || json.Unmarshal(b, &m) != nil || len(m.Questions) != 7 || len(m.Excluded) != 0 {
		t.Errorf("manifest %+v (%v)", m, err)
	}

	bts, bad := runPipeline(t, root, tests[:2], &answerSet{p: p, tests: tests[:2], wrongValue: true, leak: true})
	for _, r := range bad {
		all := strings.Join(r.Problems, "\n")
		for _, want := range []string{"property p0 (value \"a wrong value\") maps to no assert of the test", "the reference solution fails property p0", "the question contains `"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: the spoilt answers are not caught by %q:\n%s", r.Test, want, all)
			}
		}
	}
	if err := WriteLayout(dir, Manifest{Name: "scripted", Version: "0.2"}, tests[:2], bts, bad); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "benchmark.json")); err != nil || json.Unmarshal(b, &m) != nil || len(m.Questions) != 0 || len(m.Excluded) != 2 {
		t.Errorf("spoilt manifest %+v (%v)", m, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "excluded", "test_vacancy", "review.json")); err != nil {
		t.Error(err)
	}
}
