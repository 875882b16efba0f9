package site_test

import (
	"encoding/csv"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/content"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestFixtureModelPagesShowTheirFacts: GPT-4o's model page shows the facts
// of results/model-facts.csv (release date, provider, closed weights,
// parameters not public) with a link to the row's source; the hostile
// model, which has no facts row, shows none; the models index lists the
// same facts with the source link.
func TestFixtureModelPagesShowTheirFacts(t *testing.T) {
	fx := builtFixture(t)
	ed := filepath.Join(fx.dir, "v1.1")
	f, ok := results.ModelFactsOf(sitetest.GPT4o)
	if !ok || len(f.Sources) == 0 {
		t.Fatalf("no facts for %s", sitetest.GPT4o)
	}
	doc := parseHTML(t, filepath.Join(ed, "models", aggregate.Slug(sitetest.GPT4o), "index.html"))
	dls := findAll(doc, func(n *html.Node) bool { return hasClass(n, "model-facts") })
	if len(dls) != 1 {
		t.Fatalf("GPT-4o's page has %d facts lists, want 1", len(dls))
	}
	dd := func(class string) string {
		ns := findAll(dls[0], func(n *html.Node) bool { return hasClass(n, class) })
		if len(ns) != 1 {
			t.Fatalf("facts list: %d .%s", len(ns), class)
		}
		return text(ns[0])
	}
	if got := dd("fact-released"); got != f.ReleaseDate || got != "2024-08-06" {
		t.Errorf("released %q, facts file %q", got, f.ReleaseDate)
	}
	if got := dd("fact-provider"); got != "OpenAI" {
		t.Errorf("provider %q", got)
	}
	if got := dd("fact-weights"); got != "closed weights" {
		t.Errorf("weights %q", got)
	}
	if got := dd("fact-parameters"); got != "not public" {
		t.Errorf("parameters %q", got)
	}
	links := findAll(dls[0], func(n *html.Node) bool { return hasClass(n, "fact-source") })
	var hrefs []string
	for _, a := range links {
		hrefs = append(hrefs, attr(a, "href"))
	}
	if !slices.Equal(hrefs, f.Sources) {
		t.Errorf("source links %v, facts file %v", hrefs, f.Sources)
	}
	hostile := readFile(t, filepath.Join(ed, "models", aggregate.Slug(sitetest.HostileModel), "index.html"))
	if strings.Contains(hostile, "model-facts") {
		t.Error("the hostile model, without a facts row, shows facts")
	}
	index := readFile(t, filepath.Join(ed, "models", "index.html"))
	for _, want := range []string{`<td class="num">2024-08-06</td><td>OpenAI</td><td>closed weights</td>`, `href="` + f.Sources[0] + `"`} {
		if !strings.Contains(index, want) {
			t.Errorf("models index lacks %q", want)
		}
	}
}

// TestFixtureReleaseFigureHasOneRowPerDatedModel: the figure's CSV has one
// row per model of the first headline table that has a cited release date
// (GPT-4o; the hostile model has none), with that date, its weights and
// the best task success rate of its rows under the table's headline
// protocol, computed here from the fixture's runs; the models index shows
// the figure and links its CSV, and the edition's home page links it.
func TestFixtureReleaseFigureHasOneRowPerDatedModel(t *testing.T) {
	fx := builtFixture(t)
	ed := filepath.Join(fx.dir, "v1.1")
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	tab := lb.Headline[0]
	best := map[string]float64{}
	for _, r := range tab.Rows {
		for i, c := range tab.Columns {
			if c.Protocol == tab.HeadlineProtocol && c.Metric == aggregate.TaskSuccessRate && r.Cells[i] != nil && !r.Reference {
				if _, dated := r.Model.Facts.Released(); dated {
					best[r.Model.ID] = max(best[r.Model.ID], r.Cells[i].Summary.Mean)
				}
			}
		}
	}
	if len(best) != 1 || best[sitetest.GPT4o] == 0 {
		t.Fatalf("dated models of the headline table: %v", best)
	}
	recs, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(ed, "figures", content.ReleaseFigureID+".csv")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(best) {
		t.Fatalf("figure CSV has %d rows, want a header and %d:\n%v", len(recs), len(best), recs)
	}
	head, row := recs[0], recs[1]
	col := func(name string) string { return row[slices.Index(head, name)] }
	got, _ := strconv.ParseFloat(col("task_success_rate"), 64)
	if col("model_id") != sitetest.GPT4o || col("release_date") != "2024-08-06" || col("weights") != "closed" ||
		col("scoring_protocol") != tab.HeadlineProtocol || col("question_set") != tab.QuestionSet || strconv.FormatFloat(got, 'f', 4, 64) != strconv.FormatFloat(best[sitetest.GPT4o], 'f', 4, 64) {
		t.Errorf("figure CSV row %v; want GPT-4o, 2024-08-06, closed, %.4f under %s on %s", row, best[sitetest.GPT4o], tab.HeadlineProtocol, tab.QuestionSet)
	}
	index := readFile(t, filepath.Join(ed, "models", "index.html"))
	for _, want := range []string{`src="../figures/` + content.ReleaseFigureID + `.svg"`, `href="../figures/` + content.ReleaseFigureID + `.csv"`,
		"Not shown, for want of a cited release date: " + sitetest.HostileDisplayName} {
		if !strings.Contains(html.UnescapeString(index), want) {
			t.Errorf("models index lacks %q", want)
		}
	}
	if home := readFile(t, filepath.Join(ed, "index.html")); !strings.Contains(home, `models/#release-date">task success over release date</a>`) {
		t.Error("the edition's home page does not link the figure")
	}
}

// TestFixtureRowsCarryWeights: every row of the home page's ranked tables
// carries data-weights: "closed" for GPT-4o (results/model-facts.csv), ""
// for the hostile model, which has no facts row.
func TestFixtureRowsCarryWeights(t *testing.T) {
	fx := builtFixture(t)
	doc := parseHTML(t, filepath.Join(fx.dir, "v1.1", "index.html"))
	var rows []*html.Node // the ranked tables' rows (the QA tables below them hold other models)
	for _, tab := range findAll(doc, func(n *html.Node) bool { return n.Data == "table" && hasClass(n, "ranked") }) {
		rows = append(rows, findAll(tab, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-model") != "" })...)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		want := ""
		if attr(r, "data-model") == sitetest.GPT4o {
			want = "closed"
		}
		w := ""
		for _, a := range r.Attr {
			if a.Key == "data-weights" {
				w = a.Val
				seen[attr(r, "data-model")] = true
			}
		}
		if w != want {
			t.Errorf("row of %s: data-weights %q, want %q", attr(r, "data-model"), w, want)
		}
	}
	if !seen[sitetest.GPT4o] || !seen[sitetest.HostileModel] {
		t.Errorf("rows with data-weights: %v (of %d rows)", seen, len(rows))
	}
}
