package content

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// TestQuestionModulesAndHeatmap: every one of the benchmark's 49
// questions maps to the pymatgen-analysis-defects module of its unit test
// (test_vacancy → core, test_fed_plot → plotting.thermo, test_kumagai →
// corrections), and each heatmap cell of the re-executed GPT-4o single-LLM
// configuration equals properties passed / properties over that module's
// questions and rounds, computed here from the rows.
func TestQuestionModulesAndHeatmap(t *testing.T) {
	root := mattoolstest.DataRoot(t, "for the unit tests' code segments")
	bench, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	mods, err := QuestionModules(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range bench.Questions {
		if _, ok := mods[q.ID]; !ok {
			t.Errorf("question %s has no module", q.ID)
		}
	}
	for q, want := range map[string]string{"test_vacancy": "core", "test_fed_plot": "plotting.thermo", "test_kumagai": "corrections",
		"test_closest_sc_mat": "supercells", "test_SRHCapture": "ccd"} {
		if got := mods[q]; got != "pymatgen.analysis.defects."+want {
			t.Errorf("%s → %q, want pymatgen.analysis.defects.%s", q, got, want)
		}
	}
	im, err := published.Read(root, published.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lb := aggregate.Build(im.Files, aggregate.DefaultCatalog())
	v := newViews(&Edition{Leaderboard: lb, Benchmark: bench})
	var c *aggregate.Configuration
	for _, x := range lb.Configurations {
		if x.Key.System == results.SystemSingleLLM && x.Key.Model == "gpt-4o-2024-08-06" && x.Key.ScoringProtocol == results.ProtocolMatToolsV1 {
			c = x
		}
	}
	passed, total := map[string]int{}, map[string]int{}
	for _, r := range c.RunsWith(aggregate.StatusAggregated) {
		for _, q := range r.File.Questions {
			if q.Verdict != string(results.VerdictDataMissing) {
				passed[mods[q.QuestionID]] += int(*q.PropertiesPassed)
				total[mods[q.QuestionID]] += int(q.PropertyCount)
			}
		}
	}
	checked := 0
	for _, hm := range v.heatmaps(mods) {
		for _, row := range hm.Rows {
			if row.Href != confHref(c) {
				continue
			}
			for i, col := range hm.Columns {
				want := fmt.Sprintf("%.0f", 100*float64(passed[col.Full])/float64(total[col.Full]))
				if row.Cells[i].Text != want || !strings.Contains(row.Cells[i].Title, fmt.Sprintf("%d of %d properties", passed[col.Full], total[col.Full])) {
					t.Errorf("%s: cell %q (%s), want %s%% of %d/%d", col.Full, row.Cells[i].Text, row.Cells[i].Title, want, passed[col.Full], total[col.Full])
				}
				checked++
			}
			t.Logf("GPT-4o single LLM, mattools-v1: %v", row.Cells)
		}
	}
	if checked < 5 {
		t.Errorf("only %d cells of GPT-4o checked", checked)
	}
}
