package synth

import (
	"context"
	"encoding/json"
	"fmt"
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

// pipelineTests are three defects tests and three pymatgen tests whose
// data the data root has.
var pipelineTests = []struct{ dir, id string }{
	{DefectsTestsDir, "test_core.py::test_vacancy"},
	{DefectsTestsDir, "test_core.py::test_adsorbate"},
	{DefectsTestsDir, "test_utils.py::test_group_docs"},
	{"src/tool_source_code/pymatgen/tests", "core/test_composition.py::TestComposition::test_hill_formula"},
	{"src/tool_source_code/pymatgen/tests", "symmetry/test_groups.py::TestSpaceGroup::test_attr"},
	{"src/tool_source_code/pymatgen/tests", "core/test_periodic_table.py::TestElement::test_radii"},
}

type checked struct {
	id       string
	problems []string
}

func runPipeline(t *testing.T, root string, tests []Test, set *answerSet) []checked {
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
	in := make([]CheckInput, len(tests))
	ex := make([]ExecInput, len(tests))
	for i, tr := range res.Triplets {
		in[i] = CheckInput{Code: tests[i].Code, PropertiesJSON: tr.PropertiesJSON}
		_, props, err := ParsePropertiesJSON(*tr.PropertiesJSON)
		if err != nil {
			t.Fatalf("%s: %v", tr.ID, err)
		}
		ex[i] = ExecInput{UnitTest: *tr.NewUnitTest, Reference: *tr.Reference, Test: tests[i]}
		for _, p := range props {
			ex[i].Properties = append(ex[i].Properties, p.Name)
		}
	}
	ca, err := CheckProperties(DefaultPython, in)
	if err != nil {
		t.Fatal(err)
	}
	sb := openSandbox(t, filepath.Join(root, "src", "tool_source_code"))
	cb, err := CheckExecution(context.Background(), sb, root, ex, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var out []checked
	for i, tr := range res.Triplets {
		c := checked{id: tr.ID}
		c.problems = append(c.problems, ca[i].Problems...)
		c.problems = append(c.problems, cb[i].Problems...)
		c.problems = append(c.problems, CheckLeak(tr.Question, tests[i])...)
		if cb[i].Test.Status != "passed" {
			c.problems = append(c.problems, "test itself "+cb[i].Test.Status+": "+cb[i].Test.Detail)
		}
		out = append(out, c)
	}
	return out
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
	for _, c := range runPipeline(t, root, tests, &answerSet{p: p, tests: tests}) {
		if len(c.problems) > 0 {
			t.Errorf("%s: %q", c.id, c.problems)
		}
	}
	bad := runPipeline(t, root, tests[:2], &answerSet{p: p, tests: tests[:2], wrongValue: true, leak: true})
	for _, c := range bad {
		all := strings.Join(c.problems, "\n")
		for _, want := range []string{"property p0 (value \"a wrong value\") maps to no assert of the test", "the reference solution fails property p0", "the question contains `"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: the spoilt answers are not caught by %q:\n%s", c.id, want, all)
			}
		}
	}
}
