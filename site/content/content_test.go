package content

import (
	"strings"
	"testing"

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
