package aggregate

import (
	"fmt"
	"math"
	"slices"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
)

// QuestionMeans are one metric of a configuration per question of its
// question set, averaged over the aggregated rounds: the clusters of the
// interval that counts question sampling (Configuration.QIntervals) and of
// paired differences (PairedDifference).
type QuestionMeans struct {
	// IDs are the question ids in the question set's order (its ids, else
	// the first run's rows).
	IDs []string
	// Y is, per question, what it scored averaged over the rounds
	// (properties passed for the task success rate, 1 or 0 runnable for the
	// function runnable rate), and M its weight (property count, or 1).
	Y, M []float64
	// Rounds is the number of rounds averaged.
	Rounds int
}

// NoQuestionsPublished is why a configuration whose runs hold totals only
// (MatTools' published totals) has no interval over questions.
const NoQuestionsPublished = "totals only: no per-question outcomes exist, so no interval over questions can be given"

// questionMeans returns metric m of the aggregated runs per question, or
// why it cannot: runs without per-question rows, a question of the set
// without a row, or rows that do not add up to a run's totals (the
// interval must be of the very number the table shows).
func (c *Configuration) questionMeans(m Metric, agg []*Run) (*QuestionMeans, string) {
	if m != TaskSuccessRate && m != FunctionRunnableRate {
		return nil, "no per-question outcomes are kept for " + m.Title()
	}
	for _, r := range agg {
		known := false // some row has an outcome of m
		for k := range r.Questions {
			q := &r.Questions[k]
			known = known || (m == TaskSuccessRate && q.PropertiesPassed != nil) || (m == FunctionRunnableRate && q.Runnable != nil)
		}
		if !known {
			return nil, NoQuestionsPublished
		}
	}
	qs := c.QuestionSet()
	ids := qs.IDs
	if len(ids) == 0 {
		for _, q := range agg[0].Questions {
			ids = append(ids, q.QuestionID)
		}
	}
	qm := &QuestionMeans{IDs: ids, Y: make([]float64, len(ids)), M: make([]float64, len(ids)), Rounds: len(agg)}
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	for ri, r := range agg {
		seen := make([]bool, len(ids))
		sumY, sumM := 0, 0
		for k := range r.Questions {
			q := &r.Questions[k]
			i, ok := index[q.QuestionID]
			if !ok {
				continue // outside the question set
			}
			if seen[i] {
				return nil, fmt.Sprintf("run %s has two rows of question %s", r.ID(), q.QuestionID)
			}
			seen[i] = true
			y, w := 0, 1
			switch m {
			case TaskSuccessRate:
				w = int(q.PropertyCount)
				if q.PropertiesPassed != nil {
					y = int(*q.PropertiesPassed)
				}
			case FunctionRunnableRate:
				if q.Runnable != nil && *q.Runnable {
					y = 1
				}
			}
			if ri == 0 {
				qm.M[i] = float64(w)
			} else if qm.M[i] != float64(w) {
				return nil, fmt.Sprintf("question %s weighs %d in run %s, %g in run %s", q.QuestionID, w, r.ID(), qm.M[i], agg[0].ID())
			}
			qm.Y[i] += float64(y)
			sumY += y
			sumM += w
		}
		if i := slices.Index(seen, false); i >= 0 {
			return nil, fmt.Sprintf("run %s has no row of question %s", r.ID(), ids[i])
		}
		if v := r.Values[m]; v.Count != sumY || v.Total != sumM {
			return nil, fmt.Sprintf("the per-question outcomes of run %s add up to %d of %d, its totals say %d of %d", r.ID(), sumY, sumM, v.Count, v.Total)
		}
	}
	for i := range qm.Y {
		qm.Y[i] /= float64(len(agg))
	}
	return qm, ""
}

// qInterval is the interval over questions and rounds of qm, in percent,
// clamped to [0, 100].
func qInterval(qm *QuestionMeans) stats.Interval {
	return stats.ClusteredRatio(qm.Y, qm.M, IntervalConfidence).Scale(100).Clamp(0, 100)
}

// PairedDifference returns the difference a − b of metric m, in percentage
// points, paired by question, with its IntervalConfidence interval
// (stats.ClusteredDifference over the questions, each averaged over its
// configuration's rounds); ok is false when either has no per-question
// outcomes of m or their question sets differ. The rounds of the two need
// not be as many.
func PairedDifference(a, b *Configuration, m Metric) (stats.Interval, bool) {
	qa, qb := a.Questions[m], b.Questions[m]
	if qa == nil || qb == nil || !slices.Equal(qa.IDs, qb.IDs) || !slices.Equal(qa.M, qb.M) {
		return stats.Interval{}, false
	}
	return stats.ClusteredDifference(qa.Y, qb.Y, qa.M, IntervalConfidence).Scale(100), true
}

// summarizeQuestions fills c.Questions and c.QIntervals (or NoQInterval)
// for every metric with a summary.
func (c *Configuration) summarizeQuestions(agg []*Run) {
	c.Questions, c.QIntervals, c.NoQInterval = map[Metric]*QuestionMeans{}, map[Metric]stats.Interval{}, map[Metric]string{}
	if c.Key.Benchmark.Kind() == results.KindMultipleChoice {
		c.summarizeItems(agg)
		return
	}
	for m, s := range c.Summaries {
		qm, why := c.questionMeans(m, agg)
		if qm == nil {
			c.NoQInterval[m] = why
			continue
		}
		iv := qInterval(qm)
		if math.Abs(iv.Mean-s.Mean) > 1e-9 {
			c.NoQInterval[m] = fmt.Sprintf("the per-question outcomes give %.6f %%, the rounds %.6f %%", iv.Mean, s.Mean)
			continue
		}
		c.Questions[m], c.QIntervals[m] = qm, iv
	}
}

// NoItemsPublished is why a QA configuration whose runs hold totals only
// has no interval over items.
const NoItemsPublished = "totals only: no per-item outcomes exist, so no interval over items can be given"

// qaOutcomes returns a QA run's per-item outcomes: those ReadSummary kept
// (results.File.QA), else those of its items (results.CompactQA); nil when
// the file holds neither.
func qaOutcomes(r *Run) *results.QAOutcomes {
	if r.File.QA != nil {
		return r.File.QA
	}
	if len(r.File.QAItems) > 0 {
		return results.CompactQA(r.File.QAItems)
	}
	return nil
}

// summarizeItems fills c.QIntervals (or NoQInterval) of a QA configuration:
// its accuracies' 95 % intervals over items and rounds, the items (a
// question, or for MatTools' published CSVs a source item of several
// questions) as clusters, each averaged over the rounds, with its questions
// as weight (stats.ClusteredRatio). The per-item means are not kept (a QA
// set has tens of thousands of items; QA tables are not ranked, so no
// paired difference needs them).
func (c *Configuration) summarizeItems(agg []*Run) {
	if len(c.Summaries) == 0 {
		return
	}
	outs := make([]*results.QAOutcomes, len(agg))
	for i, r := range agg {
		o := qaOutcomes(r)
		var why string
		switch {
		case o == nil:
			why = NoItemsPublished
		case o.Why != "":
			why = "run " + r.ID() + ": " + o.Why
		case i > 0 && o.Items != outs[0].Items:
			why = fmt.Sprintf("runs %s and %s hold different items (item_index or questions differ): their outcomes cannot be averaged item by item", agg[0].ID(), r.ID())
		}
		if why != "" {
			for m := range c.Summaries {
				c.NoQInterval[m] = why
			}
			return
		}
		outs[i] = o
	}
	n := outs[0].Len()
	m, total := make([]float64, n), 0
	for k := range m {
		m[k] = float64(outs[0].QuestionsOf(k))
		total += outs[0].QuestionsOf(k)
	}
	for metric, s := range c.Summaries {
		y := make([]float64, n)
		why := ""
		for i, o := range outs {
			counts := o.Correct
			if metric == AccuracyLenient {
				counts = o.Lenient
			}
			if counts == nil {
				why = "run " + agg[i].ID() + " has no per-item outcomes of " + metric.Title()
				break
			}
			sumY := 0
			for k, x := range counts {
				y[k] += float64(x)
				sumY += int(x)
			}
			if v := agg[i].Values[metric]; v.Count != sumY || v.Total != total {
				why = fmt.Sprintf("the per-item outcomes of run %s add up to %d of %d, its totals say %d of %d", agg[i].ID(), sumY, total, v.Count, v.Total)
				break
			}
		}
		if why != "" {
			c.NoQInterval[metric] = why
			continue
		}
		for k := range y {
			y[k] /= float64(len(agg))
		}
		iv := stats.ClusteredRatio(y, m, IntervalConfidence).Scale(100).Clamp(0, 100)
		if math.Abs(iv.Mean-s.Mean) > 1e-9 {
			c.NoQInterval[metric] = fmt.Sprintf("the per-item outcomes give %.6f %%, the rounds %.6f %%", iv.Mean, s.Mean)
			continue
		}
		c.QIntervals[metric] = iv
	}
}
