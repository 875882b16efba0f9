package e2e_test

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/e2e/fakerunner"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// copyTree copies the regular files below src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(filepath.Join(dst, rel))
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBrowserLandingRanksRunnerRunsBesideReexecutedOnes: a fake
// model whose function returns a dict of None for every property, run
// through the real runner and sandbox for 3 rounds, lands in the same
// 28-question table as the re-executed GPT-4o single-LLM runs, at the rank
// its task success rate gives (below GPT-4o, although its runnable rate is
// 100), with its badge; the landing page's first rows are in descending
// task success rate; the paper link is an <a href>; a 400 px viewport shows
// no horizontal page overflow.
func TestBrowserLandingRanksRunnerRunsBesideReexecutedOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a site with Hugo and runs the sandbox; skipped with -short")
	}
	root, importedDir, _ := realData(t)
	exe := sitetest.ChromiumPath(t)
	fakeDir := fakerunner.FakeNoneModelRuns(t, root)
	subsDir, verifiedDir := fakerunner.ExampleSubmission(t, root)

	base := t.TempDir()
	resultsDir := filepath.Join(base, "results")
	copyTree(t, importedDir, filepath.Join(resultsDir, "imported"))
	copyTree(t, fakeDir, filepath.Join(resultsDir, "fake"))
	copyTree(t, fakerunner.Run(t, root).RAGDir, filepath.Join(resultsDir, "fake-rag"))
	copyTree(t, fakerunner.Run(t, root).AdvancedDir, filepath.Join(resultsDir, "fake-advanced"))
	graphDir := fakerunner.Run(t, root).GraphDir
	if graphDir != "" {
		copyTree(t, graphDir, filepath.Join(resultsDir, "fake-graph"))
	}
	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "public")
	// No release: the preview holds every run, as a new user's site does
	// after running a model.
	rep, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: bench, DataHint: "hint",
		RepoRoot: repoRoot(t), OutDir: out, WorkDir: filepath.Join(base, "work"), Releases: []release.Release{},
		SubmissionsDir: subsDir, VerifiedDir: verifiedDir, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) > 0 {
		t.Errorf("build warnings: %v", rep.Warnings)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.FileServer(http.Dir(out))}}
	srv.Start()
	defer srv.Close()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 1000),
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	home := srv.URL + "/" + site.PreviewPath + "/"
	if err := chromedp.Do(ctx, chromedp.Navigate(home), chromedp.WaitVisible(chromedp.CSS(`table.ranked`))); err != nil {
		t.Fatal(err)
	}
	tctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	ctx = tctx

	type row struct {
		Rank    string   `json:"rank"`
		Model   string   `json:"model"`
		ModelID string   `json:"modelID"`
		System  string   `json:"system"`
		Source  string   `json:"source"`
		Badges  []string `json:"badges"`
		Hrefs   []string `json:"hrefs"` // of the badges that link
		Cells   []string `json:"cells"` // data-sort of each metric column
	}
	type table struct {
		Heading string   `json:"heading"`
		Columns []string `json:"columns"`
		Rows    []row    `json:"rows"`
	}
	tables, err := chromedp.Run(ctx, chromedp.Evaluate[[]table](`Array.from(document.querySelectorAll("section.ranked-table")).map(s => {
		const tab = s.querySelector("table.ranked");
		const heads = Array.from(tab.tHead.rows[0].cells);
		const metricIdx = heads.map((h, i) => h.dataset.metric ? i : -1).filter(i => i >= 0);
		return {heading: s.querySelector("h2").textContent,
			columns: metricIdx.map(i => heads[i].dataset.metric + "|" + heads[i].dataset.protocol),
			rows: Array.from(tab.tBodies[0].rows).map(r => ({rank: (r.cells[0].getAttribute("data-rank") || r.cells[0].textContent.trim()), model: r.querySelector("th").textContent.trim(),
				modelID: r.dataset.model, system: r.dataset.system, source: r.dataset.sourceLabel,
				badges: Array.from(r.querySelectorAll(".badge")).map(b => b.textContent.trim()),
				hrefs: Array.from(r.querySelectorAll("a.badge")).map(b => b.href),
				cells: metricIdx.map(i => r.cells[i].getAttribute("data-sort"))}))};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) < 2 {
		t.Fatalf("landing page has %d ranked tables, want the whole benchmark and the 28-question subset", len(tables))
	}
	num := func(s string) float64 {
		if s == "" {
			return -1
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("sort key %q: %v", s, err)
		}
		return v
	}
	col := func(tb table, metric, protocol string) int { return slices.Index(tb.Columns, metric+"|"+protocol) }

	// The page leads with the re-executed table of the runnable questions
	// (the 28-question subset of the published benchmark version); the whole
	// benchmark's table follows, its first rows in descending headline task
	// success rate.
	sub := tables[0]
	if !strings.Contains(sub.Heading, "28 runnable questions") || strings.Contains(sub.Heading, "Corrected") {
		t.Errorf("first table is %q, want the re-executed table of the 28 runnable questions", sub.Heading)
	}
	var whole table
	for _, tb := range tables {
		if strings.Contains(tb.Heading, "All 49 questions") {
			whole = tb
			break
		}
	}
	var firstVals []float64
	for _, r := range whole.Rows[:min(5, len(whole.Rows))] {
		firstVals = append(firstVals, num(r.Cells[0]))
	}
	if len(firstVals) < 5 || !slices.IsSortedFunc(firstVals, func(a, b float64) int { return cmp.Compare(b, a) }) {
		t.Errorf("the whole benchmark's table %q: first rows' task success rates %v, want 5 in descending order", whole.Heading, firstVals)
	}

	// The subset table holds the fake model and re-executed GPT-4o single LLM.
	tsr, frr := col(sub, "task_success_rate", results.ProtocolMatToolsV1), col(sub, "function_runnable_rate", results.ProtocolMatToolsV1)
	if tsr != 0 || frr < 0 {
		t.Fatalf("subset table %q columns %v: want task success rate under mattools-v1 first", sub.Heading, sub.Columns)
	}
	fake, gpt := -1, -1
	for i, r := range sub.Rows {
		switch {
		case r.ModelID == fakerunner.Model && r.System == string(results.SystemSingleLLM):
			fake = i
		case r.ModelID == "gpt-4o-2024-08-06" && r.System == string(results.SystemSingleLLM):
			gpt = i
		}
	}
	if fake < 0 || gpt < 0 {
		t.Fatalf("subset table %q: fake model row %d, GPT-4o single-LLM row %d", sub.Heading, fake, gpt)
	}
	fr, gr := sub.Rows[fake], sub.Rows[gpt]
	if !slices.Equal(fr.Badges, []string{"runner"}) || !slices.Equal(gr.Badges, []string{"re-executed"}) {
		t.Errorf("badges: fake %v, GPT-4o %v", fr.Badges, gr.Badges)
	}
	// Its rank is the one its task success rate gives: 1 + the rows above it.
	above := 0
	for _, r := range sub.Rows {
		if num(r.Cells[tsr]) > num(fr.Cells[tsr]) {
			above++
		}
	}
	if fr.Rank != strconv.Itoa(above+1) {
		t.Errorf("fake model rank %q, want %d (task success %s; %d rows above)", fr.Rank, above+1, fr.Cells[tsr], above)
	}
	if !(num(fr.Cells[frr]) > num(gr.Cells[frr])) || !(num(fr.Cells[tsr]) < num(gr.Cells[tsr])) || fake < gpt {
		t.Errorf("fake model: runnable %s, success %s at row %d; GPT-4o: runnable %s, success %s at row %d; want the fake above in runnable, below in rank",
			fr.Cells[frr], fr.Cells[tsr], fake, gr.Cells[frr], gr.Cells[tsr], gpt)
	}

	// The fake model's LLM-RAG runs (issues 11, 12): sources 1–4 (3 and 4
	// from the fake model's own documentation), BM25 and dense, each a row of its own in the same table as its single-LLM row,
	// labelled with the retrieval source and method, at the same rates (the
	// same dict-of-None answers).
	var ragSources []string
	for _, r := range sub.Rows {
		if r.ModelID == fakerunner.Model && r.System == string(results.SystemLLMRAG) {
			ragSources = append(ragSources, r.Source)
			if r.Cells[tsr] != fr.Cells[tsr] || r.Cells[frr] != fr.Cells[frr] || !slices.Equal(r.Badges, []string{"runner"}) {
				t.Errorf("fake model llm-rag %s: success %s, runnable %s, badges %v; want the single-LLM row's %s, %s", r.Source, r.Cells[tsr], r.Cells[frr], r.Badges, fr.Cells[tsr], fr.Cells[frr])
			}
		}
	}
	var labels []string
	for _, src := range ragSources {
		label, origin, _ := strings.Cut(src, " — ")
		labels = append(labels, label)
		if strings.HasPrefix(src, "3:") || strings.HasPrefix(src, "4:") {
			if !strings.HasPrefix(origin, "generated by fake-docs, prompt sha256:") || len(origin) > 120 {
				t.Errorf("source label %q: want the documentation's origin, its prompt hash shortened", src)
			}
		} else if origin != "" {
			t.Errorf("source label %q names an origin", src)
		}
	}
	slices.Sort(labels)
	if want := []string{"1: pymatgen code, BM25", "1: pymatgen code, dense (fake-embedding)", "2: official docs, BM25", "2: official docs, dense (fake-embedding)",
		"3: LLM docs (chunked), BM25", "3: LLM docs (chunked), dense (fake-embedding)", "4: LLM docs (per object), BM25", "4: LLM docs (per object), dense (fake-embedding)"}; !slices.Equal(labels, want) {
		t.Errorf("fake model's llm-rag rows in %q: %q, want %q", sub.Heading, labels, want)
	}

	// The fake model's agentic RAG and both self-reflection variants (issue
	// 13): rows of the same table, at the single-LLM row's rates (the same
	// final code), labelled by variant; the question page of test_vacancy
	// shows each round's stage trace, collapsed: the loop's 5 iterations.
	var advanced []string
	for _, r := range sub.Rows {
		if r.ModelID == fakerunner.Model && (r.System == string(results.SystemAgenticRAG) || r.System == string(results.SystemSelfReflectionRAG) ||
			r.System == string(results.SystemGraphRAG)) {
			advanced = append(advanced, r.System+" "+r.Model)
			if r.Cells[tsr] != fr.Cells[tsr] || r.Cells[frr] != fr.Cells[frr] {
				t.Errorf("fake model %s: success %s, runnable %s; want the single-LLM row's %s, %s", r.System, r.Cells[tsr], r.Cells[frr], fr.Cells[tsr], fr.Cells[frr])
			}
		}
	}
	if want := map[bool]int{true: 4, false: 3}[graphDir != ""]; len(advanced) != want {
		t.Errorf("fake model's advanced-system rows in %q: %q, want agentic RAG, two self-reflection variants and (with LIGHTRAG_DATA) GraphRAG", sub.Heading, advanced)
	}
	// Each configuration's rounds (code, traces) are on its code page
	// (questions/<q>/code/<configuration>/), linked from the question page.
	qURL := srv.URL + "/" + site.PreviewPath + "/questions/test_vacancy/"
	if err := chromedp.Do(ctx, chromedp.Navigate(qURL), chromedp.WaitReady(chromedp.CSS(`h1`))); err != nil {
		t.Fatal(err)
	}
	codePages, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(new Set(Array.from(document.querySelectorAll("a[href*='code/']")).map(a => a.href.split("#")[0])))`))
	if err != nil {
		t.Fatal(err)
	}
	var traces []string
	for _, u := range codePages {
		if err := chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS(`h1`))); err != nil {
			t.Fatal(err)
		}
		tr, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("details.trace")).map(d =>
			d.querySelector("summary").textContent.trim() + " | open=" + d.open + " | rows=" + d.querySelectorAll("tbody tr").length)`))
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr...)
	}
	// One section per configuration (protocols apart), one entry per round.
	var loops, agentic int
	for _, tr := range traces {
		switch {
		case strings.HasPrefix(tr, "Stage trace: 28 stages, 5 iterations | open=false"):
			loops++ // 5 × (retrieve, generate, format-check, execute) + 4 × (critic, its check)
		case strings.HasPrefix(tr, "Stage trace: 18 stages, 1 iteration | open=false"):
			agentic++ // 12 calls, 4 retrievals, 2 lookups
		}
	}
	if loops != 2*2*fakerunner.Rounds || agentic != 2*fakerunner.Rounds {
		t.Errorf("test_vacancy's page shows %d collapsed loop traces and %d agentic ones; want %d and %d: %q",
			loops, agentic, 2*2*fakerunner.Rounds, 2*fakerunner.Rounds, traces)
	}

	// The example submission: verified in the 28-question table
	// (the project's re-execution covers the questions with data files),
	// self-reported in the whole-benchmark table (its authors scored all 49);
	// both badges link to its entry on the submissions page.
	subURL := srv.URL + "/" + site.PreviewPath + "/submissions/#" + fakerunner.ExampleFolder
	exampleRow := func(tb table) *row {
		for i, r := range tb.Rows {
			if r.ModelID == fakerunner.ExampleModel {
				return &tb.Rows[i]
			}
		}
		t.Fatalf("table %q has no row of the example submission's model %s", tb.Heading, fakerunner.ExampleModel)
		return nil
	}
	ver, self := exampleRow(sub), exampleRow(whole)
	if !slices.Equal(ver.Badges, []string{"verified"}) || !slices.Equal(ver.Hrefs, []string{subURL}) ||
		!slices.Equal(self.Badges, []string{"self-reported"}) || !slices.Equal(self.Hrefs, []string{subURL}) {
		t.Errorf("example submission: %q in %q, %q in %q; want verified and self-reported, linking to %s", ver.Badges, sub.Heading,
			self.Badges, whole.Heading, subURL)
	}
	if ver.Cells[tsr] != fr.Cells[tsr] || ver.Cells[frr] != fr.Cells[frr] || ver.Rank != fr.Rank {
		t.Errorf("example submission (dict of None, verified): rank %s, success %s, runnable %s; want the fake model's (the same answers): %s, %s, %s",
			ver.Rank, ver.Cells[tsr], ver.Cells[frr], fr.Rank, fr.Cells[tsr], fr.Cells[frr])
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(subURL), chromedp.WaitVisible(chromedp.CSS(`section.submission`))); err != nil {
		t.Fatal(err)
	}
	entry, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => { const s = document.getElementById(`+strconv.Quote(fakerunner.ExampleFolder)+`);
			return s ? [s.querySelector(".badge").textContent.trim(), s.querySelector("a[rel~=nofollow]").href, s.textContent] : []; })()`))
	if err != nil {
		t.Fatal(err)
	}
	nExec := 0
	for _, q := range bench.Questions {
		if q.Executable() {
			nExec++
		}
	}
	partial := fmt.Sprintf("verified on %d of %d questions", nExec, len(bench.Questions))
	if len(entry) != 3 || entry[0] != partial || entry[1] != "https://example.org/none-dict-baseline" ||
		!strings.Contains(entry[2], "Example Author") || !strings.Contains(entry[2], "CC-BY-4.0") || !strings.Contains(entry[2], "6 of its 6 runs") ||
		!strings.Contains(entry[2], fmt.Sprintf("Verified on %d of its %d questions", nExec, len(bench.Questions))) {
		t.Errorf("submissions page entry %s: %q", fakerunner.ExampleFolder, entry)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(home), chromedp.WaitVisible(chromedp.CSS(`table.ranked`))); err != nil {
		t.Fatal(err)
	}

	// Real links to the paper and the upstream repository.
	links, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("main a[href]")).map(a => a.href)`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(links, "https://arxiv.org/abs/2505.10852") || !slices.Contains(links, "https://github.com/Grenzlinie/MatTools") {
		t.Errorf("landing page links lack the paper or the upstream repository")
	}

	// A 400 px wide screen: tables scroll inside their box, the page does not.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 800), chromedp.Navigate(home), chromedp.WaitVisible(chromedp.CSS(`table.ranked`))); err != nil {
		t.Fatal(err)
	}
	overflow, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[document.documentElement.scrollWidth, document.documentElement.clientWidth,
		Math.max(...Array.from(document.querySelectorAll("table.ranked")).map(t => t.closest(".scroll").scrollWidth)),
		Math.max(...Array.from(document.querySelectorAll("table.ranked")).map(t => t.closest(".scroll").getBoundingClientRect().right))]`))
	if err != nil {
		t.Fatal(err)
	}
	if overflow[0] > overflow[1] {
		t.Errorf("at 400 px the page is %g px wide for a %g px viewport: horizontal overflow", overflow[0], overflow[1])
	}
	if overflow[3] > overflow[1] {
		t.Errorf("at 400 px a table's scroll box ends at %g px, past the %g px viewport", overflow[3], overflow[1])
	}
	if overflow[2] <= overflow[1] {
		t.Logf("tables fit in %g px without scrolling", overflow[1])
	} else {
		t.Logf("tables %g px wide scroll inside their boxes", overflow[2])
	}
	t.Logf("subset table %q: fake model rank %s (success %s, runnable %s), GPT-4o rank %s (success %s, runnable %s); first rows %v; 400 px: page %g of %g px",
		sub.Heading, fr.Rank, fr.Cells[tsr], fr.Cells[frr], gr.Rank, gr.Cells[tsr], gr.Cells[frr], firstVals, overflow[0], overflow[1])
}
