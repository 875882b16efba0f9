package site_test

import (
	"context"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/html"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// realPreview is one preview-only build (site.Options.PreviewOnly, as make
// preview) of the published MatTools results with the committed benchmark
// audit and verified sets (verified-v1, and verified-v2 after it): the root
// and /preview/, no release.
var realPreview struct {
	once sync.Once
	dir  string
	err  error
}

// builtRealPreview returns the directory of the real-data preview build
// (MATTOOLS_DATA), built once per test binary; skipped under -short or
// without the data.
func builtRealPreview(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	root, resultsDir, _ := realData(t)
	realPreview.once.Do(func() {
		bench, err := datasets.Load(root)
		if err != nil {
			realPreview.err = err
			return
		}
		base, err := sharedTempDir("site-real-preview-")
		if err != nil {
			realPreview.err = err
			return
		}
		out := filepath.Join(base, "public")
		repo := repoRoot(t)
		_, realPreview.err = site.Build(context.Background(), site.Options{ResultsDir: resultsDir, AuditDir: committedAuditDir(t), Benchmark: bench,
			Diagnoses:        filepath.Join(repo, "benchmarks", "mattools-tool-usage", "diagnoses.csv"),
			VerifiedSet:      filepath.Join(repo, "benchmarks", "mattools-tool-usage", "verified-v1.json"),
			MoreVerifiedSets: []string{filepath.Join(repo, "benchmarks", "mattools-tool-usage", "verified-v2.json")},
			RepoRoot:         repo, OutDir: out, WorkDir: filepath.Join(base, "work"), PreviewOnly: true})
		realPreview.dir = out
	})
	if realPreview.err != nil {
		t.Fatal(realPreview.err)
	}
	return realPreview.dir
}

// TestFixtureTablesHaveTheirHeaderWidth: every row of every table of the
// fixture site spans as many columns as its header row
// (sitetest.CheckTableShapes).
func TestFixtureTablesHaveTheirHeaderWidth(t *testing.T) {
	fx := builtFixture(t)
	for _, e := range sitetest.CheckTableShapes(fx.dir) {
		t.Error(e)
	}
}

// TestRealPreviewTablesHaveTheirHeaderWidth: on the real-data preview every
// row of every table spans as many columns as its header row, and on the
// home page the benchmark audit's reference-solution row of the 28-question
// table has its task success rate under mattools-v1 (84.95, 79/93) under that
// column's heading and its function runnable rate (100.00) under the
// runnable rate's, its badge under Provenance.
func TestRealPreviewTablesHaveTheirHeaderWidth(t *testing.T) {
	dir := builtRealPreview(t)
	for _, e := range sitetest.CheckTableShapes(dir) {
		t.Error(e)
	}
	for _, page := range []string{"index.html", filepath.Join(site.PreviewPath, "index.html")} {
		got := auditCellsByHeading(t, filepath.Join(dir, page), "reference-solution")
		want := map[string]string{"mattools-v1 task_success_rate": "84.95 79/93", "mattools-v1 function_runnable_rate": "100.00 28/28",
			"mattools-v1-strict task_success_rate": "84.95 79/93", "Provenance": "reference solution"}
		if len(got) == 0 {
			t.Errorf("%s: no reference-solution audit row", page)
		}
		for h, w := range want {
			if got[h] != w {
				t.Errorf("%s: the reference solution's cell under %q is %q, want %q (all: %q)", page, h, got[h], w, got)
			}
		}
	}
}

// auditCellsByHeading returns, for the first ranked table of the page at
// path with an audit row of system sys, each of that row's cells' text by
// its column's heading: "protocol metric" for a metric column, else the
// heading's text.
func auditCellsByHeading(t *testing.T, path, sys string) map[string]string {
	t.Helper()
	doc := parseHTML(t, path)
	for _, tab := range findAll(doc, func(n *html.Node) bool { return n.Data == "table" && hasClass(n, "ranked") }) {
		rows := findAll(tab, func(n *html.Node) bool {
			return n.Data == "tr" && attr(n, "data-system") == sys && hasClass(n, "audit-row")
		})
		if len(rows) == 0 {
			continue
		}
		head := findAll(tab, func(n *html.Node) bool { return n.Data == "tr" })[0]
		isCell := func(n *html.Node) bool { return n.Type == html.ElementNode && (n.Data == "td" || n.Data == "th") }
		var names []string
		for c := head.FirstChild; c != nil; c = c.NextSibling {
			if isCell(c) {
				name := strings.TrimSpace(text(c))
				if m := attr(c, "data-metric"); m != "" {
					name = attr(c, "data-protocol") + " " + m
				}
				names = append(names, name)
			}
		}
		out := map[string]string{}
		i := 0
		for c := rows[0].FirstChild; c != nil; c = c.NextSibling {
			if isCell(c) {
				if i < len(names) {
					out[names[i]] = strings.Join(strings.Fields(text(c)), " ")
				}
				i++
			}
		}
		return out
	}
	return nil
}

// TestRealPreviewRankedCSVsHoldTheAuditRows: the ranked CSV of a table with
// the benchmark audit's rows holds them too (rank 0, n 1), with the values
// the page shows: the reference solution's task success rate under
// mattools-v1 is 84.9462 (79 of 93 properties) on the published version, its
// runnable rate 100.0000;
// so that a release's numbers manifest freezes them (site/release).
func TestRealPreviewRankedCSVsHoldTheAuditRows(t *testing.T) {
	dir := builtRealPreview(t)
	ns, err := release.ReadEditionNumbers(filepath.Join(dir, "preview"))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for k, f := range ns {
		if !strings.HasPrefix(k.Configuration, "audit:reference-solution/") || k.Protocol != "mattools-v1" || strings.Contains(k.Table, "corrected") {
			continue // the corrected version's reference scores more (docs/benchmark-audit.md)
		}
		found++
		want := map[string]string{"task_success_rate": "84.9462", "function_runnable_rate": "100.0000"}[k.Metric]
		if f["mean"] != want || f["n"] != "1" || f["rank"] != "0" {
			t.Errorf("%s: %v, want mean %s, n 1, rank 0", k, f, want)
		}
	}
	if found == 0 {
		t.Error("no ranked CSV of the preview holds the reference solution's row")
	}
}
