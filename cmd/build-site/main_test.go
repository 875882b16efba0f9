package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestEmptySiteSaysHowToGetTheData: without results and without
// MATTOOLS_DATA, build-site builds a valid, empty site and says exactly how
// to get the data.
func TestEmptySiteSaysHowToGetTheData(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Hugo; skipped with -short")
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-results", filepath.Join(dir, "none"), "-out", filepath.Join(dir, "public"),
		"-work", filepath.Join(dir, "work"), "-data", "", "-repo", filepath.Join("..", "..")}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{"git clone https://github.com/Grenzlinie/MatTools", datasets.PinnedCommit, "MATTOOLS_DATA=/path/to/MatTools make site"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
		}
	}
	index, err := os.ReadFile(filepath.Join(dir, "public", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), "<html") || !strings.Contains(string(index), "git clone https://github.com/Grenzlinie/MatTools") {
		t.Errorf("the empty site's home page does not say how to get the data:\n%s", index)
	}
	if !strings.Contains(stdout.String(), "built ") {
		t.Errorf("stdout = %q", stdout.String())
	}
}

// TestBadResultsFileIsNamed: with -strict, a broken results file (not even
// Parquet) stops the build with an error naming it (exit 1), before any page
// is written.
func TestBadResultsFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "results", "broken.parquet")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("not parquet"), 0o644)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-results", filepath.Join(dir, "results"), "-out", filepath.Join(dir, "public"),
		"-work", filepath.Join(dir, "work"), "-data", "", "-repo", filepath.Join("..", ".."), "-strict"}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), bad) {
		t.Errorf("exit %d, stderr %q; want exit 1 naming %s", code, stderr.String(), bad)
	}
	if _, err := os.Stat(filepath.Join(dir, "public")); err == nil {
		t.Error("a failed build left an output directory")
	}
}

func TestServeRefusesNonLoopbackAddresses(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-serve", "0.0.0.0:8080", "-out", t.TempDir()}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "only loopback addresses") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// corrupt changes the benchmark_version inside the run metadata JSON of the
// results file at path (same length, so the Parquet footer stays readable):
// the file then fails validation on that field, its run id still readable.
func corrupt(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	key := []byte(`"benchmark_version":"`)
	i := bytes.Index(data, key)
	if i < 0 {
		t.Fatalf("%s: no %s in the run metadata", path, key)
	}
	data[i+len(key)] = 'X'
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixtureResults writes the fixture runs (which the committed releases do
// not list) into dir/results, one of them renamed so that only its metadata
// gives its run id, and returns the directory and that run id.
func fixtureResults(t *testing.T, dir string) (resultsDir string, renamed string) {
	t.Helper()
	rs, err := site.DefaultReleases()
	if err != nil {
		t.Fatal(err)
	}
	inRelease := map[string]bool{}
	for _, r := range rs {
		for _, id := range r.Runs {
			inRelease[id] = true
		}
	}
	resultsDir = filepath.Join(dir, "results")
	for _, f := range sitetest.Runs() {
		if inRelease[f.Run.RunID] {
			t.Fatalf("fixture run %s is listed by a committed release", f.Run.RunID)
		}
		name := f.Run.RunID
		if renamed == "" {
			renamed, name = f.Run.RunID, "renamed"
		}
		if err := results.Write(filepath.Join(resultsDir, name+results.Extension), f); err != nil {
			t.Fatal(err)
		}
	}
	return resultsDir, renamed
}

// TestInvalidFileOutsideReleasesIsSkipped: a corrupted results file of a run
// no release lists is skipped and reported (file, run id from its metadata,
// field) and the rest is built; with -strict the build fails naming it.
func TestInvalidFileOutsideReleasesIsSkipped(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Hugo; skipped with -short")
	}
	dir := t.TempDir()
	resultsDir, renamed := fixtureResults(t, dir)
	bad := filepath.Join(resultsDir, "renamed"+results.Extension)
	corrupt(t, bad)
	valid, err := results.ReadDir(resultsDir)
	if err == nil {
		t.Fatal("results.ReadDir accepts the corrupted file")
	}
	valid, invalid, err := results.ReadDirReport(resultsDir)
	if err != nil || len(invalid) != 1 || invalid[0].Path != bad || invalid[0].RunID != renamed {
		t.Fatalf("ReadDirReport: invalid %v, err %v; want only %s (run %s)", invalid, err, bad, renamed)
	}
	args := []string{"-results", resultsDir, "-out", filepath.Join(dir, "public"), "-work", filepath.Join(dir, "work"), "-data", "", "-repo", filepath.Join("..", "..")}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{bad, "run " + renamed, "benchmark_version", "skipped 1 invalid results files", fmt.Sprintf(" %d runs,", len(valid))} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout does not say %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "warning: skipped invalid results file "+bad) {
		t.Errorf("stderr has no warning naming %s:\n%s", bad, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	strictOut := filepath.Join(dir, "strict")
	args[3] = strictOut
	if code := run(context.Background(), append(args, "-strict"), &stdout, &stderr); code != exitError || !strings.Contains(stderr.String(), bad) ||
		!strings.Contains(stderr.String(), "benchmark_version") {
		t.Errorf("-strict: exit %d, stderr %q; want exit 1 naming %s and the field", code, stderr.String(), bad)
	}
	if _, err := os.Stat(strictOut); err == nil {
		t.Error("a failed -strict build left an output directory")
	}
}

// TestInvalidFileOfAReleaseIsAnError: a corrupted results file of a run that
// a release lists is an error naming the run and the release, -strict or not;
// a file that is not even Parquet is identified by its name <run id>.parquet.
func TestInvalidFileOfAReleaseIsAnError(t *testing.T) {
	dir := t.TempDir()
	resultsDir, _ := fixtureResults(t, dir)
	rs, err := site.DefaultReleases()
	if err != nil || len(rs) == 0 || len(rs[0].Runs) == 0 {
		t.Fatalf("committed releases: %v, %v", rs, err)
	}
	id := rs[0].Runs[len(rs[0].Runs)/2]
	path := filepath.Join(resultsDir, id+results.Extension)
	if err := os.WriteFile(path, []byte("truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-results", resultsDir, "-out", filepath.Join(dir, "public"), "-work", filepath.Join(dir, "work"),
		"-data", "", "-repo", filepath.Join("..", "..")}, &stdout, &stderr)
	// It names a release that lists the run (every release does that lists it).
	var want []string
	for _, r := range rs {
		if slices.Contains(r.Runs, id) {
			want = append(want, "run "+id+", listed by release "+r.Version+" ")
		}
	}
	named := slices.ContainsFunc(want, func(w string) bool { return strings.Contains(stderr.String(), w) })
	if code != exitError || !named || !strings.Contains(stderr.String(), path) {
		t.Errorf("exit %d, stderr %q; want exit 1 saying one of %q and naming %s", code, stderr.String(), want, path)
	}
}

// TestHelpSaysCutReleaseBuilds: -h says that -cut-release records a release
// and builds the site (it does both), not that it records one instead of
// building.
func TestHelpSaysCutReleaseBuilds(t *testing.T) {
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"-h"}, &stdout, &stderr)
	help := stderr.String()
	i := strings.Index(help, "-cut-release")
	if i < 0 {
		t.Fatalf("-h does not list -cut-release:\n%s", help)
	}
	flagHelp := help[i:]
	if j := strings.Index(flagHelp, "\n  -"); j >= 0 {
		flagHelp = flagHelp[:j]
	}
	if strings.Contains(flagHelp, "instead of building") || !strings.Contains(flagHelp, "build the site") {
		t.Errorf("-cut-release's help does not say that it builds the site too:\n%s", flagHelp)
	}
}
