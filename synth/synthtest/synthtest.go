// Package synthtest is a scripted model for tests of the synthesis
// pipeline (package synth): an answer set that answers MatTools' three
// synthesis prompts and the reference prompt for real unit tests, served
// through llm/llmtest.
package synthtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/synth"
)

// AnswerSet is a scripted model for real tests: it answers the four
// steps as a careful model would, from the test's own asserts (read by
// split.py): one property per assert (its literal expected side, or
// True/False for an assert x / assert not x), a question naming them, a
// verification comparing each, and a reference solution that is the
// test's own code with each assert replaced by recording the value it
// checks.
type AnswerSet struct {
	Prompts *synth.Prompts
	Tests   []synth.Test
	// WrongValue changes the first property's value to "a wrong value";
	// Leak makes the question quote the expression of the first assert
	// that has one.
	WrongValue, Leak bool
}

type recorded struct {
	value, format, record string
	a                     synth.Assert
}

func recordable(t synth.Test) []recorded {
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

func (s *AnswerSet) propsJSON(t synth.Test) string {
	type prop struct {
		Description string `json:"description"`
		Format      string `json:"format"`
		Value       string `json:"value"`
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\n  \"JSON_File_Name\": %q,\n  \"properties\": {", t.Name)
	for i, r := range recordable(t) {
		v := r.value
		if s.WrongValue && i == 0 {
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
	_, props, err := synth.ParsePropertiesJSON(propsJSON)
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
func reference(t synth.Test) string {
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
	return synth.HoistFuture("import sys\nsys.path.insert(0, \"/sbx\")\n_r = {}\n\n"+t.FileReading+"\n\n"+body) + fmt.Sprintf(`

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

// Respond answers one request (an llmtest.Options.Responder).
func (s *AnswerSet) Respond(r llmtest.Request) llmtest.Reply {
	first := r.Messages[0].Content
	user := r.Messages[len(r.Messages)-1].Content
	var t *synth.Test
	for i := range s.Tests {
		if strings.Contains(user, s.Tests[i].Code) || (first == s.Prompts.UnitTest && strings.Contains(user, fmt.Sprintf("%q", s.Tests[i].Name))) {
			t = &s.Tests[i]
			break
		}
	}
	if t == nil {
		return llmtest.Reply{Content: "no test recognised"}
	}
	switch {
	case first == s.Prompts.Extract:
		return llmtest.Reply{Content: "```json\n" + s.propsJSON(*t) + "\n```"}
	case first == s.Prompts.QuestionSystem:
		q := "As a materials scientist, compute the properties of " + t.Name + "."
		if s.Leak {
			for _, r := range recordable(*t) {
				if len(r.a.Subjects) > 0 {
					q += " Use `" + r.a.Subjects[0] + "`."
					break
				}
			}
		}
		return llmtest.Reply{Content: "<question>\n" + q + "\n</question>"}
	case first == s.Prompts.UnitTest:
		return llmtest.Reply{Content: "```python\n" + verification(t.Name, user) + "```"}
	default:
		return llmtest.Reply{Content: "```python\n" + reference(*t) + "```"}
	}
}
