package site_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/hugo"
)

// TestFixtureDownloadsListEveryTableAndTheFormatVersion: the downloads page
// names the results format version the files have (results.FormatVersion)
// and links every CSV of downloads/tables/, the ranked tables' included.
func TestFixtureDownloadsListEveryTableAndTheFormatVersion(t *testing.T) {
	fx := builtFixture(t)
	ed := filepath.Join(fx.dir, "v1.1")
	page := readFile(t, filepath.Join(ed, "downloads", "index.html"))
	if want := fmt.Sprintf("Results files (Parquet, results format v%d)", results.FormatVersion); !strings.Contains(page, want) {
		t.Errorf("downloads page lacks the heading %q", want)
	}
	entries, err := os.ReadDir(filepath.Join(ed, "downloads", "tables"))
	if err != nil {
		t.Fatal(err)
	}
	ranked := 0
	for _, e := range entries {
		if !strings.Contains(page, `href="../downloads/tables/`+e.Name()+`"`) {
			t.Errorf("downloads page does not link downloads/tables/%s", e.Name())
		}
		if strings.HasPrefix(e.Name(), "tool-usage-") {
			ranked++
		}
	}
	if len(entries) == 0 || ranked == 0 {
		t.Fatalf("%d table CSVs, %d of them headline ranked tables: the fixture should have both", len(entries), ranked)
	}
	for _, want := range []string{`id="ranked-tables"`, "rank_best", "ci95_lo", "sample_std_percent"} {
		if !strings.Contains(page, want) {
			t.Errorf("downloads page lacks %q (the ranked tables and the columns of both kinds of table)", want)
		}
	}
}

var downloadRE = regexp.MustCompile(`<li><a href="\.\./([^"]+)">[^<]*</a> — [^<]*?\(([0-9.]+) (B|kB|MB|GB)\)</li>`)

// TestFixtureDownloadsShowSizes every download the downloads
// page lists (results files, table CSVs, ranked tables, figures and their
// data) shows its size, and the size read back is the file's size in the
// built site to the digit shown.
func TestFixtureDownloadsShowSizes(t *testing.T) {
	fx := builtFixture(t)
	ed := filepath.Join(fx.dir, "v1.1")
	page := readFile(t, filepath.Join(ed, "downloads", "index.html"))
	items := strings.Count(page, "<li><a href=")
	ms := downloadRE.FindAllStringSubmatch(page, -1)
	if len(ms) != items || items < 20 {
		t.Fatalf("downloads page: %d list items, %d with a size; want every one with a size (and the fixture's 20 or more)", items, len(ms))
	}
	unit := map[string]float64{"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
	kinds := map[string]bool{}
	for _, m := range ms {
		fi, err := os.Stat(filepath.Join(ed, filepath.FromSlash(m[1])))
		if err != nil {
			t.Errorf("download %s: %v", m[1], err)
			continue
		}
		var shown float64
		fmt.Sscan(m[2], &shown)
		half := 0.5 // the last digit shown: a unit for bytes, a tenth above
		if m[3] != "B" {
			half = 0.05
		}
		if got := float64(fi.Size()) / unit[m[3]]; got < shown-half || got > shown+half {
			t.Errorf("download %s shows %s %s; the file has %d bytes", m[1], m[2], m[3], fi.Size())
		}
		kinds[filepath.Ext(m[1])] = true
	}
	for _, ext := range []string{".parquet", ".csv", ".svg"} {
		if !kinds[ext] {
			t.Errorf("no %s download with a size among %d", ext, len(ms))
		}
	}
}

// TestFixtureProvenanceShowsBadges: every "Provenance" column and row of
// every page (QA table, model, system and configuration pages, the
// configuration pages' rounds) shows the badge the boards use ("as
// published", "runner", "paper only", …), never a raw provenance value
// ("imported", "rescored:imported", "paper"), which only the CSVs, data
// attributes and configuration keys keep.
func TestFixtureProvenanceShowsBadges(t *testing.T) {
	fx := builtFixture(t)
	ed := filepath.Join(fx.dir, "v1.1")
	badges := []string{"as published", "re-executed", "runner", "self-reported", "verified", "paper only"}
	isBadge := func(s string) bool {
		for _, b := range badges {
			if s == b || strings.HasPrefix(s, b+" ") || strings.HasPrefix(s, b+":") {
				return true
			}
		}
		return false
	}
	elems := func(n *html.Node, tags ...string) []*html.Node {
		var out []*html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && slices.Contains(tags, c.Data) {
				out = append(out, c)
			}
		}
		return out
	}
	checked := map[string]int{}
	for _, rel := range htmlFiles(t, ed) {
		doc := parseHTML(t, filepath.Join(ed, rel))
		for _, table := range findAll(doc, func(n *html.Node) bool { return n.Data == "table" }) {
			col := -1
			for _, thead := range elems(table, "thead") {
				for _, tr := range elems(thead, "tr") {
					for i, th := range elems(tr, "th", "td") {
						if text(th) == "Provenance" {
							col = i
						}
					}
				}
			}
			for _, tbody := range elems(table, "tbody") {
				for _, tr := range elems(tbody, "tr") {
					cells := elems(tr, "th", "td")
					var cell *html.Node
					switch {
					case col >= 0 && col < len(cells) && !hasClass(tr, "group-header"):
						cell = cells[col]
					case len(cells) == 2 && text(cells[0]) == "Provenance": // a facts table
						cell = cells[1]
					default:
						continue
					}
					checked[strings.SplitN(rel, "/", 2)[0]]++
					if got := text(cell); !isBadge(got) {
						t.Errorf("%s: provenance cell %q is not a badge (%s)", rel, got, strings.Join(badges, ", "))
					}
				}
			}
		}
	}
	for _, dir := range []string{"qa", "models", "systems", "configurations"} {
		if checked[dir] == 0 {
			t.Errorf("no provenance cell checked under %s/: the test no longer finds them", dir)
		}
	}
}

// TestFixtureCompareRuleSaidAlike: the comparison page and the methodology
// page state the same rule for a question's win, the one compare.js applies
// (the mean of the properties passed over the rounds with an outcome, so
// that configurations of different n compare on one scale), never a sum.
func TestFixtureCompareRuleSaidAlike(t *testing.T) {
	fx := builtFixture(t)
	ed := filepath.Join(fx.dir, "v1.1")
	const rule = "averaged over its rounds with an outcome, exceed B"
	js := readFile(t, filepath.Join(ed, "assets", "compare.js"))
	if !strings.Contains(js, "var ma = mean(A.passed[i]), mb = mean(B.passed[i])") || !strings.Contains(js, "if (x !== null) { s += x; n++; }") {
		t.Fatal("compare.js no longer compares the means over the rounds with an outcome: update the rule in compare.html and the methodology")
	}
	for _, page := range []string{"compare", "methodology"} {
		got := text(parseHTML(t, filepath.Join(ed, page, "index.html")))
		if !strings.Contains(got, rule) || strings.Contains(got, "summed over the rounds") {
			t.Errorf("%s page does not state the rule %q (or still says summed)", page, rule)
		}
		if !strings.Contains(got, "different numbers of rounds (n)") || !strings.Contains(got, "no outcome") {
			t.Errorf("%s page does not say what happens when n differs or a question has no outcome", page)
		}
	}
}

// TestFixtureLinksTheRepository: every page's footer links this project's
// repository (hugo.RepositoryURL) and its SUBMITTING.md, and the
// submissions page links both where it names them.
func TestFixtureLinksTheRepository(t *testing.T) {
	fx := builtFixture(t)
	repo := `href="` + hugo.RepositoryURL + `"`
	submitting := `href="` + hugo.RepositoryFiles + `SUBMITTING.md"`
	pages := htmlFiles(t, fx.dir)
	for _, rel := range pages {
		doc := parseHTML(t, filepath.Join(fx.dir, rel))
		footers := findAll(doc, func(n *html.Node) bool { return n.Data == "footer" })
		if len(footers) != 1 {
			t.Errorf("%s: %d footers", rel, len(footers))
			continue
		}
		var b strings.Builder
		html.Render(&b, footers[0])
		if !strings.Contains(b.String(), repo) || !strings.Contains(b.String(), submitting) {
			t.Errorf("%s: the footer does not link the repository and SUBMITTING.md:\n%s", rel, b.String())
		}
	}
	sub := readFile(t, filepath.Join(fx.dir, "v1.1", "submissions", "index.html"))
	main := sub[strings.Index(sub, "<main>"):strings.Index(sub, "</main>")]
	if !strings.Contains(main, submitting+`><code>SUBMITTING.md</code></a>`) || !strings.Contains(main, repo+`>repository</a>`) {
		t.Errorf("the submissions page does not link SUBMITTING.md and the repository where it names them")
	}
	if len(pages) < 20 {
		t.Fatalf("only %d pages", len(pages))
	}
}

// TestFixtureTitlesNameTheSiteOnce: a home page's title is the site's name
// (with the edition), not that name twice; other pages add it after theirs.
func TestFixtureTitlesNameTheSiteOnce(t *testing.T) {
	fx := builtFixture(t)
	for rel, want := range map[string]string{
		"index.html":                  "MatTools leaderboard",
		"v1.1/index.html":             "MatTools leaderboard v1.1",
		"v1.0/index.html":             "MatTools leaderboard v1.0",
		"v1.1/downloads/index.html":   "Downloads · MatTools leaderboard v1.1",
		"v1.1/methodology/index.html": "Methodology · MatTools leaderboard v1.1",
	} {
		titles := findAll(parseHTML(t, filepath.Join(fx.dir, rel)), func(n *html.Node) bool { return n.Data == "title" })
		if len(titles) != 1 || text(titles[0]) != want {
			got := ""
			if len(titles) > 0 {
				got = text(titles[0])
			}
			t.Errorf("%s: title %q, want %q", rel, got, want)
		}
	}
}

// pluralRE matches a count of one with a plural noun, or a noun hedged
// with "(s)".
var pluralRE = regexp.MustCompile(`(?:^|[^\d.,/])1 (?:runs|rows|properties|questions|configurations|rounds|tables|chunks|answers|calls|stages|iterations|figures|names|outcomes|problems|verdicts|records)\b|\b[a-z]+\((?:s|es)\)`)

// TestFixtureCountsAgree: no page of the fixture site writes "1 runs",
// "1 properties" or "run(s)": every count agrees with its noun.
func TestFixtureCountsAgree(t *testing.T) {
	fx := builtFixture(t)
	ones := 0
	for _, rel := range htmlFiles(t, fx.dir) {
		body := findAll(parseHTML(t, filepath.Join(fx.dir, rel)), func(n *html.Node) bool { return n.Data == "body" })
		if len(body) != 1 {
			t.Fatalf("%s: no body", rel)
		}
		got := text(body[0])
		if m := pluralRE.FindString(got); m != "" {
			i := strings.Index(got, m)
			t.Errorf("%s: %q in …%s…", rel, m, got[max(0, i-60):min(len(got), i+60)])
		}
		ones += len(regexp.MustCompile(`(?:^|[^\d.,/])1 (?:run|row|property|question|configuration|round|table)\b`).FindAllString(got, -1))
	}
	if ones == 0 {
		t.Error("no page of the fixture writes a count of one: the test checks nothing")
	}
}
