package site_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// publishBase is where the fixture is published in these tests: a GitHub
// Pages project site, so that a link that works only at the host's root fails.
const publishBase = "https://owner.github.io/leaderboard/"

// TestPublishFixtureAndSearchIt runs scripts/publish.sh (as the deploy
// workflow does, without the build) on a copy of the fixture site under a
// project path: Pagefind indexes it and cmd/check-site passes it (links,
// anchors, budgets, the index present), printing the figures. A root-relative
// link then fails it. Then chromium searches the site served under
// /leaderboard/: a model's name and a question's id give that model's and
// that question's page first.
func TestPublishFixtureAndSearchIt(t *testing.T) {
	fx := builtFixture(t)
	if _, err := os.Stat("../tools/pagefind/node_modules/pagefind"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Pagefind is not installed under CI: scripts/setup.sh installs it (tools/pagefind)")
		}
		t.Skip("Pagefind is not installed (scripts/setup.sh, or npm ci in tools/pagefind)")
	}
	dir := filepath.Join(t.TempDir(), "public")
	if err := release.CopyDir(fx.dir, dir); err != nil {
		t.Fatal(err)
	}
	publish := func() (string, error) {
		cmd := exec.Command("scripts/publish.sh", "--no-build", dir, publishBase)
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := publish()
	if err != nil {
		t.Fatalf("scripts/publish.sh: %v\n%s", err, out)
	}
	pages := len(htmlFiles(t, dir))
	indexed := pages - 1 // htmlFiles leaves out latest/ (redirects) and 404.html; nor the search page
	for _, want := range []string{
		fmt.Sprintf("pagefind: indexed %d pages (site 2, v1.0 %d, v1.1 %d)", indexed,
			len(htmlFiles(t, filepath.Join(dir, "v1.0"))), len(htmlFiles(t, filepath.Join(dir, "v1.1")))),
		// check-site counts every .html file: the pages, latest/'s redirects and 404.html.
		fmt.Sprintf("site %s (base %s): %d pages,", dir, publishBase, pages+len(htmlFiles(t, filepath.Join(dir, "latest")))+1),
		"pages over the page budget of 512000 bytes (500.0 KiB): 0\n",
		"broken: 0 (0 to a missing file or outside the site, 0 to a missing anchor), 0 distinct targets\n",
		"check-site: ok\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scripts/publish.sh output lacks %q:\n%s", want, out)
		}
	}
	index := regexp.MustCompile(`search index: (\d+) files, (\d+) bytes`).FindStringSubmatch(out)
	if index == nil || index[1] == "0" {
		t.Errorf("no search index figures in:\n%s", out)
	}

	s := sitetest.NewSearcher(t, dir, "/leaderboard/")
	for _, c := range []struct{ query, edition, want string }{
		{"Gemini-1.5-Flash", "v1.1", "/leaderboard/v1.1/models/gemini-1.5-flash-2c9d2d23/"},
		{"GPT-4o", "v1.0", "/leaderboard/v1.0/models/gpt-4o-2024-08-06-494a14f4/"},
		{"test_pchip_eval", "v1.1", "/leaderboard/v1.1/questions/test_pchip_eval/"},
	} {
		res, err := s.Search(c.query, c.edition)
		if err != nil {
			t.Fatalf("search %q in %s: %v", c.query, c.edition, err)
		}
		if len(res.URLs) == 0 || res.URLs[0] != c.want {
			t.Errorf("search %q in %s: results %q, want %s first", c.query, c.edition, res.URLs, c.want)
		}
		t.Logf("search %q in %s: %d results; the index sent %d bytes in %d requests (%d of index chunks and fragments)",
			c.query, c.edition, len(res.URLs), res.IndexBytes, res.IndexRequests, res.QueryBytes)
	}

	// /latest/ under the base path: a page's redirect keeps its #anchor; a
	// file that is no page goes through the 404 page to the newest release's;
	// the 404 page links the home page and the newest release under the base.
	figs, _ := filepath.Glob(filepath.Join(dir, "v1.1", "figures", "*.svg")) // a file the browser shows, not downloads
	if len(figs) == 0 {
		t.Fatal("the fixture's v1.1 has no figure")
	}
	fig := "figures/" + filepath.Base(figs[0])
	for _, c := range []struct{ path, want string }{
		{"latest/models/#top", "/leaderboard/v1.1/models/"},
		{"latest/" + fig, "/leaderboard/v1.1/" + fig},
	} {
		got, _, err := s.Visit(c.path, `document.title`)
		if err != nil || got != c.want {
			t.Errorf("/leaderboard/%s ends at %q (%v), want %s", c.path, got, err, c.want)
		}
	}
	if got, links, err := s.Visit("nowhere/", `[...document.querySelectorAll("a")].map(a => new URL(a.href).pathname).join(" ")`); err != nil || links != "/leaderboard/ /leaderboard/v1.1/" {
		t.Errorf("a missing page (%s): the 404 page links %q (%v), want the home page and v1.1 under /leaderboard/", got, links, err)
	}

	// A link that only works at the host's root fails the publication.
	page := filepath.Join(dir, "releases", "index.html")
	if err := os.WriteFile(page, []byte(strings.Replace(readFile(t, page), "</main>", `<a href="/v1.1/">v1.1</a></main>`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = publish()
	if err == nil || !strings.Contains(out, `releases/index.html: "/v1.1/" → /v1.1/ (outside the base path)`) {
		t.Errorf("scripts/publish.sh with a root-relative link: %v, want a failure naming it:\n%s", err, out)
	}
}
