package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// TestSecretsAbsentEverywhere: secrets planted in the API key
// variable, in another environment variable, and in the endpoint URL's
// user info and query string appear nowhere after a scored run whose
// sandboxed code prints every environment it can see: not in the
// command's output (debug logging on), the journals, the results files
// (decoded, every row and every run field) or the pages of a site built
// from them (Parquet downloads decoded too).
func TestSecretsAbsentEverywhere(t *testing.T) {
	python := envOr(os.Getenv, "MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	const (
		envSecret   = "ENV-SECRET-d41d8cd98f"
		userSecret  = "URLPASS-SECRET-8f00b204e9"
		querySecret = "QUERY-SECRET-0800fc577294"
	)
	secrets := []string{key, envSecret, userSecret, querySecret}
	root := sandboxReadableRoot(t)
	srv := llmtest.New(t, llmtest.Options{Responder: envAnswer})
	base := strings.Replace(srv.URL, "http://", "http://mtuser:"+userSecret+"@", 1) + "?api-version=1&token=" + querySecret
	out := t.TempDir()
	cmd, stdout, stderr := childEnv(t, []string{"RB_TEST_PLANTED=" + envSecret}, "-plan", writePlan(t, base), "-data", root.Dir, "-out", out, "-no-progress", "-v")
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if reqs := srv.Requests(); len(reqs) == 0 || !strings.Contains(reqs[0].URL, "token="+querySecret) {
		t.Fatalf("the endpoint's query string did not reach the server: %v", reqs)
	}

	// The built site.
	bench, err := datasets.Load(root.Dir)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	siteDir := filepath.Join(work, "public")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: out, Benchmark: bench, DataHint: "hint",
		RepoRoot: "../..", OutDir: siteDir, WorkDir: filepath.Join(work, "hugo"), Releases: []release.Release{}}); err != nil {
		t.Fatal(err)
	}

	searched := map[string]int{}
	search := func(what string, data []byte) {
		searched[what]++
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds the secret %.14s…", what, s)
			}
		}
	}
	search("the command's output", append(stdout.Bytes(), stderr.Bytes()...))
	for _, dir := range []string{out, siteDir} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, _ := os.ReadFile(p)
			search(p, data)
			if strings.HasSuffix(p, results.Extension) {
				f, err := results.Read(p)
				if err != nil {
					t.Errorf("%s: %v", p, err)
					return nil
				}
				decoded, _ := json.Marshal(f) // every run field and row, decompressed
				search(p+" (decoded)", decoded)
			}
			return nil
		})
	}
	var pages, parquet, journals int
	for p := range searched {
		switch {
		case strings.HasSuffix(p, ".html"):
			pages++
		case strings.HasSuffix(p, "(decoded)"):
			parquet++
		case strings.HasSuffix(p, ".jsonl"):
			journals++
		}
	}
	if pages < 5 || parquet < 2 || journals < 1 {
		t.Errorf("searched %d pages, %d results files, %d journals; want a whole run and site", pages, parquet, journals)
	}
	// The sandboxed code printed its environment, so the search covers what it saw.
	dumped := false
	for p := range searched {
		if data, _ := os.ReadFile(strings.TrimSuffix(p, " (decoded)")); bytes.Contains(data, []byte("ENV-DUMP")) {
			dumped = true
		}
	}
	t.Logf("searched %d files (%d pages, %d results files decoded, %d journals); environment dump found: %v", len(searched), pages, parquet, journals, dumped)
}
