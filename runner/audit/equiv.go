package audit

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// The equivalent-answer probes (docs/benchmark-audit.md, "Equivalent
// answers"): for every property, forms of its own expected value that the
// question text does not rule out, each answered by a generated function
// (equiv.py) and scored by the property's check in the sandbox. What the
// text rules out is decided here, mechanically, from the property's line
// of question.txt (statedFormat); the forms themselves are made in the
// sandbox from the expected value (its type is only known there).

//go:embed equiv.py
var equivTemplate string

// equivMarker starts the line on which an equivalent-form probe prints,
// by property, the form it answered.
const equivMarker = "AUDIT-EQUIVALENT "

// Equivalent-form probe kinds ("equivalent-" + form) and their forms, in
// display order.
var equivForms = []string{"keys", "container", "order", "numpy", "float"}

func equivKind(form string) string { return "equivalent-" + form }

// statedFormat is what a question's line for one property states about
// the value: the format phrase and its line, the container it names
// ("list", "tuple", "set", "dict", "ndarray"; "" none), the items'
// container ("tuple", "list"; "number" or "str" for named scalar items; ""
// unnamed), the scalar kind ("int", "float", "bool", "str"; "" none),
// whether it names the dict's keys' type, an order, or a tolerance; and
// the line's text (equiv.py looks for the expected list written out in
// it).
type statedFormat struct {
	Property        string `json:"property"`
	Line            int    `json:"line"`
	Phrase          string `json:"phrase"`
	Outer           string `json:"outer"`
	Inner           string `json:"inner"`
	Scalar          string `json:"scalar"`
	KeysNamed       bool   `json:"keys_named"`
	OrderStated     bool   `json:"order_stated"`
	ToleranceStated bool   `json:"tolerance_stated"`
	Text            string `json:"text"`
}

// formatPhrases find a property line's format phrase, first match wins:
// "Format: list.", "The format is a list of strings.", "The result format
// should be a list of float values.", "The result should be a float
// value.", "(list)" at the end.
var formatPhrases = []*regexp.Regexp{
	regexp.MustCompile(`Format:\s*(.+?)\.?\s*$`),
	regexp.MustCompile(`(?i)the (?:answer |result |expected )?format (?:is|should be)\s+(.+?)(?:\.\s|\.$|$)`),
	regexp.MustCompile(`(?i)the result should be\s+(.+?)(?:\.\s|\.$|$)`),
	regexp.MustCompile(`\((\w+)\)\s*$`),
}

var (
	orderWords     = regexp.MustCompile(`(?i)\b(order|ordered|sorted|ascending|descending|sequence)\b`)
	toleranceWords = regexp.MustCompile(`(?i)np\.allclose|tolerance|approximately`)
	containerWords = regexp.MustCompile(`(?i)numpy array|\barrays?\b|\blists?\b|\btuples?\b|\bsets?\b|\bdict\b|\bdictionary\b`)
	scalarWords    = regexp.MustCompile(`(?i)\b(bool|boolean|int|integer|float|str|string)s?\b`)
)

// statedFormats reads, for every property of q, its line of question.txt
// ("- `name`: …") and what the line states; a property without a line is
// absent from the map (its forms are not probed).
func statedFormats(q *datasets.Question) map[string]statedFormat {
	lines := strings.Split(q.Text, "\n")
	out := map[string]statedFormat{}
	for _, p := range q.Properties {
		head := "`" + p.Name + "`:"
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if !strings.HasPrefix(t, "- "+head) {
				continue
			}
			desc := strings.TrimSpace(strings.TrimPrefix(t, "- "+head))
			out[p.Name] = classify(p.Name, i+1, desc)
			break
		}
	}
	return out
}

// classify is statedFormat of one property's description.
func classify(name string, line int, desc string) statedFormat {
	st := statedFormat{Property: name, Line: line, Text: desc,
		OrderStated: orderWords.MatchString(desc), ToleranceStated: toleranceWords.MatchString(desc)}
	for _, re := range formatPhrases {
		if m := re.FindStringSubmatch(desc); m != nil {
			st.Phrase = strings.Trim(strings.TrimSpace(m[1]), "`'")
			break
		}
	}
	ph := strings.ToLower(st.Phrase)
	if loc := containerWords.FindStringIndex(ph); loc != nil {
		switch w := strings.TrimSuffix(ph[loc[0]:loc[1]], "s"); w {
		case "numpy array", "array":
			st.Outer = "ndarray"
		case "dictionary":
			st.Outer = "dict"
		default:
			st.Outer = w
		}
		rest := ph[loc[1]:]
		if st.Outer == "dict" {
			st.KeysNamed = strings.Contains(rest, "keys are")
		}
		if m := regexp.MustCompile(`^\s*(?:of|with)\s+(.*)$`).FindStringSubmatch(rest); m != nil {
			switch items := m[1]; {
			case containerWords.MatchString(items):
				st.Inner = strings.TrimSuffix(strings.ToLower(containerWords.FindString(items)), "s")
			case scalarWords.MatchString(items):
				if w := strings.ToLower(scalarWords.FindStringSubmatch(items)[1]); w == "str" || w == "string" {
					st.Inner = "str"
				} else {
					st.Inner = "number"
				}
			}
		}
	} else if m := scalarWords.FindStringSubmatch(ph); m != nil {
		st.Scalar = map[string]string{"bool": "bool", "boolean": "bool", "int": "int", "integer": "int",
			"float": "float", "str": "str", "string": "str"}[strings.ToLower(m[1])]
	}
	return st
}

// equivCode is the equivalent-form probe of form for q.
func equivCode(q *datasets.Question, form string, stated map[string]statedFormat) string {
	st, err := json.Marshal(stated)
	if err != nil {
		panic(err) // plain strings, ints and bools
	}
	return strings.NewReplacer("{{UNIT_TEST}}", pyJSON(q.UnitTest), "{{TEST_NAME}}", pyJSON(q.ID), "{{STATED}}", pyJSON(string(st)),
		"{{FORM}}", pyJSON(form), "{{MARKER}}", pyJSON(equivMarker), "{{QUESTION}}", pyJSON(q.Text), "{{FUNCTION}}", probeFunction).Replace(equivTemplate)
}

// parseEquivalents reads an equivalent-form probe's line from its stdout:
// by property, the form's description.
func parseEquivalents(stdout []byte) (map[string]string, error) {
	for _, line := range strings.Split(string(stdout), "\n") {
		if rest, ok := strings.CutPrefix(line, equivMarker); ok {
			var m map[string]string
			if err := json.Unmarshal([]byte(rest), &m); err != nil {
				return nil, fmt.Errorf("the equivalent-form probe's output: %w", err)
			}
			return m, nil
		}
	}
	return nil, fmt.Errorf("the equivalent-form probe printed no %q line", strings.TrimSpace(equivMarker))
}
