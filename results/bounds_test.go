package results

// Bounds of counts in Validate: every count is bounded by
// the question's property count, mattools-v1's negative credit by its
// documented lower bound (−property_count, see minPassed).

import (
	"errors"
	"strings"
	"testing"
)

// partialV1 returns toolUsageFile (mattools-v1) with row 2 (2 properties,
// partial) credited with passed properties and the totals kept consistent.
func partialV1(passed int32) *File {
	f := toolUsageFile()
	f.Questions[1].PropertiesPassed = ptr(passed)
	f.Run.Totals.PropertiesPassed = ptr(4 + int(passed))
	return f
}

func TestValidateBoundsRefuse(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(f *File)
		want   []string // substrings of the error, each required
	}{
		{"v1 credit -2,000,000,000", func(f *File) {
			f.Questions[1].PropertiesPassed = ptr(int32(-2_000_000_000))
			f.Run.Totals.PropertiesPassed = ptr(4 - 2_000_000_000)
		}, []string{"row 2: properties_passed: is -2000000000; want -2–2", "totals.properties_passed: is -1999999996; want -7–7"}},
		{"v1 credit one below -property_count", func(f *File) { *f = *partialV1(-3) },
			[]string{"row 2: properties_passed: is -3; want -2–2"}},
		{"v1 total below -properties with consistent rows", func(f *File) {
			// rows pass the row check only when each is ≥ −k; the total is
			// then ≥ −properties, so damage the total alone.
			f.Run.Totals.PropertiesPassed = ptr(-8)
		}, []string{"metadata: totals.properties_passed: is -8; want -7–7"}},
		{"v1 credit above property_count", func(f *File) {
			f.Questions[0].PropertiesPassed = ptr(int32(5))
			f.Run.Totals.PropertiesPassed = ptr(6)
		}, []string{"row 1: properties_passed: is 5; want -4–4"}},
		{"strict credit above property_count", func(f *File) {
			f.Run.ScoringProtocol = ProtocolMatToolsV1Strict
			f.Questions[1].PropertiesPassed = ptr(int32(3))
			f.Run.Totals.PropertiesPassed = ptr(7)
		}, []string{"row 2: properties_passed: is 3; want 0–2"}},
		{"strict credit -2,000,000,000", func(f *File) {
			f.Run.ScoringProtocol = ProtocolMatToolsV1Strict
			f.Questions[1].PropertiesPassed = ptr(int32(-2_000_000_000))
			f.Run.Totals.PropertiesPassed = ptr(4 - 2_000_000_000)
		}, []string{"row 2: properties_passed: is -2000000000; want 0–2", "totals.properties_passed: is -1999999996; want 0–7"}},
		{"original protocol negative", func(f *File) {
			f.Run.ScoringProtocol = ProtocolMatToolsOriginal
			f.Questions[1].PropertiesPassed = ptr(int32(-1))
			f.Run.Totals.PropertiesPassed = ptr(3)
		}, []string{"row 2: properties_passed: is -1; want 0–2"}},
		{"negative property count", func(f *File) {
			f.Questions[2].PropertyCount = -1
			f.Run.QuestionSet.Properties, f.Run.Totals.Properties = 6, 6
		}, []string{"row 3: property_count: is -1; want 0–1000"}},
		{"huge property count", func(f *File) {
			f.Questions[2].PropertyCount = 2_000_000_000
		}, []string{"row 3: property_count: is 2000000000; want 0–1000"}},
		{"question set properties beyond the cap", func(f *File) {
			f.Run.QuestionSet.Properties, f.Run.Totals.Properties = 3001, 3001
		}, []string{"metadata: question_set.properties: is 3001; want 0–3000 (3 questions × at most 1000 properties)"}},
		{"negative question set properties", func(f *File) {
			f.Run.QuestionSet.Properties, f.Run.Totals.Properties = -7, -7
		}, []string{"metadata: question_set.properties: is -7; want 0–3000"}},
		{"negative question count", func(f *File) {
			f.Run.QuestionSet.Questions, f.Run.Totals.Questions = -3, -3
		}, []string{"metadata: question_set.questions: is -3; want ≥ 0"}},
		{"runnable above questions", func(f *File) { f.Run.Totals.Runnable = ptr(4) }, []string{"metadata: totals.runnable: is 4; want 0–3"}},
		{"negative runnable", func(f *File) { f.Run.Totals.Runnable = ptr(-1) }, []string{"metadata: totals.runnable: is -1; want 0–3"}},
		{"questions correct above questions", func(f *File) { f.Run.Totals.QuestionsCorrect = ptr(4) },
			[]string{"metadata: totals.questions_correct: is 4; want 0–3"}},
		{"negative questions partial", func(f *File) { f.Run.Totals.QuestionsPartial = ptr(-5) },
			[]string{"metadata: totals.questions_partial: is -5; want 0–3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := toolUsageFile()
			if err := Validate(f); err != nil {
				t.Fatalf("the base file is invalid: %v", err)
			}
			tt.mutate(f)
			err := Validate(f)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FormatError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestValidateV1NegativeCreditWithinBound: mattools-v1 may credit a partial
// question down to −property_count (MatTools' L[-1] − L[-2] with up to two
// error strings per property); such runs stay valid, and the rates follow.
func TestValidateV1NegativeCreditWithinBound(t *testing.T) {
	for _, passed := range []int32{-2, -1, 0, 1} {
		f := partialV1(passed)
		if err := Validate(f); err != nil {
			t.Errorf("properties_passed %d: %v", passed, err)
		}
	}
	f := partialV1(-2)
	if rate, ok := f.Run.Totals.TaskSuccessRate(); !ok || rate != 100*2.0/7 {
		t.Errorf("task success = %v, %v; want 100 × (4 − 2 + 0)/7", rate, ok)
	}
	// The same credit under strict is refused.
	f.Run.ScoringProtocol = ProtocolMatToolsV1Strict
	if err := Validate(f); err == nil || !strings.Contains(err.Error(), "row 2: properties_passed: is -2; want 0–2") {
		t.Errorf("strict accepts negative credit: %v", err)
	}
	if got := minPassed(ProtocolMatToolsV1, 138); got != -138 {
		t.Errorf("minPassed(v1, 138) = %d", got)
	}
	if got := minPassed(ProtocolMatToolsV1Strict, 138); got != 0 {
		t.Errorf("minPassed(strict, 138) = %d", got)
	}
}

func qaFile() *File {
	r := Run{FormatVersion: FormatVersion, Benchmark: BenchmarkQACode, BenchmarkVersion: "2025-05", System: SystemSingleLLM,
		Model: "m", ScoringProtocol: ProtocolQAV1,
		QuestionSet: QuestionSet{Name: "two-items", Questions: 8},
		Provenance:  Provenance{Kind: ProvenanceImported, Citation: "test"}, Environment: Environment{Generator: "t"},
		Totals: Totals{Scored: true, Questions: 8, Correct: ptr(6), CorrectLenient: ptr(7)}}
	r.RunID = MakeRunID(&r)
	return &File{Run: r, QAItems: []QAItem{
		{ItemIndex: 0, Item: "pymatgen/a.py/X", Questions: 5, Correct: 4, CorrectLenient: ptr(int32(4))},
		{ItemIndex: 1, Item: "pymatgen/a.py/X", Questions: 3, Correct: 2, CorrectLenient: ptr(int32(3))},
	}}
}

func TestValidateQABounds(t *testing.T) {
	if err := Validate(qaFile()); err != nil {
		t.Fatalf("the base file is invalid: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(f *File)
		want   string
	}{
		{"correct above questions", func(f *File) { f.Run.Totals.Correct = ptr(9) }, "metadata: totals.correct: is 9; want 0–8"},
		{"negative correct", func(f *File) { f.Run.Totals.Correct = ptr(-1) }, "metadata: totals.correct: is -1; want 0–8"},
		{"lenient above questions", func(f *File) { f.Run.Totals.CorrectLenient = ptr(9) }, "metadata: totals.correct_lenient: is 9; want 0–8"},
		{"negative questions", func(f *File) {
			f.Run.Totals.Questions, f.Run.QuestionSet.Questions = -8, -8
		}, "metadata: totals.questions: is -8; want ≥ 0"},
		{"row correct above its questions", func(f *File) {
			f.QAItems[1].Correct = 4
			f.Run.Totals.Correct = ptr(8)
		}, "row 2: correct: is 4; want 0–3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := qaFile()
			tt.mutate(f)
			err := Validate(f)
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant a *FormatError containing %q", err, tt.want)
			}
		})
	}
}
