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
// HEAD whose templates differ from v1.0's generator: v1.0 is then built by
// its generator commit, which imports and builds for itself (a few minutes
// cold), so the build is shared by the tests below.
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
		t.Skip("builds a release with its own generator commit; skipped with -short")
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
	rs, err := site.DefaultReleases()
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := exec.Command("git", "-C", changed.repo, "cat-file", "-e", r.GeneratorCommit+"^{commit}").Run(); err != nil {
			return fmt.Errorf("release %s: its generator commit %s is not in this clone (a shallow clone? git fetch --unshallow)", r.Version, r.GeneratorCommit)
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

// TestReleaseUnchangedByTemplateChange: after a template change, every
// release is still byte-identical to its committed manifest (it is built by
// its own generator commit), /latest/ is a copy of the newest, and the
// preview, built by the running code, shows the change.
func TestReleaseUnchangedByTemplateChange(t *testing.T) {
	c := builtChanged(t)
	rs, err := site.DefaultReleases()
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, r := range rs {
		versions = append(versions, r.Version)
		// The same check as Build's, repeated here so that a Build that skipped it fails.
		if err := release.CheckManifest(c.repo, r.Version, filepath.Join(c.out, r.Version), c.bench); err != nil {
			t.Errorf("release %s: %v", r.Version, err)
		}
		if page := readFile(t, filepath.Join(c.out, r.Version, "index.html")); strings.Contains(page, templateMark) {
			t.Errorf("release %s shows the template change", r.Version)
		}
	}
	slices.Sort(c.report.Verified)
	if !slices.Equal(c.report.Verified, versions) {
		t.Errorf("Report.Verified = %v, want %v (warnings %q)", c.report.Verified, versions, c.report.Warnings)
	}
	newest := rs[len(rs)-1].Version
	want, err := release.HashTree(filepath.Join(c.out, newest))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := release.HashTree(filepath.Join(c.out, site.LatestPath)); err != nil || !bytes.Equal(got, want) {
		t.Errorf("/%s/ is not a copy of /%s/ (err %v)", site.LatestPath, newest, err)
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

// TestManifestNamesFirstDifference: a changed page of a release fails the
// check naming that page; a data root whose question pages differ is reported
// as such, not as a differing page.
func TestManifestNamesFirstDifference(t *testing.T) {
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
	page := filepath.Join(edition, "models", "index.html")
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, append(data, ' '), 0o644); err != nil {
		t.Fatal(err)
	}
	err = release.CheckManifest(c.repo, v, edition, c.bench)
	if want := "/" + v + "/models/index.html differs"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("changed page: error %v, want %q", err, want)
	}
	other := *c.bench
	other.Questions = slices.Clone(other.Questions)
	q := &other.Questions[0]
	q.DataFiles = slices.Clone(q.DataFiles)
	q.DataFiles[0].Present = !q.DataFiles[0].Present // as in a root with more (or fewer) data files
	err = release.CheckManifest(c.repo, v, filepath.Join(c.out, v), &other)
	if err == nil || !strings.Contains(err.Error(), "cut from another data root") || !strings.Contains(err.Error(), release.DataFingerprint(&other)) {
		t.Errorf("other data root: error %v, want one saying the manifest was cut from another data root", err)
	}
}
