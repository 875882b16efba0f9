package content

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestMethodologyListsEnvironmentDifferences: the methodology page groups
// the published answers whose verdicts differ between the environments by
// question, protocol and pair of outcomes, counting the answers and naming
// their configurations, both sides kept apart; the libraries the other
// environment adds are named; no comparison, no section.
func TestMethodologyListsEnvironmentDifferences(t *testing.T) {
	files := sitetest.Runs()
	var tool []*results.File
	for _, f := range files {
		if f.Run.Benchmark == results.BenchmarkToolUsage && f.Run.Provenance.Kind == results.ProvenanceImported {
			tool = append(tool, f)
		}
	}
	if len(tool) < 2 {
		t.Fatalf("%d imported tool-usage runs in the fixture, want 2", len(tool))
	}
	q0, q1 := sitetest.Questions[0].ID, sitetest.Questions[1].ID
	a, b := results.EnvironmentOutcome{Environment: "main", Verdict: results.VerdictNotRunnable},
		results.EnvironmentOutcome{Environment: "tasks", Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: 1}
	c := &results.EnvironmentComparison{Label: "tasks", Compared: 10,
		Environments: map[string]results.ComparedEnvironment{"main": {Libraries: map[string]string{"pymatgen": "2024.8.9"}},
			"tasks": {Libraries: map[string]string{"pymatgen": "2024.8.9", "ase": "3.23.0"}}},
		Differences: []results.EnvironmentDifference{
			{RunID: tool[0].Run.RunID, QuestionID: q1, Protocol: results.ProtocolMatToolsV1Strict, Main: a, Other: b},
			{RunID: tool[1].Run.RunID, QuestionID: q1, Protocol: results.ProtocolMatToolsV1Strict, Main: a, Other: b},
			{RunID: tool[0].Run.RunID, QuestionID: q0, Protocol: results.ProtocolMatToolsV1, Main: b, Other: a},
		}}
	write := func(c *results.EnvironmentComparison) map[string]any {
		dir := t.TempDir()
		e := &Edition{Path: "preview", Version: "preview", Files: files, Benchmark: sitetest.Benchmark(), EnvironmentComparison: c}
		e.Leaderboard = aggregate.Build(e.Files, aggregate.DefaultCatalog())
		dirs := Dirs{Content: filepath.Join(dir, "content"), Static: filepath.Join(dir, "static")}
		if err := Write(dirs, e); err != nil {
			t.Fatal(err)
		}
		return readParams(t, filepath.Join(dirs.Content, "preview", "methodology.md"))
	}
	p := write(c)
	env, ok := p["environments"].(map[string]any)
	if !ok {
		t.Fatalf("no environments section: %v", p["environments"])
	}
	if env["compared"] != float64(10) || env["differing"] != float64(3) || env["other"] != "ase 3.23.0" || env["main"] != "pymatgen 2024.8.9" {
		t.Errorf("section %v", env)
	}
	rows := env["rows"].([]any)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2: %v", len(rows), rows)
	}
	props := sitetest.Questions[1].Props
	r0, r1 := rows[0].(map[string]any), rows[1].(map[string]any)
	m0, m1 := aggregate.DefaultCatalog().Model(&tool[0].Run).DisplayName, aggregate.DefaultCatalog().Model(&tool[1].Run).DisplayName
	if r0["question"] != q0 || r0["answers"] != float64(1) || r0["main"] != "◐ partial, 1/"+strconv.Itoa(sitetest.Questions[0].Props) || r0["other"] != "✗ not-runnable" {
		t.Errorf("first row %v", r0)
	}
	if r1["question"] != q1 || r1["protocol"] != results.ProtocolMatToolsV1Strict || r1["answers"] != float64(2) || r1["other"] != "◐ partial, 1/"+strconv.Itoa(props) ||
		r1["href"] != questionHref(q1) {
		t.Errorf("second row %v", r1)
	}
	if cs, _ := r1["configurations"].(string); m0 == "" || m1 == "" || !strings.Contains(cs, m0) || !strings.Contains(cs, m1) {
		t.Errorf("second row's configurations %q; want %s and %s", cs, m0, m1)
	}
	if p := write(nil); p["environments"] != nil {
		t.Errorf("no comparison, yet a section: %v", p["environments"])
	}
}
