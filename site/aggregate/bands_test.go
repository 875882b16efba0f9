package aggregate_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// TestRankBandsOfThePublishedResults checks, on every headline
// table of the real published results, that each cell's interval is the 95 %
// t-interval of the per-round percentages computed here from the runs' own
// totals, and that each ranked row's band is the one those intervals give:
// best = 1 + rows whose interval lies wholly above, worst = rows whose
// interval is not wholly below, tied = overlapping the leader's. It logs the
// bands of the single-LLM and LLM-RAG rows (MATTOOLS_BANDS_OUT=file also
// writes them there, for the closing note).
func TestRankBandsOfThePublishedResults(t *testing.T) {
	files, lb := realLeaderboard(t)
	var report strings.Builder
	singles := 0 // ranked rows of one round (the published agentic RAG runs of GPT-4o mini and of source 3)
	for _, tab := range lb.Headline {
		var ranked []*aggregate.RankedRow
		var ivs []stats.Interval
		for _, row := range tab.Rows {
			c := row.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate)
			if row.Rank == 0 {
				if row.Band != (stats.Band{}) {
					t.Errorf("%s %s: unranked row has band %+v", tab.ID, row.Identity, row.Band)
				}
				continue
			}
			// The interval from the runs' totals, independently of aggregate.
			var pct []float64
			for _, f := range files {
				r := &f.Run
				if r.Benchmark == results.BenchmarkToolUsage && r.Configuration().String() == c.Configuration.Key.String() && r.Round > 0 && r.Totals.Scored {
					pct = append(pct, stats.Percent(*r.Totals.PropertiesPassed, r.Totals.Properties))
				}
			}
			want := stats.TInterval(pct, 0.95).Clamp(0, 100)
			if !near(c.Interval.Lo, want.Lo) || !near(c.Interval.Hi, want.Hi) || c.Interval.N != len(pct) {
				t.Errorf("%s %s: interval [%.4f, %.4f] n %d, from the runs' totals [%.4f, %.4f] n %d", tab.ID, row.Identity,
					c.Interval.Lo, c.Interval.Hi, c.Interval.N, want.Lo, want.Hi, len(pct))
			}
			ranked = append(ranked, row)
			if len(pct) < 2 { // one round: no interval, so the band counts the whole scale
				want.Lo, want.Hi = 0, 100
			}
			ivs = append(ivs, want)
		}
		for i, row := range ranked {
			best, worst := 1, 0
			for j := range ranked {
				if j != i && ivs[j].Lo > ivs[i].Hi {
					best++
				}
				if ivs[j].Hi >= ivs[i].Lo {
					worst++
				}
			}
			tied := ivs[i].Lo <= ivs[0].Hi && ivs[0].Lo <= ivs[i].Hi
			if row.Band != (stats.Band{Best: best, Worst: worst, Tied: tied}) {
				t.Errorf("%s %s: band %+v, want %d–%d tied %v", tab.ID, row.Identity, row.Band, best, worst, tied)
			}
			if row.Rank < row.Band.Best || row.Rank > row.Band.Worst {
				t.Errorf("%s %s: rank %d outside its band %d–%d", tab.ID, row.Identity, row.Rank, row.Band.Best, row.Band.Worst)
			}
			if ivs[i].N == 1 {
				singles++
				if row.Band != (stats.Band{Best: 1, Worst: len(ranked), Tied: true}) {
					t.Errorf("%s %s: a row of one round has band %+v; want 1–%d, tied (it may hold any rank)", tab.ID, row.Identity, row.Band, len(ranked))
				}
			}
		}
		fmt.Fprintf(&report, "\n%s — ranked by task success rate %s (%d ranked rows)\n", tab.Title(), aggregate.ProtocolTitle(tab.HeadlineProtocol), len(ranked))
		fmt.Fprintf(&report, "%-5s %-6s %-3s %-34s %-9s %-11s %-8s %s\n", "rank", "band", "tie", "model", "system", "source", "mean", "95% CI")
		for i, row := range ranked {
			if row.System != results.SystemSingleLLM && row.System != results.SystemLLMRAG {
				continue
			}
			tie := ""
			if row.Band.Tied {
				tie = "=1"
			}
			fmt.Fprintf(&report, "%-5d %-6s %-3s %-34s %-9s %-11d %-8.2f [%.2f, %.2f] %s\n", row.Rank, fmt.Sprintf("%d–%d", row.Band.Best, row.Band.Worst), tie,
				row.Model.DisplayName, aggregate.SystemTitle(row.System), row.RetrievalSource, ivs[i].Mean, ivs[i].Lo, ivs[i].Hi, joinBadgesText(row.Badges))
		}
	}
	if singles == 0 {
		t.Error("no ranked row of one round: the published agentic RAG runs of one round should be ranked in the headline tables")
	}
	t.Log(report.String())
	if out := os.Getenv("MATTOOLS_BANDS_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func joinBadgesText(bs []aggregate.Badge) string {
	var s []string
	for _, b := range bs {
		s = append(s, string(b))
	}
	return strings.Join(s, "+")
}
