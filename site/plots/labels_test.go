package plots

import (
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// TestLabelsNameProvenanceByBadge: rows that only their provenance tells
// apart are labelled with the badge the boards show ("re-executed"), never
// with the raw provenance ("rescored:imported"); two provenances of one
// badge also say whose answers they score.
func TestLabelsNameProvenanceByBadge(t *testing.T) {
	m := aggregate.Model{ID: "gpt-4o", DisplayName: "GPT-4o"}
	var rows []*aggregate.Row
	for _, p := range []string{"imported", "rescored:imported", "rescored:runner", "runner", "submitted:2026-12-01_x"} {
		rows = append(rows, &aggregate.Row{Model: m, Provenance: p})
	}
	want := []string{"GPT-4o [as published]", "GPT-4o [re-executed, published answers]", "GPT-4o [re-executed, runner answers]",
		"GPT-4o [runner]", "GPT-4o [self-reported]"}
	got := rowLabels(rows, false)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("label %d = %q, want %q", i, got[i], want[i])
		}
	}
	for _, l := range got {
		if strings.Contains(l, "rescored") || strings.Contains(l, "imported") || strings.Contains(l, "submitted:") {
			t.Errorf("label %q shows a raw provenance", l)
		}
	}
	if got := provenanceWords("rescored:imported", []string{"rescored:imported", "imported"}); got != "re-executed" {
		t.Errorf("provenanceWords = %q, want the badge alone when no other provenance shares it", got)
	}
}
