package content

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSystemPageRanksConfigurationsByTaskSuccess: the single-LLM system
// page of 25 models (task success (k mod 11 + 2) of the fixture's
// properties, so values repeat) has one table, its rows ordered by task
// success, best first; each row's rank is 1 + the number of models with a
// strictly higher mean (equal means share a rank), computed here from the
// configurations' summaries, and its cell shows that mean.
func TestSystemPageRanksConfigurationsByTaskSuccess(t *testing.T) {
	e, dirs := manyModels(t, 25)
	success := successOf(e)
	sys := readParams(t, filepath.Join(dirs.Content, "preview", "systems", "single-llm.md"))
	tables, _ := sys["config_tables"].([]any)
	if len(tables) != 1 {
		t.Fatalf("%d configuration tables, want 1 (one question set, one protocol)", len(tables))
	}
	tab := tables[0].(map[string]any)
	if tab["name"] != "Model" {
		t.Errorf("name column %q, want Model", tab["name"])
	}
	cols := tab["columns"].([]any)
	if h := cols[0].(map[string]any); h["metric"] != "task_success_rate" || h["headline"] != true {
		t.Errorf("first column %v, want the headline task success rate", h)
	}
	rows := tab["rows"].([]any)
	if len(rows) != 25 {
		t.Fatalf("%d rows, want 25", len(rows))
	}
	prev := 101.0
	for i, r := range rows {
		row := r.(map[string]any)
		model := row["name"].(string)
		s := success[model]
		if s > prev {
			t.Errorf("row %d (%s, %.2f) after a row of %.2f: not ranked by task success", i+1, model, s, prev)
		}
		prev = s
		higher := 0
		for _, o := range success {
			if o > s {
				higher++
			}
		}
		if want := strconv.Itoa(higher + 1); row["rank"] != want {
			t.Errorf("row %d (%s): rank %v, want %s", i+1, model, row["rank"], want)
		}
		cell := row["cells"].([]any)[0].(map[string]any)
		if cell["mean"] != fmt.Sprintf("%.2f", s) {
			t.Errorf("row %d (%s): task success %v, want %.2f", i+1, model, cell["mean"], s)
		}
		if row["n"] != 1.0 {
			t.Errorf("row %d: n = %v, want 1 (one round)", i+1, row["n"])
		}
	}
}
