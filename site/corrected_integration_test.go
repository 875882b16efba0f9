package site_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRealPreviewCorrectedAndVerifiedTables: on the real-data preview's
// home page (the published answers re-executed in 2025-05, corrected-1 and
// corrected-2; verified-v1 and verified-v2):
//   - corrected-1's ranked table, superseded by corrected-2, shows no rows
//     and links the page of its own that holds all 31; corrected-2's table
//     shows its rows and says how its ranks move against the 2025-05 and the
//     corrected-1 tables; the failure-taxonomy page has corrected-2's
//     tables and not corrected-1's;
//   - the verified-v2 table follows the verified-v1 table, says what differs
//     (the three properties only verified-v2 holds) and gives each row's
//     rank in verified-v1, which is the rank the verified-v1 table shows
//     for the same model, system and retrieval source.
func TestRealPreviewCorrectedAndVerifiedTables(t *testing.T) {
	dir := filepath.Join(builtRealPreview(t), "preview")
	home := readFile(t, filepath.Join(dir, "index.html"))
	section := func(idPrefix string) string {
		t.Helper()
		m := regexp.MustCompile(`(?s)<section class="leaderboard-table [a-z -]*" id="` + regexp.QuoteMeta(idPrefix) + `[^"]*">.*?</section>`).FindString(home)
		if m == "" {
			t.Fatalf("the preview's home page has no table %s…", idPrefix)
		}
		return m
	}
	rowRe := regexp.MustCompile(`(?s)<tr class="computed-row[^"]*".*?</tr>`)

	c1, c2 := section("tool-usage-2025-05-corrected-1-executable-"), section("tool-usage-2025-05-corrected-2-executable-")
	if n := len(rowRe.FindAllString(c1, -1)); n != 0 || !strings.Contains(c1, "31 rows are on a page of their own") ||
		!strings.Contains(c1, "2025-05-corrected-2 stands in its place") {
		t.Errorf("corrected-1's table on the home page: %d rows; want none and the note linking its page", n)
	}
	id := regexp.MustCompile(`id="(tool-usage-2025-05-corrected-1-[^"]*)"`).FindStringSubmatch(c1)[1]
	own := readFile(t, filepath.Join(dir, "tables", id, "index.html"))
	if n := len(rowRe.FindAllString(own, -1)); n != 31 {
		t.Errorf("tables/%s: %d rows, want the 31 of corrected-1's table", id, n)
	}
	if n := len(rowRe.FindAllString(c2, -1)); n != 31 || !strings.Contains(c2, "Ranks against the version 2025-05 table: 26 of these 31 ranked rows keep their rank; 5 move:") ||
		!strings.Contains(c2, "Ranks against the version 2025-05-corrected-1 table: 31 of these 31 ranked rows keep their rank, none moves.") {
		t.Errorf("corrected-2's table: %d rows; want 31 and how its ranks move against 2025-05 and corrected-1", n)
	}
	failures := readFile(t, filepath.Join(dir, "failures", "index.html"))
	if !strings.Contains(failures, `id="failures-2025-05-corrected-2-`) || strings.Contains(failures, `id="failures-2025-05-corrected-1-`) {
		t.Error("the failure-taxonomy page: want corrected-2's tables and not corrected-1's")
	}

	v1, v2 := section("tool-usage-verified-v1"), section("tool-usage-verified-v2")
	if strings.Index(home, v1) > strings.Index(home, v2) {
		t.Error("the verified-v2 table comes before the verified-v1 table")
	}
	if !strings.Contains(v2, ">Rank in verified-v1</th>") || strings.Contains(v1, "Rank in verified-") ||
		!strings.Contains(v2, "Properties only verified-v2 holds: test_antisite_generator (antisite_defect_names); test_defect_finder (anti_site_initial_distance); test_interstitial (element_changes).") {
		t.Errorf("the verified-v2 table lacks its rank-in-verified-v1 column or what differs from verified-v1")
	}
	cellRe := regexp.MustCompile(`(?s)<td class="num rank" data-sort="\d+">(\d+)</td>.*?<th scope="row" class="name" data-sort="([^"]*)">.*?<td class="wrap">([^<]*)</td>\s*<td class="num wrap source">([^<]*)</td>.*?(?:<td class="num prev-rank" data-sort="[^"]*">([^<]*)</td>|$)`)
	ranks := func(sec string) map[string][2]string {
		out := map[string][2]string{}
		for _, row := range rowRe.FindAllString(sec, -1) {
			m := cellRe.FindStringSubmatch(row)
			if m == nil {
				t.Fatalf("a verified row not understood: %s", row)
			}
			out[m[2]+" | "+m[3]+" | "+m[4]] = [2]string{m[1], m[5]}
		}
		return out
	}
	r1, r2 := ranks(v1), ranks(v2)
	moved := 0
	for k, r := range r2 {
		if r[1] != r1[k][0] {
			t.Errorf("%s: rank in verified-v1 %q in the verified-v2 table, but %q in the verified-v1 table", k, r[1], r1[k][0])
		}
		if r[0] != r[1] {
			moved++
		}
	}
	if len(r2) != 31 || len(r1) != 31 || !strings.Contains(v2, "Ranks against verified-v1: "+strconv.Itoa(31-moved)+" of these 31 ranked rows keep their rank;") {
		t.Errorf("verified tables of %d and %d rows, %d ranks move; want 31 rows each and the note to say so", len(r1), len(r2), moved)
	}
}
