package site_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// templateMark is added to layouts/baseof.html of a clone of HEAD by
// builtChanged: a template change made after v1.0 was cut.
const templateMark = `<p class="frozen-test">template changed after the release</p>`

// changedSite is one Frozen build of the published results from a clone of
// HEAD whose templates differ from every release's generator commit: every
// release is rendered by the running code with the changed templates and
// checked against its numbers manifest; the build is shared by the tests
// below.
type changedSite struct {
	repo, out string
	bench     *datasets.Benchmark
	report    *site.Report
}

var (
	changedOnce sync.Once
	changed     changedSite
	changedErr  error
)

func builtChanged(t *testing.T) *changedSite {
	t.Helper()
	if testing.Short() {
		t.Skip("builds every release of the published results with Hugo; skipped with -short")
	}
	root, resultsDir, _ := realData(t)
	changedOnce.Do(func() { changedErr = buildChanged(repoRoot(t), root, resultsDir) })
	if changedErr != nil {
		t.Fatal(changedErr)
	}
	return &changed
}

func buildChanged(repo, dataRoot, resultsDir string) error {
	base, err := os.MkdirTemp("", "site-frozen-")
	if err != nil {
		return err
	}
	changed.repo = filepath.Join(base, "repo")
	changed.out = filepath.Join(base, "public")
	head, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		return fmt.Errorf("git rev-parse HEAD in %s: %w", repo, err)
	}
	for _, args := range [][]string{{"clone", "-q", "--no-checkout", repo, changed.repo},
		{"-C", changed.repo, "checkout", "-q", "--detach", strings.TrimSpace(string(head))}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	layout := filepath.Join(changed.repo, "layouts", "baseof.html")
	data, err := os.ReadFile(layout)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte("</body>")) {
		return fmt.Errorf("%s has no </body> to change", layout)
	}
	if err := os.WriteFile(layout, bytes.Replace(data, []byte("</body>"), []byte(templateMark+"</body>"), 1), 0o644); err != nil {
		return err
	}
	if changed.bench, err = datasets.Load(dataRoot); err != nil {
		return err
	}
	changed.report, err = site.Build(context.Background(), site.Options{ResultsDir: resultsDir, AuditDir: filepath.Join(changed.repo, "benchmarks", "mattools-tool-usage", "audit"), Benchmark: changed.bench, DataHint: "hint",
		RepoRoot: changed.repo, OutDir: changed.out, WorkDir: filepath.Join(base, "work"), Frozen: true})
	return err
}

// TestReleasesTakeTheLookKeepTheNumbers: after a template change, every
// release shows the change (it is rendered by the running code) and every
// number of its manifest (Report.Verified; checked again here so that a
// Build that skipped the check fails); an older release names the newest in
// its banner, the newest does not; /latest/ holds only redirects to the
// newest release, one per page of it, so no edition is published twice.
func TestReleasesTakeTheLookKeepTheNumbers(t *testing.T) {
	c := builtChanged(t)
	rs, err := site.DefaultReleases()
	if err != nil {
		t.Fatal(err)
	}
	newest := rs[len(rs)-1]
	var versions []string
	for _, r := range rs {
		versions = append(versions, r.Version)
		if _, err := release.CheckNumbers(c.repo, r.Version, filepath.Join(c.out, r.Version)); err != nil {
			t.Errorf("release %s: %v", r.Version, err)
		}
		page := readFile(t, filepath.Join(c.out, r.Version, "index.html"))
		if !strings.Contains(page, templateMark) {
			t.Errorf("release %s does not show the template change", r.Version)
		}
		banner := `class="newer-release"`
		switch {
		case r.Version != newest.Version && (!strings.Contains(page, banner) || !strings.Contains(page, `../`+newest.Version+`/"`)):
			t.Errorf("release %s: its banner does not name the newest release %s", r.Version, newest.Version)
		case r.Version == newest.Version && strings.Contains(page, banner):
			t.Errorf("the newest release %s names a newer one", r.Version)
		}
	}
	slices.Sort(c.report.Verified)
	if !slices.Equal(c.report.Verified, versions) {
		t.Errorf("Report.Verified = %v, want %v (warnings %q)", c.report.Verified, versions, c.report.Warnings)
	}
	latest := filepath.Join(c.out, site.LatestPath)
	pages := 0
	err = filepath.WalkDir(filepath.Join(c.out, newest.Version), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "index.html" {
			return err
		}
		pages++
		rel, _ := filepath.Rel(filepath.Join(c.out, newest.Version), p)
		stub, err := os.ReadFile(filepath.Join(latest, rel))
		if err != nil {
			return fmt.Errorf("/latest/%s: %w", filepath.ToSlash(rel), err)
		}
		target := newest.Version + "/" + strings.TrimSuffix(strings.TrimSuffix(filepath.ToSlash(rel), "index.html"), "/")
		if !bytes.Contains(stub, []byte(`http-equiv="refresh"`)) || !bytes.Contains(stub, []byte(strings.TrimSuffix(target, "/")+"/")) {
			return fmt.Errorf("/latest/%s is not a redirect to /%s/: %s", filepath.ToSlash(rel), strings.TrimSuffix(target, "/"), stub)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	stubs := 0
	filepath.WalkDir(latest, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if d.Name() != "index.html" {
				t.Errorf("/latest/ holds %s, not a redirect page: an edition's file published twice", p)
			}
			stubs++
		}
		return err
	})
	if stubs != pages || pages == 0 {
		t.Errorf("/latest/ holds %d redirect pages, the newest release %s %d pages", stubs, newest.Version, pages)
	}
	if nf := readFile(t, filepath.Join(c.out, "404.html")); !strings.Contains(nf, `"`+newest.Version+`"`) {
		t.Errorf("404.html does not send /latest/ paths to %s:\n%s", newest.Version, nf)
	}
	_, _, files := realData(t)
	listed := map[string]bool{}
	for _, r := range rs {
		for _, id := range r.Runs {
			listed[id] = true
		}
	}
	unlisted := slices.ContainsFunc(files, func(f *results.File) bool { return !listed[f.Run.RunID] })
	if !unlisted {
		t.Logf("every published run is in a release: no preview edition to check")
		return
	}
	if !slices.Contains(c.report.Editions, site.PreviewPath) {
		t.Fatalf("no preview edition (editions %v): the published results hold runs no release lists", c.report.Editions)
	}
	if page := readFile(t, filepath.Join(c.out, site.PreviewPath, "index.html")); !strings.Contains(page, templateMark) {
		t.Errorf("the preview, built by the running code, does not show the template change")
	}
}

// TestNumbersNameTheDifference: a release whose pages show one number other
// than its manifest's fails the check naming the release, table, row,
// column and field, with both values; a cell it no longer shows is named
// too.
func TestNumbersNameTheDifference(t *testing.T) {
	c := builtChanged(t)
	rs, err := site.DefaultReleases()
	if err != nil {
		t.Fatal(err)
	}
	v := rs[0].Version
	edition := filepath.Join(t.TempDir(), v)
	if err := os.CopyFS(edition, os.DirFS(filepath.Join(c.out, v))); err != nil {
		t.Fatal(err)
	}
	want, err := release.ReadNumbers(release.NumbersPath(c.repo, v))
	if err != nil {
		t.Fatal(err)
	}
	// Change one mean in every CSV of the edition that shows it.
	var key release.NumberKey
	for k, f := range want {
		if f["mean"] != "" && (key.Table == "" || k.Table+k.Configuration+k.Metric < key.Table+key.Configuration+key.Metric) {
			key = k
		}
	}
	if key.Table == "" {
		t.Fatalf("release %s: no mean in its numbers manifest", v)
	}
	mean := want[key]["mean"]
	changedFiles := 0
	filepath.WalkDir(edition, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".csv") {
			return err
		}
		data, _ := os.ReadFile(p)
		var out []string
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, key.Table+",") && strings.Contains(line, key.Configuration) && strings.Contains(line, ","+key.Metric+",") && strings.Contains(line, ","+mean+",") {
				line = strings.Replace(line, ","+mean+",", ",99.9999,", 1)
				changedFiles++
			}
			out = append(out, line)
		}
		return os.WriteFile(p, []byte(strings.Join(out, "\n")), 0o644)
	})
	if changedFiles == 0 {
		t.Fatalf("no CSV of %s shows %s with mean %s", v, key, mean)
	}
	_, err = release.CheckNumbers(c.repo, v, edition)
	for _, w := range []string{"release " + v, "table " + key.Table, "row " + key.Configuration, key.Metric, "field mean: frozen " + mean + ", shown 99.9999"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("a changed mean: error %v, want it to say %q", err, w)
		}
	}
}
