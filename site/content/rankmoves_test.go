package content

import "testing"

// TestRankMoves: how many rows keep their rank, each that moves with both
// ranks, and the rows not ranked in the other table, in this table's order.
func TestRankMoves(t *testing.T) {
	got := rankMoves("verified-v1", []rankMove{{"A", 2, 1}, {"B", 1, 2}, {"C", 3, 3}, {"D", 0, 4}})
	want := "Ranks against verified-v1: 1 of these 4 ranked rows keep their rank; 2 move: A: 2 → 1; B: 1 → 2. Not ranked there: D (4)."
	if got != want {
		t.Errorf("rankMoves:\n got %q\nwant %q", got, want)
	}
	if got := rankMoves("the version 2025-05 table", []rankMove{{"A", 1, 1}}); got != "Ranks against the version 2025-05 table: 1 of these 1 ranked rows keep their rank, none moves." {
		t.Errorf("no move: %q", got)
	}
	if lowerFirst("The published version") != "the published version" || lowerFirst("") != "" {
		t.Error("lowerFirst")
	}
}
