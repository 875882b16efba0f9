package results

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestCompactQA: a QA file's items, out of item_index order, are kept per
// item in item_index order (questions, correct, lenient), the fingerprint
// changes with an item's questions, ReadSummary keeps them as File.QA
// (without QAItems), and a repeated item_index or an item of more than
// 65,535 questions is said, not kept.
func TestCompactQA(t *testing.T) {
	f := qaFile()
	f.QAItems[0], f.QAItems[1] = f.QAItems[1], f.QAItems[0]
	f.QAItems[0].ItemIndex, f.QAItems[1].ItemIndex = 7, 2 // 3 questions at 7, 5 at 2
	o := CompactQA(f.QAItems)
	if o.Why != "" || !slices.Equal(o.Questions, []uint16{5, 3}) || !slices.Equal(o.Correct, []uint16{4, 2}) || !slices.Equal(o.Lenient, []uint16{4, 3}) ||
		o.Len() != 2 || o.QuestionsOf(1) != 3 {
		t.Fatalf("compact outcomes %+v; want items 2 then 7: questions [5 3], correct [4 2], lenient [4 3]", o)
	}
	other := slices.Clone(f.QAItems)
	other[0].Questions, other[0].Correct = 4, 2
	if CompactQA(other).Items == o.Items {
		t.Error("items of other questions have the same fingerprint")
	}
	ones := []QAItem{{ItemIndex: 0, Questions: 1, Correct: 1}, {ItemIndex: 1, Questions: 1}}
	if c := CompactQA(ones); c.Questions != nil || c.Lenient != nil || c.QuestionsOf(0) != 1 || !slices.Equal(c.Correct, []uint16{1, 0}) {
		t.Errorf("one question per item: %+v; want no Questions and no Lenient slice", c)
	}

	path := filepath.Join(t.TempDir(), "qa.parquet")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSummary(path, SummaryOptions{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.File.QAItems != nil || !reflect.DeepEqual(s.File.QA, o) {
		t.Errorf("ReadSummary: %d items kept, QA %+v; want none and %+v", len(s.File.QAItems), s.File.QA, o)
	}

	dup := slices.Clone(f.QAItems)
	dup[1].ItemIndex = 7
	if c := CompactQA(dup); c.Why == "" || !strings.Contains(c.Why, "item_index 7") || c.Correct != nil {
		t.Errorf("repeated item_index: %+v", c)
	}
	big := []QAItem{{ItemIndex: 0, Questions: 70000, Correct: 1}}
	if c := CompactQA(big); c.Why == "" || !strings.Contains(c.Why, "70000 questions") {
		t.Errorf("an item of 70,000 questions: %+v", c)
	}
}
