package aggregate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

// TestDuplicateRowNotesNameWhatTheTableShows: a note on a row whose model,
// system and retrieval source appear in another row of the table names that
// row by what the # column shows (its rank band) and its headline value,
// never by a bare rank the table does not show. In the fixture the hostile
// model's single-LLM rows are MatTools' published answers (ranked) and the
// runner's (scored under mattools-v1 only, unranked in a table ranked as
// published).
func TestDuplicateRowNotesNameWhatTheTableShows(t *testing.T) {
	lb := aggregate.Build(sitetest.Runs(), aggregate.DefaultCatalog())
	notes := 0
	for _, tab := range lb.Headline {
		for _, row := range tab.Rows {
			for _, note := range row.Notes {
				notes++
				var other *aggregate.RankedRow
				for _, o := range tab.Rows {
					if o != row && o.Model.ID == row.Model.ID && o.System == row.System && o.RetrievalSource == row.RetrievalSource {
						other = o
					}
				}
				if other == nil {
					t.Fatalf("%s: note %q on a row whose model, system and source appear once", tab.ID, note)
				}
				var want string
				switch c := other.Cell(tab, tab.HeadlineProtocol, aggregate.TaskSuccessRate); {
				case other.Rank == 0:
					want = "an unranked row"
				case other.Band.Best == other.Band.Worst:
					want = fmt.Sprintf("the row of rank %d at %.2f %%", other.Band.Best, c.Summary.Mean)
				default:
					want = fmt.Sprintf("the row of rank band %d–%d at %.2f %%", other.Band.Best, other.Band.Worst, c.Summary.Mean)
				}
				if !strings.Contains(note, want) {
					t.Errorf("%s: note %q; want it to name the other row as %q", tab.ID, note, want)
				}
			}
		}
	}
	if notes < 2 {
		t.Errorf("%d notes; the fixture's hostile model has two single-LLM rows, each noting the other", notes)
	}
}
