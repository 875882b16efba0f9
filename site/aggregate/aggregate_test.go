package aggregate_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

func near(a, b float64) bool { return math.Abs(a-b) < 0.005 }

func find(lb *aggregate.Leaderboard, sys results.System, model string, prov results.ProvenanceKind) *aggregate.Configuration {
	for _, c := range lb.Configurations {
		if c.Key.Benchmark == results.BenchmarkToolUsage && c.Key.System == sys && c.Key.Model == model && c.Key.Provenance == string(prov) {
			return c
		}
	}
	return nil
}

// TestBuildSummarisesRoundsWithPopulationStd checks mean ± population std and
// the per-round values of one configuration.
func TestBuildSummarisesRoundsWithPopulationStd(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	c := find(lb, results.SystemSingleLLM, sitetest.GPT4o, results.ProvenanceImported)
	if c == nil {
		t.Fatal("GPT-4o single-LLM configuration missing")
	}
	if c.Model.DisplayName != "GPT-4o" || c.Board != aggregate.BoardSingleLLM {
		t.Errorf("model %+v board %s", c.Model, c.Board)
	}
	// runnable [2, 3, 1] of 3 → [66.67, 100, 33.33]: mean 66.67, population std
	// sqrt(((0)²+(33.33)²+(33.33)²)/3) = 27.22 (sample std would be 33.33).
	s := c.Summaries[aggregate.FunctionRunnableRate]
	if s.N != 3 || !near(s.Mean, 66.6667) || !near(s.PopStd, 27.2166) || !near(s.SampleStd, 33.3333) {
		t.Errorf("runnable summary = %+v", s)
	}
	// passed [5, 9, 3] of 15 → [33.33, 60, 20]: mean 37.78, population std 16.63.
	s = c.Summaries[aggregate.TaskSuccessRate]
	if !near(s.Mean, 37.7778) || !near(s.PopStd, 16.6296) {
		t.Errorf("success summary = %+v", s)
	}
	rounds := c.Rounds[aggregate.TaskSuccessRate]
	if len(rounds) != 3 || rounds[0].Count != 5 || rounds[1].Count != 9 || rounds[2].Count != 3 || rounds[0].Total != 15 {
		t.Errorf("per-round values = %+v", rounds)
	}
}

// TestBuildNeverMixesProtocolsOrProvenance: the hostile model has imported
// (mattools-original) and runner (mattools-v1) runs of the single-LLM system;
// they are two configurations in two tables.
func TestBuildNeverMixesProtocolsOrProvenance(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	imp := find(lb, results.SystemSingleLLM, sitetest.HostileModel, results.ProvenanceImported)
	run := find(lb, results.SystemSingleLLM, sitetest.HostileModel, results.ProvenanceRunner)
	if imp == nil || run == nil || imp == run {
		t.Fatalf("configurations: imported %v, runner %v", imp, run)
	}
	if got := imp.Summaries[aggregate.FunctionRunnableRate]; got.N != 3 || !near(got.Mean, 33.3333) || got.PopStd != 0 {
		t.Errorf("imported runnable = %+v", got)
	}
	if got := run.Summaries[aggregate.TaskSuccessRate]; got.N != 3 || !near(got.Mean, 80) {
		t.Errorf("runner success = %+v (12/15 each round)", got)
	}
	tables := lb.Tables[aggregate.BoardSingleLLM]
	if len(tables) != 2 || tables[0].ScoringProtocol != results.ProtocolMatToolsOriginal || tables[1].ScoringProtocol != results.ProtocolMatToolsV1 {
		t.Fatalf("single-LLM tables: %d", len(tables))
	}
	if n := len(tables[0].Rows); n != 2 {
		t.Errorf("mattools-original table has %d rows, want 2", n)
	}
	// Figure 4 order: GPT-4o is catalogued; the unknown hostile model comes after it.
	if tables[0].Rows[0].Model.ID != sitetest.GPT4o {
		t.Errorf("first row %s", tables[0].Rows[0].Model.ID)
	}
	if tables[0].Rows[1].Model.DisplayName != sitetest.HostileDisplayName {
		t.Errorf("hostile display name not taken from the run: %q", tables[0].Rows[1].Model.DisplayName)
	}
}

// TestBuildKeepsUnscoredAndRoundZeroRunsOutOfTables checks the statuses.
func TestBuildKeepsUnscoredAndRoundZeroRunsOutOfTables(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	na := lb.NotAggregated[aggregate.BoardAdvanced]
	if len(na) != 2 {
		t.Fatalf("advanced board: %d configurations not aggregated, want 2", len(na))
	}
	statuses := map[results.System]aggregate.RunStatus{}
	for _, c := range na {
		statuses[c.Key.System] = c.Runs[0].Status
		if len(c.Summaries) != 0 {
			t.Errorf("%s has summaries %v", c.Key, c.Summaries)
		}
	}
	if statuses[results.SystemAgenticRAG] != aggregate.StatusUnscored || statuses[results.SystemSelfReflectionRAG] != aggregate.StatusOutsideRounds {
		t.Errorf("statuses = %v", statuses)
	}
	if len(lb.Tables[aggregate.BoardAdvanced]) != 0 {
		t.Errorf("advanced tables = %d, want 0", len(lb.Tables[aggregate.BoardAdvanced]))
	}
	// The round-0 run keeps its own values for display.
	for _, c := range na {
		if c.Key.System == results.SystemSelfReflectionRAG {
			if v := c.Runs[0].Values[aggregate.TaskSuccessRate]; v.Count != 14 || v.Total != 15 {
				t.Errorf("round-0 run value = %+v", v)
			}
		}
	}
}

// TestBuildQATableJoinsCodeAndDocInTable1Order checks the QA board.
func TestBuildQATableJoinsCodeAndDocInTable1Order(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	tables := lb.Tables[aggregate.BoardQA]
	if len(tables) != 1 {
		t.Fatalf("QA tables = %d", len(tables))
	}
	tb := tables[0]
	if len(tb.Columns) != 2 || tb.Columns[0].Benchmark != results.BenchmarkQACode || tb.Columns[1].Benchmark != results.BenchmarkQADoc {
		t.Errorf("columns = %+v", tb.Columns)
	}
	if len(tb.Rows) != 2 || tb.Rows[0].Model.DisplayName != "Gemini-1.5-Flash" || tb.Rows[0].Model.Group != aggregate.GroupClosedSource {
		t.Fatalf("rows = %+v", tb.Rows)
	}
	code, doc := tb.Rows[0].Cells[0], tb.Rows[0].Cells[1]
	if code.Summary.N != 1 || code.Summary.Mean != 70 || doc.Summary.Mean != 80 {
		t.Errorf("Gemini-1.5-Flash cells = %+v / %+v", code.Summary, doc.Summary)
	}
	groups := tb.Groups()
	if len(groups) != 2 || groups[0].Group != aggregate.GroupClosedSource || groups[1].Group != "" {
		t.Errorf("groups = %+v", groups)
	}
}

func TestDuplicateRoundsAreWarned(t *testing.T) {
	runs := sitetest.Runs()
	var extra *results.File
	for _, f := range runs {
		if f.Run.Model == sitetest.GPT4o && f.Run.System == results.SystemSingleLLM && f.Run.Round == 2 {
			dup := *f
			dup.Run.RunID += "-rerun"
			extra = &dup
		}
	}
	lb := aggregate.Build(append(runs, extra), aggregate.DefaultCatalog())
	c := find(lb, results.SystemSingleLLM, sitetest.GPT4o, results.ProvenanceImported)
	if c.Summaries[aggregate.FunctionRunnableRate].N != 4 || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "round 2 has 2 runs") {
		t.Errorf("N = %d, warnings = %q", c.Summaries[aggregate.FunctionRunnableRate].N, c.Warnings)
	}
}

func TestSlugIsSafeAndUnique(t *testing.T) {
	a, b := aggregate.Slug(sitetest.HostileModel), aggregate.Slug("evil-script-alert-1-script-amp")
	if a == b {
		t.Errorf("distinct keys share slug %s", a)
	}
	for _, s := range []string{a, b, aggregate.Slug(""), aggregate.Slug("../../etc")} {
		if strings.ContainsAny(s, "<>&/\"' ") || strings.HasPrefix(s, ".") || s == "" {
			t.Errorf("unsafe slug %q", s)
		}
	}
}

func TestCatalogCoversQAModelsInTable1Order(t *testing.T) {
	cat := aggregate.DefaultCatalog()
	want := []string{"Gemini-1.5-Flash", "Gemini-1.5-Pro", "Gemini-2.0-Flash", "Qwen2.5-7B-Instruct", "Qwen2.5-14B-Instruct",
		"Qwen2.5-Coder-14B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-Coder-32B-Instruct", "Qwen2.5-72B-Instruct",
		"ChemDFM-v1.5-8B", "ChemLLM-7B-Chat-1_5-DPO", "Darwin 1.5-7B"}
	got := make([]string, len(want))
	for _, m := range cat.Models() {
		if m.QAOrder > 0 {
			got[m.QAOrder-1] = m.DisplayName
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Table 1 order = %v", got)
	}
}

// TestV1FilesRender: the committed format-v1 files (results/testdata/v1)
// and the format-v2 file (results/testdata/v2, without per-property
// outcomes) still read and give one configuration each, with the values of
// their totals.
func TestV1FilesRender(t *testing.T) {
	for _, c := range []struct {
		version, files int
	}{{1, 2}, {2, 1}} {
		t.Run(fmt.Sprintf("v%d", c.version), func(t *testing.T) { testOldFilesRender(t, c.version, c.files) })
	}
}

func testOldFilesRender(t *testing.T, version, n int) {
	files, err := results.ReadDir(fmt.Sprintf("../../results/testdata/v%d", version))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != n {
		t.Fatalf("%d v%d files, want %d", len(files), version, n)
	}
	lb := aggregate.Build(files, aggregate.DefaultCatalog())
	if len(lb.Configurations) != n {
		t.Fatalf("%d configurations, want %d", len(lb.Configurations), n)
	}
	for _, f := range files {
		var c *aggregate.Configuration
		for _, x := range lb.Configurations {
			if x.Runs[0].File == f {
				c = x
			}
		}
		if c == nil || f.Run.FormatVersion != version {
			t.Fatalf("%s: no configuration, or not a v%d file", f.Path, version)
		}
		if c.Key.SystemParams != "" || c.Key.Configuration != f.Run.Configuration() {
			t.Errorf("%s: key %+v", f.Path, c.Key)
		}
		var m aggregate.Metric
		var want float64
		if f.Run.Benchmark.Kind() == results.KindMultipleChoice {
			m, want = aggregate.Accuracy, 100*float64(*f.Run.Totals.Correct)/float64(f.Run.Totals.Questions)
		} else {
			m, want = aggregate.TaskSuccessRate, 100*float64(*f.Run.Totals.PropertiesPassed)/float64(f.Run.Totals.Properties)
		}
		if s := c.Summaries[m]; s.N != 1 || !near(s.Mean, want) {
			t.Errorf("%s: %s = %+v, want %.2f", f.Path, m, s, want)
		}
		found := false
		for _, tb := range lb.Tables[c.Board] {
			for _, row := range tb.Rows {
				found = found || slices.Contains(row.Configurations, c)
			}
		}
		if !found {
			t.Errorf("%s: configuration %s is in no table row", f.Path, c.Key)
		}
	}
}

// TestSystemParamsSplitRows: runs that differ only in their system
// parameters are two configurations and two rows, never averaged together.
func TestSystemParamsSplitRows(t *testing.T) {
	runner := func(params map[string]string) []*results.File {
		var out []*results.File
		for _, f := range sitetest.Runs() {
			if f.Run.Provenance.Kind == results.ProvenanceRunner {
				f.Run.SystemParams = params
				f.Run.RunID = results.MakeRunID(&f.Run)
				out = append(out, f)
			}
		}
		return out
	}
	a, b := runner(nil), runner(map[string]string{"prompt": "cot"})
	if len(a) != 3 || a[0].Run.RunID == b[0].Run.RunID {
		t.Fatalf("%d runner runs; ids %s, %s", len(a), a[0].Run.RunID, b[0].Run.RunID)
	}
	lb := aggregate.Build(append(a, b...), aggregate.DefaultCatalog())
	if len(lb.Configurations) != 2 {
		t.Fatalf("%d configurations, want 2", len(lb.Configurations))
	}
	tables := lb.Tables[aggregate.BoardSingleLLM]
	if len(tables) != 1 || len(tables[0].Rows) != 2 {
		t.Fatalf("tables %d, rows %d; want 1 table of 2 rows", len(tables), len(tables[0].Rows))
	}
	for _, row := range tables[0].Rows {
		if s := row.Cells[0].Summary; s.N != 3 {
			t.Errorf("row %s averages %d runs, want 3", row.Configurations[0].Key, s.N)
		}
	}
}

// TestAuditRunsAreNeverRanked: the benchmark audit's runs (provenance
// audit: the reference solution and the trivial baselines) give no
// configuration, so no table ranks them among the systems under test.
func TestAuditRunsAreNeverRanked(t *testing.T) {
	runs := sitetest.Runs()
	var audit *results.File
	for _, f := range runs {
		if f.Run.Provenance.Kind == results.ProvenanceRunner {
			g := *f
			g.Run.System, g.Run.Model, g.Run.Provenance = results.SystemReferenceSolution, results.ModelNone, results.Provenance{Kind: results.ProvenanceAudit}
			g.Run.RunID = results.MakeRunID(&g.Run)
			audit = &g
			break
		}
	}
	if err := results.Validate(audit); err != nil {
		t.Fatal(err)
	}
	want := len(aggregate.Build(runs, aggregate.DefaultCatalog()).Configurations)
	lb := aggregate.Build(append(runs, audit), aggregate.DefaultCatalog())
	if len(lb.Configurations) != want {
		t.Errorf("%d configurations with an audit run, %d without", len(lb.Configurations), want)
	}
	for _, c := range lb.Configurations {
		if c.Key.System.IsAudit() {
			t.Errorf("configuration %s is an audit run's", c.Key)
		}
	}
}

// TestRankedTablesKeepBenchmarksApart: a registered benchmark of another
// suite whose runs record MatTools' benchmark version and question set (as
// a folder benchmark may) gets a ranked table of its own, after MatTools',
// titled with its benchmark; MatTools' tables are unchanged.
func TestRankedTablesKeepBenchmarksApart(t *testing.T) {
	const other = results.Benchmark("ranked-apart-toy")
	if err := results.RegisterBenchmark(results.BenchmarkInfo{Name: other, Kind: results.KindToolUsage, Suite: "ranked-apart",
		Versions: []results.BenchmarkVersion{{ID: results.BenchmarkVersion2025_05, Questions: 3, Properties: 15}}, Protocols: []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict},
		Title: "Toy suite", Headline: "task_success_rate", Recorded: true}); err != nil {
		t.Fatal(err)
	}
	runs := sitetest.Runs()
	before := aggregate.Build(runs, aggregate.DefaultCatalog()).Headline
	var copies []*results.File
	for _, f := range runs {
		if f.Run.Provenance.Kind == results.ProvenanceRunner && f.Run.Benchmark == results.BenchmarkToolUsage {
			g := *f
			g.Run.Benchmark = other
			g.Run.RunID = results.MakeRunID(&g.Run)
			copies = append(copies, &g)
		}
	}
	if len(copies) == 0 {
		t.Fatal("no runner run in the fixture")
	}
	after := aggregate.Build(append(runs, copies...), aggregate.DefaultCatalog()).Headline
	if len(after) != len(before)+1 {
		t.Fatalf("%d ranked tables with the other benchmark's runs, %d without; want one more", len(after), len(before))
	}
	for i, rt := range before {
		if after[i].ID != rt.ID || after[i].Title() != rt.Title() || len(after[i].Rows) != len(rt.Rows) || after[i].Benchmark != results.BenchmarkToolUsage {
			t.Errorf("MatTools table %d: %s %q (%d rows), want %s %q (%d rows)", i, after[i].ID, after[i].Title(), len(after[i].Rows), rt.ID, rt.Title(), len(rt.Rows))
		}
	}
	last := after[len(after)-1]
	if last.Benchmark != other || !strings.HasPrefix(last.Title(), "Toy suite: ") || last.QuestionSet == "" {
		t.Errorf("the other benchmark's table: %s %q, question set %s", last.Benchmark, last.Title(), last.QuestionSet)
	}
}

// TestRetrievalTitleNamesAGraphsPartialCorpus: a GraphRAG run whose graph
// was built from a folder below pymatgen says so; one of the whole package
// does not.
func TestRetrievalTitleNamesAGraphsPartialCorpus(t *testing.T) {
	r := &results.Run{System: results.SystemGraphRAG, RetrievalSource: 1, RetrievalMethod: "graph", TopK: 60,
		SystemParams: map[string]string{"corpus": "pymatgen/analysis/topological"}}
	if got, want := aggregate.RetrievalTitle(r), "1: pymatgen code, graph, top-60, corpus pymatgen/analysis/topological"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	r.SystemParams["corpus"] = "pymatgen"
	if got, want := aggregate.RetrievalTitle(r), "1: pymatgen code, graph, top-60"; got != want {
		t.Errorf("whole-package title %q, want %q", got, want)
	}
}
