package site_test

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestFailuresTableChartsEachRowsOutcomeMix: on the fixture's failures
// page every row of a failures table has a stacked bar whose segments'
// widths are the row's outcome shares (the same numbers as its outcome
// cells, summing to 100 %), and only the first outcome's column (correct)
// is shown without the table's checkbox: the others are marked extra.
func TestFailuresTableChartsEachRowsOutcomeMix(t *testing.T) {
	fx := builtFixture(t)
	doc := parseHTML(t, filepath.Join(fx.dir, "v1.1", "failures", "index.html"))
	tables := findAll(doc, func(n *html.Node) bool { return n.Data == "table" && hasClass(n, "failures") })
	if len(tables) == 0 {
		t.Fatal("no failures table")
	}
	width := regexp.MustCompile(`width: ([0-9.]+)%`)
	rows := 0
	for _, tab := range tables {
		heads := findAll(tab, func(n *html.Node) bool { return n.Data == "th" && attr(n, "data-outcome") != "" })
		if len(heads) < 2 || hasClass(heads[0], "extra") {
			t.Fatalf("%d outcome headings, the first extra %v: want the correct column shown", len(heads), len(heads) > 0 && hasClass(heads[0], "extra"))
		}
		for _, h := range heads[1:] {
			if !hasClass(h, "extra") {
				t.Errorf("outcome column %q shown without the checkbox", text(h))
			}
		}
		for _, tr := range findAll(tab, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-model") != "" }) {
			rows++
			bar := findAll(tr, func(n *html.Node) bool { return hasClass(n, "mix-bar") })
			if len(bar) != 1 {
				t.Fatalf("row %q: %d mix bars", text(tr), len(bar))
			}
			var seg []float64
			for c := bar[0].FirstChild; c != nil; c = c.NextSibling {
				m := width.FindStringSubmatch(attr(c, "style"))
				if m == nil {
					t.Fatalf("row %q: segment without a width: %q", text(tr), attr(c, "style"))
				}
				w, _ := strconv.ParseFloat(m[1], 64)
				seg = append(seg, w)
			}
			var shares []float64
			// The outcome cells with a count ("7.1 (6)"); a zero share reads "0" and has no segment.
			for _, td := range findAll(tr, func(n *html.Node) bool { return n.Data == "td" && hasClass(n, "num") && strings.Contains(text(n), "(") }) {
				if v, err := strconv.ParseFloat(attr(td, "data-sort"), 64); err == nil {
					shares = append(shares, v)
				}
			}
			sum := 0.0
			for _, s := range seg {
				sum += s
			}
			if math.Abs(sum-100) > 0.01 || len(seg) != len(shares) {
				t.Errorf("row %q: segments %v (sum %.4f), non-zero outcome shares %v: want the shares, summing to 100", text(tr), seg, sum, shares)
				continue
			}
			for i := range seg {
				if math.Abs(seg[i]-shares[i]) > 1e-6 {
					t.Errorf("row %q: segment %d is %g %%, its outcome cell %g %%", text(tr), i, seg[i], shares[i])
				}
			}
		}
	}
	if rows == 0 {
		t.Fatal("no row in the failures tables")
	}
}
