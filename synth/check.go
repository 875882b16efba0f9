package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

// Property is one property of a properties JSON (step 1's answer).
type Property struct {
	Name        string
	Description string
	Format      string
	// Value is the "value" field as JSON (usually a JSON string holding
	// a Python literal, e.g. "[-4, -3]" or "{Element('Ga'): -1}").
	Value json.RawMessage
}

// ParsePropertiesJSON reads a properties_json_str: {"JSON_File_Name": …,
// "properties": {name: {"description", "format", "value"}}}, properties in
// their order. Errors say what is wrong (invalid JSON, as upstream's
// test_competing_phases with Python set literals; no properties).
func ParsePropertiesJSON(s string) (name string, props []Property, err error) {
	var top struct {
		Name  string          `json:"JSON_File_Name"`
		Props json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal([]byte(s), &top); err != nil {
		return "", nil, fmt.Errorf("not valid JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(top.Props))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return top.Name, nil, fmt.Errorf(`"properties" is not an object`)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return top.Name, nil, err
		}
		var p struct {
			Description string          `json:"description"`
			Format      string          `json:"format"`
			Value       json.RawMessage `json:"value"`
		}
		if err := dec.Decode(&p); err != nil {
			return top.Name, nil, fmt.Errorf("property %v: %w", tok, err)
		}
		props = append(props, Property{Name: tok.(string), Description: p.Description, Format: p.Format, Value: p.Value})
	}
	if len(props) == 0 {
		return top.Name, nil, fmt.Errorf("no properties")
	}
	return top.Name, props, nil
}

// PropertyMatch is one property in check (a): the asserts (indices into
// CheckResult.Asserts) whose expected value it equals.
type PropertyMatch struct {
	Name string `json:"name"`
	// Value is the property's value as split.py reads it (canonical JSON).
	Value   string `json:"value"`
	Asserts []int  `json:"asserts"`
}

// CheckResult is check (a) of one triplet.
type CheckResult struct {
	Asserts    []Assert        `json:"asserts"`
	Properties []PropertyMatch `json:"properties"`
	// Problems are the reasons it fails check (a), empty when it passes.
	Problems []string `json:"problems"`
}

// CheckInput is what check (a) needs of one triplet: the test function's
// code (Test.Code) and its properties JSON (nil: none was extracted).
type CheckInput struct {
	Code           string
	PropertiesJSON *string
}

type checkItem struct {
	Code       string          `json:"code"`
	Properties []checkProperty `json:"properties"`
}

type checkProperty struct {
	Name   string          `json:"name"`
	Format string          `json:"format"`
	Value  json.RawMessage `json:"value"`
}

// CheckProperties runs check (a) on each input, by AST (split.py under
// python, never running the test): each extracted property must equal the
// expected value of an assert of the test (numbers within rtol 1e-5 and
// atol 1e-8, np.allclose's defaults; Element("X") as "X"; np.ones,
// np.zeros, np.full and elementwise arithmetic on them evaluated; a bool
// property matching an assert x / assert not x), and each assert outside a
// pytest.raises block must be matched by a property (opaque asserts, whose
// expected value is no literal, are not required). Problems name the
// property or the assert's line and code.
func CheckProperties(python string, in []CheckInput) ([]CheckResult, error) {
	if python == "" {
		python = DefaultPython
	}
	out := make([]CheckResult, len(in))
	var items []checkItem
	var idx []int
	for i, c := range in {
		if c.PropertiesJSON == nil {
			out[i].Problems = []string{"no properties: step 1's answer held no ```json block"}
			continue
		}
		_, props, err := ParsePropertiesJSON(*c.PropertiesJSON)
		if err != nil {
			out[i].Problems = []string{"properties JSON: " + err.Error()}
			continue
		}
		it := checkItem{Code: c.Code}
		for _, p := range props {
			it.Properties = append(it.Properties, checkProperty{p.Name, p.Format, p.Value})
		}
		items = append(items, it)
		idx = append(idx, i)
	}
	if len(items) == 0 {
		return out, nil
	}
	var res []struct {
		Error      string          `json:"error"`
		Asserts    []Assert        `json:"asserts"`
		Properties []PropertyMatch `json:"properties"`
	}
	if err := corpus.RunParser("synth", python, splitScript, map[string]any{"check": items}, &res); err != nil {
		return nil, err
	}
	if len(res) != len(items) {
		return nil, fmt.Errorf("synth: the checker %s returned %d results for %d triplets", python, len(res), len(items))
	}
	for k, r := range res {
		i := idx[k]
		if r.Error != "" {
			out[i].Problems = []string{"the test does not parse: " + r.Error}
			continue
		}
		cr := CheckResult{Asserts: r.Asserts, Properties: r.Properties}
		for _, p := range r.Properties {
			if len(p.Asserts) == 0 {
				cr.Problems = append(cr.Problems, fmt.Sprintf("property %s (value %s) maps to no assert of the test", p.Name, p.Value))
			}
		}
		for _, a := range r.Asserts {
			if a.Covered || a.InRaises || a.Kind == "opaque" {
				continue
			}
			want := "true"
			if a.Value != nil {
				want = *a.Value
			} else if a.Truth != nil && !*a.Truth {
				want = "false"
			}
			cr.Problems = append(cr.Problems, fmt.Sprintf("assert `%s` (line %d, expects %s) maps to no property", oneLine(a.Code), a.Line, want))
		}
		out[i] = cr
	}
	return out, nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// MinLeakLen is the shortest assert subject CheckLeak looks for.
const MinLeakLen = 6

// CheckLeak is check (c): the question must not contain verbatim the
// expression that computes an asserted value (an Assert.Subject of at
// least MinLeakLen bytes, outside pytest.raises blocks, whitespace runs
// compared as one space), which would hand the answer's key API call to
// the model. MatTools' question prompt asks for the set-up code before
// each assert, not for the asserted expression itself. It returns one
// problem per leaked subject.
func CheckLeak(question *string, t Test) []string {
	if question == nil {
		return nil
	}
	q := strings.Join(strings.Fields(*question), " ")
	var out []string
	seen := map[string]bool{}
	for _, a := range t.AssertList {
		if a.InRaises {
			continue
		}
		for _, s := range a.Subjects {
			s = strings.Join(strings.Fields(s), " ")
			if len(s) < MinLeakLen || seen[s] || !strings.Contains(q, s) {
				continue
			}
			seen[s] = true
			out = append(out, fmt.Sprintf("the question contains `%s` verbatim, which computes the value of `%s` (line %d)", oneLine(s), oneLine(a.Code), a.Line))
		}
	}
	return out
}
