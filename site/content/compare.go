package content

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/stats"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// ComparePath is the comparison page's edition-relative path, and
// CompareDataPath the download that drives it.
const (
	ComparePath     = "compare"
	CompareDataPath = "downloads/compare.json"
)

// CompareData is the comparison page's download (CompareDataPath): per
// group of comparable configurations (one benchmark version, question set
// and scoring protocol), the properties each configuration passed per
// question and round.
type CompareData struct {
	About  string         `json:"about"`
	Groups []CompareGroup `json:"groups"`
}

// CompareGroup is one set of comparable configurations.
type CompareGroup struct {
	ID               string `json:"id"`
	Title            string `json:"title"`
	BenchmarkVersion string `json:"benchmark_version"`
	QuestionSet      string `json:"question_set"`
	ScoringProtocol  string `json:"scoring_protocol"`
	// Questions of the set, in the published evaluation order.
	Questions []CompareQuestion `json:"questions"`
	// TQuantile is t(0.975; G − 1) for the group's G questions
	// (stats.StudentTQuantile): the quantile of the paired difference's
	// 95 % interval over questions (aggregate.PairedDifference); 0 with
	// fewer than two questions.
	TQuantile      float64                `json:"t_quantile"`
	Configurations []CompareConfiguration `json:"configurations"`
}

// CompareQuestion is one question of a group.
type CompareQuestion struct {
	ID         string `json:"id"`
	Properties int    `json:"properties"`
	Href       string `json:"href"` // edition-relative question page, "" when none
}

// CompareConfiguration is one configuration of a group and its outcomes.
type CompareConfiguration struct {
	Slug  string `json:"slug"`
	Label string `json:"label"` // model · system · retrieval source · badge
	Href  string `json:"href"`  // edition-relative configuration page
	// Rounds are the aggregated runs' rounds, and Passed[q][r] the
	// properties passed of question q (Questions order) in Rounds[r]; a
	// question without an outcome in a round is nil (JSON null: under
	// mattools-v1 a credit can be negative, so no number can mean "none").
	Rounds []int    `json:"rounds"`
	Passed [][]*int `json:"passed"`
	// QuestionMeans are, per question (Questions order), the properties
	// passed averaged over all the aggregated rounds, a round without an
	// outcome counting 0 (aggregate.QuestionMeans of the task success rate,
	// the clusters of its interval over questions and of paired
	// differences); nil (JSON null) when the configuration has no interval
	// over questions (aggregate.Configuration.NoQInterval) or weighs a
	// question otherwise than the group.
	QuestionMeans []float64 `json:"question_means"`
}

// Compare returns the comparison data of a leaderboard: every tool-usage
// configuration with per-question outcomes (aggregate.Configuration.Taxonomy
// not nil), grouped as the leaderboard never mixes them. hasQuestions says
// whether the edition has question pages to link.
func Compare(lb *aggregate.Leaderboard, hasQuestions bool) *CompareData {
	d := &CompareData{About: "Per question and round, the properties each configuration passed (null: no outcome; under mattools-v1 a credit can be negative); " +
		"the comparison page computes wins, losses and the exact sign test from it (methodology: #compare). question_means: per question, the properties passed averaged over the rounds " +
		"(a round without an outcome counts 0; null: no interval over questions), from which with t_quantile the page computes the paired difference's 95 % interval over questions " +
		"(clustered by question; methodology: #uncertainty).", Groups: []CompareGroup{}}
	byID := map[string]int{}
	for _, c := range lb.Configurations {
		if c.Key.Benchmark.Kind() != results.KindToolUsage || c.Taxonomy() == nil {
			continue
		}
		// A benchmark outside MatTools' suite: its name in the group's id, its title in the group's (benchmarkLabel).
		k := groupKey{c.Key.Benchmark, c.Key.BenchmarkVersion, c.Key.QuestionSet, c.Key.ScoringProtocol}
		gid := aggregate.Slug(c.Key.BenchmarkVersion + "|" + c.Key.QuestionSet + "|" + c.Key.ScoringProtocol)
		if benchmarkLabel(c.Key.Benchmark) != "" {
			gid = aggregate.Slug(string(c.Key.Benchmark) + "|" + gid)
		}
		gi, ok := byID[gid]
		if !ok {
			qs := c.QuestionSet()
			g := CompareGroup{ID: gid, BenchmarkVersion: c.Key.BenchmarkVersion, QuestionSet: c.Key.QuestionSet, ScoringProtocol: c.Key.ScoringProtocol,
				Title: k.heading(qs)}
			in := map[string]bool{}
			for _, id := range qs.IDs {
				in[id] = true
			}
			for _, q := range c.Runs[0].Questions {
				if len(in) > 0 && !in[q.QuestionID] {
					continue
				}
				cq := CompareQuestion{ID: q.QuestionID, Properties: int(q.PropertyCount)}
				if hasQuestions && benchmarkLabel(c.Key.Benchmark) == "" { // MatTools' questions have pages (views.hasQuestionPages)
					cq.Href = questionHref(q.QuestionID)
				}
				g.Questions = append(g.Questions, cq)
			}
			if n := len(g.Questions); n >= 2 {
				g.TQuantile = stats.StudentTQuantile(1-(1-aggregate.IntervalConfidence)/2, float64(n-1))
			}
			gi = len(d.Groups)
			byID[gid] = gi
			d.Groups = append(d.Groups, g)
		}
		g := &d.Groups[gi]
		cc := CompareConfiguration{Slug: c.Slug, Href: confHref(c),
			Label: c.Model.DisplayName + " · " + c.SystemLabel() + sourceSuffix(c.Key.RetrievalSource) + " · " + string(aggregate.BadgeOf(c.Key.Provenance))}
		runs := c.RunsWith(aggregate.StatusAggregated)
		rows := make([]map[string]*results.SummaryRow, len(runs))
		for i, r := range runs {
			cc.Rounds = append(cc.Rounds, r.Round())
			rows[i] = rowsByQuestion(r)
		}
		for _, q := range g.Questions {
			per := make([]*int, len(runs))
			for i := range runs {
				if row := rows[i][q.ID]; row != nil && row.PropertiesPassed != nil {
					if _, scored := aggregate.ClassifyRow(row); scored {
						n := int(*row.PropertiesPassed)
						per[i] = &n
					}
				}
			}
			cc.Passed = append(cc.Passed, per)
		}
		cc.QuestionMeans = compareMeans(c.Questions[aggregate.TaskSuccessRate], g.Questions)
		g.Configurations = append(g.Configurations, cc)
	}
	slices.SortStableFunc(d.Groups, func(a, b CompareGroup) int {
		return cmp.Or(strings.Compare(b.BenchmarkVersion, a.BenchmarkVersion), cmp.Compare(questionSetRank(a.QuestionSet), questionSetRank(b.QuestionSet)),
			strings.Compare(a.QuestionSet, b.QuestionSet), cmp.Compare(results.ProtocolRank(a.ScoringProtocol), results.ProtocolRank(b.ScoringProtocol)))
	})
	return d
}

// compareMeans returns qm's means aligned with the group's questions, or
// nil when qm is nil or its questions or their weights differ from qs.
func compareMeans(qm *aggregate.QuestionMeans, qs []CompareQuestion) []float64 {
	if qm == nil || len(qm.IDs) != len(qs) {
		return nil
	}
	at := make(map[string]int, len(qm.IDs))
	for i, id := range qm.IDs {
		at[id] = i
	}
	out := make([]float64, len(qs))
	for k, q := range qs {
		i, ok := at[q.ID]
		if !ok || qm.M[i] != float64(q.Properties) {
			return nil
		}
		out[k] = qm.Y[i]
	}
	return out
}

// JSON encodes the data as the download holds it.
func (d *CompareData) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(d); err != nil {
		panic(fmt.Sprintf("compare data: %v", err)) // plain strings and ints only
	}
	return buf.Bytes()
}

func (w *writer) writeCompare(v *views) {
	d := Compare(v.lb, w.e.Benchmark != nil)
	w.static(CompareDataPath, d.JSON())
	w.page(ComparePath, "Compare two configurations", "compare", map[string]any{"data": CompareDataPath, "groups": len(d.Groups), "compare": true})
}
