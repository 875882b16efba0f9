package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// TestEmptySiteSaysHowToGetTheData: without results and without
// MATTOOLS_DATA, build-site builds a valid, empty site and says exactly how
// to get the data (issue 3).
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

// TestBadResultsFileIsNamed: a broken results file stops the build with an
// error naming it (exit 1), before any page is written.
func TestBadResultsFileIsNamed(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "results", "broken.parquet")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("not parquet"), 0o644)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-results", filepath.Join(dir, "results"), "-out", filepath.Join(dir, "public"),
		"-work", filepath.Join(dir, "work"), "-data", "", "-repo", filepath.Join("..", "..")}, &stdout, &stderr)
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
