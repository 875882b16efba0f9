package site_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

// figuresShown is a script returning, for every figure of the page, its
// img's width attribute and shown width (clientWidth: the SVG drawn inside its border), whether its frame scrolls
// sideways, how tall its cue is and its caption's top relative to the
// frame's bottom, and the document's and the viewport's widths.
const figuresShown = `(() => ({
	figures: Array.from(document.querySelectorAll("figure")).map(f => {
		const img = f.querySelector("img"), frame = f.querySelector(".figure-frame"), cue = f.querySelector(".figure-cue");
		return {src: img ? img.getAttribute("src") : "", width: img ? +img.getAttribute("width") : 0, shown: img ? img.clientWidth : 0,
			scrolls: !!frame && frame.scrollWidth > frame.clientWidth + 1, cue: cue ? cue.getBoundingClientRect().height : -1};
	}),
	doc: document.documentElement.scrollWidth, vw: innerWidth}))()`

type shownFigures struct {
	Figures []struct {
		Src     string  `json:"src"`
		Width   float64 `json:"width"`
		Shown   float64 `json:"shown"`
		Scrolls bool    `json:"scrolls"`
		Cue     float64 `json:"cue"`
	} `json:"figures"`
	Doc float64 `json:"doc"`
	VW  float64 `json:"vw"`
}

// checkFiguresShown opens each page (site paths under base) at 400 × 800,
// 720 × 800 and 1366 × 900 and checks every figure: it is shown no wider
// than its width attribute and no narrower than the width at which its
// smallest text (plots.ValuePx at that width) would fall under
// plots.ReadableTextPx; at 1366 at its width attribute, not scrolling; at
// 400 scrolling sideways in its frame; its cue shown exactly when its frame
// scrolls; the page itself never wider than the viewport. It returns the
// figures checked at 400 px and how many scrolled at 720 (where a 768 px
// figure scrolls and a 672 px one fits).
func checkFiguresShown(t *testing.T, ctx context.Context, base string, pages []string) (phone, scrolledAt720, fitAt720 int) {
	t.Helper()
	for _, vp := range [][2]int64{{400, 800}, {720, 800}, {1366, 900}} {
		for _, p := range pages {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp[0], vp[1]), chromedp.Navigate(base+p), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
				t.Fatal(err)
			}
			// An img's width is known once its SVG has loaded.
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)`, chromedp.WithPollingTimeout(0))); err != nil {
				t.Fatalf("%s: figures not loaded: %v", p, err)
			}
			s, err := chromedp.Run(ctx, chromedp.Evaluate[shownFigures](figuresShown))
			if err != nil {
				t.Fatal(err)
			}
			if s.Doc != s.VW || len(s.Figures) == 0 {
				t.Errorf("%s at %d px: document %g px wide in a %g px viewport, %d figures; want no sideways scrolling and a figure", p, vp[0], s.Doc, s.VW, len(s.Figures))
			}
			for _, f := range s.Figures {
				smallest := plots.ValuePx * f.Shown / f.Width
				if f.Width == 0 || f.Shown > f.Width+0.5 || smallest < plots.ReadableTextPx-0.01 {
					t.Errorf("%s at %d px: %s shown %.1f px wide (width %g): its smallest text %.2f px; want ≤ its width and ≥ %d px text",
						p, vp[0], f.Src, f.Shown, f.Width, smallest, plots.ReadableTextPx)
				}
				if f.Scrolls != (f.Cue > 0) {
					t.Errorf("%s at %d px: %s scrolls %v, its cue %g px tall; want the cue shown exactly when the figure scrolls", p, vp[0], f.Src, f.Scrolls, f.Cue)
				}
				switch vp[0] {
				case 400:
					phone++
					if !f.Scrolls {
						t.Errorf("%s at 400 px: %s shown %.1f px wide does not scroll", p, f.Src, f.Shown)
					}
				case 720:
					if f.Scrolls {
						scrolledAt720++
					} else {
						fitAt720++
					}
				case 1366:
					// Its width attribute holds the img's 1 px border (box-sizing: border-box): the SVG is drawn 2 px narrower.
					if f.Shown != f.Width-2 || f.Scrolls {
						t.Errorf("%s at 1366 px: %s drawn %.1f px wide (scrolls %v), want its width %g less its border", p, f.Src, f.Shown, f.Scrolls, f.Width)
					}
				}
			}
		}
	}
	return phone, scrolledAt720, fitAt720
}

// TestBrowserFixtureFiguresReadableOnAPhone: on every page of the fixture
// site with a figure (checkFiguresShown), at 720 px a 768 px bar figure
// scrolls with its cue and the 672 px release-date figure fits without.
func TestBrowserFixtureFiguresReadableOnAPhone(t *testing.T) {
	fx := builtFixture(t)
	_, pages := figureFrames(t, fx.dir)
	ctx, base, stop := layoutBrowser(t, fx.dir)
	defer stop()
	phone, scrolled, fit := checkFiguresShown(t, ctx, base, pages)
	if phone < 7 || scrolled == 0 || fit == 0 {
		t.Errorf("%d figures checked on %d pages; at 720 px %d scrolled, %d fit; want 7 or more, and both at 720", phone, len(pages), scrolled, fit)
	}
	t.Logf("%d figures on %d pages; at 720 px %d scroll (with their cue), %d fit", phone, len(pages), scrolled, fit)
}

// TestBrowserRealPreviewFiguresReadableOnAPhone: so on the real-data
// preview (the root's interval figure, the cost figures and the others).
func TestBrowserRealPreviewFiguresReadableOnAPhone(t *testing.T) {
	dir := builtRealPreview(t)
	_, pages := figureFrames(t, dir)
	ctx, base, stop := layoutBrowser(t, dir)
	defer stop()
	phone, scrolled, fit := checkFiguresShown(t, ctx, base, pages)
	if phone < 20 || scrolled == 0 || fit == 0 {
		t.Errorf("%d figures checked on %d pages; at 720 px %d scrolled, %d fit; want 20 or more, and both at 720", phone, len(pages), scrolled, fit)
	}
	t.Logf("%d figures on %d pages; at 720 px %d scroll (with their cue), %d fit", phone, len(pages), scrolled, fit)
}
