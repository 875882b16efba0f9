package site_test

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/content"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden (refused when CI is set)")

// checkGolden compares got with testdata/golden/<name>; with -update it
// rewrites the file instead. On a mismatch it writes <name>.got beside it
// and reports the first differing line.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if os.Getenv("CI") != "" {
			t.Fatal("-update refuses to run when CI is set: golden files are rewritten by a developer, reviewed and committed")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./site -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		os.Remove(path + ".got")
		return
	}
	os.WriteFile(path+".got", got, 0o644)
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		g, w := "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s differs from the golden file at line %d (wrote %s.got):\n got: %s\nwant: %s", path, i+1, path, g, w)
			return
		}
	}
}

// goldenSet returns every download that the goldens cover: one CSV per
// leaderboard table (tables/<id>.csv) and the data behind each figure
// (figures/<id>.csv), by file name.
func goldenSet(lb *aggregate.Leaderboard) map[string][]byte {
	out := map[string][]byte{}
	for _, b := range aggregate.Boards {
		for _, t := range lb.Tables[b] {
			out["tables/"+t.ID+".csv"] = content.TableCSV(t)
		}
	}
	for _, f := range plots.All(lb, paperonly.Values()) {
		out["figures/"+f.ID+".csv"] = f.CSV()
	}
	return out
}

func checkGoldenDir(t *testing.T, dir string, set map[string][]byte) {
	t.Helper()
	for name, data := range set {
		checkGolden(t, filepath.Join(dir, name), data)
	}
	// No stale golden file may outlive its table or figure.
	for _, sub := range []string{"tables", "figures"} {
		entries, _ := os.ReadDir(filepath.Join("testdata", "golden", dir, sub))
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".got") {
				continue
			}
			if _, ok := set[sub+"/"+e.Name()]; !ok {
				if *update && os.Getenv("CI") == "" {
					os.Remove(filepath.Join("testdata", "golden", dir, sub, e.Name()))
					continue
				}
				t.Errorf("golden file %s/%s/%s has no table or figure any more", dir, sub, e.Name())
			}
		}
	}
}

// TestFixtureDownloadsGolden: the CSV downloads and figure data of the fixture.
func TestFixtureDownloadsGolden(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	set := goldenSet(lb)
	checkGoldenDir(t, "fixture", set)
}

// realImport imports the published MatTools results under MATTOOLS_DATA
// once per test binary, into a temporary results directory.
var realImport = sync.OnceValues(func() (string, error) {
	root := os.Getenv(datasets.EnvVar)
	imp, err := published.Read(root, published.Options{})
	if err != nil {
		return "", err
	}
	dir, err := sharedTempDir("site-real-results-")
	if err != nil {
		return "", err
	}
	for _, f := range imp.Files {
		if err := results.Write(filepath.Join(dir, f.Run.RunID+results.Extension), f); err != nil {
			return "", err
		}
	}
	return dir, nil
})

func realData(t *testing.T) (root, resultsDir string, files []*results.File) {
	t.Helper()
	root = mattoolstest.DataRoot(t, "to test the site on the published results")
	dir, err := realImport()
	if err != nil {
		t.Fatal(err)
	}
	files, err = results.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root, dir, files
}

// releaseFiles returns the newest committed release and its runs as make
// site gathers them (build-site's defaults; site.ReleaseRuns runs the
// build's own code): from the import of MATTOOLS_DATA's published results
// (resultsDir, as make import writes it), the repository's submissions
// with their verified records (site.SubmissionsRoot, site.VerifiedRoot) and
// the benchmark audit's committed results files (committedAuditDir). files
// are the release's runs of results files and submissions, compact, with
// their tool-usage rows in rows (aggregate.BuildRows takes both, as the
// build does); audit are its benchmark audit runs. Their numbers are fixed
// by the release (not by how many published runs a data root holds), so
// their downloads can be golden on any MatTools root that holds them: this
// copy or an upstream checkout. A run the release lists that none of these
// places holds, or that is invalid, fails the test naming the run and
// where it was looked for.
func releaseFiles(t *testing.T, resultsDir string) (r release.Release, files []*results.File, rows map[string][]results.SummaryRow, audit []*results.File) {
	t.Helper()
	rs, err := site.DefaultReleases()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 {
		t.Fatalf("%s lists no release", release.File)
	}
	r = rs[len(rs)-1]
	o := site.Options{ResultsDir: resultsDir, AuditDir: committedAuditDir(t),
		SubmissionsDir: filepath.Join(repoRoot(t), site.SubmissionsRoot), VerifiedDir: filepath.Join(repoRoot(t), site.VerifiedRoot)}
	files, rows, audit, missing, err := site.ReleaseRuns(o, r)
	if err != nil {
		t.Fatalf("release %s (%s): %v", r.Version, release.File, err)
	}
	if len(missing) > 0 {
		t.Fatalf("release %s (%s) lists %s present in none of the import of %s=%s (%s), the submissions %s (verified records %s) and the benchmark audit's results %s:\n  %s",
			r.Version, release.File, words.Count(len(missing), "run", "runs"), datasets.EnvVar, os.Getenv(datasets.EnvVar), o.ResultsDir, o.SubmissionsDir, o.VerifiedDir, o.AuditDir,
			strings.Join(missing, "\n  "))
	}
	return r, files, rows, audit
}

// TestRealDownloadsGolden: the CSV downloads and figure data of the newest
// release, built from its runs as make site builds them (goldens in
// testdata/golden/mattools), whose as-published numbers
// TestRealNumbersEqualThePaper checks against the reference files. The
// release's benchmark audit runs must be present but are in no table
// download or figure (aggregate never makes them configurations); their
// unranked rows of the ranked CSVs are frozen in the release's numbers
// manifest (site/releases/<version>.numbers.csv).
func TestRealDownloadsGolden(t *testing.T) {
	_, resultsDir, _ := realData(t)
	_, files, rows, _ := releaseFiles(t, resultsDir)
	lb := aggregate.BuildRows(files, rows, aggregate.DefaultCatalog())
	checkGoldenDir(t, "mattools", goldenSet(lb))
}

// readRefCSV reads one of the committed expected-value files of the
// reference study (results/published/testdata: paper-runs.csv,
// qa-models.csv); the site itself never reads these files.
func readRefCSV(t *testing.T, name string) []map[string]string {
	return csvRecords(t, filepath.Join("..", "results", "published", "testdata", name))
}

// downloadRecords parses a download (table or figure CSV) into one map per row.
func downloadRecords(t *testing.T, data []byte) []map[string]string {
	t.Helper()
	return parseCSV(t, "download", data)
}

// csvRecords reads a CSV file with a header row into one map per row.
func csvRecords(t *testing.T, path string) []map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseCSV(t, path, data)
}

func parseCSV(t *testing.T, name string, data []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

// familySystem maps paper-runs.csv's family folders to systems.
var familySystem = map[string]results.System{
	"pure_agent_test": results.SystemSingleLLM, "RAG_agent_test": results.SystemLLMRAG,
	"agentic_RAG_test": results.SystemAgenticRAG, "mtr_rag_test": results.SystemSelfReflectionRAG,
}

// TestRealNumbersEqualThePaper checks every number of the table and figure
// downloads built from every published run the data root holds against the reference study's paper-runs.csv (tool usage: per-round
// counts, mean and population std) and qa-models.csv (QA: Table 1), for every
// configuration present, and that every reference configuration whose files
// are present appears.
func TestRealNumbersEqualThePaper(t *testing.T) {
	root, _, files := realData(t)
	lb := aggregate.Build(files, aggregate.DefaultCatalog())
	type ref struct {
		runnable, success [4]int // by round 1–3
		rounds            int
	}
	refs := map[string]*ref{} // system/source/model
	for _, r := range readRefCSV(t, "paper-runs.csv") {
		if _, err := os.Stat(filepath.Join(root, r["source"])); err != nil {
			continue // not in this copy of the data
		}
		src := 0
		if m := r["method"]; m != "none" {
			src, _ = strconv.Atoi(strings.TrimPrefix(m, "method"))
		}
		k := fmt.Sprintf("%s/%d/%s", familySystem[r["family"]], src, r["model"])
		if refs[k] == nil {
			refs[k] = &ref{}
		}
		round, _ := strconv.Atoi(r["round"])
		refs[k].runnable[round], _ = strconv.Atoi(r["runnable"])
		refs[k].success[round], _ = strconv.Atoi(r["success"])
		refs[k].rounds++
	}
	if len(refs) == 0 {
		t.Fatal("no reference configuration is present in MATTOOLS_DATA")
	}
	f4 := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	expect := func(counts [4]int, total int) (mean, std string, pcts []string) {
		var v []float64
		for r := 1; r <= 3; r++ {
			v = append(v, stats.Percent(counts[r], total))
			pcts = append(pcts, f4(stats.Percent(counts[r], total)))
		}
		s := stats.Summarize(v)
		return f4(s.Mean), f4(s.PopStd), pcts
	}
	seen := map[string]bool{}
	checkedTables, checkedFigures := 0, 0
	for _, b := range aggregate.Boards {
		for _, tb := range lb.Tables[b] {
			if tb.ScoringProtocol != results.ProtocolMatToolsOriginal {
				continue // re-executed runs: checked against the published totals in results/published
			}
			for _, rec := range downloadRecords(t, content.TableCSV(tb)) {
				if rec["benchmark"] != string(results.BenchmarkToolUsage) {
					continue
				}
				k := rec["system"] + "/" + rec["retrieval_source"] + "/" + rec["model"]
				r := refs[k]
				if r == nil {
					t.Errorf("table %s: configuration %s is not in paper-runs.csv", tb.ID, k)
					continue
				}
				seen[k] = true
				counts, total := r.runnable, 49
				if rec["metric"] == string(aggregate.TaskSuccessRate) {
					counts, total = r.success, 138
				}
				mean, std, pcts := expect(counts, total)
				wantCounts := fmt.Sprintf("%d;%d;%d", counts[1], counts[2], counts[3])
				if rec["round_counts"] != wantCounts || rec["mean_percent"] != mean || rec["pop_std_percent"] != std ||
					rec["round_percents"] != strings.Join(pcts, ";") || rec["n"] != "3" || rec["scoring_protocol"] != results.ProtocolMatToolsOriginal {
					t.Errorf("%s %s: golden %v; paper-runs.csv gives counts %s, mean %s ± %s", k, rec["metric"], rec, wantCounts, mean, std)
				}
				checkedTables++
			}
		}
	}
	for k := range refs {
		if !seen[k] {
			t.Errorf("reference configuration %s is present in the data but in no table", k)
		}
	}
	// Figures: each computed bar's mean and error bar equal the reference.
	byKey := map[string]*aggregate.Configuration{}
	for _, c := range lb.Configurations {
		byKey[c.Key.String()] = c
	}
	for _, f := range plots.All(lb, paperonly.Values()) {
		for _, rec := range downloadRecords(t, f.CSV()) {
			if rec["source"] != "computed" {
				continue
			}
			c := byKey[rec["configuration"]]
			if c == nil {
				t.Errorf("figure %s: unknown configuration %s", f.ID, rec["configuration"])
				continue
			}
			if c.Key.ScoringProtocol != results.ProtocolMatToolsOriginal {
				continue // a figure of re-executed runs: the paper has no such numbers
			}
			r := refs[fmt.Sprintf("%s/%d/%s", c.Key.System, c.Key.RetrievalSource, c.Key.Model)]
			counts, total := r.runnable, 49
			if rec["series"] == aggregate.TaskSuccessRate.Title() || (rec["panel"] == aggregate.TaskSuccessRate.Title()) {
				counts, total = r.success, 138
			}
			mean, std, _ := expect(counts, total)
			if rec["mean_percent"] != mean || rec["pop_std_percent"] != std || rec["n"] != "3" {
				t.Errorf("figure %s bar %v: paper-runs.csv gives %s ± %s", f.ID, rec, mean, std)
			}
			checkedFigures++
		}
	}
	// QA: Table 1 from qa-models.csv, for every model whose CSVs are present.
	qaRows := 0
	for _, m := range readRefCSV(t, "qa-models.csv") {
		if m["directory"] == "" {
			continue // ChemLLM: paper-only
		}
		if _, err := os.Stat(filepath.Join(root, "qa_benchmark", "test_results", m["directory"], m["code_csv"])); err != nil {
			continue
		}
		found := false
		for _, tb := range lb.Tables[aggregate.BoardQA] {
			for _, rec := range downloadRecords(t, content.TableCSV(tb)) {
				if rec["model"] != m["directory"] {
					continue
				}
				found = true
				// The cell's value from its counts (the 4-decimal mean_percent would round twice).
				k, _ := strconv.Atoi(rec["round_counts"])
				n, _ := strconv.Atoi(rec["round_totals"])
				mean := stats.Percent(k, n)
				if f4(mean) != rec["mean_percent"] {
					t.Errorf("QA %s: mean_percent %s is not %d/%d", m["display_name"], rec["mean_percent"], k, n)
				}
				want := m["paper_code_accuracy"]
				if rec["benchmark"] == string(results.BenchmarkQADoc) {
					want = m["paper_doc_accuracy"]
				}
				if got := strconv.FormatFloat(mean, 'f', 2, 64); got != want || rec["n"] != "1" || rec["display_name"] != m["display_name"] {
					t.Errorf("QA %s %s: %s (n %s, %q), Table 1 gives %s (%q)", m["display_name"], rec["benchmark"], got, rec["n"], rec["display_name"], want, m["display_name"])
				}
				qaRows++
			}
		}
		if !found {
			t.Errorf("QA model %s has CSVs but no table row", m["display_name"])
		}
	}
	t.Logf("checked %d table cells, %d figure bars, %d QA cells against the reference files", checkedTables, checkedFigures, qaRows)
	if checkedTables == 0 || checkedFigures == 0 || qaRows == 0 || math.Abs(float64(checkedTables-checkedFigures)) > 0 {
		t.Errorf("table cells %d and figure bars %d should be equal and non-zero; QA cells %d", checkedTables, checkedFigures, qaRows)
	}
}
