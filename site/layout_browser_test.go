package site_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// pageTypes returns, for each layout of the generated Hugo pages under
// work/content (their JSON front matter's "layout" and "url"), the URL of
// its largest rendered page in the built site dir: the page of that type
// most likely to be too wide.
func pageTypes(t *testing.T, work, dir string) map[string]string {
	t.Helper()
	out, size := map[string]string{}, map[string]int64{}
	err := filepath.WalkDir(filepath.Join(work, "content"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var pg struct{ URL, Layout string }
		if err := json.Unmarshal(data, &pg); err != nil {
			return err
		}
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(pg.URL), "index.html"))
		if err != nil {
			t.Errorf("%s: url %q has no page: %v", p, pg.URL, err)
			return nil
		}
		if fi.Size() > size[pg.Layout] {
			out[pg.Layout], size[pg.Layout] = pg.URL, fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layoutBrowser serves dir on 127.0.0.1 and starts Debian's chromium
// (headless, chromedp, scrollbars hidden); it returns the context (90 s
// after the first navigation), the server's URL and a stop function.
func layoutBrowser(t *testing.T, dir string) (context.Context, string, func()) {
	t.Helper()
	exe := sitetest.ChromiumPath(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.FileServer(http.Dir(dir))}}
	srv.Start()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	stop := func() { cancelC(); cancelA(); srv.Close() }
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil { // starts the browser: no timeout on that context
		stop()
		t.Fatal(err)
	}
	tctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	return tctx, srv.URL, func() { cancelT(); stop() }
}

// checkPagesFit opens the root, the release list and the largest page of
// every layout of the site built in dir (work: its Hugo sources) at
// 400 × 800 and at 1366 × 900, and fails for each page whose document is
// wider than the viewport (it would scroll sideways). It returns the number
// of page types checked.
func checkPagesFit(t *testing.T, ctx context.Context, base, dir, work string) int {
	t.Helper()
	types := pageTypes(t, work, dir)
	types["releases"] = "/releases/"
	var layouts []string
	for l := range types {
		layouts = append(layouts, l)
	}
	slices.Sort(layouts)
	for _, vp := range [][2]int64{{400, 800}, {1366, 900}} {
		for _, l := range layouts {
			url := base + types[l]
			err := chromedp.Do(ctx, chromedp.EmulateViewport(vp[0], vp[1]), chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body")))
			var w []float64
			if err == nil {
				w, err = chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[document.documentElement.scrollWidth, window.innerWidth, document.documentElement.clientWidth]`))
			}
			if err != nil {
				t.Fatalf("%s at %d px: %v", url, vp[0], err)
			}
			if w[1] != float64(vp[0]) || w[0] != w[1] || w[2] != w[1] {
				t.Errorf("%s page %s at %d × %d: document %g px wide, viewport %g (client %g): want the document as wide as the viewport",
					l, types[l], vp[0], vp[1], w[0], w[1], w[2])
			}
		}
	}
	return len(layouts)
}

// columnsInView is a script returning, for the first ranked table of the
// page, each heading's text and whether it lies inside both the viewport
// and the table's scroll box, the box's scroll and client widths, and how
// many of the other protocols' headings are shown.
const columnsInView = `(() => {
	const tab = document.querySelector("section.ranked-table table.ranked"), box = tab.closest(".scroll");
	const b = box.getBoundingClientRect();
	const heads = Array.from(tab.tHead.rows[0].cells).filter(th => !th.classList.contains("extra")).map(th => {
		const r = th.getBoundingClientRect();
		return {text: th.textContent.trim(), inView: r.width > 0 && r.left >= Math.max(0, b.left) - 0.5 && r.right <= Math.min(innerWidth, b.right) + 0.5};
	});
	const extra = Array.from(tab.tHead.rows[0].cells).filter(th => th.classList.contains("extra"));
	return {heads: heads, scrollWidth: box.scrollWidth, clientWidth: box.clientWidth,
		extra: extra.length, extraShown: extra.filter(th => th.getBoundingClientRect().width > 0).length,
		details: tab.querySelectorAll("td .detail").length, detailsShown: Array.from(tab.querySelectorAll("td .detail")).filter(d => d.offsetHeight > 0).length,
		toggle: !!tab.closest("section").querySelector("input.show-extra"),
		sub: (() => { const s = tab.tBodies[0].rows[0].querySelector("th.name .row-sub"); return s && s.offsetHeight > 0 ? s.textContent.trim() : ""; })(),
		system: (() => { const c = tab.tBodies[0].rows[0].querySelector("td.system"); return c ? c.textContent.trim() : ""; })()};
})()`

type inView struct {
	Heads []struct {
		Text   string `json:"text"`
		InView bool   `json:"inView"`
	} `json:"heads"`
	ScrollWidth float64 `json:"scrollWidth"`
	ClientWidth float64 `json:"clientWidth"`
	Extra       int     `json:"extra"`
	ExtraShown  int     `json:"extraShown"`
	// Details are the cells' interval-and-n lines (span.detail).
	Details      int  `json:"details"`
	DetailsShown int  `json:"detailsShown"`
	Toggle       bool `json:"toggle"`
	// Sub is the first row's system and retrieval source under its model's
	// name, "" where hidden (wide screens); System the row's System cell.
	Sub    string `json:"sub"`
	System string `json:"system"`
}

// TestBrowserFixturePagesFitTheViewport on the fixture site no
// page type (the root, the release list and every layout of an edition)
// scrolls sideways at 400 × 800 or 1366 × 900; at 1366 the root's first
// table shows rank, model, system, retrieval source, the headline task
// success and runnable rates and provenance without scrolling, the other
// protocols' columns and each value's interval and n hidden until the
// table's checkbox is ticked; at 400 the
// model and the headline task success rate are in view, the row's system
// and retrieval source under the model's name and the System column hidden.
func TestBrowserFixturePagesFitTheViewport(t *testing.T) {
	fx := builtFixture(t)
	ctx, base, stop := layoutBrowser(t, fx.dir)
	defer stop()
	n := checkPagesFit(t, ctx, base, fx.dir, fx.work)
	if n < 18 {
		t.Errorf("%d page types checked, want the root, the release list and the 16 or more layouts of an edition", n)
	}

	open := func(w, h int64) inView {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("table.ranked"))); err != nil {
			t.Fatal(err)
		}
		v, err := chromedp.Run(ctx, chromedp.Evaluate[inView](columnsInView))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	at1366 := open(1366, 900)
	var texts []string
	for _, h := range at1366.Heads {
		texts = append(texts, h.Text)
		if !h.InView {
			t.Errorf("at 1366 px the first table's column %q is not in view", h.Text)
		}
	}
	want := []string{"#", "Model", "System", "Retrieval source", "Task success rate (%), as publishedmean ± pop. std of rounds",
		"Function runnable rate (%), as published *mean ± pop. std of rounds", "Provenance"}
	if !slices.Equal(texts, want) {
		t.Errorf("at 1366 px the first table shows the columns %q, want %q", texts, want)
	}
	if at1366.ScrollWidth > at1366.ClientWidth {
		t.Errorf("at 1366 px the first table scrolls: %g px in a %g px box", at1366.ScrollWidth, at1366.ClientWidth)
	}
	if !at1366.Toggle || at1366.Extra != 2 || at1366.ExtraShown != 0 || at1366.Details == 0 || at1366.DetailsShown != 0 {
		t.Errorf("first table: toggle %v, %d other-protocol columns, %d shown, %d interval lines, %d shown; want a toggle, the 2 mattools-v1 columns and every interval line hidden",
			at1366.Toggle, at1366.Extra, at1366.ExtraShown, at1366.Details, at1366.DetailsShown)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("section.ranked-table label.show-extra"))); err != nil {
		t.Fatal(err)
	}
	toggled, err := chromedp.Run(ctx, chromedp.Evaluate[inView](columnsInView))
	if err != nil {
		t.Fatal(err)
	}
	if toggled.ExtraShown != toggled.Extra || toggled.DetailsShown != toggled.Details {
		t.Errorf("after a click on the toggle %d of the %d other-protocol columns and %d of the %d interval lines are shown",
			toggled.ExtraShown, toggled.Extra, toggled.DetailsShown, toggled.Details)
	}

	at400 := open(400, 800)
	var shown400 []string
	for _, h := range at400.Heads {
		if h.InView {
			shown400 = append(shown400, h.Text)
		}
	}
	if !slices.Contains(shown400, "Model") || !slices.Contains(shown400, want[4]) {
		t.Errorf("at 400 px the first table shows %q in view; want the model and the headline task success rate", shown400)
	}
	if at1366.Sub != "" {
		t.Errorf("at 1366 px the first row shows %q under its model's name; want it only in the System and source columns", at1366.Sub)
	}
	if slices.Contains(shown400, "System") || at400.System == "" || !strings.HasPrefix(at400.Sub, at400.System) {
		t.Errorf("at 400 px the first row shows %q under its model's name (System column in view: %v); want its system %q and source there, the System column hidden",
			at400.Sub, slices.Contains(shown400, "System"), at400.System)
	}
	rows, ticked, _ := checkRowsAlign(t, ctx, base+"/")
	t.Logf("%d page types fit 400 and 1366 px; at 1366 the first table shows %q in a %g px box; at 400 in view: %q; %d rows of the root aligned with their headers (%d with every protocol shown)",
		n, texts, at1366.ClientWidth, shown400, rows, ticked)
}

// TestBrowserRealPagesFitTheViewport on the site built from the
// published MatTools results (MATTOOLS_DATA) no page type scrolls sideways
// at 400 × 800 or 1366 × 900, and at 1366 the root's first table (all 49
// questions, 29 rows and more) needs no horizontal scrolling.
func TestBrowserRealPagesFitTheViewport(t *testing.T) {
	rs := builtReal(t)
	ctx, base, stop := layoutBrowser(t, rs.dir)
	defer stop()
	n := checkPagesFit(t, ctx, base, rs.dir, filepath.Join(filepath.Dir(rs.dir), "work"))
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("table.ranked"))); err != nil {
		t.Fatal(err)
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[inView](columnsInView))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range v.Heads {
		if !h.InView {
			t.Errorf("at 1366 px the first table's column %q is not in view", h.Text)
		}
	}
	// #, Band over questions (the first table is of re-executed runs, which
	// have per-question outcomes), Model, System, Retrieval source, the two
	// headline columns, Provenance.
	if len(v.Heads) != 8 || v.ScrollWidth > v.ClientWidth {
		t.Errorf("at 1366 px the first table shows %d columns in a box %g px wide that scrolls to %g px; want 8 and no scrolling", len(v.Heads), v.ClientWidth, v.ScrollWidth)
	}
	t.Logf("%d page types fit 400 and 1366 px; the first table's %d columns fit its %g px box", n, len(v.Heads), v.ClientWidth)
}

// rowsAlign is a script checking, for every shown table of the page with
// one header row of colspan-1 cells, that each shown row's shown cells
// start at the x of the shown header cells, one for one (a row with a
// colspan cell: that it spans the header's width). It returns the number
// of rows checked, how many are the benchmark audit's (tr.audit-row) and
// one message per misaligned row or cell.
const rowsAlign = `(() => {
	const out = {rows: 0, audit: 0, bad: []};
	const shown = c => c.getBoundingClientRect().width > 0;
	for (const tab of document.querySelectorAll("table")) {
		const head = tab.tHead && tab.tHead.rows.length === 1 ? tab.tHead.rows[0] : null;
		if (!head || Array.from(head.cells).some(c => c.colSpan > 1)) continue;
		const hs = Array.from(head.cells).filter(shown).map(c => c.getBoundingClientRect());
		if (hs.length === 0) continue;
		for (const row of tab.rows) {
			if (row.parentElement === tab.tHead) continue;
			const cs = Array.from(row.cells).filter(shown);
			if (cs.length === 0) continue;
			out.rows++;
			if (row.classList.contains("audit-row")) out.audit++;
			const id = (tab.id || tab.dataset.table || "table") + " row " + row.rowIndex;
			if (cs.some(c => c.colSpan > 1)) {
				const a = cs[0].getBoundingClientRect(), b = cs[cs.length - 1].getBoundingClientRect();
				if (Math.abs(a.left - hs[0].left) > 1 || Math.abs(b.right - hs[hs.length - 1].right) > 1)
					out.bad.push(id + ": spans x " + a.left + "–" + b.right + ", the header " + hs[0].left + "–" + hs[hs.length - 1].right);
				continue;
			}
			if (cs.length !== hs.length) { out.bad.push(id + ": " + cs.length + " cells shown, the header " + hs.length); continue; }
			cs.forEach((c, i) => { const x = c.getBoundingClientRect().left;
				if (Math.abs(x - hs[i].left) > 1) out.bad.push(id + " cell " + (i + 1) + ": x " + x + ", its heading's " + hs[i].left); });
		}
	}
	return out;
})()`

type aligned struct {
	Rows  int      `json:"rows"`
	Audit int      `json:"audit"`
	Bad   []string `json:"bad"`
}

// checkRowsAlign opens url at 1366 × 900 and checks rowsAlign, then ticks
// every table's "show the other protocols" checkbox and checks again; it
// returns the rows checked (unticked, ticked) and the audit rows among them.
func checkRowsAlign(t *testing.T, ctx context.Context, url string) (rows, ticked, audit int) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	check := func(when string) aligned {
		a, err := chromedp.Run(ctx, chromedp.Evaluate[aligned](rowsAlign))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range a.Bad {
			t.Errorf("%s (%s): %s", url, when, b)
		}
		return a
	}
	a := check("as loaded")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => { const bs = document.querySelectorAll("input.show-extra"); bs.forEach(b => b.click()); return bs.length; })()`)); err != nil {
		t.Fatal(err)
	}
	b := check("every table's other protocols shown")
	return a.Rows, b.Rows, a.Audit
}

// TestBrowserRealPreviewRowsAlign: on the real-data preview's root and
// /preview/ home page (built as make preview builds it), every shown row of
// every table lines up with its header's shown cells, as loaded and with
// the other protocols' columns shown: the benchmark audit's rows (the
// reference solution's 84.95 under the task success rate's heading) among
// them.
func TestBrowserRealPreviewRowsAlign(t *testing.T) {
	dir := builtRealPreview(t)
	ctx, base, stop := layoutBrowser(t, dir)
	defer stop()
	for _, p := range []string{"/", "/preview/"} {
		rows, ticked, audit := checkRowsAlign(t, ctx, base+p)
		if audit == 0 {
			t.Errorf("%s: no benchmark audit row shown", p)
		}
		t.Logf("%s: %d rows aligned as loaded, %d with every protocol shown; %d audit rows", p, rows, ticked, audit)
	}
}
