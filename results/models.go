package results

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
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

//go:embed models.csv
var modelsCSV []byte

// ModelsCSV returns models.csv: the committed table of model display
// names, groups and orders (columns model, aliases, display_name, group,
// qa_order, single_llm_order, llm_rag_order; see its header comment).
func ModelsCSV() []byte { return bytes.Clone(modelsCSV) }

var knownModels = mustParseModels()

// canonicalModel maps every id and alias of models.csv to the row's model id.
var canonicalModel = map[string]string{}

func mustParseModels() map[string]Model {
	r := csv.NewReader(bytes.NewReader(modelsCSV))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		panic(fmt.Sprintf("results/models.csv: %v", err))
	}
	out := map[string]Model{}
	for i, rec := range recs[1:] {
		m := Model{ID: rec[0], DisplayName: rec[2], Group: rec[3]}
		if rec[4] != "" {
			if m.Table1Order, err = strconv.Atoi(rec[4]); err != nil {
				panic(fmt.Sprintf("results/models.csv:%d: qa_order: %v", i+2, err))
			}
		}
		ids := []string{m.ID}
		if rec[1] != "" {
			ids = append(ids, strings.Split(rec[1], "|")...)
		}
		for _, id := range ids {
			canonicalModel[id] = m.ID
			mm := m
			mm.ID = id
			out[id] = mm
		}
	}
	return out
}

// LookupModel returns the known model with the given id (or alias).
func LookupModel(id string) (Model, bool) {
	m, ok := knownModels[id]
	return m, ok
}
