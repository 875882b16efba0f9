package qaaudit_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/qaaudit"
)

func item(question, correct string, choices ...string) datasets.QAQuestion {
	q := datasets.QAQuestion{ID: "pymatgen/x.py/f#0." + question, Question: question, CorrectAnswer: correct}
	copy(q.Choices[:], choices)
	return q
}

func TestMalformedRules(t *testing.T) {
	check := func(q datasets.QAQuestion, want ...qaaudit.Rule) {
		t.Helper()
		if got := qaaudit.Malformed(&q); !slices.Equal(got, want) {
			t.Errorf("%q: Malformed = %v, want %v", q.Choices, got, want)
		}
	}
	check(item("q", "A", "A. one", "B. two", "C. three", "D. four"))
	check(item("q", "D", "A. one", "B. two", "C. three", "D."), qaaudit.RuleEmptyText)
	check(item("q", "D", "A. one", "B. two", "C. three", "D.   "), qaaudit.RuleEmptyText)
	check(item("q", "A", "A. one", "B. two", "C. one", "D. four"), qaaudit.RuleDuplicateText)
	check(item("q", "A", "A. one", "B) two", "C. three", "D. four"), qaaudit.RuleBadPrefix)
	check(item("q", "A", "A. one", "C. two", "C. three", "D. four"), qaaudit.RuleBadPrefix)
	check(item("q", "C", "A. one", "B. two", "C. [MASK]_x", "D. four"), qaaudit.RuleMaskInChoice)
	check(item("def f() -&gt; float:", "A", "A. one", "B. two", "C. three", "D. four"), qaaudit.RuleHTMLEntity)
	check(item("q", "A", "A. a &amp;&amp; b", "B. two", "C. three", "D. &#39;x&#39;"), qaaudit.RuleHTMLEntity)
	check(item("a & b; c &d", "A", "A. one", "B. two", "C. three", "D. four")) // no entity
	x := item("q", "A", "A. one", "B. two", "C. three", "D. four")
	x.ExtraChoices = []string{"E"}
	check(x, qaaudit.RuleExtraChoice)
}

func TestLeakRules(t *testing.T) {
	check := func(q datasets.QAQuestion, leak int, loose bool) {
		t.Helper()
		if got := qaaudit.Leak(&q); got != leak {
			t.Errorf("%q: Leak = %d, want %d", q.Question, got, leak)
		}
		if got := qaaudit.LeakedLoose(&q); got != loose {
			t.Errorf("%q: LeakedLoose = %v, want %v", q.Question, got, loose)
		}
	}
	choices := []string{"A. to_str", "B. from_str", "C. as_dict", "D. parse"}
	// The example: the answer named in the question outside [MASK].
	check(item("obj.[MASK] = s; assigned to `newobj.from_str`", "B", choices...), 1, true)
	// Only inside [MASK]'s place: not leaked.
	check(item("obj.[MASK](s)", "B", choices...), -1, false)
	// Part of a longer identifier: loose only.
	check(item("x = from_string([MASK])", "B", choices...), -1, true)
	// Two choices appear: no leak by the strict rule, the loose one still.
	check(item("to_str and from_str; [MASK]", "B", choices...), -1, true)
	// A wrong choice alone appears: Leak names it, the item is not leaked.
	check(item("calls parse() then [MASK]", "B", choices...), 3, false)
	// Shorter than 3 characters: never.
	check(item("a b c [MASK]", "A", "A. b", "B. two", "C. three", "D. four"), -1, false)
	// "[MASK]" does not join the text across it.
	check(item("from_[MASK]str", "B", choices...), -1, false)
	// A text ending in punctuation is whole where its word edge is.
	check(item("r = x.get(k) [MASK]", "A", "A. get(", "B. put(", "C. pop(", "D. has("), 0, true)
}

func sampleSets(t *testing.T) map[string]*datasets.QASet {
	t.Helper()
	dir := os.Getenv("MATTOOLS_QA_SAMPLE")
	if dir == "" {
		t.Skip("MATTOOLS_QA_SAMPLE is not set (the folder with qa_120.json and qa_doc_120.json; CI sets it)")
	}
	out := map[string]*datasets.QASet{}
	for _, f := range []string{"qa_120.json", "qa_doc_120.json"} {
		set, err := datasets.LoadQA(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = set
	}
	return out
}

// TestAuditSample checks the audit of the real sample against counts
// checked by hand in the JSON (e.g. qa_120.json item 20's "-&gt; float").
func TestAuditSample(t *testing.T) {
	sets := sampleSets(t)
	code := qaaudit.Audit("code", sets["qa_120.json"])
	if got, want := code.LettersLine(), "correct letters: A 6.7% B 33.3% C 48.3% D 11.7% (120 items)"; got != want {
		t.Errorf("code: %q, want %q", got, want)
	}
	if code.Letters != [4]int{8, 40, 58, 14} || code.Best != 2 {
		t.Errorf("code letters %v best %d", code.Letters, code.Best)
	}
	if code.Malformed != 5 || code.ByRule[qaaudit.RuleHTMLEntity] != 3 || code.ByRule[qaaudit.RuleMaskInChoice] != 2 {
		t.Errorf("code malformed %d %v", code.Malformed, code.ByRule)
	}
	if code.LeakedStrict != 25 || code.LeakedLoose != 53 || code.Duplicates != 0 {
		t.Errorf("code leaked %d/%d duplicates %d", code.LeakedStrict, code.LeakedLoose, code.Duplicates)
	}
	var flagged []int
	for _, f := range code.Flags {
		if f.Rule == qaaudit.RuleMaskInChoice {
			flagged = append(flagged, f.Index)
		}
	}
	if !slices.Equal(flagged, []int{91, 103}) {
		t.Errorf("mask-in-choice items %v, want [91 103]", flagged)
	}
	doc := qaaudit.Audit("doc", sets["qa_doc_120.json"])
	if doc.Letters != [4]int{2, 50, 59, 9} || doc.Malformed != 0 || doc.LeakedStrict != 0 {
		t.Errorf("doc letters %v malformed %d leaked %d", doc.Letters, doc.Malformed, doc.LeakedStrict)
	}
	// The leak heuristic: a strictly leaked item is always answered
	// correctly; with no leak it is the constant letter.
	if b := doc.Baselines(); b.LeakCorrect != 59 || b.ConstantCorrect != 59 || b.ConstantLetter != "C" {
		t.Errorf("doc baselines %+v", b)
	}
	// Code: the 25 strictly leaked items, plus the items keyed C for which
	// Leak finds no single choice (63 also by a separate Python rendering of
	// the rule over qa_120.json).
	if b := code.Baselines(); b.LeakCorrect != 63 || b.ConstantCorrect != 58 || b.ConstantLetter != "C" || b.Questions != 120 {
		t.Errorf("code baselines %+v, want leak 63, constant C 58 of 120", b)
	}
}

// TestBalancedSample: each letter is correct for n/4 ± 1 items, every item
// keeps its correct text and its distractors, and a second run gives the
// same variant.
func TestBalancedSample(t *testing.T) {
	for name, set := range sampleSets(t) {
		bal := qaaudit.Balanced(set)
		again := qaaudit.Balanced(set)
		var letters [4]int
		moved := 0
		for i := range set.Questions {
			o, b := &set.Questions[i], &bal.Questions[i]
			if b.ID != o.ID || b.Question != o.Question || b.Index != o.Index {
				t.Fatalf("%s item %d: identity changed", name, i)
			}
			oc := slices.Index(datasets.QALetters[:], o.CorrectAnswer)
			bc := slices.Index(datasets.QALetters[:], b.CorrectAnswer)
			letters[bc]++
			if oc != bc {
				moved++
			}
			if got, want := qaaudit.Text(b.Choices[bc], b.CorrectAnswer), qaaudit.Text(o.Choices[oc], o.CorrectAnswer); got != want {
				t.Errorf("%s item %d: correct text %q, want %q", name, i, got, want)
			}
			var ow, bw []string
			for k := range 4 {
				if k != oc {
					ow = append(ow, qaaudit.Text(o.Choices[k], datasets.QALetters[k]))
				}
				if k != bc {
					bw = append(bw, qaaudit.Text(b.Choices[k], datasets.QALetters[k]))
				}
				if b.Choices[k][:3] != datasets.QALetters[k]+". " {
					t.Errorf("%s item %d: choice %q lacks its prefix", name, i, b.Choices[k])
				}
			}
			slices.Sort(ow)
			slices.Sort(bw)
			if !slices.Equal(ow, bw) {
				t.Errorf("%s item %d: distractors %q, want %q", name, i, bw, ow)
			}
			if again.Questions[i].Choices != b.Choices || again.Questions[i].CorrectAnswer != b.CorrectAnswer {
				t.Errorf("%s item %d: a second run differs", name, i)
			}
		}
		n := len(set.Questions)
		for k, c := range letters {
			if c < n/4-1 || c > n/4+1 {
				t.Errorf("%s: letter %s correct for %d items, want %d ± 1", name, datasets.QALetters[k], c, n/4)
			}
		}
		if moved < n/2 {
			t.Errorf("%s: only %d of %d items changed letter", name, moved, n)
		}
		t.Logf("%s balanced: letters %v of %d, %d items changed letter", name, letters, n, moved)
		if r := qaaudit.Audit(name, bal); r.Letters != letters {
			t.Errorf("%s: audit of the variant %v", name, r.Letters)
		}
		// Pinned: the variant's item list (cmd/audit-qa -variants writes
		// these bytes) and its first twelve keys, as derived by
		// VariantAlgorithm 1. A change of Balanced that changes them must
		// raise VariantAlgorithm.
		b, err := qaaudit.MarshalItems(bal)
		if err != nil {
			t.Fatal(err)
		}
		keys := ""
		for _, q := range bal.Questions[:12] {
			keys += q.CorrectAnswer
		}
		pin := map[string]struct{ sha, keys string }{
			"qa_120.json":     {"901e08d738905bf19c1a4b26cabdca6048613a8388b196ff2212bc2c0b52323a", "CABABCDBCAAA"},
			"qa_doc_120.json": {"43900eba3205c87b414fbf512bd52f6173401085864f6dba9236bd6d88c09fdb", "BAADAAACAABD"},
		}[name]
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != pin.sha || keys != pin.keys || qaaudit.VariantAlgorithm != 1 {
			t.Errorf("%s balanced: SHA-256 %s keys %s (VariantAlgorithm %d), want %s %s", name, got, keys, qaaudit.VariantAlgorithm, pin.sha, pin.keys)
		}
	}
}

func TestCleanSample(t *testing.T) {
	set := sampleSets(t)["qa_120.json"]
	clean := qaaudit.Clean(set)
	r := qaaudit.Audit("clean", clean)
	if r.Malformed != 0 || r.LeakedStrict != 0 {
		t.Errorf("clean variant still has %d malformed and %d leaked items", r.Malformed, r.LeakedStrict)
	}
	// 5 malformed and 25 leaked; item 86 (HTML entities "&lt;sub&gt;" in
	// its question, which also names its answer "re.sub") is both.
	if got := len(clean.Questions); got != 120-29 {
		t.Errorf("clean: %d items, want 91", got)
	}
	for i, q := range clean.Questions {
		if q.ID == set.Questions[86].ID || q.Index != i {
			t.Errorf("clean item %d: %s, Index %d", i, q.ID, q.Index)
		}
	}
}

func TestFormatAdd(t *testing.T) {
	var f qaaudit.Format
	f.Add("C", "C", "C")             // exact
	f.Add("Answer: C", "C", "B")     // rejected, lenient C
	f.Add("I think A or B", "", "A") // rejected, none found
	f.Add("c", "C", "D")             // lower case: rejected, lenient C
	want := qaaudit.Format{Answers: 4, StrictRejected: 3, LenientFound: 2, ModelLetters: [5]int{0, 0, 3, 0, 1}, KeyLetters: [4]int{1, 1, 1, 1}}
	if f != want {
		t.Errorf("got %+v, want %+v", f, want)
	}
}
