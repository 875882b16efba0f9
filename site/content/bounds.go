package content

import (
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"

	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Page-size bounds: no page's size grows with the number of runs
// or configurations. A page shows at most these many items of a list that
// grows with them; the rest are on numbered continuation pages (pager) and,
// where a table has one, in its CSV download. The bounds are above what the
// published MatTools runs make (29 configuration identities, at most 20 in
// one system's matrix; at most 31 rows in one ranked table; 115
// configurations; 283 runs), so the site of the real data shows everything
// on one page, as before.
const (
	// MatrixColumns is the most configuration columns of a per-question
	// verdict matrix on one page (≈ 380 bytes a cell: 49 rows × 16 columns
	// ≈ 300 KB of HTML, so that a system page with its tables stays under
	// 500 KB; at 24 columns LLM-RAG's page of the real data was 617 KB).
	MatrixColumns = 16
	// ListRows is the most rows of one ranked table, table of
	// configurations, failure or module table, model list or list of new
	// configurations on one page (≈ 2 KB a ranked row: ≈ 200 KB a table).
	ListRows = 100
	// RunsPerPage is the most results files the downloads page lists on
	// one page (≈ 250 bytes a line).
	RunsPerPage = 500
	// pagerWindow is how many page links either side of the current page a
	// pager shows; the first and last page are always linked.
	pagerWindow = 5
)

// pageLink is one link of a pager; Gap marks a link that follows skipped
// page numbers ("… ").
type pageLink struct {
	Number  int    `json:"number"`
	Href    string `json:"href"`
	Current bool   `json:"current"`
	Gap     bool   `json:"gap,omitempty"`
}

// pagesOf returns how many pages of per items total items make (at least 1).
func pagesOf(total, per int) int { return max(1, (total+per-1)/per) }

// pagedRel is page n (1-based) of the pages at base: base itself for the first.
func pagedRel(base string, n int) string {
	if n <= 1 {
		return href(base)
	}
	return href(base, "page", strconv.Itoa(n))
}

// pagerLinks links the pages 1..pages at base (pagedRel), current marked:
// all of them when they are few, else the first, the last and pagerWindow
// either side of current, so that a pager's size is bounded too.
func pagerLinks(base string, pages, current int) []pageLink {
	var out []pageLink
	last := 0
	for n := 1; n <= pages; n++ {
		if pages > 2*pagerWindow+3 && n != 1 && n != pages && (n < current-pagerWindow || n > current+pagerWindow) {
			continue
		}
		out = append(out, pageLink{Number: n, Href: pagedRel(base, n), Current: n == current, Gap: last > 0 && n > last+1})
		last = n
	}
	return out
}

// window returns items [(page−1)·per, page·per) of n items as a start and
// end index.
func window(n, per, page int) (int, int) {
	lo := min(n, (page-1)*per)
	return lo, min(n, lo+per)
}

// cutView says in words what a page leaves out of a list that exceeds its
// bound, and where all of it is: the continuation pages and the CSV.
type cutView struct {
	Text  string     `json:"text"`
	Pages []pageLink `json:"pages"` // the list's pages (page 1 shows what this page shows)
	CSV   string     `json:"csv"`   // edition-relative path of the CSV holding it all; "" when none
}

// newCut describes a list of total items of which a page shows the first
// shown (lead is "the top" or "the first", what the items' name): "Showing
// the top 24 of 1,667 configurations; all 1,667 are on the pages below and
// in the CSV download." base is where the list's pages are, per items to a
// page ("": none); csvPath the download holding it all ("": none). nil when
// nothing is cut.
func newCut(shown, total, per int, lead, what, base, csvPath string) *cutView {
	if shown >= total {
		return nil
	}
	c := &cutView{Text: fmt.Sprintf("Showing %s %s of %s %s", lead, thousands(shown), thousands(total), what), CSV: csvPath}
	switch {
	case base != "" && csvPath != "":
		c.Text += fmt.Sprintf("; all %s are on the pages below and in the CSV download.", thousands(total))
	case base != "":
		c.Text += fmt.Sprintf("; all %s are on the pages below.", thousands(total))
	case csvPath != "":
		c.Text += fmt.Sprintf("; all %s are in the CSV download.", thousands(total))
	default:
		c.Text += "."
	}
	if base != "" {
		c.Pages = pagerLinks(base, pagesOf(total, per), 0)
	}
	return c
}

// thousands formats n with thousands separators ("1,667").
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// pagerView is the navigation of one continuation page: where it is among
// the list's pages and what it shows.
type pagerView struct {
	Text  string     `json:"text"`
	Links []pageLink `json:"links"`
}

// morePages writes the continuation pages of a list at base (base/,
// base/page/2/, …, layout "more"): pages pages, page k holding args(k) for
// the partial (a layouts/_partials file) that renders its slice of the list;
// text(k) says which items it shows. back links the page the list belongs to.
func (w *writer) morePages(base, title, intro, partial string, pages int, back linkView, text func(k int) string, args func(k int) map[string]any) {
	for k := 1; k <= pages; k++ {
		t := fmt.Sprintf("%s (page %d of %d)", title, k, pages)
		w.page(pagedRel(base, k), t, "more", map[string]any{
			"heading": title, "intro": intro, "back": back, "partial": partial, "args": args(k),
			"pager": pagerView{Text: text(k), Links: pagerLinks(base, pages, k)},
		})
	}
}

// rankOrder returns the identity groups in the order of the headline
// ranked tables (by task success rate, as the home page ranks them): a
// group's place is its best member's first row among the tables in
// order; groups with no ranked row keep their order after the others.
func (v *views) rankOrder(groups []*identityGroup) []*identityGroup {
	_, groupOf := v.identityGroups()
	place := map[*identityGroup]int{}
	n := 0
	for _, t := range v.lb.Headline {
		for _, r := range t.Rows {
			for _, c := range r.Configurations {
				if g := groupOf[c]; g != nil {
					if _, ok := place[g]; !ok {
						place[g] = n
					}
				}
			}
			n++
		}
	}
	out := slices.Clone(groups)
	slices.SortStableFunc(out, func(a, b *identityGroup) int {
		pa, oka := place[a]
		pb, okb := place[b]
		switch {
		case oka && okb:
			return pa - pb
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	return out
}

// matrixCSV writes a matrix as one line per question and column
// (long format): the question, the configuration and its per-round
// symbols and agreement.
func matrixCSV(mv *matrixView) []byte {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	_ = cw.Write([]string{"question_number", "question_id", "configuration_key", "model", "system", "retrieval_source", "scoring_protocol",
		"provenance", "question_set", "rounds_symbols", "rounds_correct_of_known"})
	for _, row := range mv.Rows {
		for i, cell := range row.Cells {
			col := mv.Columns[i]
			c := col.conf
			_ = cw.Write([]string{strconv.Itoa(row.Question.Index + 1), row.Question.ID, csvSafe(c.Key.String()), csvSafe(c.Model.DisplayName),
				csvSafe(c.SystemLabel()), strconv.Itoa(c.Key.RetrievalSource), c.Key.ScoringProtocol, col.BadgeText, c.Key.QuestionSet,
				cell.Symbols, cell.Agreement})
		}
	}
	cw.Flush()
	return buf.Bytes()
}

// sliceRanked is tv with rows [lo, hi) only, and the notes of those rows.
func sliceRanked(tv *rankedView, lo, hi int) *rankedView {
	out := *tv
	out.Rows = tv.Rows[lo:hi]
	refs := map[string]bool{}
	for _, r := range out.Rows {
		for _, id := range r.WhyRefs {
			refs[id] = true
		}
	}
	out.Twice = []twiceNote{}
	for _, n := range tv.Twice {
		if refs[n.ID] {
			out.Twice = append(out.Twice, n)
		}
	}
	out.Cut = nil
	return &out
}

// boundRanked bounds a ranked table on its page: with more than
// ListRows rows, the page shows the first ListRows (the top of the ranking)
// and a cut note; the whole table, ListRows rows to a page, is at
// tables/<id>/ and in its CSV download. back is the page the table is on.
func (w *writer) boundRanked(tv *rankedView, back linkView) *rankedView {
	n := len(tv.Rows)
	if n <= ListRows {
		return tv
	}
	base := "tables/" + tv.ID
	pages := pagesOf(n, ListRows)
	shown := sliceRanked(tv, 0, ListRows)
	shown.Cut = newCut(ListRows, n, ListRows, "the top", "rows (the table's filters apply to the rows shown)", base, tv.CSV)
	w.morePages(base, tv.Heading, fmt.Sprintf("Every row of this ranked table, %d to a page, in rank order.", ListRows), "ranked.html", pages, back,
		func(k int) string {
			lo, hi := window(n, ListRows, k)
			return fmt.Sprintf("Rows %s–%s of %s (page %d of %d).", thousands(lo+1), thousands(hi), thousands(n), k, pages)
		},
		func(k int) map[string]any {
			lo, hi := window(n, ListRows, k)
			s := sliceRanked(tv, lo, hi)
			s.Figures = []*figureView{}
			return map[string]any{"table": s, "runnable": RunnableNote}
		})
	return shown
}

// boundList bounds a list of rows on its page: with more than
// per rows it returns the first per and a cut note (lead and what as
// newCut's), and writes the whole list, per rows to a page, at base
// (morePages: title, intro and partial, args giving the partial's data for
// a slice). With per rows or fewer it returns rows and nil.
func boundList[T any](w *writer, rows []T, per int, base, title, intro, partial, lead, what, csvPath string, back linkView,
	args func([]T) map[string]any) ([]T, *cutView) {
	n := len(rows)
	if n <= per {
		return rows, nil
	}
	pages := pagesOf(n, per)
	w.morePages(base, title, intro, partial, pages, back,
		func(k int) string {
			lo, hi := window(n, per, k)
			return fmt.Sprintf("%s %s–%s of %s (page %d of %d).", capitalize(what), thousands(lo+1), thousands(hi), thousands(n), k, pages)
		},
		func(k int) map[string]any {
			lo, hi := window(n, per, k)
			return args(rows[lo:hi])
		})
	return rows[:per], newCut(per, n, per, lead, what, base, csvPath)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// supersededBy returns the corrected benchmark version that supersedes
// version on a page: the newest corrected version (datasets/corrections.json
// order) of the version version corrects that the edition has
// configurations of, when it is not version itself; "" for a published
// version, the newest corrected one, or one the edition has alone. So that
// a page's size does not grow with the number of corrected versions, the
// home page shows a superseded version's ranked tables without their rows
// (collapseRanked: on a page of their own), and the board, failure, cost
// and module tables leave its configurations out (each keeps its
// configuration page).
func (v *views) supersededBy(version string) string {
	base := aggregate.CorrectsVersion(version)
	if base == "" {
		return ""
	}
	if v.newestCorrected == nil {
		v.newestCorrected = map[string]string{}
		have := map[string]bool{}
		for _, c := range v.lb.Configurations {
			have[c.Key.BenchmarkVersion] = true
		}
		for _, cv := range datasets.CorrectedVersions() {
			if have[cv.ID] {
				v.newestCorrected[cv.Base] = cv.ID
			}
		}
	}
	if n := v.newestCorrected[base]; n != "" && n != version {
		return n
	}
	return ""
}

// collapseRanked returns tv without its rows, its cut note saying that
// version by supersedes it on this page and linking the pages at
// tables/<id> that hold every row, ListRows to a page (writeRankedPages).
func collapseRanked(tv *rankedView, by string) *rankedView {
	n := len(tv.Rows)
	shown := sliceRanked(tv, 0, 0)
	shown.Collapsed = true
	shown.Cut = &cutView{Text: fmt.Sprintf("This table's %s are on a page of their own: on this page the newer corrected version %s stands in its place, "+
		"its table saying how the ranks move against this one. All rows are on the pages below and in the CSV download.", count(n, "row", "rows"), by),
		CSV: tv.CSV, Pages: pagerLinks("tables/"+tv.ID, pagesOf(n, ListRows), 0)}
	return shown
}

// writeRankedPages writes every row of tv, ListRows to a page, at
// tables/<id> (the pages boundRanked and collapseRanked link).
func (w *writer) writeRankedPages(tv *rankedView, back linkView) {
	n := len(tv.Rows)
	pages := pagesOf(n, ListRows)
	w.morePages("tables/"+tv.ID, tv.Heading, fmt.Sprintf("Every row of this ranked table, %d to a page, in rank order.", ListRows), "ranked.html", pages, back,
		func(k int) string {
			lo, hi := window(n, ListRows, k)
			return fmt.Sprintf("Rows %s–%s of %s (page %d of %d).", thousands(lo+1), thousands(hi), thousands(n), k, pages)
		},
		func(k int) map[string]any {
			lo, hi := window(n, ListRows, k)
			s := sliceRanked(tv, lo, hi)
			s.Figures = []*figureView{}
			return map[string]any{"table": s, "runnable": RunnableNote}
		})
}
