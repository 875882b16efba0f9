package published

import (
	"fmt"
	"github.com/mattools-leaderboard/leaderboard/results"
	"os"
	"sort"
	"strings"
	"testing"
)

// differenceSummary is the table docs/benchmark-audit.md ("The tasks
// environment") gives of the committed store's differences between the main
// environment and the tasks one: per question × protocol, the pairs that
// differ, how many of them became runnable or stopped being runnable, and
// the properties passed over those pairs in each environment (never summed
// across the two).
func differenceSummary(diffs []EnvironmentDifference) []string {
	type agg struct{ n, toRunnable, fromRunnable, mainPassed, otherPassed int }
	by := map[string]*agg{}
	for _, d := range diffs {
		k := "| `" + d.QuestionID + "` | " + d.Protocol
		a := by[k]
		if a == nil {
			a = &agg{}
			by[k] = a
		}
		a.n++
		if d.Other.Runnable && !d.Main.Runnable {
			a.toRunnable++
		}
		if d.Main.Runnable && !d.Other.Runnable {
			a.fromRunnable++
		}
		a.mainPassed += d.Main.PropertiesPassed
		a.otherPassed += d.Other.PropertiesPassed
	}
	var out []string
	for k, a := range by {
		out = append(out, fmt.Sprintf("%s | %d | %d | %d | %d | %d |", k, a.n, a.toRunnable, a.fromRunnable, a.mainPassed, a.otherPassed))
	}
	sort.Strings(out)
	return out
}

// TestDocsListTheTasksEnvironmentDifferences checks that the table of
// docs/benchmark-audit.md is the committed store's: recomputed here from
// results/published/reexecuted.json, each row must appear in the page, and
// the stated total too.
func TestDocsListTheTasksEnvironmentDifferences(t *testing.T) {
	st, err := CommittedReexecuted()
	if err != nil {
		t.Fatal(err)
	}
	diffs, compared := st.EnvironmentDifferences("tasks")
	if compared == 0 {
		t.Skip("the committed store holds no verdicts of the tasks environment (make rescore-published SANDBOX_ENV=tasks)")
	}
	doc, err := os.ReadFile("../../docs/benchmark-audit.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(doc)
	total := fmt.Sprintf("**%d of the %d** question × protocol verdicts", len(diffs), compared)
	if !strings.Contains(page, total) {
		t.Errorf("docs/benchmark-audit.md lacks %q", total)
	}
	for _, row := range differenceSummary(diffs) {
		if !strings.Contains(page, row) {
			t.Errorf("docs/benchmark-audit.md lacks the row\n%s", row)
		}
	}
}

// TestImportComparesTheJoinedRunsEnvironments: Read's comparison of the
// tasks environment covers exactly the runs whose re-executed verdicts it
// joined; on a data root holding every published run, that is every
// difference of the committed store.
func TestImportComparesTheJoinedRunsEnvironments(t *testing.T) {
	st, err := CommittedReexecuted()
	if err != nil {
		t.Fatal(err)
	}
	diffs, compared := st.EnvironmentDifferences(TasksEnvironmentLabel)
	if compared == 0 {
		t.Skip("the committed store holds no verdicts of the tasks environment")
	}
	imp, err := Read(dataRoot(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := imp.Environments
	if c == nil || c.Label != TasksEnvironmentLabel || len(c.Differences) != len(diffs) || c.Compared != compared {
		t.Fatalf("import's comparison %v; want %d of %d differences", c, len(diffs), compared)
	}
	rescored := map[string]bool{}
	for _, f := range imp.Files {
		if f.Run.Provenance.Kind == results.ProvenanceRescored {
			rescored[f.Run.Provenance.DerivedFrom] = true
		}
	}
	for _, d := range c.Differences {
		if !rescored[d.RunID] {
			t.Errorf("difference of run %s, whose verdicts the import did not join", d.RunID)
		}
	}
}
