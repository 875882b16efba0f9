package aggregate_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

const (
	benchDir      = "../../benchmarks/mattools-tool-usage"
	verifiedFile  = benchDir + "/verified-v1.json"
	referenceFile = benchDir + "/audit/audit__tool-usage__reference-solution__s0__none__mattools-v1-strict__set-executable-85659656__r1.parquet"
)

// TestVerifiedSetFileIsTheAuditsSet: the committed verified set is what its
// definition gives on the committed audit: the properties the reference
// solution's strict run passed, less those diagnosed "expected value wrong".
func TestVerifiedSetFileIsTheAuditsSet(t *testing.T) {
	vs, err := aggregate.ReadVerifiedSet(verifiedFile)
	if err != nil || vs == nil {
		t.Fatalf("%s: %v", verifiedFile, err)
	}
	ref, err := results.Read(referenceFile)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := os.Open(filepath.Join(benchDir, "diagnoses.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	recs, err := csv.NewReader(fd).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wrong := map[string]bool{}
	for _, r := range recs[1:] {
		wrong[r[0]+"/"+r[1]] = r[2] == "expected value wrong"
	}
	want := results.PropertySet{}
	for _, q := range ref.Questions {
		for _, o := range q.PropertyOutcomes {
			if o.Passed && !wrong[q.QuestionID+"/"+o.Property] {
				want[q.QuestionID] = append(want[q.QuestionID], o.Property)
			}
		}
	}
	if !reflect.DeepEqual(vs.Set, want) {
		t.Errorf("%s's set differs from the audit's:\n got %v\nwant %v", verifiedFile, vs.Set, want)
	}
	if ref.Run.BenchmarkVersion != vs.BenchmarkVersion || vs.DerivedFrom["question_set"] != ref.Run.QuestionSet.Name+"/28" {
		t.Errorf("benchmark version %s, derived from %v; the audit's %s, %s", vs.BenchmarkVersion, vs.DerivedFrom, ref.Run.BenchmarkVersion, ref.Run.QuestionSet.Name)
	}
	t.Logf("%s: %d properties of %d questions", vs.ID, vs.Properties, vs.Questions)
}

// TestVerifiedSetFileRejects names the file and the field.
func TestVerifiedSetFileRejects(t *testing.T) {
	good, err := os.ReadFile(verifiedFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"properties": 79`, `"properties": 80`, "questions, properties: 25 and 80, but set holds 25 questions and 79 properties"},
		{`"id": "verified-v1"`, `"id": ""`, "id and version: required"},
		{`"plane_spacing"`, `"plane_spacing", "plane_spacing"`, `set.test_plane_spacing: property "plane_spacing" empty or listed twice`},
		{`"version": 1`, `"version": 1, "extra": 1`, `unknown field "extra"`},
	} {
		bad := strings.Replace(string(good), c.from, c.to, 1)
		if bad == string(good) {
			t.Fatalf("%q not in %s", c.from, verifiedFile)
		}
		path := filepath.Join(t.TempDir(), "v.json")
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := aggregate.ReadVerifiedSet(path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s → %s: %v; want %q", c.from, c.to, err, c.want)
		}
	}
	if vs, err := aggregate.ReadVerifiedSet(filepath.Join(t.TempDir(), "none.json")); vs != nil || err != nil {
		t.Errorf("an absent file: %v, %v", vs, err)
	}
}

// auditFiles reads the committed audit results files.
func auditFiles(t *testing.T) []*results.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(benchDir, "audit", "*.parquet"))
	var out []*results.File
	for _, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// TestVerifiedTableFromStoredOutcomes scores the verified set on the real
// leaderboard (MatTools' published answers joined with the committed
// re-executed verdicts) and checks every row against the store itself: the
// properties of the set whose stored strict outcome passed, per re-executed
// run, averaged over the configuration's runs. The audit's reference
// solution passes the whole set; a run whose rows lack per-property outcomes
// makes its row unscorable, unranked and listed last.
func TestVerifiedTableFromStoredOutcomes(t *testing.T) {
	files, lb := realLeaderboard(t)
	vs, err := aggregate.ReadVerifiedSet(verifiedFile)
	if err != nil {
		t.Fatal(err)
	}
	st, err := published.CommittedReexecuted()
	if err != nil {
		t.Fatal(err)
	}
	// The store's figures, straight from its rows: published run → passed.
	// Runs kept beside the main ones under another environment
	// (published.AlongsideKey: "<run id>@<label>") are not what the site
	// scores.
	fromStore := map[string]int{}
	perQuestion := map[string]map[string]float64{} // run → question → properties of the set passed
	mainRuns := 0
	for id, rx := range st.Runs {
		if strings.Contains(id, "@") {
			continue
		}
		mainRuns++
		for _, v := range rx.Rows {
			if v.Protocol != results.ProtocolMatToolsV1Strict {
				continue
			}
			for _, o := range v.Outcomes {
				if o.Passed && slices.Contains(vs.Set[v.QuestionID], o.Property) {
					fromStore[id]++
					if perQuestion[id] == nil {
						perQuestion[id] = map[string]float64{}
					}
					perQuestion[id][v.QuestionID]++
				}
			}
		}
	}
	vt := aggregate.BuildVerifiedTable(vs, lb.Headline, auditFiles(t), nil)
	if len(vt.Rows) == 0 {
		t.Fatal("no row scored on the verified set")
	}
	runs := 0
	for _, r := range vt.Rows {
		if r.Unscorable != "" || r.Rank == 0 {
			t.Errorf("%s: unscorable (%s), rank %d", r.Config.Key, r.Unscorable, r.Rank)
			continue
		}
		var want []float64
		for _, run := range r.Config.RunsWith(aggregate.StatusAggregated) {
			p, ok := fromStore[run.File.Run.Provenance.DerivedFrom]
			if !ok {
				t.Errorf("%s: run %s is not a re-executed published run", r.Config.Key, run.ID())
			}
			want = append(want, 100*float64(p)/float64(vs.Properties))
			runs++
		}
		mean := 0.0
		for _, w := range want {
			mean += w
		}
		mean /= float64(len(want))
		if math.Abs(r.Summary.Mean-mean) > 1e-9 || r.Summary.N != len(want) || r.Total != len(want)*vs.Properties {
			t.Errorf("%s: %.4f %% over %d runs (%d/%d); the store gives %.4f %% over %d", r.Config.Key, r.Summary.Mean, r.Summary.N, r.Passed, r.Total, mean, len(want))
		}
		// The interval over questions and rounds, from the store: per question
		// of the set (sorted ids), the set's properties passed averaged over
		// the runs, weighted by the set's properties of the question.
		var qids []string
		for id := range vs.Set {
			qids = append(qids, id)
		}
		slices.Sort(qids)
		var y, m []float64
		for _, id := range qids {
			sum := 0.0
			for _, run := range r.Config.RunsWith(aggregate.StatusAggregated) {
				sum += perQuestion[run.File.Run.Provenance.DerivedFrom][id]
			}
			y, m = append(y, sum/float64(len(want))), append(m, float64(len(vs.Set[id])))
		}
		wantQ := stats.ClusteredRatio(y, m, aggregate.IntervalConfidence).Scale(100).Clamp(0, 100)
		if math.Abs(r.QInterval.Lo-wantQ.Lo) > 1e-9 || math.Abs(r.QInterval.Hi-wantQ.Hi) > 1e-9 || r.QInterval.N != vs.Questions || math.Abs(wantQ.Mean-mean) > 1e-9 {
			t.Errorf("%s: interval over questions %+v; from the store %+v over %d questions", r.Config.Key, r.QInterval, wantQ, vs.Questions)
		}
		if r.Full == nil || r.FullRank != r.Full.Rank || !slices.Contains(lb.Headline, r.Source) {
			t.Errorf("%s: full-set row %v rank %d", r.Config.Key, r.Full, r.FullRank)
		}
	}
	for i := 1; i < len(vt.Rows); i++ {
		if vt.Rows[i].Summary.Mean > vt.Rows[i-1].Summary.Mean+1e-9 || vt.Rows[i].Rank < vt.Rows[i-1].Rank {
			t.Errorf("rows %d and %d out of order", i-1, i)
		}
	}
	if runs != mainRuns {
		t.Errorf("%d runs scored; the store holds %d re-executed runs in its main environment", runs, mainRuns)
	}
	audit := map[results.System][2]int{}
	for _, a := range vt.Audit {
		audit[a.System] = [2]int{a.Passed, a.Total}
	}
	if audit[results.SystemReferenceSolution] != [2]int{vs.Properties, vs.Properties} || audit[results.SystemBaselineAllNone] != [2]int{0, vs.Properties} {
		t.Errorf("audit rows %v; want the reference at %d/%d and all None at 0", audit, vs.Properties, vs.Properties)
	}
	t.Logf("%d rows, %d runs; audit %v; %d rows without strict", len(vt.Rows), runs, audit, vt.NoStrict)

	// The bands over questions, by brute force over every pair of rows.
	ties, single := 0, 0
	for i, r := range vt.Rows {
		want := stats.Band{Best: 1, Worst: len(vt.Rows)}
		for j, o := range vt.Rows {
			if j == i {
				continue
			}
			d, ok := aggregate.VerifiedPairedDifference(o, r)
			if ok && d.Lo > 0 {
				want.Best++
			}
			if ok && d.Hi < 0 {
				want.Worst--
			}
		}
		d, _ := aggregate.VerifiedPairedDifference(vt.Rows[0], r)
		want.Tied = i == 0 || !(d.Lo > 0)
		if r.QBand != want {
			t.Errorf("%s: band over questions %+v, brute force %+v", r.Config.Key, r.QBand, want)
		}
		if r.QBand.Tied {
			ties++
		}
		if r.QBand.Best == r.QBand.Worst {
			single++
		}
		if i < 5 {
			t.Logf("%d. %s · %s · source %d: %.2f ± %.2f (n = %d); questions and rounds [%.2f, %.2f]; band over questions %d–%d%s", r.Rank, r.Config.Model.DisplayName,
				r.Config.Key.System, r.Config.Key.RetrievalSource, r.Summary.Mean, r.Summary.PopStd, r.Summary.N, r.QInterval.Lo, r.QInterval.Hi, r.QBand.Best, r.QBand.Worst,
				map[bool]string{true: " ≈"}[r.QBand.Tied])
		}
	}
	t.Logf("%d rows: %d not significantly below the leader (≈) by paired differences; %d with a band of a single rank", len(vt.Rows), ties, single)

	// A run whose rows lack per-property outcomes (a re-executed run of
	// the store's first form) is named, unranked and last.
	var victim *results.File
	for _, f := range files {
		if f.Run.Provenance.Kind == results.ProvenanceRescored && f.Run.ScoringProtocol == results.ProtocolMatToolsV1Strict {
			victim = f
			break
		}
	}
	old := victim.Questions
	victim.Questions = slices.Clone(old)
	for i := range victim.Questions {
		victim.Questions[i].PropertyOutcomes = nil
	}
	defer func() { victim.Questions = old }()
	lb2 := aggregate.Build(files, aggregate.DefaultCatalog())
	vt2 := aggregate.BuildVerifiedTable(vs, lb2.Headline, nil, nil)
	last := vt2.Rows[len(vt2.Rows)-1]
	if len(vt2.Rows) != len(vt.Rows) || last.Rank != 0 || !strings.Contains(last.Unscorable, victim.Run.RunID) ||
		!strings.Contains(last.Unscorable, "has no per-property outcomes") {
		t.Errorf("a run without outcomes: %d rows, last %+v", len(vt2.Rows), last)
	}
	for _, r := range vt2.Rows[:len(vt2.Rows)-1] {
		if r.Rank == 0 {
			t.Errorf("%s unranked: %s", r.Config.Key, r.Unscorable)
		}
	}
}
