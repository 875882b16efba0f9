package synth

import (
	"reflect"
	"strings"
	"testing"
)

// TestCheckPropertiesRules: check (a)'s matching, one rule per property.
func TestCheckPropertiesRules(t *testing.T) {
	py := needPython(t)
	code := `def test_x(s) -> None:
    ref = [1.0, 2.0]
    assert s.name == "v_Ga"
    assert s.energy == pytest.approx(2.5, abs=1e-3)
    assert np.allclose(s.coords, ref)
    assert s.changes == {Element("Ga"): -1}
    assert not s.broken
    assert s.a == s.b
    with pytest.raises(ValueError):
        assert s.bad == 3
    assert s.count == 7
    assert np.allclose(s.m, np.ones((2, 2)) * 3)
`
	props := `{"JSON_File_Name": "test_x", "properties": {
  "name": {"description": "", "format": "str", "value": "v_Ga"},
  "energy": {"description": "", "format": "float", "value": "2.5000001"},
  "coords": {"description": "", "format": "np.allclose", "value": [1, 2.0000001]},
  "changes": {"description": "", "format": "dict", "value": "{Element('Ga'): -1}"},
  "broken": {"description": "", "format": "bool", "value": "False"},
  "equal": {"description": "", "format": "bool", "value": "True"},
  "made_up": {"description": "", "format": "int", "value": "8"},
  "ones": {"description": "", "format": "np.allclose", "value": "[[3.0, 3.0], [3, 3]]"}}}`
	res, err := CheckProperties(py, []CheckInput{{Code: code, PropertiesJSON: &props}, {Code: code}})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	got := map[string][]int{}
	for _, p := range r.Properties {
		got[p.Name] = p.Asserts
	}
	want := map[string][]int{"name": {0}, "energy": {1}, "coords": {2}, "changes": {3}, "broken": {4}, "equal": {5}, "made_up": nil, "ones": {8}}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) && !(len(v) == 0 && len(got[k]) == 0) {
			t.Errorf("property %s maps to asserts %v, want %v", k, got[k], v)
		}
	}
	if !r.Asserts[6].InRaises || r.Asserts[6].Covered {
		t.Errorf("the assert in pytest.raises: %+v", r.Asserts[6])
	}
	wantProblems := []string{"property made_up (value 8) maps to no assert of the test", "assert `assert s.count == 7` (line 11, expects 7) maps to no property"}
	if !reflect.DeepEqual(r.Problems, wantProblems) {
		t.Errorf("problems %q, want %q", r.Problems, wantProblems)
	}
	if len(res[1].Problems) != 1 || !strings.Contains(res[1].Problems[0], "no ```json block") {
		t.Errorf("no properties: %q", res[1].Problems)
	}
	bad := `{"JSON_File_Name": "x", "properties": {"a": {"value": {"Mg", "Ga"}}}}`
	if res, _ := CheckProperties(py, []CheckInput{{Code: code, PropertiesJSON: &bad}}); len(res[0].Problems) != 1 || !strings.Contains(res[0].Problems[0], "not valid JSON") {
		t.Errorf("invalid JSON: %q", res[0].Problems)
	}
}

func TestCheckLeak(t *testing.T) {
	py := needPython(t)
	dir := writeFiles(t, map[string]string{"test_l.py": "def test_l(v):\n    assert v.get_multiplicity() == 2\n    assert v.n == 1\n"})
	files, err := SplitDir(dir, py)
	if err != nil {
		t.Fatal(err)
	}
	q := "Compute the multiplicity with\n   v.get_multiplicity(),\nand n."
	got := CheckLeak(&q, files[0].Tests[0])
	if len(got) != 1 || !strings.Contains(got[0], "`v.get_multiplicity()`") || !strings.Contains(got[0], "(line 2)") {
		t.Errorf("leaks %q", got)
	}
	q = "Compute v.n and the multiplicity."
	if got := CheckLeak(&q, files[0].Tests[0]); len(got) != 0 {
		t.Errorf("v.n is shorter than MinLeakLen, yet %q", got)
	}
}
