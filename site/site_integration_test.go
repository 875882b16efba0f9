package site_test

import (
	"bytes"
	"context"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/content"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitecheck"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// fixtureSite is one Hugo build of the fixture runs, shared by the tests of
// this file (Hugo runs are slow-ish: they are kept few).
type fixtureSite struct {
	dir, results, work string
	report             *site.Report
	releases           []release.Release
	err                error
}

var (
	fixtureOnce sync.Once
	fixture     fixtureSite
)

// fixtureReleases: v1.0 holds the imported runs only, v1.1 every fixture run.
func fixtureReleases(files []*results.File) []release.Release {
	v10 := release.Release{Version: "v1.0", Date: "2026-12-01", GeneratorCommit: "1111111111111111111111111111111111111111", Title: "fixture: imported runs"}
	v11 := release.Release{Version: "v1.1", Date: "2026-12-15", GeneratorCommit: "2222222222222222222222222222222222222222", Title: "fixture: all runs"}
	for _, f := range files {
		if f.Run.Provenance.Kind == results.ProvenanceImported {
			v10.Runs = append(v10.Runs, f.Run.RunID)
		}
		v11.Runs = append(v11.Runs, f.Run.RunID)
	}
	return []release.Release{v10, v11}
}

func repoRoot(t testing.TB) string {
	root, err := filepath.Abs(filepath.Join("..")) // this package is site/
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func buildFixture(t testing.TB, outDir, workDir string) (*site.Report, []release.Release, error) {
	resultsDir := filepath.Join(filepath.Dir(workDir), "results")
	files, err := sitetest.WriteRuns(resultsDir)
	if err != nil {
		return nil, nil, err
	}
	rs := fixtureReleases(files)
	rep, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: sitetest.Benchmark(),
		DataHint: "fixture data hint", RepoRoot: repoRoot(t), OutDir: outDir, WorkDir: workDir, Releases: rs})
	return rep, rs, err
}

// builtFixture returns the shared fixture build, skipping under -short.
func builtFixture(t *testing.T) *fixtureSite {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	fixtureOnce.Do(func() {
		base, err := os.MkdirTemp("", "site-fixture-")
		if err != nil {
			fixture.err = err
			return
		}
		fixture.dir = filepath.Join(base, "public")
		fixture.work = filepath.Join(base, "work")
		fixture.report, fixture.releases, fixture.err = buildFixture(t, fixture.dir, fixture.work)
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return &fixture
}

// sharedTemp holds the folders made once per test binary and shared by its
// tests (the real import, the real preview), removed by TestMain.
var sharedTemp struct {
	sync.Mutex
	dirs []string
}

// sharedTempDir makes a folder (os.MkdirTemp with pattern) that TestMain
// removes after every test has run, unless SITE_KEEP is set.
func sharedTempDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err == nil {
		sharedTemp.Lock()
		sharedTemp.dirs = append(sharedTemp.dirs, dir)
		sharedTemp.Unlock()
	}
	return dir, err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if os.Getenv("SITE_KEEP") == "" {
		for _, dir := range sharedTemp.dirs {
			os.RemoveAll(dir)
		}
	}
	if fixture.dir != "" && os.Getenv("SITE_KEEP") == "" {
		os.RemoveAll(filepath.Dir(fixture.dir))
	}
	if changed.repo != "" && os.Getenv("SITE_KEEP") == "" {
		os.RemoveAll(filepath.Dir(changed.repo))
	}
	os.Exit(code)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// htmlFiles returns every .html page under dir, relative to it: the
// redirects of a latest/ folder in it and its 404.html, which are no pages
// a reader reads, are left out (TestFixtureSiteHasReleasesAndLatest checks
// them).
func htmlFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
			rel, _ := filepath.Rel(dir, p)
			if rel != "404.html" && !strings.HasPrefix(filepath.ToSlash(rel), site.LatestPath+"/") {
				out = append(out, rel)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFixtureSiteHasReleasesAndLatest: /v1.0/ and /v1.1/ exist, /latest/
// equals the newest (v1.1) byte for byte, the release list (releases/)
// lists both and the root shows v1.1's headline.
func TestFixtureSiteHasReleasesAndLatest(t *testing.T) {
	fx := builtFixture(t)
	if fx.report.Latest != "v1.1" || strings.Join(fx.report.Editions, ",") != "v1.1,v1.0" {
		t.Errorf("report = %+v", fx.report)
	}
	// /latest/ holds a redirect to v1.1 for each of its pages, nothing else.
	newest, latest := filepath.Join(fx.dir, "v1.1"), filepath.Join(fx.dir, "latest")
	pages := htmlFiles(t, newest)
	if len(pages) < 10 || !slices.Equal(htmlFiles(t, latest), pages) { // latest/ as the dir: its redirects are listed
		t.Fatalf("latest/ has pages %v, v1.1 %v", htmlFiles(t, latest), pages)
	}
	if stub := readFile(t, filepath.Join(latest, "models", "index.html")); !strings.Contains(stub, `content="0; url=../../v1.1/models/"`) {
		t.Errorf("latest/models/ is not a redirect to v1.1/models/:\n%s", stub)
	}
	filepath.WalkDir(latest, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "index.html" {
			t.Errorf("latest/ holds %s: a file of v1.1 published twice", p)
		}
		return err
	})
	list := readFile(t, filepath.Join(fx.dir, "releases", "index.html"))
	for _, want := range []string{`href="../v1.0/"`, `href="../v1.1/"`, `href="../latest/"`, "2026-12-01", "1111111111111111111111111111111111111111"} {
		if !strings.Contains(list, want) {
			t.Errorf("release list lacks %q", want)
		}
	}
	// The root shows the newest release's headline tables, linking into
	// latest/, and links the release list.
	root := readFile(t, filepath.Join(fx.dir, "index.html"))
	for _, want := range []string{`href="releases/"`, `href="v1.1/"`, `<table class="sortable ranked"`, `href="v1.1/models/`, "v1.1", "2026-12-15"} {
		if !strings.Contains(root, want) {
			t.Errorf("root page lacks %q", want)
		}
	}
	// An icon for every page: each links assets/favicon.svg (its link is
	// checked by TestFixtureLinksResolve), and /favicon.ico answers pages
	// of older releases, which link none.
	if ico, err := os.ReadFile(filepath.Join(fx.dir, "favicon.ico")); err != nil || !bytes.Equal(ico, content.FaviconICO()) {
		t.Errorf("favicon.ico at the root: %v (%d bytes, want content.FaviconICO())", err, len(ico))
	}
	for _, rel := range htmlFiles(t, fx.dir) {
		if !regexp.MustCompile(`<link rel="icon" href="[./]*assets/favicon.svg" type="image/svg\+xml">`).MatchString(readFile(t, filepath.Join(fx.dir, rel))) {
			t.Errorf("%s links no favicon", rel)
		}
	}
	v10 := readFile(t, filepath.Join(fx.dir, "v1.0", "index.html"))
	if !strings.Contains(v10, "2026-12-01") || !strings.Contains(v10, "1111111111111111111111111111111111111111") ||
		!regexp.MustCompile(`class="newer-release"[^\n]*href="\./\.\./v1\.1/"`).MatchString(v10) {
		t.Error("v1.0's home must show its own date and commit, and name the newest release v1.1 in its banner")
	}
}

// TestFixtureLinksResolve checks the fixture site with site/sitecheck as
// served under a GitHub Pages project path: every link, script, stylesheet
// and image (switcher links included) names a file of the site and every
// #anchor an element of its page; no link is root-relative (a release must
// work wherever it is copied, so /leaderboard/ must not be needed).
func TestFixtureLinksResolve(t *testing.T) {
	fx := builtFixture(t)
	r, err := sitecheck.Check(fx.dir, sitecheck.Options{BasePath: "/leaderboard/"})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range r.Broken {
		if i == 50 {
			t.Errorf("… %d broken links in all", len(r.Broken))
			break
		}
		t.Errorf("%s: %q → %s (%s)", b.Page, b.Href, b.Target, b.Reason)
	}
	if r.Links < 500 {
		t.Errorf("only %d links checked", r.Links)
	}
	anchors := 0
	rootRelative := regexp.MustCompile(`(?:href|src)="/[^/]`)
	switcher := 0
	for _, rel := range htmlFiles(t, fx.dir) {
		page := readFile(t, filepath.Join(fx.dir, rel))
		if strings.Contains(page, `id="version-switcher"`) {
			switcher++
		}
		if m := rootRelative.FindString(page); m != "" {
			t.Errorf("%s: root-relative link %s… (links must be relative so that releases can be copied)", rel, m)
		}
		anchors += strings.Count(page, `/#`)
	}
	if anchors < 10 {
		t.Errorf("only %d links with an #anchor into another page: the anchor check checked little", anchors)
	}
	edPages := len(htmlFiles(t, filepath.Join(fx.dir, "v1.0"))) + len(htmlFiles(t, filepath.Join(fx.dir, "v1.1")))
	if switcher != edPages {
		t.Errorf("%d pages have the version switcher, want every edition page (%d)", switcher, edPages)
	}
}

// TestHostileTextIsEscapedEverywhere: a model name and generated code with
// <script> and HTML entities render as text on every page.
func TestHostileTextIsEscapedEverywhere(t *testing.T) {
	fx := builtFixture(t)
	sawName, sawCode, sawTrace := false, false, false
	err := filepath.WalkDir(fx.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !strings.HasSuffix(p, ".html") && !strings.HasSuffix(p, ".svg") && !strings.HasSuffix(p, ".js") {
			return nil
		}
		data, _ := os.ReadFile(p)
		s := string(data)
		for _, bad := range []string{"<script>alert", `<script>alert("name")`, "</code></pre><script>", "<b>raw</b>", "<i>with</i>"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s contains unescaped %q", p, bad)
			}
		}
		if strings.Contains(s, "Evil &lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt; &amp;amp; Co") ||
			strings.Contains(s, "Evil &lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; &amp;amp; Co") {
			sawName = true
		}
		if strings.Contains(s, "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(&#34;code&#34;)&lt;/script&gt; &amp;lt;b&amp;gt; &amp;amp;") {
			sawCode = true
		}
		if strings.Contains(s, "<td>&lt;script&gt;alert(&#34;stage&#34;)&lt;/script&gt;</td>") &&
			strings.Contains(s, "<code>&lt;/code&gt;&lt;script&gt;alert(&#34;chunk&#34;)&lt;/script&gt;</code>") {
			sawTrace = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sawName || !sawCode || !sawTrace {
		t.Errorf("escaped hostile name seen: %v, escaped hostile code seen: %v, escaped hostile stage trace seen: %v", sawName, sawCode, sawTrace)
	}
}

// TestFixtureQuestionPagesListEveryRun: each question page lists every
// tool-usage run of every configuration exactly once, in an entry (one per
// round) of a section (one per configuration identity) whose filter
// attributes name the run's model and system (issues 3, 9).
func TestFixtureQuestionPagesListEveryRun(t *testing.T) {
	fx := builtFixture(t)
	files, err := results.ReadDir(filepath.Join(filepath.Dir(fx.work), "results"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*results.File{}
	for _, f := range files {
		byID[f.Run.RunID] = f
	}
	sectionRE := regexp.MustCompile(`<section class="identity" id="[^"]+" data-model="([^"]*)" data-system="([^"]*)"`)
	runRE := regexp.MustCompile(`<details class="run" data-runs="([^"]+)" data-verdict="([^"]*)"`)
	for _, q := range sitetest.Questions {
		page := readFile(t, filepath.Join(fx.dir, "v1.1", "questions", q.ID, "index.html"))
		got := map[string]int{}
		for _, sec := range strings.Split(page, `<section class="identity"`)[1:] {
			sec = `<section class="identity"` + sec
			m := sectionRE.FindStringSubmatch(sec)
			if m == nil {
				t.Errorf("question %s: a section has no data-model/data-system: %.200s", q.ID, sec)
				continue
			}
			for _, e := range runRE.FindAllStringSubmatch(sec, -1) {
				if e[2] == "" {
					t.Errorf("question %s: entry %s has no data-verdict", q.ID, e[1])
				}
				for _, id := range strings.Fields(e[1]) {
					got[id]++
					if f := byID[id]; f == nil {
						t.Errorf("question %s lists run %s, which is no results file", q.ID, id)
					} else if f.Run.Model != html.UnescapeString(m[1]) || string(f.Run.System) != m[2] {
						t.Errorf("question %s: run %s (%s, %s) is in a section of data-model %q, data-system %q", q.ID, id, f.Run.Model, f.Run.System, m[1], m[2])
					}
				}
			}
		}
		want := 0
		for _, f := range files {
			if f.Run.Benchmark == results.BenchmarkToolUsage {
				want++
				if got[f.Run.RunID] != 1 {
					t.Errorf("question %s lists run %s %d times, want once", q.ID, f.Run.RunID, got[f.Run.RunID])
				}
			}
		}
		if len(got) != want {
			t.Errorf("question %s lists %d runs, want %d", q.ID, len(got), want)
		}
		if !strings.Contains(page, "<strong>"+q.ID+"</strong>") {
			t.Errorf("question %s: statement not rendered from markdown", q.ID)
		}
		if !strings.Contains(page, `<form class="question-filter" hidden>`) || !strings.Contains(page, `assets/questions.js"></script>`) {
			t.Errorf("question %s: no filter form or no questions.js", q.ID)
		}
	}
}

// TestRebuildGivesIdenticalFrozenPages builds the fixture a second time
// (with the releases now one more build old) and compares v1.0 and v1.1
// byte for byte.
func TestRebuildGivesIdenticalFrozenPages(t *testing.T) {
	fx := builtFixture(t)
	base := t.TempDir()
	if _, _, err := buildFixture(t, filepath.Join(base, "public"), filepath.Join(base, "work")); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"v1.0", "v1.1", "latest"} { // rendered by the same code from the same files: the same bytes
		a, b := filepath.Join(fx.dir, v), filepath.Join(base, "public", v)
		n := 0
		filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(a, p)
			x, _ := os.ReadFile(p)
			y, err := os.ReadFile(filepath.Join(b, rel))
			if err != nil || !bytes.Equal(x, y) {
				t.Errorf("%s/%s differs between two builds", v, rel)
			}
			n++
			return nil
		})
		if n == 0 {
			t.Errorf("%s is empty", v)
		}
	}
}
