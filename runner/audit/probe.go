package audit

import (
	"fmt"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// The answers the audit writes itself: the negative controls and the
// static probe of a question's verification. The wrong and zero probes
// transform the parsed expected value (kindParsed), so that a number a
// unit test stores as text is probed as the number its check converts it
// to. Each is a generated function
// (the form a system's answer takes) that takes the question's expected
// properties from its own unit test (the statements of new_unit_test.py up
// to and including the expected_properties literal, the imports among
// them, run in the sandbox; never on the host) and answers every property
// with a transform of its expected value.

// Kinds of audit items.
const (
	kindReference   = "reference"   // the reference solution
	kindExpected    = "expected"    // probe: each property's own expected value (it or kindParsed must pass)
	kindParsed      = "parsed"      // probe: the expected value, a string read as the Python literal it holds (e.g. "8.2" as 8.2)
	kindWrong       = "wrong"       // probe: a different value of the same type (must fail)
	kindZero        = "zero"        // probe: the zero of the same type (must fail)
	kindNone        = "none"        // control: every value None (must fail)
	kindWrongType   = "wrong-type"  // control: every value of a type the expected value is not (must fail)
	kindTrue        = "true"        // control: every value True (must fail)
	probeFunction   = "audit_probe" // the generated function's name
	controlFunction = "audit_control"
)

// probeKinds are the static probe's items and controlKinds the negative
// controls, in display order.
var (
	probeKinds   = []string{kindExpected, kindParsed, kindWrong, kindZero}
	controlKinds = []string{kindNone, kindWrongType, kindTrue}
)

// transforms maps each kind but the reference to the Python expression
// that turns an expected value v into the answer's value.
var transforms = map[string]string{
	kindExpected:  "v",
	kindParsed:    "parsed(v)",
	kindWrong:     "wrong(parsed(v))",
	kindZero:      "zero(parsed(v))",
	kindWrongType: "wrong_type(v)",
}

const probeTemplate = `import ast


def wrong(v):
    """A value of v's type that differs from v."""
    import numpy as np
    from pymatgen.core import Element
    if isinstance(v, (bool, np.bool_)):
        return not v
    if isinstance(v, (int, np.integer)):
        return v + 1
    if isinstance(v, (float, np.floating)):
        return v * 2 + 1
    if isinstance(v, str):
        return v + "_x"
    if isinstance(v, np.ndarray):
        return v * 2 + 1
    if isinstance(v, Element):
        return Element("H") if v.symbol != "H" else Element("He")
    if isinstance(v, list):
        return [wrong(v[0])] + v[1:] if v else [0]
    if isinstance(v, tuple):
        return (wrong(v[0]),) + v[1:] if v else (0,)
    if isinstance(v, (set, frozenset)):
        return type(v)(list(v) + ["__wrong__"])
    if isinstance(v, dict):
        if not v:
            return {"__wrong__": 0}
        d = dict(v)
        k = next(iter(d))
        d[k] = wrong(d[k])
        return d
    if v is None:
        return 0
    return "__wrong__"


def zero(v):
    """The zero of v's type, in v's shape: False, 0, 0.0, zeros, "0"; a
    container of the zeros of its items."""
    import numpy as np
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return 0
    if isinstance(v, (float, np.floating)):
        return 0.0
    if isinstance(v, str):
        return "0"
    if isinstance(v, np.ndarray):
        return np.zeros_like(v)
    if isinstance(v, (list, tuple)):
        return type(v)(zero(x) for x in v)
    if isinstance(v, dict):
        return {k: zero(x) for k, x in v.items()}
    return 0


def parsed(v):
    """v, or for a string that holds a Python literal other than a string
    (some unit tests store a number as text and convert it), that literal."""
    if isinstance(v, str):
        try:
            x = ast.literal_eval(v.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return v
        if not isinstance(x, str):
            return x
    return v


def wrong_type(v):
    """A value of a type v is not: a string, or for a string a number."""
    return 0.5 if isinstance(v, str) else "__wrong_type__"


def %s():
    src = %s
    tree = ast.parse(src)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == %q)
    body = []
    for stmt in fn.body:
        body.append(stmt)
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "expected_properties" for t in stmt.targets):
            break
    ns = {}
    exec(compile(ast.Module(body=body, type_ignores=[]), "<expected>", "exec"), ns)
%s`

// expectedProperties is the Python expression of the answer's dict: every
// expected property k with its expected value v turned by a transform (a
// Python expression of v, in place of the verb).
const expectedProperties = `{k: %s for k, info in ns["expected_properties"].items() for v in [info["value"]]}`

// generatedCode returns the answer of kind (not the reference) to q and
// its function's name. The None and True controls (the trivial baselines)
// are plain dict literals over the names of properties.json; the others
// read the expected values as above.
func generatedCode(q *datasets.Question, kind string) (code, function string) {
	if kind == kindNone || kind == kindTrue {
		value := map[string]string{kindNone: "None", kindTrue: "True"}[kind]
		var b strings.Builder
		fmt.Fprintf(&b, "def %s():\n    return {\n", controlFunction)
		for _, p := range q.Properties {
			fmt.Fprintf(&b, "        %s: %s,\n", pyString(p.Name), value)
		}
		b.WriteString("    }\n")
		return b.String(), controlFunction
	}
	function = probeFunction
	if kind == kindWrongType {
		function = controlFunction
	}
	return ExpectedCode(q, function, transforms[kind], ""), function
}

// ExpectedCode returns the Python source of a generated function, named
// function, that answers q with its own expected properties: it takes
// them from q's unit test (the statements of new_unit_test.py up to and
// including the expected_properties literal, the imports among them, run
// where the code runs: in the sandbox, never on the host), turns each
// expected value v into transform (a Python expression of v: "v" is the
// value itself) and returns the dict. When mutate is not empty, its
// statements (Python, one per line) change that dict, named props, before
// it is returned. The source also defines the helpers transform and
// mutate may call: wrong(v) (a value of v's type that differs from v),
// zero(v) (the zero of v's type, in v's shape), parsed(v) (a string that
// holds a Python literal, read as that literal) and wrong_type(v) (a value
// of a type v is not). The audit's probes and controls and the scorer's
// self-consistency test (runner/scoring) both write their answers with it.
func ExpectedCode(q *datasets.Question, function, transform, mutate string) string {
	answer := fmt.Sprintf(expectedProperties, transform)
	ret := "    return " + answer + "\n"
	if mutate != "" {
		var b strings.Builder
		b.WriteString("    props = " + answer + "\n")
		for _, l := range strings.Split(mutate, "\n") {
			b.WriteString("    " + l + "\n")
		}
		b.WriteString("    return props\n")
		ret = b.String()
	}
	return fmt.Sprintf(probeTemplate, function, pyString(q.UnitTest), q.ID, ret)
}

// pyString quotes s as a Python triple-quoted string literal.
func pyString(s string) string {
	return "'''" + strings.NewReplacer(`\`, `\\`, "'''", `\'\'\'`).Replace(s) + "'''"
}
