package published

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
)

func dataRoot(t *testing.T) string {
	t.Helper()
	root := mattoolstest.DataRoot(t, "to import the published results")
	return root
}

var (
	realOnce  sync.Once
	realDir   string
	realFiles []*results.File
	realErr   error
)

// importReal imports MATTOOLS_DATA once per test binary, writes the results
// files to a temporary folder and reads them back: everything checked below
// comes from the Parquet files alone.
func importReal(t *testing.T) (string, []*results.File) {
	t.Helper()
	root := dataRoot(t)
	realOnce.Do(func() {
		realDir, realErr = os.MkdirTemp("", "import-real-")
		if realErr != nil {
			return
		}
		var imp *Import
		if imp, realErr = Read(root, Options{}); realErr != nil {
			return
		}
		if realErr = imp.WriteAll(realDir); realErr != nil {
			return
		}
		realFiles, realErr = results.ReadDir(realDir)
	})
	if realErr != nil {
		t.Fatal(realErr)
	}
	return realDir, realFiles
}

func TestMain(m *testing.M) {
	code := m.Run()
	if realDir != "" {
		os.RemoveAll(realDir)
	}
	os.Exit(code)
}

// paperRun is one row of testdata/paper-runs.csv (expected values).
type paperRun struct {
	family, model, method string
	round                 int
	runnable, success     int
	runnableOf, successOf int
}

// readCSV returns the records of a CSV file, header included.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func readPaperRuns(t *testing.T) []paperRun {
	t.Helper()
	recs := readCSV(t, "testdata/paper-runs.csv")
	var out []paperRun
	for _, r := range recs[1:] {
		atoi := func(s string) int {
			v, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		out = append(out, paperRun{r[0], r[1], r[2], atoi(r[3]), atoi(r[4]), atoi(r[6]), atoi(r[5]), atoi(r[7])})
	}
	return out
}

var familySystem = map[string]results.System{
	"pure_agent_test": results.SystemSingleLLM, "RAG_agent_test": results.SystemLLMRAG,
	"agentic_RAG_test": results.SystemAgenticRAG, "mtr_rag_test": results.SystemSelfReflectionRAG,
}

type cfgKey struct {
	system results.System
	source int
	model  string
}

type meanStd struct{ runMean, runStd, succMean, succStd float64 }

func summarize(runnable, success []float64) meanStd {
	r, s := stats.Summarize(runnable), stats.Summarize(success)
	return meanStd{r.Mean, r.PopStd, s.Mean, s.PopStd}
}

func (m meanStd) String() string {
	return fmt.Sprintf("runnable %.2f ± %.2f, success %.2f ± %.2f", m.runMean, m.runStd, m.succMean, m.succStd)
}

// TestImportReproducesPaperRuns: every configuration present in the data,
// summarised from the imported Parquet files alone, equals paper-runs.csv
// (mean and population std over rounds, to 2 decimals).
func TestImportReproducesPaperRuns(t *testing.T) {
	_, files := importReal(t)
	got := map[cfgKey]*[2][]float64{}
	rounds := map[cfgKey][]int{}
	for _, g := range results.GroupByConfiguration(files) {
		c := g.Configuration
		if c.Benchmark != results.BenchmarkToolUsage || !g.Runs[0].Run.Totals.Scored || strings.HasPrefix(c.Provenance, string(results.ProvenanceRescored)) {
			continue // re-executed runs: TestReexecutedRunsWithinPublishedTotals
		}
		if c.Provenance != string(results.ProvenanceImported) || c.ScoringProtocol != results.ProtocolMatToolsOriginal || c.BenchmarkVersion != "2025-05" {
			t.Errorf("%s: unexpected configuration", c)
		}
		k := cfgKey{c.System, c.RetrievalSource, c.Model}
		if got[k] != nil {
			t.Errorf("%v split over several configurations (%s)", k, c)
		}
		got[k] = &[2][]float64{}
		for _, f := range g.Runs {
			rr, _ := f.Run.Totals.FunctionRunnableRate()
			sr, _ := f.Run.Totals.TaskSuccessRate()
			got[k][0] = append(got[k][0], rr)
			got[k][1] = append(got[k][1], sr)
			rounds[k] = append(rounds[k], f.Run.Round)
		}
	}
	want := map[cfgKey]*[2][]float64{}
	for _, p := range readPaperRuns(t) {
		src := 0
		if p.method != "none" {
			src, _ = strconv.Atoi(strings.TrimPrefix(p.method, "method"))
		}
		k := cfgKey{familySystem[p.family], src, p.model}
		if want[k] == nil {
			want[k] = &[2][]float64{}
		}
		want[k][0] = append(want[k][0], stats.Percent(p.runnable, p.runnableOf))
		want[k][1] = append(want[k][1], stats.Percent(p.success, p.successOf))
	}
	var absent []string
	matched := 0
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			absent = append(absent, fmt.Sprintf("%s source %d %s", k.system, k.source, k.model))
			continue
		}
		gs, ws := summarize(g[0], g[1]), summarize(w[0], w[1])
		if gs.String() != ws.String() || len(g[0]) != len(w[0]) {
			t.Errorf("%v: imported %s (n=%d), paper-runs.csv %s (n=%d)", k, gs, len(g[0]), ws, len(w[0]))
		}
		if fmt.Sprint(rounds[k]) != "[1 2 3]" {
			t.Errorf("%v: rounds %v, want [1 2 3]", k, rounds[k])
		}
		matched++
	}
	for k := range got {
		if want[k] == nil {
			t.Errorf("%v: imported but not in paper-runs.csv", k)
		}
	}
	sort.Strings(absent)
	t.Logf("%d configurations of paper-runs.csv reproduced; %d absent from this copy of the data: %s",
		matched, len(absent), strings.Join(absent, "; "))
	if matched == 0 {
		t.Fatal("no configuration matched")
	}

	// Spot checks against the paper's figure labels (docs/mattools.md §3.4).
	check := func(k cfgKey, want string) {
		t.Helper()
		g, ok := got[k]
		if !ok {
			return // not in this copy
		}
		if s := summarize(g[0], g[1]).String(); s != want {
			t.Errorf("%v = %s, want %s", k, s, want)
		}
	}
	check(cfgKey{results.SystemSingleLLM, 0, "gpt-4o-2024-08-06"}, "runnable 45.58 ± 6.73, success 18.36 ± 0.34")
	check(cfgKey{results.SystemLLMRAG, 4, "gpt-4o-2024-08-06"}, "runnable 67.35 ± 6.01, success 39.61 ± 1.23")
	check(cfgKey{results.SystemSingleLLM, 0, "gpt-3.5-turbo-0125"}, "runnable 20.41 ± 1.67, success 3.62 ± 1.02")
	check(cfgKey{results.SystemAgenticRAG, 4, "gpt-4o-2024-08-06"}, "runnable 68.03 ± 2.55, success 33.57 ± 5.34")
}

// TestImportReproducesTable1: QA accuracies recomputed from the per-source
// rows of the imported files equal the paper's Table 1 (qa-models.csv).
func TestImportReproducesTable1(t *testing.T) {
	_, files := importReal(t)
	recs := readCSV(t, "testdata/qa-models.csv")
	type qaKey struct {
		bench results.Benchmark
		model string
	}
	acc := map[qaKey]string{}
	for _, file := range files {
		if file.Run.Benchmark.Kind() != results.KindMultipleChoice {
			continue
		}
		var q, c int
		for _, it := range file.QAItems {
			q += int(it.Questions)
			c += int(it.Correct)
		}
		acc[qaKey{file.Run.Benchmark, file.Run.Model}] = fmt.Sprintf("%.2f", stats.Percent(c, q))
		if want := map[results.Benchmark]int{results.BenchmarkQACode: 34621, results.BenchmarkQADoc: 34604}[file.Run.Benchmark]; q != want {
			t.Errorf("%s: %d questions, want %d", file.Run.RunID, q, want)
		}
		if len(file.QAItems) != 7192 {
			t.Errorf("%s: %d items, want 7192", file.Run.RunID, len(file.QAItems))
		}
		if m, ok := results.LookupModel(file.Run.Model); !ok || file.Run.ModelDisplayName != m.DisplayName || file.Run.ModelGroup != m.Group {
			t.Errorf("%s: display %q group %q", file.Run.RunID, file.Run.ModelDisplayName, file.Run.ModelGroup)
		}
	}
	found := 0
	var absent []string
	for _, r := range recs[1:] {
		dir, name, code, doc := r[1], r[4], r[6], r[7]
		if dir == "" {
			absent = append(absent, name+" (no CSV published)")
			continue
		}
		gc, ok1 := acc[qaKey{results.BenchmarkQACode, dir}]
		gd, ok2 := acc[qaKey{results.BenchmarkQADoc, dir}]
		if !ok1 || !ok2 {
			absent = append(absent, name)
			continue
		}
		found++
		if gc != code || gd != doc {
			t.Errorf("%s: imported %s code / %s doc, Table 1 %s / %s", name, gc, gd, code, doc)
		}
	}
	t.Logf("%d Table 1 models reproduced; absent: %s", found, strings.Join(absent, "; "))
	if found == 0 {
		t.Fatal("no QA model matched")
	}
	if g := acc[qaKey{results.BenchmarkQACode, "gemini-1.5-pro"}]; g != "" && g != "80.60" {
		t.Errorf("Gemini-1.5-Pro code = %s, want 80.60", g)
	}
}

// TestImportSharedStringsXLSX: the one wijmo-saved xlsx of our copy, with
// shared strings and truly empty cells (docs/mattools.md §3.2),
// imports with its totals: runnable 16 + 12 = 28, properties passed 29.
func TestImportSharedStringsXLSX(t *testing.T) {
	root := dataRoot(t)
	path := filepath.Join(root, "src/RAG_agent_test/round2/gpt-4o-2024-08-06_method1", SummaryFile)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not in this copy", path)
	}
	s, err := readSummary(path, 49, 138)
	if err != nil {
		t.Fatal(err)
	}
	if s.runnable() != 28 || s.correct != 16 || s.partial != 12 || s.propertiesCorrect != 29 || s.created == nil {
		t.Errorf("summary = %+v", s)
	}
	_, files := importReal(t)
	for _, f := range files {
		if f.Run.RunID == "imported__tool-usage__llm-rag__s1__gpt-4o-2024-08-06__mattools-original__r2" {
			if *f.Run.Totals.Runnable != 28 || *f.Run.Totals.PropertiesPassed != 29 {
				t.Errorf("totals = %+v", f.Run.Totals)
			}
			return
		}
	}
	t.Error("run not imported")
}

// TestImportedRunsCarryCodeAndProvenance checks the per-question rows and
// the metadata of one imported run against its source files.
func TestImportedRunsCarryCodeAndProvenance(t *testing.T) {
	_, files := importReal(t)
	var f *results.File
	unscored := 0
	for _, file := range files {
		if file.Run.RunID == "imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-original__r1" {
			f = file
		}
		if file.Run.Benchmark == results.BenchmarkToolUsage && !file.Run.Totals.Scored {
			unscored++
			if file.Run.Totals.Runnable != nil || len(file.Questions) != 49 {
				t.Errorf("%s: unscored run with totals %+v", file.Run.RunID, file.Run.Totals)
			}
		}
	}
	if f == nil {
		t.Skip("single-LLM gpt-4o round 1 not in this copy")
	}
	q := f.Questions[0]
	if q.QuestionID != "test_vacancy" || q.FunctionName != "calculate_vacancy_properties" || len(q.Code) != 3424 ||
		q.Verdict != string(results.VerdictUnknown) || q.Runnable != nil || q.PropertyCount != 10 {
		t.Errorf("row 1 = id %s fn %s code %d verdict %s", q.QuestionID, q.FunctionName, len(q.Code), q.Verdict)
	}
	// gpt-4o round 1, question 1: usage prompt 711 / completion 732 (docs/mattools.md §3.2 example).
	if q.PromptTokens == nil || *q.PromptTokens != 711 || *q.CompletionTokens != 732 {
		t.Errorf("tokens = %v / %v, want 711 / 732", q.PromptTokens, q.CompletionTokens)
	}
	r := f.Run
	if r.Usage == nil || r.Usage.Calls != 49 || r.Usage.PromptTokens+r.Usage.CompletionTokens < 71000 || r.Usage.PromptTokens+r.Usage.CompletionTokens > 72000 {
		t.Errorf("usage = %+v, want 49 calls and ≈71.1–71.7k tokens", r.Usage)
	}
	if r.Generation.Temperature == nil || *r.Generation.Temperature != 0.7 || r.Generation.Source != RequestBodiesFile {
		t.Errorf("generation = %+v", r.Generation)
	}
	if *r.Totals.Runnable != 23 || *r.Totals.PropertiesPassed != 25 || *r.Totals.QuestionsCorrect != 11 || *r.Totals.QuestionsPartial != 12 {
		t.Errorf("totals = %+v", r.Totals)
	}
	if len(r.Provenance.Source) != 4 || !strings.Contains(r.Provenance.Citation, "arXiv:2505.10852") || r.UpstreamCommit != datasets.PinnedCommit {
		t.Errorf("provenance = %+v, commit %s", r.Provenance, r.UpstreamCommit)
	}
	if r.FinishedAt == nil || r.FinishedAt.Format("2006-01-02") != "2025-03-31" {
		t.Errorf("scored at %v, want 2025-03-31 (xlsx creation time)", r.FinishedAt)
	}
	if unscored == 0 {
		t.Error("no unscored run imported (agentic_RAG_test round1 has three)")
	}
}

// TestImportFollowsLinkedFolders imports a data root assembled from
// symbolic links (every entry of MATTOOLS_DATA linked, prompts/ left out,
// as one builds a copy without prompts) and asserts it yields the same
// runs with the same rows as MATTOOLS_DATA itself.
func TestImportFollowsLinkedFolders(t *testing.T) {
	root := dataRoot(t)
	_, want := importReal(t)
	linked := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "prompts" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(linked, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	imp, err := Read(linked, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Files) != len(want) || len(want) == 0 {
		t.Fatalf("linked root: %d runs, MATTOOLS_DATA: %d", len(imp.Files), len(want))
	}
	byID := map[string]*results.File{}
	for _, f := range want {
		byID[f.Run.RunID] = f
	}
	for _, f := range imp.Files {
		w := byID[f.Run.RunID]
		if w == nil {
			t.Errorf("run %s only in the linked root", f.Run.RunID)
			continue
		}
		got, exp := fmt.Sprintf("%+v", f.Run.Provenance.Source), fmt.Sprintf("%+v", w.Run.Provenance.Source)
		if len(f.Questions) != len(w.Questions) || got != exp {
			t.Errorf("run %s: %d rows from %s, want %d from %s", f.Run.RunID, len(f.Questions), got, len(w.Questions), exp)
		}
	}
}

// TestReexecutedRunsWithinPublishedTotals joins the committed re-executed
// verdicts with the data root's published code and checks each
// re-executed mattools-v1 run against the published totals of the run it
// re-executed (out of 49 questions / 138 properties): it never exceeds
// them, and falls short by at most what its data-missing questions hold
// (mattools-v1 reproduces MatTools' scoring; questions whose data files are
// absent here were not re-executed). Also: both protocols present, the
// question set is the re-executed questions, and the rows agree with the
// store.
func TestReexecutedRunsWithinPublishedTotals(t *testing.T) {
	_, files := importReal(t)
	st, err := CommittedReexecuted()
	if err != nil {
		t.Fatal(err)
	}
	imported := map[string]*results.File{}
	reexecuted := map[string][]*results.File{}
	var corrected []*results.File
	for _, f := range files {
		switch {
		case f.Run.Provenance.Kind == results.ProvenanceImported:
			imported[f.Run.RunID] = f
		case f.Run.Provenance.Kind == results.ProvenanceRescored && f.Run.BenchmarkVersion == results.BenchmarkVersion2025_05:
			reexecuted[f.Run.Provenance.DerivedFrom] = append(reexecuted[f.Run.Provenance.DerivedFrom], f)
		case f.Run.Provenance.Kind == results.ProvenanceRescored:
			corrected = append(corrected, f)
		}
	}
	// A corrected version's runs: its corrected questions' rows are the
	// store's verdicts in that version, every other row the published
	// version's.
	for _, f := range corrected {
		v, ok := datasets.LookupCorrectedVersion(f.Run.BenchmarkVersion)
		if !ok || !strings.Contains(f.Run.RunID, "__b-"+v.ID+"__") {
			t.Errorf("%s: benchmark version %q", f.Run.RunID, f.Run.BenchmarkVersion)
			continue
		}
		main, cor := map[string]ReexecutedVerdict{}, map[string]ReexecutedVerdict{}
		for _, r := range st.Runs[f.Run.Provenance.DerivedFrom].Rows {
			main[r.Protocol+"/"+r.QuestionID] = r
		}
		for _, r := range st.Runs[VersionKey(f.Run.Provenance.DerivedFrom, v.ID)].Rows {
			cor[r.Protocol+"/"+r.QuestionID] = r
		}
		for _, q := range f.Questions {
			if q.Verdict == string(results.VerdictDataMissing) {
				continue
			}
			want, from := main[f.Run.ScoringProtocol+"/"+q.QuestionID], "published"
			if slices.Contains(v.VerificationQuestions(), q.QuestionID) {
				want, from = cor[f.Run.ScoringProtocol+"/"+q.QuestionID], v.ID
			}
			if q.Verdict != string(want.Verdict) || *q.PropertiesPassed != int32(want.PropertiesPassed) {
				t.Errorf("%s: %s: %s %d; the %s verdict is %s %d", f.Run.RunID, q.QuestionID, q.Verdict, *q.PropertiesPassed, from, want.Verdict, want.PropertiesPassed)
			}
		}
	}
	versions := map[string]bool{}
	for _, f := range corrected {
		versions[f.Run.BenchmarkVersion] = true
	}
	if len(corrected) > 0 && len(corrected) != 2*len(versions)*len(reexecuted) {
		t.Errorf("%d runs of %d corrected versions for %d re-executed published runs; want two (one per protocol) each per version", len(corrected), len(versions), len(reexecuted))
	}
	if len(reexecuted) == 0 {
		t.Skipf("results/published/%s holds no verdicts for the code of this data root (make rescore-published)", ReexecutedFile)
	}
	checked := 0
	for id, rs := range reexecuted {
		pub := imported[id]
		if pub == nil || len(rs) != 2 || rs[0].Run.ScoringProtocol == rs[1].Run.ScoringProtocol {
			t.Errorf("%s: %d re-executed runs, imported %v", id, len(rs), pub != nil)
			continue
		}
		rows := map[string]ReexecutedVerdict{}
		for _, v := range st.Runs[id].Rows {
			rows[v.Protocol+"/"+v.QuestionID] = v
		}
		for _, f := range rs {
			missingQ, missingP := 0, 0
			for _, q := range f.Questions {
				v, ok := rows[f.Run.ScoringProtocol+"/"+q.QuestionID]
				switch {
				case q.Verdict == string(results.VerdictDataMissing):
					missingQ++
					missingP += int(q.PropertyCount)
					if ok {
						t.Errorf("%s: %s is data-missing but the store has %+v", f.Run.RunID, q.QuestionID, v)
					}
				case !ok || q.Verdict != string(v.Verdict) || *q.PropertiesPassed != int32(v.PropertiesPassed):
					t.Errorf("%s: %s: %s, store %+v", f.Run.RunID, q.QuestionID, q.Verdict, v)
				case !reflect.DeepEqual(q.PropertyOutcomes, v.Outcomes) && (len(q.PropertyOutcomes) > 0 || len(v.Outcomes) > 0):
					// The row carries the store's per-property outcomes
					// (none for rows of the store's first form).
					t.Errorf("%s: %s: property outcomes %v, store %v", f.Run.RunID, q.QuestionID, q.PropertyOutcomes, v.Outcomes)
				}
			}
			if f.Run.QuestionSet.Questions != 49-missingQ || f.Run.QuestionSet.Properties != 138-missingP {
				t.Errorf("%s: question set %+v; %d questions data-missing", f.Run.RunID, f.Run.QuestionSet, missingQ)
			}
			pt := pub.Run.Totals
			if f.Run.ScoringProtocol != results.ProtocolMatToolsV1 || !pt.Scored {
				continue
			}
			checked++
			rt := f.Run.Totals
			if *rt.Runnable > *pt.Runnable || *rt.Runnable < *pt.Runnable-missingQ {
				t.Errorf("%s: re-executed runnable %d of %d; published %d of 49 allows %d..%d",
					f.Run.RunID, *rt.Runnable, rt.Questions, *pt.Runnable, *pt.Runnable-missingQ, *pt.Runnable)
			}
			if *rt.PropertiesPassed > *pt.PropertiesPassed || *rt.PropertiesPassed < *pt.PropertiesPassed-missingP {
				t.Errorf("%s: re-executed properties passed %d of %d; published %d of 138 allows %d..%d",
					f.Run.RunID, *rt.PropertiesPassed, rt.Properties, *pt.PropertiesPassed, *pt.PropertiesPassed-missingP, *pt.PropertiesPassed)
			}
		}
	}
	t.Logf("%d published runs re-executed; %d mattools-v1 runs checked against their published totals", len(reexecuted), checked)
}
