package site_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/net/html"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
)

// realSite is one Hugo build of the published MatTools results, shared by
// the tests below (and the browser test).
type realSite struct {
	dir      string // public/
	release  string // the newest release's path
	files    []*results.File
	releases []site.Release
}

var (
	realOnce  sync.Once
	realBuilt *realSite
	realErr   error
)

func builtReal(t *testing.T) *realSite {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	root, resultsDir, files := realData(t)
	realOnce.Do(func() {
		bench, err := datasets.Load(root)
		if err != nil {
			realErr = err
			return
		}
		rs, err := site.DefaultReleases()
		if err != nil {
			realErr = err
			return
		}
		if len(rs) == 0 {
			// Before the first release is cut: a v1.0 of every published run.
			r := site.Release{Version: "v1.0", Date: "2026-12-01", GeneratorCommit: "test", Title: "published MatTools results"}
			for _, f := range files {
				r.Runs = append(r.Runs, f.Run.RunID)
			}
			rs = []site.Release{r}
		}
		base, err := os.MkdirTemp("", "site-real-")
		if err != nil {
			realErr = err
			return
		}
		out := filepath.Join(base, "public")
		_, realErr = site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: bench, DataHint: "hint",
			RepoRoot: repoRoot(t), OutDir: out, WorkDir: filepath.Join(base, "work"), Releases: rs})
		realBuilt = &realSite{dir: out, release: rs[len(rs)-1].Version, files: files, releases: rs}
	})
	if realErr != nil {
		t.Fatal(realErr)
	}
	return realBuilt
}

func parseHTML(t *testing.T, path string) *html.Node {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, c string) bool {
	return n.Type == html.ElementNode && slices.Contains(strings.Fields(attr(n, "class")), c)
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// findAll returns the element nodes under n for which match is true.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// TestRealQuestionPagesListEveryImportedRun: 49 question pages exist, and
// each lists every imported tool-usage run of every configuration (issue 3).
func TestRealQuestionPagesListEveryImportedRun(t *testing.T) {
	rs := builtReal(t)
	inRelease := map[string]bool{}
	for _, id := range rs.releases[len(rs.releases)-1].Runs {
		inRelease[id] = true
	}
	want := map[string][]string{} // question id → run ids
	runs := 0
	for _, f := range rs.files {
		if f.Run.Benchmark != results.BenchmarkToolUsage || f.Run.Provenance.Kind != results.ProvenanceImported || !inRelease[f.Run.RunID] {
			continue
		}
		runs++
		for _, q := range f.Questions {
			want[q.QuestionID] = append(want[q.QuestionID], f.Run.RunID)
		}
	}
	dirs, err := os.ReadDir(filepath.Join(rs.dir, rs.release, "questions"))
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, d := range dirs {
		if d.IsDir() {
			pages++
		}
	}
	if pages != datasets.NumQuestions {
		t.Errorf("%d question pages, want %d", pages, datasets.NumQuestions)
	}
	listed := 0
	for _, id := range datasets.Order() {
		doc := parseHTML(t, filepath.Join(rs.dir, rs.release, "questions", id, "index.html"))
		got := map[string]bool{}
		for _, n := range findAll(doc, func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "run") }) {
			got[attr(n, "data-run-id")] = true
		}
		for _, r := range want[id] {
			if !got[r] {
				t.Errorf("question %s does not list run %s", id, r)
			}
		}
		if len(want[id]) != runs {
			t.Errorf("question %s has rows in %d of the %d imported runs", id, len(want[id]), runs)
		}
		listed += len(got)
	}
	t.Logf("%d question pages list %d runs in all (%d imported tool-usage runs each)", pages, listed, runs)
}

// TestRealPaperOnlyValuesAreMarkedAndNeverComputed: every value of the
// paper-only file is on the methodology page with the mark; no computed cell
// holds a paper-only value or mark, and every computed cell equals its
// configuration's mean computed from the runs (issue 3).
func TestRealPaperOnlyValuesAreMarkedAndNeverComputed(t *testing.T) {
	rs := builtReal(t)
	doc := parseHTML(t, filepath.Join(rs.dir, rs.release, "methodology", "index.html"))
	for _, v := range paperonly.Values() {
		rows := findAll(doc, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "id") == "paper-"+v.ID })
		if len(rows) != 1 {
			t.Errorf("methodology: value %s listed %d times, want once", v.ID, len(rows))
			continue
		}
		cells := findAll(rows[0], func(n *html.Node) bool { return hasClass(n, "paper-only") })
		if len(cells) != 1 || text(cells[0]) != v.Text+" "+paperonly.Mark {
			t.Errorf("methodology: value %s shown as %q, want %q with the mark", v.ID, text(rows[0]), v.Text)
		}
		if findAll(rows[0], func(n *html.Node) bool { return hasClass(n, "computed") }) != nil {
			t.Errorf("methodology: value %s inside a computed cell", v.ID)
		}
	}
	lb := aggregate.Build(filesOf(rs), aggregate.DefaultCatalog())
	byKey := map[string]*aggregate.Configuration{}
	for _, c := range lb.Configurations {
		byKey[c.Key.String()] = c
	}
	computed, paperCells := 0, 0
	for _, b := range aggregate.Boards {
		doc := parseHTML(t, filepath.Join(rs.dir, rs.release, string(b), "index.html"))
		var rows []*html.Node
		for _, tb := range findAll(doc, func(n *html.Node) bool { return n.Data == "table" && hasClass(n, "sortable") }) {
			rows = append(rows, findAll(tb, func(n *html.Node) bool { return n.Data == "tr" })...)
		}
		for _, row := range rows {
			cells := findAll(row, func(n *html.Node) bool { return n.Data == "td" && hasClass(n, "computed") })
			if hasClass(row, "paper-only-row") {
				if len(cells) > 0 {
					t.Errorf("%s: paper-only row %q has computed cells", b, text(row))
				}
				paperCells += len(findAll(row, func(n *html.Node) bool { return hasClass(n, "paper-only") }))
				continue
			}
			for _, c := range cells {
				computed++
				if strings.Contains(text(c), paperonly.Mark) || findAll(c, func(n *html.Node) bool { return hasClass(n, "paper-only") }) != nil {
					t.Errorf("%s: computed cell %q holds a paper-only value", b, text(c))
				}
				mean := text(findAll(c, func(n *html.Node) bool { return hasClass(n, "mean") })[0])
				ok := false
				for _, key := range strings.Fields(attr(row, "data-configs")) {
					conf := byKey[key]
					if conf == nil {
						t.Errorf("%s: row names unknown configuration %s", b, key)
						continue
					}
					for _, s := range conf.Summaries {
						if strconv.FormatFloat(s.Mean, 'f', 2, 64) == mean {
							ok = true
						}
					}
				}
				if !ok {
					t.Errorf("%s: computed cell %q is not the mean of its row's configurations", b, text(c))
				}
			}
		}
	}
	if computed < 50 || paperCells != 4 {
		t.Errorf("%d computed cells, %d paper-only cells in tables (want ChemLLM ×2 and LightRAG ×2)", computed, paperCells)
	}
}

func filesOf(rs *realSite) []*results.File {
	in := map[string]bool{}
	for _, id := range rs.releases[len(rs.releases)-1].Runs {
		in[id] = true
	}
	var out []*results.File
	for _, f := range rs.files {
		if in[f.Run.RunID] {
			out = append(out, f)
		}
	}
	return out
}

// TestRealReleaseAndLatest: /vX.Y/ and /latest/ exist and are equal; every
// switcher link of the release's pages resolves.
func TestRealReleaseAndLatest(t *testing.T) {
	rs := builtReal(t)
	a, b := htmlFiles(t, filepath.Join(rs.dir, rs.release)), htmlFiles(t, filepath.Join(rs.dir, site.LatestPath))
	if len(a) < 100 || !slices.Equal(a, b) {
		t.Fatalf("%s has %d pages, latest %d", rs.release, len(a), len(b))
	}
	for _, rel := range a {
		if readFile(t, filepath.Join(rs.dir, rs.release, rel)) != readFile(t, filepath.Join(rs.dir, site.LatestPath, rel)) {
			t.Errorf("latest/%s differs from %s/%s", rel, rs.release, rel)
		}
	}
	switcherRE := regexp.MustCompile(`class="version-link" data-version="[^"]*" href="([^"]+)"`)
	n := 0
	for _, rel := range a {
		page := readFile(t, filepath.Join(rs.dir, rs.release, rel))
		for _, m := range switcherRE.FindAllStringSubmatch(page, -1) {
			target := filepath.Join(rs.dir, rs.release, filepath.Dir(rel), filepath.FromSlash(m[1]), "index.html")
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: switcher link %s does not resolve", rel, m[1])
			}
			n++
		}
	}
	if n < 3*len(a) {
		t.Errorf("%d switcher links on %d pages", n, len(a))
	}
}

// chromiumPath returns Debian's chromium; without it the browser test is
// skipped, except under CI, where scripts/setup.sh installs it.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found under CI: scripts/setup.sh installs it (apt-get install chromium)")
	}
	t.Skip("chromium not found (apt-get install chromium)")
	return ""
}

// TestBrowserSingleLLMPage drives Debian's chromium (headless, chromedp)
// against the built site served on 127.0.0.1: it finds 45.58 in the GPT-4o
// row, checks every figure loaded, sorts the table by a column and checks
// the order, and opens a question page (issue 3).
func TestBrowserSingleLLMPage(t *testing.T) {
	rs := builtReal(t)
	exe := chromiumPath(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.FileServer(http.Dir(rs.dir))}}
	srv.Start()
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	col := `Array.from(document.querySelectorAll("table.sortable")[0].tHead.rows[0].cells).findIndex(th => th.textContent.startsWith("Function runnable rate"))`
	sortKeys := `(() => { const t = document.querySelectorAll("table.sortable")[0]; const c = ` + col + `;
		return Array.from(t.tBodies[0].rows).map(r => r.cells[c].getAttribute("data-sort")); })()`
	// The first Run starts the browser: no timeout on that context (chromedp.Run's rule).
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"+site.LatestPath+"/single-llm/"),
		chromedp.WaitVisible(chromedp.CSS(`table.sortable`))); err != nil {
		t.Fatal(err)
	}
	tctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	ctx = tctx
	gpt4oRow, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const th = Array.from(document.querySelectorAll("table.sortable tbody th[scope=row]")).find(th => th.textContent.replace(/[†\s]+$/, "").trim() === "GPT-4o");
		return th ? th.parentElement.textContent : ""; })()`))
	if err != nil {
		t.Fatal(err)
	}
	images, err := chromedp.Run(ctx, chromedp.Evaluate[[]map[string]any](`new Promise(resolve => { const imgs = Array.from(document.images);
		Promise.all(imgs.map(i => i.complete ? 0 : new Promise(r => { i.onload = i.onerror = r; }))).then(() =>
			resolve(imgs.map(i => ({src: i.getAttribute("src"), width: i.naturalWidth})))); })`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	before, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](sortKeys))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`table.sortable thead th:nth-child(3)`))); err != nil {
		t.Fatal(err)
	}
	heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`table.sortable thead th:nth-child(3)`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(heading, "Function runnable rate") {
		t.Fatalf("third heading is %q, want the function runnable rate", heading)
	}
	after, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](sortKeys))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gpt4oRow, "45.58") {
		t.Errorf("GPT-4o row = %q, want it to contain 45.58", gpt4oRow)
	}
	if len(images) == 0 {
		t.Error("the single-LLM page shows no figure")
	}
	for _, img := range images {
		if w, _ := img["width"].(float64); w <= 0 {
			t.Errorf("figure %v did not load (naturalWidth 0)", img["src"])
		}
	}
	vals := func(keys []string) []float64 {
		var out []float64
		for _, k := range keys {
			v, err := strconv.ParseFloat(k, 64)
			if err != nil {
				t.Fatalf("sort key %q: %v", k, err)
			}
			out = append(out, v)
		}
		return out
	}
	b, a := vals(before), vals(after)
	if len(a) < 5 || len(a) != len(b) {
		t.Fatalf("sort keys before %v, after %v", before, after)
	}
	if !slices.IsSortedFunc(a, func(x, y float64) int { return -cmpFloat(x, y) }) {
		t.Errorf("after a click on the runnable-rate heading the rows are %v, want descending", a)
	}
	if slices.Equal(a, b) {
		t.Errorf("sorting did not reorder the rows (%v)", a)
	}

	// Open one question page from the questions index.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"+site.LatestPath+"/questions/"),
		chromedp.Click(chromedp.CSS(`a[href="../questions/test_vacancy/"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#statement`))); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`h1`)))
	if err != nil {
		t.Fatal(err)
	}
	runsListed, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("details.run").length`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`details.run:has(pre.code) > summary`))); err != nil {
		t.Fatal(err)
	}
	codeShown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const d = document.querySelector("details.run:has(pre.code)"); const c = d.querySelector("pre.code");
		return "open=" + d.open + " code=" + (c.offsetHeight > 0); })()`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, "test_vacancy") || runsListed == 0 || codeShown != "open=true code=true" {
		t.Errorf("question page: title %q, %d runs, code shown after a click: %v", title, runsListed, codeShown)
	}
	t.Logf("GPT-4o row %q; %d figures loaded; sorted %d rows; question page lists %d runs", strings.Join(strings.Fields(gpt4oRow), " "), len(images), len(a), runsListed)
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
