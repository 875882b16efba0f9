package synth

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"strings"
)

// ReviewPageFile is the review page WriteLayout writes into the
// benchmark's folder.
const ReviewPageFile = "review.html"

//go:embed reviewpage.html
var reviewPageHTML string

var reviewPage = template.Must(template.New("review").Funcs(template.FuncMap{
	"join": strings.Join,
	"assertLines": func(a *CheckResult, idx []int) string {
		var s []string
		for _, i := range idx {
			if a != nil && i >= 0 && i < len(a.Asserts) {
				s = append(s, fmt.Sprintf("line %d", a.Asserts[i].Line))
			}
		}
		if len(s) == 0 {
			return "no assert"
		}
		return strings.Join(s, ", ")
	},
}).Parse(reviewPageHTML))

// ReviewTask is one task on the review page.
type ReviewTask struct {
	Review TaskReview
	// Question, Properties, Verification and Reference are the triplet's
	// texts ("" where the answer held none).
	Question, Properties, Verification, Reference string
	// Excluded is true for a task that failed a check (not in the benchmark).
	Excluded bool
}

// ReviewPage renders the static review page of a synthesised benchmark:
// one self-contained HTML file (no script, no external resource) listing
// the manifest (name, version, tests folder, data commit, model, prompt
// files and hashes) and, for each task in test order, whether it passed,
// each check's findings (check (a): each property with the asserts it
// matches, and each assert; check (b): the verification given None and
// given the reference's dict, and the test itself, with their statuses
// and details; check (c): the leaked expressions), the reasons it is
// excluded, and the question, properties, verification and reference, for
// the person who approves the tasks. Text is escaped by html/template.
func ReviewPage(m Manifest, tasks []ReviewTask) ([]byte, error) {
	passed := 0
	for _, t := range tasks {
		if !t.Excluded {
			passed++
		}
	}
	var b bytes.Buffer
	err := reviewPage.Execute(&b, struct {
		M              Manifest
		Tasks          []ReviewTask
		Passed, Failed int
	}{m, tasks, passed, len(tasks) - passed})
	return b.Bytes(), err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
