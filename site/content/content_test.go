package content

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

func TestRootFor(t *testing.T) {
	for _, tt := range []struct{ rel, want string }{
		{"", "./"}, {"qa", "../"}, {"qa/", "../"}, {"questions/test_vacancy", "../../"}, {"configurations/x/", "../../"},
	} {
		if got := rootFor(tt.rel); got != tt.want {
			t.Errorf("rootFor(%q) = %q, want %q", tt.rel, got, tt.want)
		}
	}
}

// TestTableCSVDefusesFormulas: a model name starting with "=" cannot run as a
// spreadsheet formula in the CSV download.
func TestTableCSVDefusesFormulas(t *testing.T) {
	runs := sitetest.Runs()
	for _, f := range runs {
		if f.Run.Model == sitetest.HostileModel {
			f.Run.ModelDisplayName = `=HYPERLINK("http://x","y")`
		}
	}
	lb := aggregate.Build(runs, aggregate.DefaultCatalog())
	csv := string(TableCSV(lb.Tables[aggregate.BoardSingleLLM][0]))
	if !strings.Contains(csv, `"'=HYPERLINK(""http://x"",""y"")"`) || strings.Contains(csv, `,"=HYPERLINK`) {
		t.Errorf("formula not defused:\n%s", csv)
	}
}

// TestCSVsLeaveUndefinedStatisticsEmpty: a cell of one round has no sample
// std (divisor n − 1 = 0) and no interval; the downloads leave them empty
// rather than writing 0 or a point interval. The fixture's self-reflection
// RAG run is outside rounds, so its configuration has n = 1.
func TestCSVsLeaveUndefinedStatisticsEmpty(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	records := func(b []byte) [][]string {
		rs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	col := func(header []string, name string) int {
		i := slices.Index(header, name)
		if i < 0 {
			t.Fatalf("no column %s in %v", name, header)
		}
		return i
	}
	ones, many := 0, 0
	for _, tab := range lb.Headline {
		rs := records(RankedCSV(tab))
		n, lo, hi := col(rs[0], "n"), col(rs[0], "ci95_lo"), col(rs[0], "ci95_hi")
		for _, r := range rs[1:] {
			switch r[n] {
			case "1":
				ones++
				if r[lo] != "" || r[hi] != "" {
					t.Errorf("%s: n = 1 row has interval [%s, %s]; want empty", tab.ID, r[lo], r[hi])
				}
			default:
				many++
				if r[lo] == "" || r[hi] == "" {
					t.Errorf("%s: n = %s row has no interval", tab.ID, r[n])
				}
			}
		}
	}
	for _, tabs := range lb.Tables {
		for _, tab := range tabs {
			rs := records(TableCSV(tab))
			n, sd := col(rs[0], "n"), col(rs[0], "sample_std_percent")
			for _, r := range rs[1:] {
				if (r[n] == "1") != (r[sd] == "") {
					t.Errorf("%s: n = %s, sample std %q; want empty exactly when n = 1", tab.ID, r[n], r[sd])
				}
				if r[n] == "1" {
					ones++
				}
			}
		}
	}
	if ones == 0 || many == 0 {
		t.Errorf("the fixture gave %d cells of one round and %d of more in the ranked CSVs and tables; want both", ones, many)
	}
}

// TestRankingTextSaysHowManyRowsHaveMattoolsV1: a table ranked as published
// because most of its rows have only MatTools' totals says how many rows
// were scored under mattools-v1, and says "no run … under mattools-v1" only
// when none was. The fixture's single-LLM table has MatTools' published
// rounds of three configurations and the runner's mattools-v1 rounds of one.
func TestRankingTextSaysHowManyRowsHaveMattoolsV1(t *testing.T) {
	var noRunner []*results.File
	for _, f := range sitetest.Runs() {
		if f.Run.Provenance.Kind != results.ProvenanceRunner {
			noRunner = append(noRunner, f)
		}
	}
	for _, tt := range []struct {
		files     []*results.File
		want, not string
	}{
		{sitetest.Runs(), "as published, mean over rounds, the protocol most of its rows have (only 1 of its 4 rows was scored under mattools-v1 here", "no run of this question set"},
		{noRunner, "as published, mean over rounds: no run of this question set was scored under mattools-v1 here", "the protocol most of its rows have"},
	} {
		lb := aggregate.Build(tt.files, aggregate.DefaultCatalog())
		if len(lb.Headline) != 1 {
			t.Fatalf("%d headline tables, want 1", len(lb.Headline))
		}
		got := rankingText(lb.Headline[0])
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("ranking text %q\nwant it to say %q and not %q", got, tt.want, tt.not)
		}
	}
}

// TestCompareDataKeepsNegativeCredits: under mattools-v1 a question's credit
// can be negative (more error strings than properties); the comparison data
// keeps it as a number and writes a round without an outcome as null, so the
// page's mean counts the one and leaves out the other. The fixture's runner
// rounds of the hostile model carry per-question outcomes.
func TestCompareDataKeepsNegativeCredits(t *testing.T) {
	runs := sitetest.Runs()
	var target *results.QuestionRow
	for _, f := range runs {
		if f.Run.Provenance.Kind == results.ProvenanceRunner && f.Run.Round == 1 {
			for i := range f.Questions {
				q := &f.Questions[i]
				if q.Verdict == string(results.VerdictPartial) && target == nil {
					target = q
				}
			}
		}
	}
	if target == nil {
		t.Fatal("the fixture's runner round 1 has no partial question")
	}
	minus := int32(-2)
	target.PropertiesPassed = &minus
	// The same question in round 2 without an outcome.
	for _, f := range runs {
		if f.Run.Provenance.Kind == results.ProvenanceRunner && f.Run.Round == 2 {
			for i := range f.Questions {
				if f.Questions[i].QuestionID == target.QuestionID {
					f.Questions[i].PropertiesPassed = nil
				}
			}
		}
	}
	d := Compare(aggregate.Build(runs, aggregate.DefaultCatalog()), false)
	found, none := false, false
	for _, g := range d.Groups {
		for qi, q := range g.Questions {
			if q.ID != target.QuestionID {
				continue
			}
			for _, c := range g.Configurations {
				for ri, r := range c.Rounds {
					p := c.Passed[qi][ri]
					if r == 1 && p != nil && *p == -2 {
						found = true
					}
					if r == 2 && p == nil {
						none = true
					}
					if p != nil && *p < 0 && *p != -2 {
						t.Errorf("%s round %d: %d", c.Label, r, *p)
					}
				}
			}
		}
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), ",-1") || strings.Contains(string(b), "[-1") {
			t.Errorf("group %s still writes -1 for a missing outcome: %s", g.ID, b)
		}
	}
	if !found || !none {
		t.Errorf("%s: the credit -2 of round 1 found %v, round 2 without an outcome (null) found %v; want both", target.QuestionID, found, none)
	}
}
