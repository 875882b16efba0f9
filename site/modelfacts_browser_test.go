package site_test

import (
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestBrowserWeightsFilterNarrowsTheTable: on the fixture's v1.1 home page
// the first headline table offers a weights menu (closed for GPT-4o, not
// known for the hostile model, which has no facts row); choosing closed
// leaves only GPT-4o's rows visible (fewer than before), puts weights=closed
// in the URL, and after a reload the menu and the narrowed table are still so.
func TestBrowserWeightsFilterNarrowsTheTable(t *testing.T) {
	fx := builtFixture(t)
	ctx, _, stop := browse(t, &realSite{dir: fx.dir}, "/v1.1/", `table.ranked`)
	defer stop()
	type state struct {
		Total, Shown int
		Models       []string
		Search, Menu string
		Options      []string
	}
	read := func() state {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[state](`(() => { const t = document.querySelector("table.ranked");
			const rows = Array.from(t.tBodies[0].rows), vis = rows.filter(r => !r.hidden);
			const sel = t.closest(".scroll").previousElementSibling.querySelector("select[data-filter=weights]");
			return {Total: rows.length, Shown: vis.length, Models: [...new Set(vis.map(r => r.getAttribute("data-model")))], Search: location.search,
				Menu: sel ? sel.value : "(no menu)", Options: sel ? Array.from(sel.options).map(o => o.value + ":" + o.textContent) : []}; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := read()
	if want := []string{":all", ":not known", "closed:closed weights"}; !slices.Equal(before.Options, want) || before.Shown != before.Total {
		t.Fatalf("before filtering: %+v; want the options %q and every row shown", before, want)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const t = document.querySelector("table.ranked");
		const sel = t.closest(".scroll").previousElementSibling.querySelector("select[data-filter=weights]");
		sel.value = "closed"; sel.dispatchEvent(new Event("change")); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	after := read()
	if after.Shown == 0 || after.Shown >= before.Total || !slices.Equal(after.Models, []string{sitetest.GPT4o}) || after.Search != "?weights=closed" {
		t.Errorf("weights closed: %d of %d rows shown, models %v, URL %q", after.Shown, after.Total, after.Models, after.Search)
	}
	if err := chromedp.Do(ctx, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`table.ranked`))); err != nil {
		t.Fatal(err)
	}
	if reloaded := read(); reloaded.Menu != "closed" || reloaded.Shown != after.Shown || !slices.Equal(reloaded.Models, []string{sitetest.GPT4o}) {
		t.Errorf("after a reload: menu %q, %d rows shown, models %v; before the reload %d rows", reloaded.Menu, reloaded.Shown, reloaded.Models, after.Shown)
	}
	t.Logf("first headline table: %d rows; closed weights: %d (URL %s)", before.Total, after.Shown, after.Search)
}
