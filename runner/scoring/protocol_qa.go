package scoring

// Protocol mattools-qa-v1: QA answer extraction and scoring, the
// behaviour of the multiple-choice protocol (QAScoreAnswer; the runner
// records both extractions of every answer). The tool-usage protocols are
// protocol_v1.go and protocol_v1strict.go (Protocol).

import (
	"regexp"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// QAExtractStrict returns the answer as MatTools' testing_script.py extracts
// it: stripped, "<answer>" and "</answer>" removed wherever they occur,
// stripped again (Python str.strip whitespace). The answer is correct iff
// the result equals the correct letter exactly, case included
// (docs/mattools.md §4). So "A." or "Answer: A" or a <think> block fail.
func QAExtractStrict(answer string) string {
	s := strings.ReplaceAll(pystr.Strip(answer), "<answer>", "")
	return pystr.Strip(strings.ReplaceAll(s, "</answer>", ""))
}

var (
	qaThinkBlock  = regexp.MustCompile(`(?is)<think>.*?</think>`)
	qaAnswerTag   = regexp.MustCompile(`(?is)<answer>(.*?)</answer>`)
	qaLenientForm = regexp.MustCompile(`^(?i:answer[` + pystr.Space + `]*:[` + pystr.Space + `]*)?([A-Da-d])[.)]?$`)
)

// QAExtractLenient returns the letter ("A"–"D") a lenient reader finds in
// answer, or "" when the answer is invalid. Steps, in order:
//  1. drop every <think>…</think> block; then, if an unclosed "<think>"
//     remains, drop it and everything after it, and if a "</think>" remains
//     (a reasoning model whose opening tag was in the template), drop
//     everything up to and including the last one;
//  2. if <answer>…</answer> occurs, keep only the content of the last one;
//  3. strip whitespace; accept exactly one letter A–D in any case, optionally
//     preceded by "Answer:" (any case, spaces allowed) and optionally
//     followed by "." or ")". Anything else ("A or B", "(A)", a sentence) is
//     invalid.
//
// Tags are matched case-insensitively. The letter is returned upper-case.
func QAExtractLenient(answer string) string {
	s := qaThinkBlock.ReplaceAllString(answer, "")
	lower := strings.ToLower(s)
	if i := strings.Index(lower, "<think>"); i >= 0 {
		s, lower = s[:i], lower[:i]
	}
	if i := strings.LastIndex(lower, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	if m := qaAnswerTag.FindAllStringSubmatch(s, -1); len(m) > 0 {
		s = m[len(m)-1][1]
	}
	m := qaLenientForm.FindStringSubmatch(pystr.Strip(s))
	if m == nil {
		return ""
	}
	return strings.ToUpper(m[1])
}

// QAResult is the outcome of one QA answer under protocol mattools-qa-v1:
// the strict (MatTools) extraction and correctness, and the lenient ones.
type QAResult struct {
	Strict         string // QAExtractStrict(answer)
	Correct        bool   // Strict == correct letter
	Lenient        string // QAExtractLenient(answer); "" when invalid
	CorrectLenient bool   // Lenient == correct letter
}

// QAScoreAnswer scores one answer against the correct letter ("A"–"D").
func QAScoreAnswer(answer, correct string) QAResult {
	r := QAResult{Strict: QAExtractStrict(answer), Lenient: QAExtractLenient(answer)}
	r.Correct = r.Strict == correct
	r.CorrectLenient = r.Lenient != "" && r.Lenient == correct
	return r
}
