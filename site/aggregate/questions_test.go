package aggregate_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// TestQuestionIntervalsOfThePublishedResults checks, on the headline tables
// of the real published results, each cell's interval over questions and
// rounds against a recomputation from the runs' own rows (per question of the
// question set: properties passed, or runnable, averaged over the rounds;
// stats.ClusteredRatio), that its centre is the table's mean, and each ranked
// row's QBand against a brute-force count of paired differences. It checks
// the figures measured when the interval was introduced (GPT-4o
// self-reflection, source 4, mattools-v1-strict: 46.24 %, [20.10, 72.37];
// paired with Gemini-2.0-Flash-Thinking LLM-RAG source 4: −1.43 pp,
// [−9.35, 6.49]) and logs,
// per table, the top five rows (± of rounds, t-interval over rounds,
// interval over questions and rounds) and how many ≈ ties and bands change.
func TestQuestionIntervalsOfThePublishedResults(t *testing.T) {
	_, lb := realLeaderboard(t)
	var report strings.Builder
	withQ := 0
	for _, tab := range lb.Headline {
		var ranked []*aggregate.RankedRow
		for _, row := range tab.Rows {
			if row.Rank > 0 {
				ranked = append(ranked, row)
			}
			for i, col := range tab.Columns {
				c := row.Cells[i]
				if c == nil {
					continue
				}
				y, m, ok := recompute(c.Configuration, col.Metric)
				if !ok {
					if c.QInterval.N != 0 || c.NoQInterval == "" {
						t.Errorf("%s %s: no per-question outcomes, yet interval %+v / reason %q", c.Configuration.Key, col.Metric, c.QInterval, c.NoQInterval)
					}
					continue
				}
				withQ++
				want := stats.ClusteredRatio(y, m, aggregate.IntervalConfidence).Scale(100).Clamp(0, 100)
				if math.Abs(c.QInterval.Lo-want.Lo) > 1e-9 || math.Abs(c.QInterval.Hi-want.Hi) > 1e-9 || c.QInterval.N != len(y) ||
					math.Abs(want.Mean-c.Summary.Mean) > 1e-9 {
					t.Errorf("%s %s: interval %+v, recomputed %+v, mean of rounds %.6f", c.Configuration.Key, col.Metric, c.QInterval, want, c.Summary.Mean)
				}
			}
		}
		// The bands, by brute force over every pair of ranked rows.
		has := false
		for _, r := range ranked {
			has = has || r.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate).Configuration.Questions[aggregate.TaskSuccessRate] != nil
		}
		oldTies, newTies, changed := 0, 0, 0
		for i, r := range ranked {
			ci := r.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate).Configuration
			want := stats.Band{}
			if has && ci.Questions[aggregate.TaskSuccessRate] != nil {
				want = stats.Band{Best: 1, Worst: len(ranked)}
				for j, o := range ranked {
					if j == i {
						continue
					}
					d, ok := aggregate.PairedDifference(o.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate).Configuration, ci, aggregate.TaskSuccessRate)
					if ok && d.Lo > 0 {
						want.Best++
					}
					if ok && d.Hi < 0 {
						want.Worst--
					}
				}
				lead := ranked[0].Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate).Configuration
				d, ok := aggregate.PairedDifference(lead, ci, aggregate.TaskSuccessRate)
				want.Tied = i == 0 || !ok || !(d.Lo > 0)
			}
			if r.QBand != want {
				t.Errorf("%s: %s band over questions %+v, brute force %+v", tab.ID, r.Identity, r.QBand, want)
			}
			if r.Band.Tied {
				oldTies++
			}
			if r.QBand.Tied {
				newTies++
			}
			if r.QBand.Best > 0 && r.QBand != r.Band {
				changed++
			}
		}
		fmt.Fprintf(&report, "table %s (%s, headline %s): %d ranked rows; ≈ ties with the leader: %d by rounds, %d by questions and rounds; bands that change: %d\n",
			tab.ID, tab.QuestionSet, tab.HeadlineProtocol, len(ranked), oldTies, newTies, changed)
		for _, r := range ranked[:min(5, len(ranked))] {
			c := r.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate)
			q := "none (" + c.NoQInterval + ")"
			if c.QInterval.N > 1 {
				q = fmt.Sprintf("[%.2f, %.2f], band %d–%d%s", c.QInterval.Lo, c.QInterval.Hi, r.QBand.Best, r.QBand.Worst, map[bool]string{true: " ≈"}[r.QBand.Tied])
			}
			fmt.Fprintf(&report, "  %d. %s · %s · source %d: %.2f ± %.2f, rounds t [%.2f, %.2f], band %d–%d%s; questions and rounds %s\n", r.Rank, r.Model.DisplayName, r.System, r.RetrievalSource,
				c.Summary.Mean, c.Summary.PopStd, c.Interval.Lo, c.Interval.Hi, r.Band.Best, r.Band.Worst, map[bool]string{true: " ≈"}[r.Band.Tied], q)
		}
	}
	if withQ == 0 {
		t.Fatal("no cell has per-question outcomes")
	}
	t.Log("\n" + report.String())

	find := func(sys results.System, source int, model string) *aggregate.Configuration {
		for _, c := range lb.Configurations {
			k := c.Key
			if k.System == sys && k.RetrievalSource == source && k.Model == model && k.ScoringProtocol == results.ProtocolMatToolsV1Strict &&
				k.BenchmarkVersion == results.BenchmarkVersion2025_05 && c.Questions[aggregate.TaskSuccessRate] != nil {
				return c
			}
		}
		t.Fatalf("no re-executed %s %s source %d under mattools-v1-strict", model, sys, source)
		return nil
	}
	sr := find(results.SystemSelfReflectionRAG, 4, "gpt-4o-2024-08-06")
	gem := find(results.SystemLLMRAG, 4, "gemini-2.0-flash-thinking-exp-01-21")
	if iv := sr.QIntervals[aggregate.TaskSuccessRate]; math.Abs(iv.Mean-46.2366) > 1e-3 || math.Abs(iv.Lo-20.10) > 0.005 || math.Abs(iv.Hi-72.37) > 0.005 || iv.N != 28 {
		t.Errorf("self-reflection source 4: %+v, want 46.24 %% [20.10, 72.37] over 28 questions", iv)
	}
	if d, ok := aggregate.PairedDifference(sr, gem, aggregate.TaskSuccessRate); !ok || math.Abs(d.Mean+1.4337) > 1e-3 || math.Abs(d.Lo+9.35) > 0.005 || math.Abs(d.Hi-6.49) > 0.005 {
		t.Errorf("self-reflection − Gemini thinking LLM-RAG, source 4: %+v (ok %v), want −1.43 pp [−9.35, 6.49]", d, ok)
	}
}

// recompute returns metric m of c per question of its question set, from
// its aggregated runs' rows, averaged over the rounds; ok false when the runs
// hold no per-question outcome of m.
func recompute(c *aggregate.Configuration, m aggregate.Metric) (y, w []float64, ok bool) {
	runs := c.RunsWith(aggregate.StatusAggregated)
	in := map[string]bool{}
	for _, id := range c.QuestionSet().IDs {
		in[id] = true
	}
	sums := map[string]float64{}
	weight := map[string]float64{}
	var order []string
	for _, r := range runs {
		for _, q := range r.Questions {
			if len(in) > 0 && !in[q.QuestionID] {
				continue
			}
			if _, seen := weight[q.QuestionID]; !seen {
				order = append(order, q.QuestionID)
			}
			switch m {
			case aggregate.TaskSuccessRate:
				weight[q.QuestionID] = float64(q.PropertyCount)
				if q.PropertiesPassed != nil {
					ok = true
					sums[q.QuestionID] += float64(*q.PropertiesPassed)
				}
			case aggregate.FunctionRunnableRate:
				weight[q.QuestionID] = 1
				if q.Runnable != nil {
					ok = true
					if *q.Runnable {
						sums[q.QuestionID]++
					}
				}
			}
		}
	}
	for _, id := range order {
		y = append(y, sums[id]/float64(len(runs)))
		w = append(w, weight[id])
	}
	return y, w, ok
}

// TestItemIntervalsOfThePublishedQA checks, on MatTools' published QA
// results, each QA configuration's 95 % interval over items and rounds
// against a recomputation written out here from the runs' items (per
// item_index: correct answers averaged over the rounds, its questions as
// weight; SE² = G/(G−1) · Σ(y − R·m)² / (Σm)², t with G − 1 degrees of
// freedom), and that its centre is the table's accuracy. It logs them.
func TestItemIntervalsOfThePublishedQA(t *testing.T) {
	_, lb := realLeaderboard(t)
	var report strings.Builder
	checked := 0
	for _, c := range lb.Configurations {
		if c.Key.Benchmark.Kind() != results.KindMultipleChoice {
			continue
		}
		s, ok := c.Summaries[aggregate.Accuracy]
		if !ok {
			continue
		}
		runs := c.RunsWith(aggregate.StatusAggregated)
		sums, weight := map[int32]float64{}, map[int32]float64{}
		for _, r := range runs {
			for _, it := range r.File.QAItems {
				sums[it.ItemIndex] += float64(it.Correct)
				weight[it.ItemIndex] = float64(it.Questions)
			}
		}
		if len(sums) == 0 {
			if _, has := c.QIntervals[aggregate.Accuracy]; has || c.NoQInterval[aggregate.Accuracy] != aggregate.NoItemsPublished {
				t.Errorf("%s: no items, yet interval %+v / reason %q", c.Key, c.QIntervals[aggregate.Accuracy], c.NoQInterval[aggregate.Accuracy])
			}
			continue
		}
		g := float64(len(sums))
		sy, sm := 0.0, 0.0
		for k := range sums {
			sums[k] /= float64(len(runs))
			sy += sums[k]
			sm += weight[k]
		}
		r := sy / sm
		ss := 0.0
		for k := range sums {
			e := sums[k] - r*weight[k]
			ss += e * e
		}
		half := stats.StudentTQuantile(0.975, g-1) * math.Sqrt(g/(g-1)*ss) / sm
		lo, hi := max(0, 100*(r-half)), min(100, 100*(r+half)) // clamped to the scale, as the tables show it
		got, ok := c.QIntervals[aggregate.Accuracy]
		if !ok || math.Abs(got.Lo-lo) > 1e-9 || math.Abs(got.Hi-hi) > 1e-9 || got.N != len(sums) || math.Abs(100*r-s.Mean) > 1e-9 {
			t.Errorf("%s: interval over items %+v (%q); recomputed %.6f %% [%.6f, %.6f] over %d items; mean of rounds %.6f",
				c.Key, got, c.NoQInterval[aggregate.Accuracy], 100*r, lo, hi, len(sums), s.Mean)
			continue
		}
		checked++
		// Beside it, the half-width if every question were independent (binomial, normal quantile).
		indep := 100 * 1.959964 * math.Sqrt(r*(1-r)/sm)
		fmt.Fprintf(&report, "%s %s: %.2f %% (n = %d rounds, %d items, %.0f questions), 95 %% interval over items and rounds [%.2f, %.2f] (± %.2f pp; questions as independent: ± %.2f pp)\n",
			c.Key.Benchmark, c.Model.DisplayName, s.Mean, s.N, len(sums), sm, got.Lo, got.Hi, 100*half, indep)
	}
	if checked == 0 {
		t.Fatal("no QA configuration has per-item outcomes")
	}
	t.Log("\n" + report.String())
}
