package content

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/apicheck"
)

// TestHallucinatedAPIsOfTheReexecutedSingleLLMRuns counts the
// hallucinated APIs of the re-executed published single-LLM runs per model
// (each answer once over both scoring protocols) and checks the counts
// against the store read directly: every answer with code is checked, and
// the answers with a missing name are those whose stored result lists one.
// MATTOOLS_HALLUCINATIONS_OUT=file writes the per-model counts there.
func TestHallucinatedAPIsOfTheReexecutedSingleLLMRuns(t *testing.T) {
	root := mattoolstest.DataRoot(t, "for the published single-LLM answers")
	im, err := published.Read(root, published.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lb := aggregate.Build(im.Files, aggregate.DefaultCatalog())
	v := newViews(&Edition{Leaderboard: lb})
	store, err := apicheck.Committed()
	if err != nil {
		t.Fatal(err)
	}
	byModel := map[string][]*aggregate.Configuration{}
	var models []string
	for _, c := range lb.Configurations {
		if c.Key.System == results.SystemSingleLLM && c.Key.Provenance == "rescored:imported" {
			if byModel[c.Key.Model] == nil {
				models = append(models, c.Key.Model)
			}
			byModel[c.Key.Model] = append(byModel[c.Key.Model], c)
		}
	}
	if len(models) != 5 {
		t.Fatalf("%d models with re-executed single-LLM runs, want 5", len(models))
	}
	var report strings.Builder
	fmt.Fprintf(&report, "%-28s %8s %14s %9s  %s\n", "model", "answers", "with missing", "distinct", "most frequent missing names")
	for _, m := range models {
		h := v.hallucinations(store, byModel[m])
		// Directly: the mattools-v1 runs' answers (one per round and question).
		answers, with := 0, 0
		for _, f := range im.Files {
			r := &f.Run
			if r.System != results.SystemSingleLLM || r.Model != m || r.ScoringProtocol != results.ProtocolMatToolsV1 || r.Provenance.Kind != results.ProvenanceRescored {
				continue
			}
			for _, q := range f.Questions {
				if strings.TrimSpace(q.Code) == "" {
					continue
				}
				answers++
				if res, ok := store.Lookup(q.Code); !ok {
					t.Errorf("%s %s: not in the store", r.RunID, q.QuestionID)
				} else if len(res.Missing) > 0 {
					with++
				}
			}
		}
		if h == nil || h.Answers != answers || h.Checked != answers || h.WithNames != with {
			t.Errorf("%s: %+v; directly %d answers, %d with a missing name", m, h, answers, with)
			continue
		}
		var top []string
		for _, n := range h.Names[:min(4, len(h.Names))] {
			top = append(top, fmt.Sprintf("%s ×%d", n.Name, n.Answers))
		}
		fmt.Fprintf(&report, "%-28s %8d %14d %9d  %s\n", byModel[m][0].Model.DisplayName, h.Checked, h.WithNames, len(h.Names), strings.Join(top, "; "))
	}
	t.Log("\n" + report.String())
	if out := os.Getenv("MATTOOLS_HALLUCINATIONS_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
