package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadEnvironmentComparisonRefusesBadFiles: a file that names an
// environment it does not describe, lists a difference whose sides agree,
// counts fewer comparisons than differences or has no label is refused,
// naming the file and the difference; an absent file is none.
func TestReadEnvironmentComparisonRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := func() *EnvironmentComparison {
		return &EnvironmentComparison{Label: "tasks", Compared: 2, Environments: map[string]ComparedEnvironment{"a": {}, "b": {}},
			Differences: []EnvironmentDifference{{RunID: "r1", QuestionID: "test_x", Protocol: ProtocolMatToolsV1Strict,
				Main:  EnvironmentOutcome{Environment: "a", Verdict: VerdictPartial, Runnable: true, PropertiesPassed: 1},
				Other: EnvironmentOutcome{Environment: "b", Verdict: VerdictCorrect, Runnable: true, PropertiesPassed: 2}}}}
	}
	path := filepath.Join(dir, EnvironmentComparisonFile)
	if err := good().Write(path); err != nil {
		t.Fatal(err)
	}
	if c, err := ReadEnvironmentComparison(path); err != nil || len(c.Differences) != 1 || c.Differences[0].Other.Verdict != VerdictCorrect {
		t.Fatalf("good file: %+v, %v", c, err)
	}
	for _, c := range []struct {
		change func(*EnvironmentComparison)
		want   string
	}{
		{func(c *EnvironmentComparison) { c.Differences[0].Other.Environment = "z" }, `differences[0] (r1 test_x mattools-v1-strict): environment "z" is not in environments`},
		{func(c *EnvironmentComparison) { c.Differences[0].Other = c.Differences[0].Main }, "differences[0] (r1 test_x mattools-v1-strict): both sides agree"},
		{func(c *EnvironmentComparison) { c.Compared = 0 }, "compared: 0, fewer than the 1 differences"},
		{func(c *EnvironmentComparison) { c.Label = "" }, "label: required"},
	} {
		g := good()
		c.change(g)
		if err := g.Write(path); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadEnvironmentComparison(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v; want one naming %s and %q", err, path, c.want)
		}
	}
	if err := os.WriteFile(path, []byte(`{"label":"tasks","extra":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadEnvironmentComparison(path); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("an unknown field: %v", err)
	}
	if c, err := ReadEnvironmentComparison(filepath.Join(dir, "absent.json")); c != nil || err != nil {
		t.Errorf("absent file: %v, %v", c, err)
	}
}
