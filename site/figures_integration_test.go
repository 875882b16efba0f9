package site_test

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

// figureFrames reads every page of the site built in dir and checks that
// each img and each figure is a figure as layouts/_partials/figure.html
// makes it, so that a phone scrolls it instead of shrinking its text below
// plots.ReadableTextPx: a figure.figure whose style sets --figure-min to
// plots.MinDisplayWidthPx of the img's width, that width one of the plots
// package's display widths, the img alone in a div.figure-frame, then a
// p.figure-cue linking the img's SVG, then the figcaption linking the
// figure's CSV (the SVG's path with .csv). It returns the number of
// figures per width and the pages (site paths) that have one.
func figureFrames(t *testing.T, dir string) (map[int]int, []string) {
	t.Helper()
	widths, pages := map[int]int{}, []string{}
	display := map[int]bool{}
	for _, w := range []int{plots.DisplayWidthPx, plots.CostDisplayWidthPx, plots.ReleaseDisplayWidthPx} {
		display[w] = true
	}
	elements := func(n *html.Node) []*html.Node {
		var out []*html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				out = append(out, c)
			} else if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
				out = append(out, c)
			}
		}
		return out
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), "<img") && !strings.Contains(string(data), "<figure") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		doc := parseHTML(t, p)
		figs := findAll(doc, func(n *html.Node) bool { return n.Data == "figure" })
		imgs := findAll(doc, func(n *html.Node) bool { return n.Data == "img" })
		if len(imgs) != len(figs) {
			t.Errorf("%s: %d img and %d figure elements, want each img in a figure of its own", rel, len(imgs), len(figs))
		}
		for i, f := range figs {
			bad := func(format string, a ...any) { t.Errorf("%s, figure %d: %s", rel, i+1, fmt.Sprintf(format, a...)) }
			kids := elements(f)
			if !hasClass(f, "figure") || len(kids) != 3 || kids[0].Data != "div" || !hasClass(kids[0], "figure-frame") ||
				kids[1].Data != "p" || !hasClass(kids[1], "figure-cue") || kids[2].Data != "figcaption" {
				bad("class %q with %d children; want figure.figure holding div.figure-frame, p.figure-cue and the figcaption (layouts/_partials/figure.html)", attr(f, "class"), len(kids))
				continue
			}
			frame := elements(kids[0])
			if len(frame) != 1 || frame[0].Data != "img" {
				bad("its frame holds %d nodes, want its img alone", len(frame))
				continue
			}
			img := frame[0]
			w, err := strconv.Atoi(attr(img, "width"))
			if err != nil || !display[w] {
				bad("img width %q, want one of the plots package's display widths", attr(img, "width"))
				continue
			}
			if want := fmt.Sprintf("--figure-min: %dpx", plots.MinDisplayWidthPx(w)); attr(f, "style") != want {
				bad("style %q, want %q (plots.MinDisplayWidthPx(%d))", attr(f, "style"), want, w)
			}
			src := attr(img, "src")
			cue := findAll(kids[1], func(n *html.Node) bool { return n.Data == "a" })
			if !strings.HasSuffix(src, ".svg") || attr(img, "alt") == "" || len(cue) != 1 || attr(cue[0], "href") != src {
				bad("img %q (alt %q), cue links %d; want an SVG with its title as alt and the cue linking it", src, attr(img, "alt"), len(cue))
			}
			var csv []string
			for _, a := range findAll(kids[2], func(n *html.Node) bool { return n.Data == "a" }) {
				csv = append(csv, attr(a, "href"))
			}
			if want := strings.TrimSuffix(src, ".svg") + ".csv"; len(csv) != 1 || csv[0] != want || !strings.HasSuffix(text(kids[2]), "Data behind the figure (CSV).") {
				bad("caption links %q and ends %q; want %q, “Data behind the figure (CSV).”", csv, text(kids[2]), want)
			}
			widths[w]++
		}
		if len(figs) > 0 {
			pages = append(pages, strings.TrimSuffix("/"+path.Dir(filepath.ToSlash(rel))+"/", "./"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return widths, pages
}

// TestFixtureFiguresScrollOnAPhone: every figure of the fixture site (bar
// figures 768 px wide, the release-date figure 672) is embedded by
// layouts/_partials/figure.html (figureFrames).
func TestFixtureFiguresScrollOnAPhone(t *testing.T) {
	fx := builtFixture(t)
	widths, pages := figureFrames(t, fx.dir)
	if widths[plots.DisplayWidthPx] < 4 || widths[plots.ReleaseDisplayWidthPx] < 2 {
		t.Errorf("figures per width %v on %d pages; want the bar figures of both editions (4 or more at %d px) and their release-date figures (%d px)",
			widths, len(pages), plots.DisplayWidthPx, plots.ReleaseDisplayWidthPx)
	}
	t.Logf("figures per width %v on %d pages", widths, len(pages))
}

// TestRealPreviewFiguresScrollOnAPhone: so is every figure of the
// real-data preview, whose root has the interval figure and whose cost
// page has cost figures.
func TestRealPreviewFiguresScrollOnAPhone(t *testing.T) {
	dir := builtRealPreview(t)
	widths, pages := figureFrames(t, dir)
	var cost, root bool
	for _, p := range pages {
		cost = cost || strings.HasSuffix(p, "/cost/")
		root = root || p == "/"
	}
	if !cost || !root || widths[plots.DisplayWidthPx] < 10 {
		t.Errorf("figures per width %v on pages %q; want the root's interval figure, the cost page's and the bar figures", widths, pages)
	}
	t.Logf("figures per width %v on %d pages", widths, len(pages))
}
