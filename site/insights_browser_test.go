package site_test

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// singleLLMConfig returns the re-executed single-LLM configuration of a
// model under mattools-v1 in the published results.
func singleLLMConfig(t *testing.T, lb *aggregate.Leaderboard, model string) *aggregate.Configuration {
	t.Helper()
	for _, c := range lb.Configurations {
		if c.Key.System == results.SystemSingleLLM && c.Key.Model == model && c.Key.ScoringProtocol == results.ProtocolMatToolsV1 &&
			c.Key.Provenance == "rescored:imported" {
			return c
		}
	}
	t.Fatalf("no re-executed single-LLM configuration of %s under mattools-v1", model)
	return nil
}

// TestBrowserCompareGPT4oWithGPT4oMini opens the comparison page
// for GPT-4o vs GPT-4o mini (single LLM, re-executed, mattools-v1) in
// chromium: the page shows one row per question of the set with each
// round's properties passed, and wins, losses, ties and the sign test's p
// value equal those computed here from the results files' rows (p by
// results/stats, which TestAgainstSciPy checks against SciPy); the paired
// difference in task success rate and its 95 % interval over questions,
// computed by the page's script from compare.json, equal the Go estimator
// (aggregate.PairedDifference, checked against statsmodels), and its ≈
// says whether that interval includes 0. After a reload the choice (in the
// URL) is still shown.
func TestBrowserCompareGPT4oWithGPT4oMini(t *testing.T) {
	rs := builtReal(t)
	lb := aggregate.Build(rs.files, aggregate.DefaultCatalog())
	a, b := singleLLMConfig(t, lb, "gpt-4o-2024-08-06"), singleLLMConfig(t, lb, "gpt-4o-mini-2024-07-18")

	// Expected, from the rows: mean properties passed over the rounds per question.
	means := func(c *aggregate.Configuration) map[string]float64 {
		sum, n := map[string]float64{}, map[string]float64{}
		for _, r := range c.RunsWith(aggregate.StatusAggregated) {
			for _, q := range r.File.Questions {
				if q.Verdict == string(results.VerdictDataMissing) || q.PropertiesPassed == nil {
					continue
				}
				sum[q.QuestionID] += float64(*q.PropertiesPassed)
				n[q.QuestionID]++
			}
		}
		for k := range sum {
			sum[k] /= n[k]
		}
		return sum
	}
	ma, mb := means(a), means(b)
	wins, losses, ties := 0, 0, 0
	for q, x := range ma {
		switch y := mb[q]; {
		case x > y:
			wins++
		case x < y:
			losses++
		default:
			ties++
		}
	}
	wantP := stats.SignTest(wins, losses)

	path := "/" + rs.release + "/compare/?a=" + a.Slug + "&b=" + b.Slug
	ctx, _, stop := browse(t, rs, path, `#compare-table tbody tr`)
	defer stop()
	type page struct {
		Rows                int      `json:"rows"`
		Questions           []string `json:"questions"`
		ARounds             []string `json:"aRounds"`
		Wins, Losses, Ties  string
		P                   string `json:"p"`
		Text                string `json:"text"`
		SelA, SelB, Search  string
		OutcomeWins, Header string
		Diff, Lo, Hi, Tied  string
		Paired              string
	}
	read := func() page {
		t.Helper()
		p, err := chromedp.Run(ctx, chromedp.Evaluate[page](`(() => { const o = document.getElementById("compare-result"); const rows = Array.from(document.querySelectorAll("#compare-table tbody tr"));
			return {rows: rows.length, questions: rows.map(r => r.getAttribute("data-question")), aRounds: rows.map(r => r.cells[3].textContent),
				Wins: o.getAttribute("data-wins"), Losses: o.getAttribute("data-losses"), Ties: o.getAttribute("data-ties"), p: o.getAttribute("data-p"), text: o.textContent,
				SelA: document.getElementById("compare-a").value, SelB: document.getElementById("compare-b").value, Search: location.search,
				OutcomeWins: String(rows.filter(r => r.getAttribute("data-outcome") === "win").length), Header: document.getElementById("compare-head-a").textContent,
				Diff: document.getElementById("compare-paired").getAttribute("data-diff"), Lo: document.getElementById("compare-paired").getAttribute("data-lo"),
				Hi: document.getElementById("compare-paired").getAttribute("data-hi"), Tied: document.getElementById("compare-paired").getAttribute("data-tied"),
				Paired: document.getElementById("compare-paired").textContent}; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	got := read()
	if got.Rows != len(ma) || got.Rows != a.QuestionSet().Questions {
		t.Errorf("comparison table has %d rows; the question set has %d questions (%d with outcomes)", got.Rows, a.QuestionSet().Questions, len(ma))
	}
	if got.Wins != strconv.Itoa(wins) || got.Losses != strconv.Itoa(losses) || got.Ties != strconv.Itoa(ties) || got.OutcomeWins != got.Wins {
		t.Errorf("page: wins %s losses %s ties %s (%s rows marked win); from the rows: %d %d %d", got.Wins, got.Losses, got.Ties, got.OutcomeWins, wins, losses, ties)
	}
	p, err := strconv.ParseFloat(got.P, 64)
	if err != nil || math.Abs(p-wantP) > 1e-9 {
		t.Errorf("page p = %q, results/stats SignTest(%d, %d) = %.12g", got.P, wins, losses, wantP)
	}
	if got.SelA != a.Slug || got.SelB != b.Slug || got.Header != "A per round (r1 / r2 / r3)" {
		t.Errorf("selected %s vs %s, header %q; want %s vs %s, rounds r1–r3", got.SelA, got.SelB, got.Header, a.Slug, b.Slug)
	}
	t.Logf("GPT-4o vs GPT-4o mini (single LLM, mattools-v1, %d questions): %s", got.Rows, got.Text)
	want, ok := aggregate.PairedDifference(a, b, aggregate.TaskSuccessRate)
	if !ok {
		t.Fatal("GPT-4o and GPT-4o mini have no paired difference")
	}
	for _, v := range []struct {
		name, got string
		want      float64
	}{{"difference", got.Diff, want.Mean}, {"lower end", got.Lo, want.Lo}, {"upper end", got.Hi, want.Hi}} {
		if x, err := strconv.ParseFloat(v.got, 64); err != nil || math.Abs(x-v.want) > 1e-9 {
			t.Errorf("paired %s on the page %q, aggregate.PairedDifference %.12g", v.name, v.got, v.want)
		}
	}
	if tied := strconv.FormatBool(!want.Excludes0()); got.Tied != tied || (tied == "true") != strings.Contains(got.Paired, "A ≈ B") {
		t.Errorf("page: tied %q, %q; the Go interval [%.4f, %.4f] says tied %s", got.Tied, got.Paired, want.Lo, want.Hi, tied)
	}
	t.Logf("paired (Go: %.6f pp [%.6f, %.6f]): %s", want.Mean, want.Lo, want.Hi, got.Paired)

	// The choice survives a reload: it is in the URL.
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#compare-table tbody tr`))); err != nil {
		t.Fatal(err)
	}
	again := read()
	if again.SelA != a.Slug || again.SelB != b.Slug || again.P != got.P || again.Rows != got.Rows {
		t.Errorf("after a reload: %s vs %s, p %s, %d rows; before: %s vs %s, p %s, %d rows", again.SelA, again.SelB, again.P, again.Rows, got.SelA, got.SelB, got.P, got.Rows)
	}
}

// TestBrowserFilterNarrowsTheTableAndSurvivesAReload: on the
// landing page, choosing system LLM-RAG in the first headline table's
// filter leaves only LLM-RAG rows visible (fewer than before), puts
// system=llm-rag in the URL, and after a reload the menu and the narrowed
// table are still so; adding retrieval source 4 narrows further to the
// five models' source-4 rows.
func TestBrowserFilterNarrowsTheTableAndSurvivesAReload(t *testing.T) {
	rs := builtReal(t)
	ctx, _, stop := browse(t, rs, "/"+rs.release+"/", `table.ranked`)
	defer stop()
	type state struct {
		Total, Shown int
		Systems      []string
		Sources      []string
		Search       string
		Menu         string
		Options      []string
	}
	read := func() state {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[state](`(() => { const t = document.querySelector("table.ranked");
			const rows = Array.from(t.tBodies[0].rows), vis = rows.filter(r => !r.hidden);
			const bar = t.closest(".scroll").previousElementSibling, sel = bar.querySelector("select[data-filter=system]");
			return {Total: rows.length, Shown: vis.length, Systems: [...new Set(vis.map(r => r.getAttribute("data-system")))],
				Sources: [...new Set(vis.map(r => r.getAttribute("data-source")))], Search: location.search, Menu: sel ? sel.value : "(no menu)",
				Options: sel ? Array.from(sel.options).map(o => o.value) : []}; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	choose := func(dim, value string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const t = document.querySelector("table.ranked");
			const sel = t.closest(".scroll").previousElementSibling.querySelector("select[data-filter=`+dim+`]");
			sel.value = "`+value+`"; sel.dispatchEvent(new Event("change")); return true; })()`)); err != nil {
			t.Fatal(err)
		}
	}
	before := read()
	if before.Shown != before.Total || !slices.Contains(before.Options, "llm-rag") || len(before.Systems) < 2 {
		t.Fatalf("before filtering: %+v", before)
	}
	choose("system", "llm-rag")
	after := read()
	if after.Shown == 0 || after.Shown >= before.Total || !slices.Equal(after.Systems, []string{"llm-rag"}) || after.Search != "?system=llm-rag" {
		t.Errorf("system LLM-RAG: %d of %d rows shown, systems %v, URL %q", after.Shown, after.Total, after.Systems, after.Search)
	}
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`table.ranked`))); err != nil {
		t.Fatal(err)
	}
	reloaded := read()
	if reloaded.Menu != "llm-rag" || reloaded.Shown != after.Shown || !slices.Equal(reloaded.Systems, []string{"llm-rag"}) {
		t.Errorf("after a reload: menu %q, %d rows shown, systems %v; before the reload %d rows", reloaded.Menu, reloaded.Shown, reloaded.Systems, after.Shown)
	}
	choose("source", "4")
	both := read()
	if !slices.Equal(both.Sources, []string{"4"}) || both.Shown != 5 || !strings.Contains(both.Search, "source=4") || !strings.Contains(both.Search, "system=llm-rag") {
		t.Errorf("LLM-RAG and source 4: %d rows (want the 5 models), sources %v, URL %q", both.Shown, both.Sources, both.Search)
	}
	t.Logf("headline table: %d rows; system LLM-RAG: %d; after a reload: %d; and source 4: %d (URL %s)", before.Total, after.Shown, reloaded.Shown, both.Shown, both.Search)
}

// TestRealInsightPagesAreBuilt: the built edition has the
// failures, comparison, cost and modules pages; the re-executed GPT-4o
// single-LLM configuration's page lists its round-1 ImportError questions
// as links to their question pages and names a hallucinated API; the cost
// page has its accuracy-vs-cost figure.
func TestRealInsightPagesAreBuilt(t *testing.T) {
	rs := builtReal(t)
	lb := aggregate.Build(rs.files, aggregate.DefaultCatalog())
	c := singleLLMConfig(t, lb, "gpt-4o-2024-08-06")
	ed := filepath.Join(rs.dir, rs.release)
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(ed, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	conf := read("configurations/" + c.Slug + "/index.html")
	i := strings.Index(conf, `id="outcome-import-error"`)
	if i < 0 {
		t.Fatal("GPT-4o configuration page: no ImportError outcome")
	}
	row := conf[i : i+strings.Index(conf[i:], "</tr>")]
	for _, q := range []string{"test_pchip_eval", "test_substitution", "test_get_avg_chg", "test_get_SRH_coef", "test_get_local_extrema", "test_group_docs", "test_closest_sc_mat"} {
		if !strings.Contains(row, `href="../../questions/`+q+`/"`) {
			t.Errorf("ImportError row does not link %s: %.300s", q, row)
		}
	}
	if !strings.Contains(conf, "<code>pymatgen.analysis.defects.utils.get_closest_sc_mat</code>") {
		t.Error("GPT-4o configuration page does not name the hallucinated get_closest_sc_mat")
	}
	for rel, want := range map[string]string{
		"failures/index.html": `id="hallucinations-by-model"`,
		"compare/index.html":  `data-src="../downloads/compare.json"`,
		"cost/index.html":     `figures/cost-cost-2025-05-all-49-mattools-original`,
		"modules/index.html":  `class="sortable heatmap"`,
	} {
		if page := read(rel); !strings.Contains(page, want) {
			t.Errorf("%s lacks %s", rel, want)
		}
	}
}
