package audit

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// The question-text audit (docs/benchmark-audit.md, "The question-text
// audit"): each question.txt's code checked statically and, where it is
// self-contained and the question's data files are present, executed, in
// the sandbox, by questiontext.py run as an answer. Its findings are
// printed on one stdout line after questionTextMarker.

//go:embed questiontext.py
var questionTextTemplate string

const (
	kindQuestionText     = "question-text"
	questionTextFunction = "audit_question_text"
	questionTextMarker   = "AUDIT-QUESTION-TEXT "
)

// Finding kinds of the question-text audit; questionDefectKinds are the
// defects (flagged question-defect), the others notes.
var questionDefectKinds = map[string]bool{"syntax": true, "undefined-name": true, "misspelt-name": true, "raises": true}

// TextFinding is one finding of the question-text audit: the line of
// question.txt (1-based), its kind ("syntax", "undefined-name",
// "misspelt-name", "raises": defects; "missing-import", "not-run": notes)
// and what was found.
type TextFinding struct {
	Line   int    `json:"line"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// TextAudit is the question-text audit of one question.
type TextAudit struct {
	Blocks    int           `json:"code_blocks"`
	BlocksRun int           `json:"code_blocks_run"`
	Findings  []TextFinding `json:"findings"`
}

// questionTextCode is the answer that audits q's question text; run is
// whether it may execute the text's code (q's data files are present).
func questionTextCode(q *datasets.Question, run bool) string {
	r := "False"
	if run {
		r = "True"
	}
	return strings.NewReplacer("{{TEXT}}", pyJSON(q.Text), "{{MARKER}}", pyJSON(questionTextMarker),
		"{{RUN}}", r, "{{FUNCTION}}", questionTextFunction).Replace(questionTextTemplate)
}

// parseTextAudit reads the question-text audit's line from an item's
// stdout; an absent or malformed line is an error (the audit's own code
// failed).
func parseTextAudit(stdout []byte) (*TextAudit, error) {
	for _, line := range strings.Split(string(stdout), "\n") {
		if rest, ok := strings.CutPrefix(line, questionTextMarker); ok {
			var ta TextAudit
			if err := json.Unmarshal([]byte(rest), &ta); err != nil {
				return nil, fmt.Errorf("the question-text audit's output: %w", err)
			}
			return &ta, nil
		}
	}
	return nil, fmt.Errorf("the question-text audit printed no %q line", strings.TrimSpace(questionTextMarker))
}

// pyJSON is v as JSON, which Python reads as the same literal (strings,
// numbers, lists, dicts with string keys; not true, false and null).
func pyJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings, maps and slices of them always marshal
	}
	return string(b)
}
