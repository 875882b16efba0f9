package content

import (
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// TestVerdictLabelMatchesTheFailuresPage: a question page names a partial
// verdict with no property passed as the failures page classifies it
// ("wrong values"), and one with some passed by the recorded verdict; the
// verdict itself (data attributes, results files) stays partial.
func TestVerdictLabelMatchesTheFailuresPage(t *testing.T) {
	i32 := func(n int32) *int32 { return &n }
	for _, tt := range []struct {
		verdict string
		passed  *int32
		want    string
		outcome aggregate.Outcome
	}{
		{"partial", i32(0), "wrong values", aggregate.OutcomeWrongValues},
		{"partial", i32(3), "partial", aggregate.OutcomePartial},
		{"correct", i32(4), "correct", aggregate.OutcomeCorrect},
		{"not-runnable", i32(0), "not-runnable", ""},
	} {
		q := &results.QuestionRow{Verdict: tt.verdict, PropertiesPassed: tt.passed, PropertyCount: 4}
		if got := verdictLabel(q.Verdict, q.PropertiesPassed); got != tt.want {
			t.Errorf("verdictLabel(%s, %d) = %q, want %q", tt.verdict, *tt.passed, got, tt.want)
		}
		if o, _ := aggregate.Classify(q); tt.outcome != "" && (o != tt.outcome || o == aggregate.OutcomeWrongValues && strings.ToLower(o.Title()) != tt.want) {
			t.Errorf("%s with %d passed: the failures page's outcome is %q, the question page says %q", tt.verdict, *tt.passed, o.Title(), tt.want)
		}
		run := &aggregate.Run{File: &results.File{Run: results.Run{RunID: "r", Round: 1, Totals: results.Totals{Scored: true}}}}
		o := outcome(run, q)
		if o.Verdict != tt.verdict || o.Label != tt.want {
			t.Errorf("outcome: verdict %q label %q; want the recorded %q labelled %q", o.Verdict, o.Label, tt.verdict, tt.want)
		}
		if tt.want == "wrong values" && !strings.HasPrefix(o.Text, "wrong values: ") {
			t.Errorf("outcome text %q does not name wrong values", o.Text)
		}
	}
}
