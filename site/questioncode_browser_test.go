package site_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestBrowserQuestionRoundLoadsItsCode (chromium, the fixture site served
// on 127.0.0.1): a question page holds no code; opening a round of the
// runner section fetches the section's code page and shows that round's
// code and error excerpt in place of the link (static/assets/questions.js),
// as text.
func TestBrowserQuestionRoundLoadsItsCode(t *testing.T) {
	fx := builtFixture(t)
	ctx, base, stop := layoutBrowser(t, fx.dir)
	defer stop()
	q := sitetest.Questions[1].ID // the runner's answer is partial, with an error excerpt
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/v1.1/questions/"+q+"/"), chromedp.WaitVisible(chromedp.CSS(`#statement`))); err != nil {
		t.Fatal(err)
	}
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("pre.code, pre.excerpt").length`))
	if err != nil {
		t.Fatal(err)
	}
	if before != 0 {
		t.Errorf("question page holds %d code or excerpt blocks before any round is opened, want 0", before)
	}
	// Open the first round of the section whose rounds have verdicts (the runner's).
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const d = Array.from(document.querySelectorAll("details.run")).find(d => d.dataset.verdict === "partial");
		d.querySelector("summary").click(); d.id = "opened"; return true; })()`)); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Poll[string](`(() => { const d = document.getElementById("opened");
		const c = d.querySelector("pre.code"), x = d.querySelector("pre.excerpt");
		return c && x && !d.querySelector(".run-body[data-load]") ? c.textContent + "\n" + x.textContent : ""; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, sitetest.HostileCode) || !strings.Contains(got, "prop_1: expected <1> but got <script>alert('err')</script>") {
		t.Errorf("the opened round shows %q, want the hostile code and the error excerpt as text", got)
	}
}
