package systems

// The configurations of the repository's plans, against a golden list:
// moving a system's plan settings into its own file changes none of them,
// nor their order.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/runner/plan"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/plan-configurations.golden")

// allSettings is a plan that sets every system's settings away from their
// defaults, with two retrieval methods and every source.
const allSettings = `systems = ["single-llm", "llm-rag", "agentic-rag", "graph-rag", "self-reflection-rag"]
retrieval_sources = [1, 2, 3, 4]
[retrieval]
methods = ["bm25", "embedding"]
top_k = 7
[retrieval.embedding]
model = "e"
base_url = "http://127.0.0.1:1/v1"
[self_reflection]
variants = ["feedback", "as-published"]
max_iterations = 3
[graph_rag]
modes = ["naive", "global", "mix"]
corpus = "pymatgen/core"
index_model = "b"
send_temperature = true
[agentic]
name_lookup = "metadata-name"
[[models]]
name = "a"
base_url = "http://127.0.0.1:1/v1"
[[models]]
name = "b"
base_url = "http://127.0.0.1:1/v1"
`

// configurationLines lists p's configurations, one line each, with every
// field the runner reads.
func configurationLines(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Configurations() {
		qa := ""
		if c.QA != nil {
			qa = c.QA.QuestionSetName()
		}
		out = append(out, fmt.Sprintf("%s %s src=%d method=%q top_k=%d model=%s protocols=%v qa=%q variant=%q max_iterations=%d name_lookup=%q graph_mode=%q",
			c.Benchmark, c.System, c.RetrievalSource, c.RetrievalMethod, c.TopK, c.Model.Name, c.ScoringProtocols, qa,
			c.Variant, c.MaxIterations, c.NameLookup, c.GraphMode))
	}
	return out
}

func TestPlanConfigurationsGolden(t *testing.T) {
	t.Setenv("MATTOOLS_DATA", "/data")
	t.Setenv("MATTOOLS_QA_SAMPLE", "/qa")
	files, err := filepath.Glob(filepath.Join("..", "..", "plans", "*.toml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("plans: %v %v", files, err)
	}
	var b strings.Builder
	for _, f := range files {
		if n := filepath.Base(f); n == "local-cpu.toml" || n == "local-cpu-dense.toml" {
			continue // their folder benchmark is built by make local-smoke, not committed
		}
		p, err := plan.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "# %s\n%s\n", filepath.Base(f), strings.Join(configurationLines(p), "\n"))
	}
	p, err := plan.Parse([]byte(allSettings), "all.toml")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "# every setting\n%s\n", strings.Join(configurationLines(p), "\n"))
	golden := filepath.Join("testdata", "plan-configurations.golden")
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("configurations differ from %s:\n%s", golden, got)
	}
}
