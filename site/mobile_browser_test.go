package site_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// namesShown is a script checking every shown model-name cell (th.name) of
// the page's ranked tables with the table's scroll box scrolled to its left
// end, its middle and its right end: a cell is bad when its content is
// clipped (scrollWidth > clientWidth) or another element (the sticky
// headline column) paints over its left edge, middle or right edge.
const namesShown = `(() => {
	const out = {cells: 0, bad: []};
	for (const t of document.querySelectorAll(".scroll > table.ranked")) {
		const box = t.parentElement;
		for (const pos of [0, 0.5, 1]) {
			box.scrollLeft = pos * (box.scrollWidth - box.clientWidth);
			for (const tr of t.tBodies[0].rows) {
				const c = tr.querySelector(".name");
				if (!c || c.getBoundingClientRect().width === 0) continue;
				tr.scrollIntoView({block: "center"});
				const r = c.getBoundingClientRect();
				out.cells++;
				const xs = [r.left + 3, (r.left + r.right) / 2, r.right - 3].filter(x => x >= 0 && x < innerWidth);
				const over = xs.map(x => document.elementFromPoint(x, r.top + 8)).find(e => e && !c.contains(e));
				if (c.scrollWidth > c.clientWidth || over)
					out.bad.push(c.textContent.trim().slice(0, 40) + " (scrolled " + pos + ": " + (over ? "covered by " + over.tagName + "." + over.className : "clipped") + ")");
			}
		}
		box.scrollLeft = 0;
	}
	return out;
})()`

// mobileFacts is a script returning how far the configuration page's facts
// table and its scroll box reach past the viewport (px, 0 when inside),
// every table with a sticky first column whose borders collapse (its
// sticky cells' background hides the row separators under them), and the
// ‡ links whose label's count ("appears twice", "3 times") differs from
// the rows of its table with the same model, system and source.
const mobileChecks = `(() => {
	const out = {factsOver: 0, boxOver: 0, facts: 0, collapsed: [], twice: 0, wrongTwice: []};
	const f = document.querySelector("table.facts");
	if (f) { out.facts = 1; out.factsOver = Math.max(0, f.getBoundingClientRect().right - innerWidth); out.boxOver = f.parentElement.scrollWidth - f.parentElement.clientWidth; }
	for (const t of document.querySelectorAll(".scroll > table")) {
		const c = t.querySelector("tbody th[scope=row], tbody td:first-child");
		if (c && getComputedStyle(c).position === "sticky" && getComputedStyle(t).borderCollapse === "collapse") out.collapsed.push(t.id || t.dataset.table || t.className);
	}
	const key = th => th.textContent.replace(/[‡†▼]/g, "").replace(/\s+/g, " ").trim();
	for (const t of document.querySelectorAll("table.ranked")) {
		const names = Array.from(t.querySelectorAll("tbody th.name")).map(key);
		for (const a of t.querySelectorAll("a.twice-ref")) {
			out.twice++;
			const n = names.filter(k => k === key(a.closest("th"))).length;
			const want = n === 2 ? "twice" : n + " times";
			if (!a.getAttribute("aria-label").includes("appears " + want + " "))
				out.wrongTwice.push(key(a.closest("th")) + ": " + a.getAttribute("aria-label") + ", rows " + n);
		}
	}
	return out;
})()`

type mobileResult struct {
	FactsOver  float64  `json:"factsOver"`
	BoxOver    float64  `json:"boxOver"`
	Facts      int      `json:"facts"`
	Collapsed  []string `json:"collapsed"`
	Twice      int      `json:"twice"`
	WrongTwice []string `json:"wrongTwice"`
}

// TestBrowserRealPreviewAt400 on the real-data preview at 400 × 900: no
// model name of the root's and the single-LLM page's ranked tables is
// clipped or covered by the sticky headline column, as loaded and scrolled
// sideways; a configuration page's facts table fits the viewport; tables
// with a sticky first column (the Models page) keep separate borders, so
// the row separators run under that column; and each ‡ link's label
// counts the rows of its configuration in its table.
func TestBrowserRealPreviewAt400(t *testing.T) {
	dir := builtRealPreview(t)
	configs, err := os.ReadDir(filepath.Join(dir, "preview", "configurations"))
	if err != nil || len(configs) == 0 {
		t.Fatalf("no configuration page under %s: %v", dir, err)
	}
	ctx, base, stop := layoutBrowser(t, dir)
	defer stop()
	open := func(p string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 900), chromedp.Navigate(base+p), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"/preview/", "/preview/single-llm/"} {
		open(p)
		r, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
			Cells int      `json:"cells"`
			Bad   []string `json:"bad"`
		}](namesShown))
		if err != nil {
			t.Fatal(err)
		}
		if r.Cells == 0 {
			t.Errorf("%s: no ranked table's model name shown at 400 px", p)
		}
		for _, b := range r.Bad {
			t.Errorf("%s at 400 px: model name %s", p, b)
		}
		m, err := chromedp.Run(ctx, chromedp.Evaluate[mobileResult](mobileChecks))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range m.WrongTwice {
			t.Errorf("%s: ‡ %s", p, w)
		}
		t.Logf("%s: %d name cells checked (3 scroll positions), %d ‡ links", p, r.Cells, m.Twice)
	}
	for _, p := range []string{"/preview/configurations/" + configs[0].Name() + "/", "/preview/models/"} {
		open(p)
		m, err := chromedp.Run(ctx, chromedp.Evaluate[mobileResult](mobileChecks))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p, "/configurations/") && m.Facts != 1 {
			t.Errorf("%s: %d facts tables; want 1 (the check below would pass on none)", p, m.Facts)
		}
		if m.FactsOver > 0.5 || m.BoxOver > 0 {
			t.Errorf("%s at 400 px: the facts table reaches %g px past the viewport, its box scrolls %g px", p, m.FactsOver, m.BoxOver)
		}
		if len(m.Collapsed) > 0 {
			t.Errorf("%s: tables with a sticky first column and collapsed borders (separators hidden under it): %q", p, m.Collapsed)
		}
		t.Logf("%s: facts table %d (%g px past the viewport)", p, m.Facts, m.FactsOver)
	}
}

// TestBrowserFixtureTwiceLabels: on the fixture site, whose hostile model
// has two single-LLM rows in a table (aggregate's notes_test), each ‡
// link's label says how many rows of its table show its model, system and
// source ("appears twice", "appears 3 times").
func TestBrowserFixtureTwiceLabels(t *testing.T) {
	fx := builtFixture(t)
	ctx, base, stop := layoutBrowser(t, fx.dir)
	defer stop()
	twice := 0
	for _, p := range []string{"/", "/preview/", "/preview/single-llm/"} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1366, 900), chromedp.Navigate(base+p), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
			t.Fatal(err)
		}
		m, err := chromedp.Run(ctx, chromedp.Evaluate[mobileResult](mobileChecks))
		if err != nil {
			t.Fatal(err)
		}
		twice += m.Twice
		for _, w := range m.WrongTwice {
			t.Errorf("%s: ‡ %s", p, w)
		}
		t.Logf("%s: %d ‡ links", p, m.Twice)
	}
	if twice == 0 {
		t.Error("no ‡ link on the fixture's pages: the label check checked nothing")
	}
}
