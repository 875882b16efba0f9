package site_test

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// brokenAnchor is a link with a fragment whose target page has no element
// with that id.
type brokenAnchor struct {
	Page, Href string // the linking page (relative to the site) and its href
}

// anchorCheck parses every .html file under dir (golang.org/x/net/html),
// collects each page's element ids (and <a name>), and resolves every
// relative <a href> with a #fragment: the page it points at (the linking
// page itself for "#x"; "dir/" is dir/index.html) must hold that id.
// Links to pages that do not exist are not its concern (TestFixtureLinksResolve).
// It returns the links checked per linking page's first two path
// elements, and the broken ones.
func anchorCheck(t *testing.T, dir string) (map[string]int, []brokenAnchor) {
	t.Helper()
	ids := map[string]map[string]bool{}
	links := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		doc, err := html.Parse(f)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		ids[rel] = map[string]bool{}
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				for _, a := range n.Attr {
					switch {
					case a.Key == "id", a.Key == "name" && n.Data == "a":
						ids[rel][a.Val] = true
					case a.Key == "href" && n.Data == "a":
						links[rel] = append(links[rel], a.Val)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]int{}
	var broken []brokenAnchor
	for rel, hrefs := range links {
		parts := strings.SplitN(rel, "/", 3)
		section := strings.Join(parts[:min(2, len(parts)-1)], "/")
		for _, h := range hrefs {
			u, err := url.Parse(h)
			if err != nil || u.Scheme != "" || u.Host != "" || u.Fragment == "" {
				continue
			}
			target := rel
			if u.Path != "" {
				target = path.Join(path.Dir(rel), u.Path)
				if strings.HasSuffix(u.Path, "/") || u.Path == "." {
					target = path.Join(target, "index.html")
				}
			}
			page, ok := ids[target]
			if !ok {
				continue
			}
			checked[section]++
			if !page[u.Fragment] {
				broken = append(broken, brokenAnchor{Page: rel, Href: h})
			}
		}
	}
	return checked, broken
}

// TestCorrectedVersionLinksResolve builds the preview of the fixture runs
// and sitetest.CorrectedRuns (a corrected benchmark version that corrects
// none of the fixture's questions) with Hugo and checks every link with a
// fragment: the per-question matrices of the corrected configurations'
// pages, of the system page and of the model page link each question's
// page at the corrected configuration's anchor, which the published
// version's section of that identity holds, saying why.
func TestCorrectedVersionLinksResolve(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	base := t.TempDir()
	resultsDir := filepath.Join(base, "results")
	for _, f := range append(sitetest.Runs(), sitetest.CorrectedRuns()...) {
		if err := results.Write(filepath.Join(resultsDir, f.Run.RunID+results.Extension), f); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(base, "public")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: sitetest.Benchmark(),
		RepoRoot: repoRoot(t), OutDir: out, WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}}); err != nil {
		t.Fatal(err)
	}
	preview := filepath.Join(out, site.PreviewPath)
	checked, broken := anchorCheck(t, out)
	for _, b := range broken {
		t.Errorf("%s: link %q: no element with that id on the page it points at", b.Page, b.Href)
	}
	// The corrected configurations' matrices link the three questions' pages.
	confs, err := filepath.Glob(filepath.Join(preview, "configurations", "tool-usage-2025-05-corrected-1-*"))
	if err != nil || len(confs) != 1 {
		t.Fatalf("corrected configuration pages %v (%v), want 1", confs, err)
	}
	slug := filepath.Base(confs[0])
	page := readFile(t, filepath.Join(confs[0], "index.html"))
	for _, q := range sitetest.Questions {
		if !strings.Contains(page, `href="../../questions/`+q.ID+`/#`+slug+`"`) {
			t.Errorf("%s does not link question %s at #%s", slug, q.ID, slug)
		}
		qp := readFile(t, filepath.Join(preview, "questions", q.ID, "index.html"))
		if !strings.Contains(qp, `<span id="`+slug+`"></span>`) || !strings.Contains(qp, "Benchmark version 2025-05-corrected-1 does not correct this question") {
			t.Errorf("question %s: no anchor %s on the published version's section, or no word why", q.ID, slug)
		}
	}
	for _, s := range []string{"preview/configurations", "preview/systems", "preview/models"} {
		if checked[s] < 3 {
			t.Errorf("%s: %d links with a fragment checked, want the matrices' (%v)", s, checked[s], checked)
		}
	}
}
