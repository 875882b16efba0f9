package site_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestToolUsageTablesShowAuditRows builds a site from the benchmark audit's
// committed results files (benchmarks/mattools-tool-usage/audit: the
// reference solution and the all-True and all-None baselines on the
// 28-question set, under mattools-v1 and mattools-v1-strict) beside a model
// run on that set (the all-True answers relabelled as a runner run of GPT-4o,
// so that its rows are real scored rows) and the fixture's runs of another
// set. Every ranked table of the 28-question set gets the three unranked
// rows with their badges and the audit files' values; each task success
// rate of the model says what share of the reference's it is; the fixture's
// set gets none; a release that lists none of the audit's runs shows none.
func TestToolUsageTablesShowAuditRows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a site with Hugo; skipped with -short")
	}
	auditDir := filepath.Join(repoRoot(t), "benchmarks", "mattools-tool-usage", "audit")
	audit, err := results.ReadDir(auditDir)
	if err != nil {
		t.Fatal(err)
	}
	// This test adds the published version's audit rows to a site's tables.
	audit = slices.DeleteFunc(audit, func(f *results.File) bool { return f.Run.BenchmarkVersion != results.BenchmarkVersion2025_05 })
	if len(audit) != 6 {
		t.Fatalf("%d audit results files of version 2025-05 in %s; want 3 systems × 2 protocols", len(audit), auditDir)
	}
	type key struct {
		sys      results.System
		protocol string
	}
	byKey := map[key]*results.File{}
	for _, f := range audit {
		byKey[key{f.Run.System, f.Run.ScoringProtocol}] = f
	}
	base := t.TempDir()
	resultsDir := filepath.Join(base, "results")
	fixture, err := sitetest.WriteRuns(resultsDir)
	if err != nil {
		t.Fatal(err)
	}
	// The model run: the all-True answers, relabelled.
	model := map[string]*results.File{}
	for _, p := range []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict} {
		g := *byKey[key{results.SystemBaselineAllTrue, p}]
		g.Run.System, g.Run.Model, g.Run.Provenance = results.SystemSingleLLM, sitetest.GPT4o, results.Provenance{Kind: results.ProvenanceRunner}
		g.Run.RunID = results.MakeRunID(&g.Run)
		if err := results.Write(filepath.Join(resultsDir, g.Run.RunID+results.Extension), &g); err != nil {
			t.Fatal(err)
		}
		model[p] = &g
	}
	var fixtureIDs []string
	for _, f := range fixture {
		fixtureIDs = append(fixtureIDs, f.Run.RunID)
	}
	// The question pages need the benchmark (the MatTools data root); the
	// rest of the test does not.
	var bench *datasets.Benchmark
	if root := os.Getenv(datasets.EnvVar); root != "" {
		if bench, err = datasets.Load(root); err != nil {
			t.Fatal(err)
		}
	}
	diagnosesFile := filepath.Join(repoRoot(t), "benchmarks", "mattools-tool-usage", "diagnoses.csv")
	out := filepath.Join(base, "public")
	verifiedFile := filepath.Join(repoRoot(t), "benchmarks", "mattools-tool-usage", "verified-v1.json")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, AuditDir: auditDir, VerifiedSet: verifiedFile, Diagnoses: diagnosesFile, Benchmark: bench,
		RepoRoot: repoRoot(t), OutDir: out, WorkDir: filepath.Join(base, "work"), Releases: []release.Release{{Version: "v1.0", Date: "2025-06-01", Title: "fixture", Runs: fixtureIDs}}}); err != nil {
		t.Fatal(err)
	}

	pct := func(k, n int) string { return fmt.Sprintf("%.2f", 100*float64(k)/float64(n)) }
	// The values each audit row must show, in the order of a ranked table's
	// columns (mattools-v1 task success, runnable; mattools-v1-strict task
	// success, runnable), computed from the audit files' totals.
	wantCells := func(sys results.System) string {
		var cells []string
		for _, p := range []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict} {
			tot := byKey[key{sys, p}].Run.Totals
			cells = append(cells, pct(*tot.PropertiesPassed, tot.Properties)+" "+fmt.Sprintf("%d/%d", *tot.PropertiesPassed, tot.Properties),
				pct(*tot.Runnable, tot.Questions)+" "+fmt.Sprintf("%d/%d", *tot.Runnable, tot.Questions))
		}
		return strings.Join(cells, " | ")
	}
	rowRe := regexp.MustCompile(`(?s)<tr class="audit-row" data-system="([^"]*)".*?</tr>`)
	cellRe := regexp.MustCompile(`<td class="num audit[a-z ]*" data-sort="[^"]*"><span class="mean">([^<]*)</span> <span class="n">([^<]*)</span></td>`)
	tableRe := regexp.MustCompile(`(?s)<section class="leaderboard-table ranked-table[a-z -]*" id="([^"]*)">.*?</section>`)
	checkPage := func(page string, wantTables int) {
		t.Helper()
		html := readFile(t, page)
		with := 0
		for _, m := range tableRe.FindAllStringSubmatch(html, -1) {
			sec := m[0]
			rows := rowRe.FindAllStringSubmatch(sec, -1)
			if !strings.Contains(sec, "question set executable-85659656/28") {
				if len(rows) > 0 || strings.Contains(sec, "of what a correct solution reaches") {
					t.Errorf("%s: table %s of another question set has audit rows", page, m[1])
				}
				continue
			}
			with++
			want := []struct {
				sys   results.System
				label string
				badge string
			}{
				{results.SystemReferenceSolution, "Reference solution", `<span class="badge badge-reference-solution"`},
				{results.SystemBaselineAllTrue, "Baseline: every property True", `<span class="badge badge-baseline-all-true"`},
				{results.SystemBaselineAllNone, "Baseline: every property None", `<span class="badge badge-baseline-all-none"`},
			}
			t.Logf("%s, table %s:\n%s\n%s\n%s", page, m[1], regexp.MustCompile(`<p class="ranking-note".*</p>`).FindString(sec),
				regexp.MustCompile(`(?s)<tr class="computed-row"[^>]*data-model="`+sitetest.GPT4o+`".*?</tr>`).FindString(sec),
				regexp.MustCompile(`(?s)<tfoot class="audit-rows">.*?</tfoot>`).FindString(sec))
			if len(rows) != len(want) {
				t.Fatalf("%s: table %s has %d audit rows, want 3", page, m[1], len(rows))
			}
			for i, w := range want {
				row := rows[i][0]
				var got []string
				for _, c := range cellRe.FindAllStringSubmatch(row, -1) {
					got = append(got, c[1]+" "+c[2])
				}
				if rows[i][1] != string(w.sys) || !strings.Contains(row, `<th scope="row" class="name">`+w.label+`</th>`) || !strings.Contains(row, w.badge) ||
					strings.Join(got, " | ") != wantCells(w.sys) {
					t.Errorf("%s: table %s, audit row %d: %q; want %s, %s, cells %s", page, m[1], i, row, w.sys, w.label, wantCells(w.sys))
				}
			}
			// The model's task success rates, each with its share of the
			// reference's under the same protocol.
			for _, p := range []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict} {
				mt, rt := model[p].Run.Totals, byKey[key{results.SystemReferenceSolution, p}].Run.Totals
				share := fmt.Sprintf("%.2f", 100*(100*float64(*mt.PropertiesPassed)/float64(mt.Properties))/(100*float64(*rt.PropertiesPassed)/float64(rt.Properties)))
				// One round: no interval over rounds; the interval over
				// questions (re-executed runs have per-question outcomes) before n.
				cell := regexp.MustCompile(regexp.QuoteMeta(`<span class="mean">`+pct(*mt.PropertiesPassed, mt.Properties)+`</span></a><span class="detail">questions [`) +
					`[0-9.]+, [0-9.]+\] · ` + regexp.QuoteMeta(`n = 1 <span class="of-ref">`+share+` % of what a correct solution reaches</span></span></td>`))
				if !cell.MatchString(sec) {
					t.Errorf("%s: table %s lacks the model's %s cell %s", page, m[1], p, cell)
				}
				note := fmt.Sprintf("%s %% (%d/%d) under %s", pct(*rt.PropertiesPassed, rt.Properties), *rt.PropertiesPassed, rt.Properties, p)
				if !strings.Contains(sec, note) {
					t.Errorf("%s: table %s's note lacks %q", page, m[1], note)
				}
			}
		}
		if with != wantTables {
			t.Errorf("%s: %d ranked tables of the 28-question set, want %d", page, with, wantTables)
		}
	}
	preview := filepath.Join(out, site.PreviewPath)
	checkPage(filepath.Join(preview, "index.html"), 1)
	checkPage(filepath.Join(preview, "single-llm", "index.html"), 1)
	for _, page := range []string{filepath.Join(out, "v1.0", "index.html"), filepath.Join(out, "v1.0", "single-llm", "index.html")} {
		if html := readFile(t, page); strings.Contains(html, "audit-row") || strings.Contains(html, "of what a correct solution reaches") {
			t.Errorf("%s: a release that lists no audit run shows audit rows", page)
		}
	}
	// The verified question set's table: on the preview's home page only,
	// after the full set's tables; the model's strict run scored on it from
	// its rows' per-property outcomes, with its full-set rank; the
	// reference solution passes every property of the set.
	vs, err := aggregate.ReadVerifiedSet(verifiedFile)
	if err != nil {
		t.Fatal(err)
	}
	passed := 0
	perQ := map[string]float64{}
	for _, q := range model[results.ProtocolMatToolsV1Strict].Questions {
		for _, o := range q.PropertyOutcomes {
			if o.Passed && slices.Contains(vs.Set[q.QuestionID], o.Property) {
				passed++
				perQ[q.QuestionID]++
			}
		}
	}
	// Its interval over the set's questions (one round): per question, the
	// set's properties passed, weighted by the set's properties.
	var qy, qm []float64
	for id, props := range vs.Set {
		qy, qm = append(qy, perQ[id]), append(qm, float64(len(props)))
	}
	qiv := stats.ClusteredRatio(qy, qm, aggregate.IntervalConfidence).Scale(100).Clamp(0, 100)
	wantQ := fmt.Sprintf(`<td class="num qci" data-sort="%.6f">[%.2f, %.2f]</td>`, 100*float64(passed)/float64(vs.Properties), qiv.Lo, qiv.Hi)
	home := readFile(t, filepath.Join(preview, "index.html"))
	sec := regexp.MustCompile(`(?s)<section class="leaderboard-table verified-table" id="[^"]*">.*?</section>`).FindString(home)
	if sec == "" || strings.Index(home, sec) < strings.LastIndex(home, `class="leaderboard-table ranked-table"`) {
		t.Fatalf("the preview's home page has no verified-set table after the full set's tables")
	}
	t.Logf("verified table:\n%s", sec)
	modelRow := regexp.MustCompile(`(?s)<tr class="computed-row">\s*<td class="num rank" data-sort="1">1</td>.*?</tr>`).FindString(sec)
	wantCell := fmt.Sprintf(`%s</a> <span class="detail">%d/%d, n = 1</span>`, pct(passed, vs.Properties), passed, vs.Properties)
	if !strings.Contains(modelRow, wantCell) || !strings.Contains(modelRow, `<td class="num full-rank" data-sort="1"`) ||
		!strings.Contains(sec, fmt.Sprintf("Verified question set verified-v1: %d properties of %d questions", vs.Properties, vs.Questions)) {
		t.Errorf("the model's verified row %q; want the cell %q and full-set rank 1", modelRow, wantCell)
	}
	if !strings.Contains(modelRow, wantQ) || !strings.Contains(modelRow, `<td class="num rank qband tied" data-sort="1"><span title="rank band from paired differences over questions and rounds; not significantly below the leader">≈ 1</span></td>`) {
		t.Errorf("the model's verified row %q; want its interval over questions %q and band ≈ 1", modelRow, wantQ)
	}
	if ref := fmt.Sprintf(`Reference solution</th>
<td class="wrap"></td><td></td>
<td class="num">100.00 <span class="detail">%d/%d</span></td>`, vs.Properties, vs.Properties); !strings.Contains(sec, ref) {
		t.Errorf("the verified table lacks the reference solution's row %q", ref)
	}
	if strings.Contains(readFile(t, filepath.Join(out, "v1.0", "index.html")), "verified-table") {
		t.Error("release v1.0 shows the verified-set table")
	}
	// A release that records the verified set (release.Release.VerifiedSet,
	// as build-site -cut-release does from v1.3 on) shows its table too,
	// with the same rows; one that records a set the repository lacks is
	// refused, naming the file.
	all := slices.Clone(fixtureIDs)
	for _, g := range model {
		all = append(all, g.Run.RunID)
	}
	audits, _, err := results.ReadDirReport(auditDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range audits {
		all = append(all, f.Run.RunID)
	}
	rel := []release.Release{{Version: "v1.0", Date: "2025-06-01", Title: "fixture", Runs: fixtureIDs},
		{Version: "v1.1", Date: "2025-07-01", Title: "with the verified set", Runs: all, VerifiedSet: vs.ID, ReferencePages: true}}
	out2 := filepath.Join(base, "public2")
	if _, err := site.Build(context.Background(), site.Options{ResultsDir: resultsDir, AuditDir: auditDir, VerifiedSet: verifiedFile, Diagnoses: diagnosesFile, Benchmark: bench,
		RepoRoot: repoRoot(t), OutDir: out2,
		WorkDir: filepath.Join(base, "work2"), Releases: rel}); err != nil {
		t.Fatal(err)
	}
	relHome := readFile(t, filepath.Join(out2, "v1.1", "index.html"))
	if relSec := regexp.MustCompile(`(?s)<section class="leaderboard-table verified-table" id="[^"]*">.*?</section>`).FindString(relHome); !strings.Contains(relSec, wantCell) {
		t.Errorf("release v1.1, which records the verified set %s, shows no verified-set table with the model's cell %q", vs.ID, wantCell)
	}
	rel[1].VerifiedSet = "verified-v0"
	_, err = site.Build(context.Background(), site.Options{ResultsDir: resultsDir, AuditDir: auditDir, VerifiedSet: verifiedFile, RepoRoot: repoRoot(t),
		OutDir: filepath.Join(base, "public3"), WorkDir: filepath.Join(base, "work3"), Releases: rel})
	if err == nil || !strings.Contains(err.Error(), "release v1.1") || !strings.Contains(err.Error(), "verified-v0") || !strings.Contains(err.Error(), "verified-v0.json does not exist") {
		t.Errorf("a release recording a verified set the repository lacks: err %v; want one naming the release, the set and its missing file", err)
	}
	t.Run("question pages", func(t *testing.T) {
		if bench == nil {
			t.Skipf("%s is not set: the question pages need the MatTools data root", datasets.EnvVar)
		}
		checkQuestionPages(t, preview, model[results.ProtocolMatToolsV1Strict], byKey[key{results.SystemReferenceSolution, results.ProtocolMatToolsV1}],
			byKey[key{results.SystemReferenceSolution, results.ProtocolMatToolsV1Strict}], bench, diagnosesFile)
		// A release that records ReferencePages (as -cut-release does from
		// now on) shows the section too; one that does not (v1.0-v1.3) none.
		q := byKey[key{results.SystemReferenceSolution, results.ProtocolMatToolsV1Strict}].Questions[0].QuestionID
		if html := readFile(t, filepath.Join(out2, "v1.1", "questions", q, "index.html")); !strings.Contains(html, `<h2 id="reference">`) {
			t.Errorf("release v1.1 (reference_pages) question %s: no reference-solution section", q)
		}
		if html := readFile(t, filepath.Join(out2, "v1.0", "questions", q, "index.html")); strings.Contains(html, `<h2 id="reference">`) {
			t.Errorf("release v1.0 question %s: a reference-solution section", q)
		}
	})
	// The audit's runs are no configurations: no configuration page of the
	// audit's systems.
	if pages, _ := filepath.Glob(filepath.Join(preview, "configurations", "*reference-solution*")); len(pages) > 0 {
		t.Errorf("configuration pages of the audit: %v", pages)
	}
	if _, err := os.Stat(filepath.Join(preview, "systems", "reference-solution")); err == nil {
		t.Error("a system page of the reference solution")
	}
}

// TestAuditDirHoldsOnlyAuditRuns: a results file in the audit folder that is
// not an audit run is an error naming the file, before anything is built.
func TestAuditDirHoldsOnlyAuditRuns(t *testing.T) {
	base := t.TempDir()
	auditDir := filepath.Join(base, "audit")
	files, err := sitetest.WriteRuns(auditDir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = site.Build(context.Background(), site.Options{ResultsDir: filepath.Join(base, "results"), AuditDir: auditDir, RepoRoot: repoRoot(t),
		OutDir: filepath.Join(base, "public"), WorkDir: filepath.Join(base, "work"), Releases: []release.Release{}})
	if err == nil || !strings.Contains(err.Error(), files[0].Path) || !strings.Contains(err.Error(), `has provenance kind "imported"`) {
		t.Errorf("error %v; want one naming %s and its provenance", err, files[0].Path)
	}
}

// checkQuestionPages checks the preview's question pages: the model's strict
// round lists which properties passed and which failed (read from the
// results file's per-property outcomes: results.ReadDetails), in the file's
// order; every question the reference solution was executed on shows it
// under both protocols, passed count, failed properties with their
// diagnoses, and its code; a question it was not executed on says so.
func checkQuestionPages(t *testing.T, preview string, model, refV1, refStrict *results.File, bench *datasets.Benchmark, diagnosesFile string) {
	mixed := 0
	for _, q := range model.Questions {
		var passedProps, failedProps []string
		for _, o := range q.PropertyOutcomes {
			if o.Passed {
				passedProps = append(passedProps, "<code>"+o.Property+"</code>")
			} else {
				failedProps = append(failedProps, "<code>"+o.Property+"</code>")
			}
		}
		if len(passedProps) == 0 || len(failedProps) == 0 {
			continue
		}
		mixed++
		page := filepath.Join(preview, "questions", q.QuestionID, "index.html")
		sec := readFile(t, page)
		sec = sec[strings.Index(sec, `<h2 id="runs">`):]
		// Each round's per-property outcomes are on its configuration's code page
		// (questions/<q>/code/<configuration>/), fetched into the round when opened.
		codePages, _ := filepath.Glob(filepath.Join(preview, "questions", q.QuestionID, "code", "*", "index.html"))
		for _, cp := range codePages {
			sec += readFile(t, cp)
		}
		li := regexp.MustCompile(`(?s)<li>` + regexp.QuoteMeta(results.ProtocolMatToolsV1Strict) + `: .*?</li>`).FindString(sec)
		if !strings.Contains(li, "Passed: "+strings.Join(passedProps, ", ")) || !strings.Contains(li, "Failed: "+failedProps[0]) {
			t.Errorf("%s: the strict verdict's detail %q; want Passed: %s and Failed: %s …", page, li, strings.Join(passedProps, ", "), failedProps[0])
		}
	}
	if mixed == 0 {
		t.Error("no question of the all-True answers passed some properties and failed others")
	}
	diagnoses, err := datasets.ReadDiagnoses(diagnosesFile)
	if err != nil {
		t.Fatal(err)
	}
	executed := map[string]bool{}
	strict := map[string]results.QuestionRow{}
	for _, q := range refStrict.Questions {
		strict[q.QuestionID] = q
	}
	diagnosed := 0
	for _, q := range refV1.Questions {
		if results.Verdict(q.Verdict) == results.VerdictDataMissing {
			continue
		}
		executed[q.QuestionID] = true
		page := filepath.Join(preview, "questions", q.QuestionID, "index.html")
		html := readFile(t, page)
		start, end := strings.Index(html, `<h2 id="reference">`), strings.Index(html, `<h2 id="runs">`)
		if start < 0 || end < start {
			t.Errorf("%s: no reference-solution section before the generated code", page)
			continue
		}
		sec := html[start:end]
		for _, r := range []results.QuestionRow{q, strict[q.QuestionID]} {
			want := fmt.Sprintf("%d of %d propert", *r.PropertiesPassed, r.PropertyCount)
			li := regexp.MustCompile(`(?s)<li>` + regexp.QuoteMeta(r.ScoringProtocol) + `: .*?(?:\n<li>|\n</ul>)`).FindString(sec) // to the next protocol's line
			if !strings.Contains(li, want) {
				t.Errorf("%s: the reference's %s line %q lacks %q", page, r.ScoringProtocol, li, want)
			}
			for _, o := range r.PropertyOutcomes {
				if o.Passed {
					continue
				}
				if !strings.Contains(li, "<code>"+o.Property+"</code>") {
					t.Errorf("%s: the reference's %s line lacks its failed property %s", page, r.ScoringProtocol, o.Property)
				}
				if d, ok := diagnoses.Of(q.QuestionID, o.Property); ok {
					diagnosed++
					if !strings.Contains(li, "diagnosed <strong>"+d.Category+"</strong>") {
						t.Errorf("%s: the reference's failed %s (%s) lacks its diagnosis %q", page, o.Property, r.ScoringProtocol, d.Category)
					}
				}
			}
		}
		if !strings.Contains(sec, "def "+q.FunctionName+"(") {
			t.Errorf("%s: the reference section lacks the code of %s", page, q.FunctionName)
		}
	}
	if len(executed) == 0 || diagnosed == 0 {
		t.Errorf("%d questions with an executed reference, %d diagnosed failures shown; want some of each", len(executed), diagnosed)
	}
	for _, q := range bench.Questions {
		if executed[q.ID] {
			continue
		}
		page := filepath.Join(preview, "questions", q.ID, "index.html")
		if html := readFile(t, page); !strings.Contains(html, "<code>benchmarks/mattools-tool-usage/reference/"+q.ID+".py</code>") || !strings.Contains(html, "Not executed here") {
			t.Errorf("%s: want the reference's file named and 'Not executed here'", page)
		}
		break
	}
}
