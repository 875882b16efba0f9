package qasynth

import (
	"strings"
	"testing"
)

// A well-formed block as the prompts ask for it.
func blk(n, q, correct string, choices ...string) string {
	var b strings.Builder
	b.WriteString("<question" + n + ">" + q + "</question" + n + ">\n<answer_choices" + n + ">\n")
	for _, c := range choices {
		b.WriteString("    <choice>" + c + "</choice>\n")
	}
	b.WriteString("</answer_choices" + n + ">\n<correct_answer" + n + ">" + correct + "</correct_answer" + n + ">\n\n")
	return b.String()
}

var abcd = []string{"A. one", "B. two", "C. three", "D. four"}

// CheckAnswer follows upstream's check_answer (question_generator.py):
// its regex with back-references, its stripping and its all-or-nothing
// rejection.
func TestCheckAnswer(t *testing.T) {
	cases := []struct {
		name, answer string
		ids          []string // question_ids parsed
		correct      []string
		err          string
	}{
		{"two blocks", blk("1", " Q1 ", " B\n", abcd...) + blk("2", "Q2", "D", abcd...), []string{"1", "2"}, []string{"B", "D"}, ""},
		{"numbers as written", blk("10", "Q", "A", abcd...) + blk("07", "Q", "C", abcd...), []string{"10", "07"}, []string{"A", "C"}, ""},
		// </question2> does not close <question1>: the regex's \1 needs the
		// same number, so the first start matches nothing and the search
		// moves on to <question2>.
		{"mismatched closing tag", "<question1>Q</question2>" + blk("2", "Q2", "A", abcd...), []string{"2"}, []string{"A"}, ""},
		// a block without its correct answer is skipped; the lazy groups
		// then run on to the next block of the same number.
		{"incomplete block skipped", "<question3>lost</question3><answer_choices3></answer_choices3>" + blk("1", "Q", "C", abcd...), []string{"1"}, []string{"C"}, ""},
		{"lower-case letter rejects all", blk("1", "Q", "A", abcd...) + blk("2", "Q", "b", abcd...), nil, nil, `question 2: correct answer "b" is not one of A, B, C, D`},
		{"five choices reject all", blk("1", "Q", "A", append(abcd, "E. five")...), nil, nil, "question 1: 5 choices, want 4"},
		{"three choices", blk("1", "Q", "A", abcd[:3]...), nil, nil, "question 1: 3 choices, want 4"},
		{"letter with period", blk("1", "Q", "A.", abcd...), nil, nil, `correct answer "A." is not one of`},
		{"no block", "I cannot write questions about this.", nil, nil, "no question block"},
		{"choice text stripped, prefix kept", blk("1", "Q", "A", "\n  A. x \n", "B. y", "C. z", "D. w"), []string{"1"}, []string{"A"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs, err := CheckAnswer(c.answer)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != len(c.ids) {
				t.Fatalf("%d questions, want %d: %+v", len(qs), len(c.ids), qs)
			}
			for i, q := range qs {
				if q.QuestionID != c.ids[i] || q.CorrectAnswer != c.correct[i] {
					t.Errorf("question %d: id %q answer %q, want %q %q", i, q.QuestionID, q.CorrectAnswer, c.ids[i], c.correct[i])
				}
			}
		})
	}
	qs, _ := CheckAnswer(blk("1", " Q1 ", " B\n", abcd...))
	if qs[0].Question != "Q1" || qs[0].Choices != [4]string(abcd) {
		t.Errorf("parsed %+v", qs[0])
	}
	qs, _ = CheckAnswer(blk("1", "Q", "A", "\n  A. x \n", "B. y", "C. z", "D. w"))
	if qs[0].Choices[0] != "A. x" {
		t.Errorf("choice %q, want it stripped", qs[0].Choices[0])
	}
}

// marshalPython escapes as Python's json.dumps with ensure_ascii does.
func TestMarshalPythonEscapes(t *testing.T) {
	b, err := marshalPython([]string{"é<&>\u2028\U0001F600\x7f"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[\n    \"\\u00e9<&>\\u2028\\ud83d\\ude00\\u007f\"\n]"; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
