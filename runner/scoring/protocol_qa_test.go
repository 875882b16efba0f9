package scoring

// Tests of the QA extractions. The first seven cases are the hand-made
// acceptance table of the strict and lenient extractions.

import "testing"

func TestQAScoreAnswer(t *testing.T) {
	tests := []struct {
		name, answer, correct string
		strict, lenient       string
		okStrict, okLenient   bool
	}{
		{"bare letter", "A", "A", "A", "A", true, true},
		{"answer tags", "<answer>B</answer>", "B", "B", "B", true, true},
		{"Answer: prefix", "Answer: C", "C", "Answer: C", "C", false, true},
		{"think block", "<think>The method is get_neighbors, so D.</think><answer>D</answer>", "D",
			"<think>The method is get_neighbors, so D.</think>D", "D", false, true},
		{"letter and period", "A.", "A", "A.", "A", false, true},
		{"lower case", "a", "A", "a", "A", false, true},
		{"two letters", "A or B", "A", "A or B", "", false, false},
		// Beyond the table.
		{"whitespace around", " \n D\u00a0\n", "D", "D", "D", true, true},
		{"wrong letter in tags", "<answer>A</answer>", "B", "A", "A", false, false},
		{"letter and parenthesis", "B)", "B", "B)", "B", false, true},
		{"spaces inside tags, lower case", "<answer> d </answer>", "D", "d", "D", false, true},
		{"sentence", "The answer is A because volume is a property.", "A", "The answer is A because volume is a property.", "", false, false},
		{"last answer tag wins", "<answer>C</answer>\n<answer>A</answer>", "C", "C\nA", "A", false, false},
		{"prefix and period inside tags after think", "<think>maybe A</think>\n<answer>Answer: B.</answer>", "B",
			"<think>maybe A</think>\nAnswer: B.", "B", false, true},
		{"empty", "", "A", "", "", false, false},
		{"letter out of range", "<answer>E</answer>", "A", "E", "", false, false},
		{"parenthesised letter", "(A)", "A", "(A)", "", false, false},
		{"unclosed think", "<think>A is tempting", "A", "<think>A is tempting", "", false, false},
		{"closing think only", "reasoning about B…</think>\nC", "C", "reasoning about B…</think>\nC", "C", false, true},
		{"upper-case tags", "<ANSWER>c</ANSWER>", "C", "<ANSWER>c</ANSWER>", "C", false, true},
		{"Answer: and letter without space", "answer:D", "D", "answer:D", "D", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := QAScoreAnswer(tt.answer, tt.correct)
			want := QAResult{Strict: tt.strict, Correct: tt.okStrict, Lenient: tt.lenient, CorrectLenient: tt.okLenient}
			if got != want {
				t.Errorf("QAScoreAnswer(%q, %q) = %+v, want %+v", tt.answer, tt.correct, got, want)
			}
		})
	}
}
