package results

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
)

// Model is presentation information about a model: how the leaderboard
// names and groups it. It carries no scores.
type Model struct {
	ID          string // the id runs record in Run.Model
	DisplayName string // e.g. "GPT-4o"
	// Group is "closed-source", "open-source" or "materials-chemistry" (the
	// MatTools paper's Table 1 groups).
	Group string
	// Table1Order is the 1-based row of the paper's Table 1 (QA); 0 if absent.
	Table1Order int
}

// Model groups, in Table 1 order.
var ModelGroups = []string{"closed-source", "open-source", "materials-chemistry"}

//go:embed models.csv
var modelsCSV []byte

var knownModels = mustParseModels()

func mustParseModels() []Model {
	r := csv.NewReader(bytes.NewReader(modelsCSV))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		panic(fmt.Sprintf("results/models.csv: %v", err))
	}
	var out []Model
	for i, rec := range recs[1:] {
		order, err := strconv.Atoi(rec[3])
		if err != nil {
			panic(fmt.Sprintf("results/models.csv:%d: table1_order: %v", i+2, err))
		}
		out = append(out, Model{ID: rec[0], DisplayName: rec[1], Group: rec[2], Table1Order: order})
	}
	return out
}

// KnownModels returns the models of results/models.csv, in file order. The
// slice is a copy.
func KnownModels() []Model { return append([]Model(nil), knownModels...) }

// LookupModel returns the known model with the given id.
func LookupModel(id string) (Model, bool) {
	for _, m := range knownModels {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

// ModelOf returns presentation information for a run's model: the known
// model if there is one, else the run's own hints, else the bare id.
func ModelOf(r *Run) Model {
	if m, ok := LookupModel(r.Model); ok {
		return m
	}
	m := Model{ID: r.Model, DisplayName: r.ModelDisplayName, Group: r.ModelGroup}
	if m.DisplayName == "" {
		m.DisplayName = r.Model
	}
	return m
}
