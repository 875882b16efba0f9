package results

import "sort"

// Group is one configuration and its runs: the rounds of one leaderboard row.
type Group struct {
	Configuration Configuration
	Runs          []*File // in round order, then run id
}

// GroupByConfiguration groups files by Run.Configuration(), in the order of
// the configurations' String keys. The files are not modified. Runs of
// different benchmark versions, scoring protocols, question sets, settings
// or provenance kinds land in different groups, and a run outside any round
// (Round 0) is always alone.
func GroupByConfiguration(files []*File) []Group {
	byKey := map[Configuration]*Group{}
	for _, f := range files {
		c := f.Run.Configuration()
		if c.Standalone {
			// Round-0 runs of one configuration are still never averaged together.
			c.Settings += " run=" + f.Run.RunID
		}
		g := byKey[c]
		if g == nil {
			g = &Group{Configuration: f.Run.Configuration()}
			byKey[c] = g
		}
		g.Runs = append(g.Runs, f)
	}
	out := make([]Group, 0, len(byKey))
	for _, g := range byKey {
		sort.Slice(g.Runs, func(i, j int) bool {
			a, b := g.Runs[i].Run, g.Runs[j].Run
			if a.Round != b.Round {
				return a.Round < b.Round
			}
			return a.RunID < b.RunID
		})
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		ki, kj := out[i].Configuration.String(), out[j].Configuration.String()
		if ki != kj {
			return ki < kj
		}
		return out[i].Runs[0].Run.RunID < out[j].Runs[0].Run.RunID
	})
	return out
}
