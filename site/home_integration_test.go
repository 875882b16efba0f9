package site_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/content"
)

// TestRealPreviewHomeLeadsWithTheReexecutedTable: the real-data preview's
// root and /preview/ home page lead with the 28-question table ranked under
// mattools-v1 (labelled re-executed), the whole benchmark's table as
// published (labelled so) next; 12 of its 31 configurations are below the
// every-property-True baseline (21.51 %), marked in the page and in the
// figure's data (31 points, ceiling 84.95, floor 21.51).
func TestRealPreviewHomeLeadsWithTheReexecutedTable(t *testing.T) {
	dir := builtRealPreview(t)
	for _, p := range []struct{ page, fig string }{{"index.html", ""}, {filepath.Join(site.PreviewPath, "index.html"), site.PreviewPath}} {
		doc := parseHTML(t, filepath.Join(dir, p.page))
		secs := findAll(doc, func(n *html.Node) bool { return n.Data == "section" && hasClass(n, "ranked-table") })
		if len(secs) < 2 {
			t.Fatalf("%s: %d ranked tables", p.page, len(secs))
		}
		lead, next := secs[0], secs[1]
		h2 := func(s *html.Node) string {
			return strings.Join(strings.Fields(text(findAll(s, func(n *html.Node) bool { return n.Data == "h2" })[0])), " ")
		}
		if id := attr(lead, "id"); !strings.Contains(id, "-executable-") || strings.Contains(id, "corrected") || !hasClass(lead, "lead-table") ||
			h2(lead) != content.KickerReexecuted+" 28 runnable questions (93 properties)" {
			t.Errorf("%s: the page leads with %s %q, want the 28-question table, re-executed", p.page, id, h2(lead))
		}
		if id := attr(next, "id"); !strings.Contains(id, "-all-49-") || h2(next) != content.KickerAsPublished+" All 49 questions (138 properties)" {
			t.Errorf("%s: the second table is %s %q, want the whole benchmark's as published", p.page, id, h2(next))
		}
		note := findAll(lead, func(n *html.Node) bool { return n.Data == "p" && hasClass(n, "below-note") })
		below := findAll(lead, func(n *html.Node) bool { return n.Data == "tr" && hasClass(n, "below-floor") })
		marks := findAll(lead, func(n *html.Node) bool { return n.Data == "abbr" && hasClass(n, "below-mark") })
		if len(note) != 1 || !strings.Contains(text(note[0]), "12 of 31 configurations score below the every-property-True baseline (21.51 %)") ||
			len(below) != 12 || len(marks) != 12 {
			t.Errorf("%s: below-floor note %d, %d rows and %d marks; want the note saying 12 of 31 and 12 marked rows", p.page, len(note), len(below), len(marks))
		}
		imgs := findAll(lead, func(n *html.Node) bool { return n.Data == "img" })
		if len(imgs) != 1 {
			t.Fatalf("%s: %d figures in the lead table", p.page, len(imgs))
		}
		svg := filepath.Join(dir, filepath.FromSlash(attr(imgs[0], "src")))
		if p.fig != "" {
			svg = filepath.Join(dir, p.fig, filepath.FromSlash(attr(imgs[0], "src")))
		}
		data, err := os.ReadFile(strings.TrimSuffix(svg, ".svg") + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(svg); err != nil {
			t.Error(err)
		}
		recs, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		n, nBelow := len(recs)-3, 0
		for _, r := range recs[1 : len(recs)-2] {
			if r[6] == "true" {
				nBelow++
			}
		}
		ceil, floor := recs[len(recs)-2], recs[len(recs)-1]
		if n != 31 || nBelow != 12 || ceil[3] != "84.9462" || floor[3] != "21.5054" || recs[1][3] != "45.8781" {
			t.Errorf("%s: figure data: %d points, %d below, ceiling %s, floor %s, first %v; want 31, 12, 84.9462, 21.5054 and 45.8781 first",
				p.page, n, nBelow, ceil[3], floor[3], recs[1])
		}
	}
}
