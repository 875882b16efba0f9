package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// git runs git in dir (with a fixed identity, unsigned) and returns its
// output, failing the test on an error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.org",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitAll commits every change of repo and returns the new commit.
func commitAll(t *testing.T, repo, msg string) string {
	t.Helper()
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", msg)
	return git(t, repo, "rev-parse", "HEAD")
}

// snapshotRepo returns a new git repository holding this checkout's files as
// they are in the working tree (tracked and untracked, not ignored: the code
// under test, committed or not), committed once, with no release: an empty
// site/releases.json and no manifests (the committed releases' generator
// commits are not in it).
func snapshotRepo(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("git", "-C", src, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skipf("%s is not a git checkout: %v", src, err)
	}
	repo := filepath.Join(t.TempDir(), "repo")
	for _, rel := range strings.Split(git(t, src, "ls-files", "-co", "--exclude-standard"), "\n") {
		if rel == "" || strings.HasPrefix(rel, release.ManifestDir+"/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, rel))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, release.File), []byte("{\n  \"releases\": []\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	commitAll(t, repo, "snapshot of the working tree")
	return repo
}

// rowsWith returns the table rows (<tr>…</tr>) of an HTML page that contain s.
func rowsWith(page, s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?s)<tr.*?</tr>`).FindAllString(page, -1) {
		if strings.Contains(m, s) {
			out = append(out, m)
		}
	}
	return out
}

// section returns the <section …id="id"…>…</section> of an HTML page ("" if none).
func section(page, id string) string {
	m := regexp.MustCompile(`(?s)<section[^>]*id="` + regexp.QuoteMeta(id) + `".*?</section>`).FindString(page)
	return m
}

// TestReleaseWithSubmission cuts a release in a repository with a valid
// submission (and an invalid one, which fails the cut until it is excluded),
// then checks what later builds do with it:
//   - the release lists the submission's runs, and its pages show them badged
//     self-reported;
//   - verified records committed after the cut, and a submission merged after
//     it, leave the release's pages as they were (its manifest matches) and
//     show on the preview;
//   - after a template change, the release is built by its generator commit,
//     which reads the submission from that commit's tree: its manifest still
//     matches, and the preview shows the change.
func TestReleaseWithSubmission(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sites with Hugo and a release by its generator commit; skipped with -short")
	}
	repo := snapshotRepo(t)
	dir := t.TempDir()
	resultsDir := filepath.Join(dir, "results")
	if _, err := sitetest.WriteRuns(resultsDir); err != nil {
		t.Fatal(err)
	}
	root := mattoolstest.NewRoot(t)
	// One published run, so that the importer of a generator commit has something to import.
	root.AddRun("src/pure_agent_test/round1/model-a", &mattoolstest.Summary{Correct: 10, Partial: 5, FunctionErrors: 34, PropertiesCorrect: 20})
	data := root.Dir
	bench, err := datasets.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	subRoot, verRoot := filepath.Join(repo, site.SubmissionsRoot), filepath.Join(repo, site.VerifiedRoot)
	sub, err := sitetest.WriteSubmission(subRoot, "2026-12-01", "fixture")
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Base(sub)
	broken := filepath.Join(subRoot, "2026-12-02_broken_nothing_single-llm")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, "README.md"), []byte("no metadata, no runs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "public")
	args := []string{"-cut-release", "v1.0", "-date", "2026-12-10", "-title", "fixture release with a submission", "-results", resultsDir,
		"-out", out, "-work", filepath.Join(dir, "work"), "-data", data, "-repo", repo, "-submissions", subRoot, "-verified", verRoot}
	var stdout, stderr bytes.Buffer
	// Not committed yet: a rebuild by the generator commit would not find it.
	if code := run(context.Background(), append(args, "-exclude-submission", filepath.Base(broken)), &stdout, &stderr); code != exitError ||
		!strings.Contains(stderr.String(), "differ from their files in the generator commit") || !strings.Contains(stderr.String(), "submissions/"+folder+"/") {
		t.Fatalf("cut with an uncommitted submission: exit %d, stderr %q; want exit 1 naming its files", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	cutCommit := commitAll(t, repo, "merge two submissions")
	read, err := site.ReadSubmissions(subRoot, verRoot)
	if err != nil || len(read.Valid) != 1 {
		t.Fatalf("ReadSubmissions: %+v, %v", read, err)
	}
	subRuns := read.Valid[0].Runs

	if code := run(context.Background(), args, &stdout, &stderr); code != exitError ||
		!strings.Contains(stderr.String(), broken) || !strings.Contains(stderr.String(), "-exclude-submission") {
		t.Fatalf("cut with an invalid submission: exit %d, stderr %q; want exit 1 naming %s and -exclude-submission", code, stderr.String(), broken)
	}
	if _, err := os.Stat(release.NumbersPath(repo, "v1.0")); err == nil {
		t.Fatal("a failed cut wrote a numbers manifest")
	}
	stdout.Reset()
	stderr.Reset()
	// A copy of a submission's run among the results files (as cmd/rescore of
	// a submission writes into build/results) is refused, naming it.
	stray := filepath.Join(resultsDir, subRuns[0]+results.Extension)
	if err := os.WriteFile(stray, []byte(readFile(t, filepath.Join(sub, subRuns[0]+results.Extension))), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(context.Background(), append(args, "-exclude-submission", filepath.Base(broken)), &stdout, &stderr); code != exitError ||
		!strings.Contains(stderr.String(), "is in the namespace of submission "+folder) || !strings.Contains(stderr.String(), stray) {
		t.Fatalf("cut with a submission's run among the results files: exit %d, stderr %q; want exit 1 naming %s", code, stderr.String(), stray)
	}
	if err := os.Remove(stray); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), append(args, "-exclude-submission", filepath.Base(broken)), &stdout, &stderr); code != exitOK {
		t.Fatalf("cut: exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{"recorded release v1.0", "submission " + folder + ": 3 runs (self-reported)", "submission " + filepath.Base(broken) + ": excluded"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("cut: stdout does not say %q:\n%s", want, stdout.String())
		}
	}
	relData, err := os.ReadFile(filepath.Join(repo, release.File))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := release.Parse(relData)
	if err != nil || len(rs) != 1 {
		t.Fatalf("%s: %v, %v", release.File, rs, err)
	}
	if r := rs[0]; r.GeneratorCommit != cutCommit || len(r.Runs) != len(sitetest.Runs())+len(subRuns) {
		t.Errorf("release %s: commit %s, %d runs; want %s, %d results files + %d runs of %s", r.Version, r.GeneratorCommit, len(r.Runs),
			cutCommit, len(sitetest.Runs()), len(subRuns), folder)
	}
	for _, id := range subRuns {
		if !slices.Contains(rs[0].Runs, id) {
			t.Errorf("release v1.0 does not list run %s of submission %s", id, folder)
		}
	}
	if slices.ContainsFunc(rs[0].Runs, func(id string) bool { return site.SubmissionFolder(id) == filepath.Base(broken) }) {
		t.Errorf("release v1.0 lists a run of the excluded %s", broken)
	}
	releasePages := func(when string) {
		t.Helper()
		subs := readFile(t, filepath.Join(out, "v1.0", "submissions", "index.html"))
		entry := section(subs, folder)
		if !strings.Contains(entry, "badge-self-reported") || strings.Contains(entry, "badge-verified") || !strings.Contains(entry, subRuns[0]) {
			t.Errorf("%s: v1.0's submissions page, entry %s: %q; want it self-reported, listing its runs", when, folder, entry)
		}
		if strings.Count(subs, `<section class="submission"`) != 1 {
			t.Errorf("%s: v1.0's submissions page shows %d submissions, want 1", when, strings.Count(subs, `<section class="submission"`))
		}
		rows := rowsWith(readFile(t, filepath.Join(out, "v1.0", "index.html")), sitetest.SubmissionDisplayName)
		if len(rows) != 1 || !strings.Contains(rows[0], "badge badge-self-reported") || strings.Contains(rows[0], "badge-verified") {
			t.Errorf("%s: v1.0's home page rows of %s: %q; want one, self-reported", when, sitetest.SubmissionDisplayName, rows)
		}
	}
	releasePages("after the cut")
	if chk, err := release.CheckNumbers(repo, "v1.0", filepath.Join(out, "v1.0")); err != nil || chk.Extra != 0 {
		t.Fatalf("the cut's own pages: %+v, %v", chk, err)
	}
	commitAll(t, repo, "release v1.0")

	// After the cut: the submission is verified and another one is merged.
	verifiedIDs, err := sitetest.WriteVerified(verRoot, sub)
	if err != nil {
		t.Fatal(err)
	}
	later, err := sitetest.WriteSubmission(subRoot, "2026-12-20", "later")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(broken); err != nil {
		t.Fatal(err)
	}
	commitAll(t, repo, "verify "+folder+", merge "+filepath.Base(later))
	var log bytes.Buffer
	build := func(when string) *site.Report {
		t.Helper()
		log.Reset()
		rep, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, SubmissionsDir: subRoot, VerifiedDir: verRoot, Benchmark: bench,
			RepoRoot: repo, OutDir: out, WorkDir: filepath.Join(dir, "work"), Releases: rs, Frozen: true, GeneratorCommit: git(t, repo, "rev-parse", "HEAD"),
			Log: &log})
		if err != nil {
			t.Fatalf("%s: build: %v", when, err)
		}
		if !slices.Equal(rep.Verified, []string{"v1.0"}) || !slices.Contains(rep.Editions, site.PreviewPath) {
			t.Errorf("%s: releases showing their frozen numbers %v, editions %v; want v1.0 and a preview (warnings %q)", when, rep.Verified, rep.Editions, rep.Warnings)
		}
		releasePages(when)
		preview := readFile(t, filepath.Join(out, site.PreviewPath, "submissions", "index.html"))
		if entry := section(preview, folder); !strings.Contains(entry, "badge-verified") || !strings.Contains(entry, verifiedIDs[0]) {
			t.Errorf("%s: the preview's submissions page, entry %s: %q; want it verified, listing its records", when, folder, entry)
		}
		if section(preview, filepath.Base(later)) == "" {
			t.Errorf("%s: the preview's submissions page has no entry %s", when, filepath.Base(later))
		}
		home := readFile(t, filepath.Join(out, site.PreviewPath, "index.html"))
		if !strings.Contains(home, "Submissions added or verified since v1.0") {
			t.Errorf("%s: the preview's home page lists no submission as new", when)
		}
		for f, want := range map[string][]string{folder: {"verified since v1.0 (3 verified records)", "badge-verified"},
			filepath.Base(later): {"added (3 runs)", "badge-self-reported"}} {
			item := regexp.MustCompile(`<li>[^\n]*<code>` + regexp.QuoteMeta(f) + `</code>[^\n]*</li>`).FindString(home)
			for _, w := range want {
				if !strings.Contains(item, w) {
					t.Errorf("%s: the preview's home page, new submission %s: %q does not say %q", when, f, item, w)
				}
			}
		}
		if rows := rowsWith(home, sitetest.SubmissionDisplayName); !slices.ContainsFunc(rows, func(r string) bool { return strings.Contains(r, "badge badge-verified") }) {
			t.Errorf("%s: the preview's home page has no verified row of %s: %q", when, sitetest.SubmissionDisplayName, rows)
		}
		return rep
	}
	build("records verified after the cut")

	// The released submission changed in place (a README added; its run ids
	// unchanged): the build fails naming the release, the file and how to
	// restore it, before any page is written; restored, it builds as before.
	notes := filepath.Join(sub, "README.md")
	if err := os.WriteFile(notes, []byte("edited after the release\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = site.Build(context.Background(), site.Options{ResultsDir: resultsDir, SubmissionsDir: subRoot, VerifiedDir: verRoot, Benchmark: bench,
		RepoRoot: repo, OutDir: filepath.Join(dir, "edited"), WorkDir: filepath.Join(dir, "work"), Releases: rs, Frozen: true})
	for _, want := range []string{"release v1.0", "changed since its generator commit " + rs[0].GeneratorCommit, site.SubmissionsRoot + "/" + folder + "/README.md",
		"git checkout " + rs[0].GeneratorCommit + " -- " + site.SubmissionsRoot + "/" + folder} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("build with the released submission edited: %v; want an error saying %q", err, want)
		}
	}
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	build("the released submission restored")

	// A template change: v1.0 takes the new look (every edition is rendered
	// by the running code) and still shows the numbers frozen when it was cut.
	const mark = `<p class="release-test">template changed after the release</p>`
	layout := filepath.Join(repo, "layouts", "baseof.html")
	page, err := os.ReadFile(layout)
	if err != nil || !bytes.Contains(page, []byte("</body>")) {
		t.Fatalf("%s: %v, or no </body>", layout, err)
	}
	if err := os.WriteFile(layout, bytes.Replace(page, []byte("</body>"), []byte(mark+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	commitAll(t, repo, "change a template")
	build("after a template change")
	for _, p := range []string{filepath.Join(out, "v1.0", "index.html"), filepath.Join(out, site.PreviewPath, "index.html")} {
		if !strings.Contains(readFile(t, p), mark) {
			t.Errorf("after a template change: %s does not show it", p)
		}
	}

	// -preview-only: the preview and the root, no release, no /latest/.
	pv := filepath.Join(dir, "preview-only")
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"-results", resultsDir, "-submissions", subRoot, "-verified", verRoot, "-repo", repo, "-data", bench.Root,
		"-out", pv, "-work", filepath.Join(dir, "work"), "-preview-only"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("-preview-only: exit %d\n%s", code, stderr.String())
	}
	for p, want := range map[string]bool{"index.html": true, site.PreviewPath + "/index.html": true, "v1.0": false, site.LatestPath: false} {
		if _, err := os.Stat(filepath.Join(pv, p)); (err == nil) != want {
			t.Errorf("-preview-only: %s exists %v, want %v", p, err == nil, want)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRecordErratumAcceptsAReviewedCorrection: a release whose pages show a
// number other than its manifest's fails the build naming it; -record-erratum
// refuses an erratum errata.json does not describe, then records the
// difference once described; the next build passes and the release's home
// page lists the erratum, its banner the count, and it publishes the errata
// file.
func TestRecordErratumAcceptsAReviewedCorrection(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sites with Hugo; skipped with -short")
	}
	repo := snapshotRepo(t)
	dir := t.TempDir()
	resultsDir := filepath.Join(dir, "results")
	if _, err := sitetest.WriteRuns(resultsDir); err != nil {
		t.Fatal(err)
	}
	data := mattoolstest.NewRoot(t).Dir
	out := filepath.Join(dir, "public")
	build := []string{"-results", resultsDir, "-out", out, "-work", filepath.Join(dir, "work"), "-data", data, "-repo", repo,
		"-submissions", filepath.Join(dir, "none"), "-verified", filepath.Join(dir, "none")}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"-cut-release", "v1.0", "-date", "2026-12-10", "-title", "fixture"}, build...), &stdout, &stderr); code != exitOK {
		t.Fatalf("cut: exit %d\n%s", code, stderr.String())
	}
	commitAll(t, repo, "release v1.0")

	// The manifest says the release showed 12.3456 where the running code shows another mean.
	manifest := release.NumbersPath(repo, "v1.0")
	ns, err := release.ReadNumbers(manifest)
	if err != nil {
		t.Fatal(err)
	}
	keys := slices.SortedFunc(maps.Keys(ns), func(a, b release.NumberKey) int { return strings.Compare(a.String(), b.String()) })
	i := slices.IndexFunc(keys, func(k release.NumberKey) bool { return ns[k]["mean"] != "" })
	if i < 0 {
		t.Fatalf("%s has no mean", manifest)
	}
	shown := ns[keys[i]]["mean"]
	ns[keys[i]]["mean"] = "12.3456"
	if err := os.WriteFile(manifest, release.MarshalNumbers(ns), 0o644); err != nil {
		t.Fatal(err)
	}
	// The command's release list is the one compiled in (site/releases.json is
	// embedded): the builds below are given the snapshot's.
	bench, err := datasets.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := release.Parse([]byte(readFile(t, filepath.Join(repo, release.File))))
	if err != nil {
		t.Fatal(err)
	}
	buildSite := func(erratum string) error {
		_, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, Benchmark: bench, RepoRoot: repo, OutDir: out,
			WorkDir: filepath.Join(dir, "work"), Releases: rs, Frozen: true, RecordErratum: erratum})
		return err
	}
	if err := buildSite(""); err == nil || !strings.Contains(err.Error(), "release v1.0: 1 numbers differ") ||
		!strings.Contains(err.Error(), "field mean: frozen 12.3456, shown "+shown) {
		t.Fatalf("a changed number: %v; want an error naming the release, the field and both values", err)
	}
	stderr.Reset()
	if code := run(context.Background(), append([]string{"-record-erratum", "fix"}, build...), &stdout, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "not described in "+release.ErrataFile) {
		t.Fatalf("an undescribed erratum: exit %d, stderr %q", code, stderr.String())
	}
	if err := os.WriteFile(filepath.Join(repo, release.ErrataFile), []byte(`{"errata": [{"id": "fix", "date": "2026-12-11",
		"commit": "030392e335dcf64716837071fdb91013c75dd1f3", "text": "A reviewed correction of the fixture."}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := buildSite("fix"); err != nil {
		t.Fatalf("recording erratum fix: %v", err)
	}
	if got := strings.Count(readFile(t, release.ErrataPath(repo, "v1.0")), "\n"); got != 2 {
		t.Errorf("%s has %d lines, want the header and one correction", release.ErrataPath(repo, "v1.0"), got)
	}
	if err := buildSite(""); err != nil {
		t.Fatalf("build after the erratum: %v", err)
	}
	home := readFile(t, filepath.Join(out, "v1.0", "index.html"))
	for _, want := range []string{`id="erratum-fix"`, "A reviewed correction of the fixture.", "1 number corrected since it was cut"} {
		if !strings.Contains(home, want) {
			t.Errorf("v1.0's home page does not say %q", want)
		}
	}
	if csv := readFile(t, filepath.Join(out, "v1.0", "downloads", "errata.csv")); !strings.Contains(csv, ",12.3456,"+shown) {
		t.Errorf("v1.0's downloads/errata.csv: %q", csv)
	}
}
