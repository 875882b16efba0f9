package aggregate_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// realLeaderboard imports the published results of MATTOOLS_DATA (with the
// committed re-executed verdicts) and builds the leaderboard.
func realLeaderboard(t *testing.T) ([]*results.File, *aggregate.Leaderboard) {
	t.Helper()
	root := mattoolstest.DataRoot(t, "to rank the published results")
	im, err := published.Read(root, published.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return im.Files, aggregate.Build(im.Files, aggregate.DefaultCatalog())
}

// expected computes a configuration's mean task success and runnable rate
// directly from the runs' totals: the runs of that system, source, model,
// protocol and provenance kind, over the rounds 1–3.
func expected(files []*results.File, version string, sys results.System, source int, model, protocol string, kind results.ProvenanceKind) (tsr, frr stats.Summary, qs string, ok bool) {
	var t, f []float64
	for _, file := range files {
		r := &file.Run
		if r.Benchmark != results.BenchmarkToolUsage || r.BenchmarkVersion != version || r.System != sys || r.RetrievalSource != source || r.Model != model ||
			r.ScoringProtocol != protocol || r.Provenance.Kind != kind || r.Round == 0 || !r.Totals.Scored {
			continue
		}
		t = append(t, stats.Percent(*r.Totals.PropertiesPassed, r.Totals.Properties))
		f = append(f, stats.Percent(*r.Totals.Runnable, r.Totals.Questions))
		qs = r.QuestionSet.Name + "/" + strconv.Itoa(r.QuestionSet.Questions)
	}
	if len(t) == 0 {
		return stats.Summary{}, stats.Summary{}, "", false
	}
	return stats.Summarize(t), stats.Summarize(f), qs, true
}

func sumCounts(vs []aggregate.Value) [3]int {
	var s [3]int
	for _, v := range vs {
		s[0] += v.Count
		s[1] += v.Total
		s[2]++
	}
	return s
}

// TestRankedTablesOfThePublishedResults checks the landing page's tables
// on the real published results: one table per question set, the
// canonical set first; the protocols side by side in one row per
// configuration; rows in descending task success rate of the headline
// protocol; each cell equal to the mean and population std computed here
// from the runs' own totals.
func TestRankedTablesOfThePublishedResults(t *testing.T) {
	files, lb := realLeaderboard(t)
	if len(lb.Headline) == 0 {
		t.Fatal("no headline table")
	}
	if !lb.Headline[0].Canonical() || lb.Headline[0].Questions != 49 || lb.Headline[0].Properties != 138 {
		t.Errorf("first headline table is %s (%d questions), want the whole benchmark", lb.Headline[0].QuestionSet, lb.Headline[0].Questions)
	}
	sets := map[string]bool{}
	checked := 0
	for _, tab := range lb.Headline {
		if sets[tab.BenchmarkVersion+tab.QuestionSet] {
			t.Errorf("two headline tables of question set %s", tab.QuestionSet)
		}
		sets[tab.BenchmarkVersion+tab.QuestionSet] = true
		var last float64 = 101
		for i, row := range tab.Rows {
			c := row.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate)
			if c == nil {
				if row.Rank != 0 {
					t.Errorf("%s row %d (%s) has rank %d but no headline value", tab.ID, i, row.Identity, row.Rank)
				}
				last = -1
				continue
			}
			if i > 0 && row.Rank > 0 && tab.Rows[i-1].Rank > 0 {
				// Equal counts over the same rounds are a tie, whatever the order
				// of the per-round percentages summed.
				p := tab.Rows[i-1].Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate)
				if sumCounts(p.Rounds) == sumCounts(c.Rounds) && tab.Rows[i-1].Rank != row.Rank {
					t.Errorf("%s rows %d and %d: equal counts %v and %v but ranks %d and %d", tab.ID, i-1, i, p.Rounds, c.Rounds, tab.Rows[i-1].Rank, row.Rank)
				}
			}
			if c.Summary.Mean > last+1e-9 {
				t.Errorf("%s row %d (%s): task success %.2f after %.2f: not in descending order", tab.ID, i, row.Identity, c.Summary.Mean, last)
			}
			last = c.Summary.Mean
			if row.Rank < 1 || row.Rank > i+1 {
				t.Errorf("%s row %d: rank %d", tab.ID, i, row.Rank)
			}
			for ci, col := range tab.Columns {
				cell := row.Cells[ci]
				if cell == nil {
					continue
				}
				k := cell.Configuration.Key
				if k.ScoringProtocol != col.Protocol || k.QuestionSet != tab.QuestionSet || k.Model != row.Model.ID || k.System != row.System {
					t.Errorf("%s row %s column %s holds configuration %s", tab.ID, row.Identity, col.Title(), k)
				}
				kind, _, _ := strings.Cut(k.Provenance, ":")
				tsr, frr, qs, ok := expected(files, k.BenchmarkVersion, k.System, k.RetrievalSource, k.Model, k.ScoringProtocol, results.ProvenanceKind(kind))
				want := tsr
				if col.Metric == aggregate.FunctionRunnableRate {
					want = frr
				}
				if !ok || qs != tab.QuestionSet || !near(cell.Summary.Mean, want.Mean) || !near(cell.Summary.PopStd, want.PopStd) || cell.Summary.N != want.N {
					t.Errorf("%s %s %s: %.4f ± %.4f (n = %d), from the runs' totals %.4f ± %.4f (n = %d, %s)", tab.ID, row.Identity, col.Title(),
						cell.Summary.Mean, cell.Summary.PopStd, cell.Summary.N, want.Mean, want.PopStd, want.N, qs)
				}
				checked++
			}
		}
	}
	if checked < 4*28 {
		t.Errorf("only %d cells checked", checked)
	}

	// The re-executed GPT-4o single-LLM runs: one row with both protocols,
	// badge re-executed, in the executable-subset table headed by mattools-v1.
	var sub *aggregate.RankedTable
	for _, tab := range lb.Headline {
		if !tab.Canonical() {
			sub = tab
		}
	}
	if sub == nil {
		t.Fatal("no table of the executable subset (this data root lacks data files of some questions)")
	}
	if sub.HeadlineProtocol != results.ProtocolMatToolsV1 || !strings.Contains(sub.Title(), "of 49 questions") {
		t.Errorf("subset table: headline %s, title %q", sub.HeadlineProtocol, sub.Title())
	}
	for _, row := range sub.Rows {
		if row.Model.ID == "gpt-4o-2024-08-06" && row.System == results.SystemSingleLLM {
			if !slices.Equal(row.Badges, []aggregate.Badge{aggregate.BadgeReexecuted}) || row.Cell(sub, results.ProtocolMatToolsV1, aggregate.TaskSuccessRate) == nil ||
				row.Cell(sub, results.ProtocolMatToolsV1Strict, aggregate.TaskSuccessRate) == nil {
				t.Errorf("GPT-4o single LLM in the subset table: badges %v, cells %v", row.Badges, row.Cells)
			}
			t.Logf("GPT-4o single LLM re-executed: rank %d of %d in %q", row.Rank, len(sub.Rows), sub.Title())
		}
	}
	if len(lb.Headline[0].Shared) == 0 {
		t.Error("the canonical table does not say that its configurations are also in the subset table")
	}
}

// TestRankedRowsJoinProtocolsAndShareRanks: on the fixture, the runner runs
// of one model under two protocols form one row; equal means share a rank.
func TestRankedRowsJoinProtocolsAndShareRanks(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	for _, tab := range lb.Headline {
		ids := map[string]bool{}
		for i, row := range tab.Rows {
			if ids[row.Identity] {
				t.Errorf("%s: identity %s in two rows", tab.ID, row.Identity)
			}
			ids[row.Identity] = true
			protos := map[string]bool{}
			for _, c := range row.Configurations {
				if protos[c.Key.ScoringProtocol] {
					t.Errorf("%s: row %s has two configurations of %s", tab.ID, row.Identity, c.Key.ScoringProtocol)
				}
				protos[c.Key.ScoringProtocol] = true
				if c.Identity() != row.Identity {
					t.Errorf("row %s holds configuration of identity %s", row.Identity, c.Identity())
				}
			}
			if i > 0 && row.Rank > 0 {
				prev := tab.Rows[i-1]
				same := prev.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate).Summary.Mean == row.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate).Summary.Mean
				if same != (prev.Rank == row.Rank) {
					t.Errorf("%s rows %d and %d: equal means %v but ranks %d and %d", tab.ID, i-1, i, same, prev.Rank, row.Rank)
				}
			}
		}
	}
}

func TestBadgesAndFamilies(t *testing.T) {
	for _, c := range []struct {
		prov   string
		badge  aggregate.Badge
		family string
	}{
		{"imported", aggregate.BadgePublished, "published"},
		{"rescored:imported", aggregate.BadgeReexecuted, "published"},
		{"runner", aggregate.BadgeRunner, "runner"},
		{"rescored:runner", aggregate.BadgeReexecuted, "runner"},
		{"submitted:2026-01-acme", aggregate.BadgeSubmitted, "submitted:2026-01-acme"},
		{"rescored:submitted:2026-01-acme", aggregate.BadgeVerified, "submitted:2026-01-acme"},
	} {
		if b, f := aggregate.BadgeOf(c.prov), aggregate.Family(c.prov); b != c.badge || f != c.family {
			t.Errorf("%s: badge %q family %q, want %q %q", c.prov, b, f, c.badge, c.family)
		}
	}
}

// TestRankedRowsKeepBothOfOneProtocol: a runner run and its rescoring under
// the same protocol share an identity; each keeps a row (one badge each)
// instead of one replacing the other in a cell.
func TestRankedRowsKeepBothOfOneProtocol(t *testing.T) {
	files := sitetest.Runs()
	var extra []*results.File
	for _, f := range files {
		if f.Run.Provenance.Kind == results.ProvenanceRunner && f.Run.Benchmark == results.BenchmarkToolUsage {
			g := *f
			g.Run.Provenance = results.Provenance{Kind: results.ProvenanceRescored, Origin: results.ProvenanceRunner, DerivedFrom: f.Run.RunID}
			g.Run.RunID = results.MakeRunID(&g.Run)
			extra = append(extra, &g)
		}
	}
	if len(extra) == 0 {
		t.Fatal("the fixture has no tool-usage runner run")
	}
	lb := aggregate.Build(append(files, extra...), aggregate.DefaultCatalog())
	found := 0
	for _, tab := range lb.Headline {
		byModel := map[string][]*aggregate.RankedRow{}
		for _, row := range tab.Rows {
			if row.Family == "runner" {
				byModel[row.Model.ID+string(row.System)] = append(byModel[row.Model.ID+string(row.System)], row)
			}
		}
		for k, rows := range byModel {
			if len(rows) != 2 {
				t.Errorf("%s %s: %d runner-family rows, want the run's and its rescoring's", tab.ID, k, len(rows))
				continue
			}
			var badges []aggregate.Badge
			for _, r := range rows {
				badges = append(badges, r.Badges...)
			}
			slices.Sort(badges)
			if !slices.Equal(badges, []aggregate.Badge{aggregate.BadgeReexecuted, aggregate.BadgeRunner}) {
				t.Errorf("%s %s: badges %v", tab.ID, k, badges)
			}
			found++
		}
	}
	if found == 0 {
		t.Error("no runner row in the headline tables")
	}
}

// TestHeadlineIsTheProtocolMostRowsHave: a submission scored under
// mattools-v1 on all 49 questions, beside the published totals (mattools-
// original) of every other row of that table, does not become the
// headline: the table stays ranked as published, with those columns first,
// and the submission's row follows, unranked, instead of ranking first
// alone and unranking every published row.
func TestHeadlineIsTheProtocolMostRowsHave(t *testing.T) {
	files, before := realLeaderboard(t)
	var extra []*results.File
	for _, f := range files {
		r := f.Run
		if r.Provenance.Kind == results.ProvenanceRescored && r.System == results.SystemSingleLLM && r.Model == "gpt-4o-2024-08-06" &&
			r.ScoringProtocol == results.ProtocolMatToolsV1 && r.BenchmarkVersion == results.BenchmarkVersion2025_05 {
			g := *f
			g.Run.QuestionSet = results.QuestionSet{Name: results.QuestionSetAll, Questions: 49, Properties: 138}
			g.Run.Totals.Questions, g.Run.Totals.Properties = 49, 138
			g.Run.Provenance = results.Provenance{Kind: results.ProvenanceSubmitted, Submission: &results.Submission{Folder: "2026-12-01_x_gpt-4o_single-llm",
				MetadataSHA256: strings.Repeat("0", 64)}}
			g.Run.RunID = results.MakeRunID(&g.Run)
			extra = append(extra, &g)
		}
	}
	if len(extra) != 3 {
		t.Fatalf("%d re-executed GPT-4o single-LLM mattools-v1 runs, want 3", len(extra))
	}
	after := aggregate.Build(append(files, extra...), aggregate.DefaultCatalog())
	b, a := before.Headline[0], after.Headline[0]
	if !a.Canonical() || a.HeadlineProtocol != results.ProtocolMatToolsOriginal || b.HeadlineProtocol != results.ProtocolMatToolsOriginal {
		t.Fatalf("whole-benchmark table: headline %s (before the submission: %s), want %s", a.HeadlineProtocol, b.HeadlineProtocol, results.ProtocolMatToolsOriginal)
	}
	if c := a.Columns[0]; c.Protocol != results.ProtocolMatToolsOriginal || c.Metric != aggregate.TaskSuccessRate || len(a.Columns) != 4 {
		t.Errorf("columns %v: want the headline's task success rate first, then mattools-v1's two", a.Columns)
	}
	ranked := 0
	for i, row := range a.Rows {
		if row.Family == "submitted:2026-12-01_x_gpt-4o_single-llm" {
			if row.Rank != 0 || row.Cell(a, results.ProtocolMatToolsV1, aggregate.TaskSuccessRate) == nil || i < len(b.Rows) {
				t.Errorf("submission row %d: rank %d; want it unranked after the %d published rows, with its mattools-v1 value", i, row.Rank, len(b.Rows))
			}
			continue
		}
		if row.Rank != b.Rows[i].Rank || row.Identity != b.Rows[i].Identity {
			t.Errorf("row %d: %s rank %d; before the submission %s rank %d", i, row.Identity, row.Rank, b.Rows[i].Identity, b.Rows[i].Rank)
		}
		if row.Rank > 0 {
			ranked++
		}
	}
	if len(a.Rows) != len(b.Rows)+1 || ranked == 0 {
		t.Errorf("%d rows (%d ranked), want the %d published ones and the submission's", len(a.Rows), ranked, len(b.Rows))
	}
}
