package aggregate

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// Model groups of the paper's Table 1, in its order.
const (
	GroupClosedSource       = "closed-source"
	GroupOpenSource         = "open-source"
	GroupMaterialsChemistry = "materials-chemistry"
)

// Groups lists the model groups in Table 1's order; models of another or no
// group come after them.
var Groups = []string{GroupClosedSource, GroupOpenSource, GroupMaterialsChemistry}

// GroupTitle returns the heading of a model group ("Closed-source LLMs", …).
func GroupTitle(g string) string {
	switch g {
	case GroupClosedSource:
		return "Closed-source LLMs"
	case GroupOpenSource:
		return "Open-source LLMs"
	case GroupMaterialsChemistry:
		return "Materials-chemistry LLMs"
	case "":
		return "Other LLMs"
	}
	return g
}

// Model is how the site names and orders one model. Orders are 1-based
// positions in the paper's Table 1 (QAOrder) and Figures 4 and 5
// (SingleLLMOrder, LLMRAGOrder); 0 means not listed.
type Model struct {
	ID             string
	DisplayName    string
	Group          string
	QAOrder        int
	SingleLLMOrder int
	LLMRAGOrder    int
	// Facts are the model's cited release date, provider, weights and
	// parameter count (results/model-facts.csv, by the catalog row's id);
	// zero for a model without a facts row.
	Facts results.ModelFacts
}

// Catalog maps model ids to their presentation (models.csv).
type Catalog struct {
	models  []Model
	byID    map[string]int // id or alias → index in models
	aliases map[string]string
}

// DefaultCatalog returns the committed catalog, results/models.csv: display
// names, groups and Table 1 order taken from results/published/testdata/qa-models.csv
// (not its numbers), and the bar order of the paper's Figures 4 and 5.
func DefaultCatalog() *Catalog {
	c, err := ParseCatalog(results.ModelsCSV())
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return c
}

// ParseCatalog reads a catalog in the format of models.csv. Errors name the row and field.
func ParseCatalog(data []byte) (*Catalog, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("models.csv: %w", err)
	}
	want := "model,aliases,display_name,group,qa_order,single_llm_order,llm_rag_order"
	if len(recs) == 0 || strings.Join(recs[0], ",") != want {
		return nil, fmt.Errorf("models.csv: header must be %s", want)
	}
	c := &Catalog{byID: map[string]int{}}
	for i, rec := range recs[1:] {
		m := Model{ID: rec[0], DisplayName: rec[2], Group: rec[3]}
		m.Facts, _ = results.ModelFactsOf(m.ID)
		for j, p := range []*int{&m.QAOrder, &m.SingleLLMOrder, &m.LLMRAGOrder} {
			if rec[4+j] == "" {
				continue
			}
			if *p, err = strconv.Atoi(rec[4+j]); err != nil {
				return nil, fmt.Errorf("models.csv: row %d: %s: %w", i+2, recs[0][4+j], err)
			}
		}
		ids := []string{m.ID}
		if rec[1] != "" {
			ids = append(ids, strings.Split(rec[1], "|")...)
		}
		for _, id := range ids {
			if _, dup := c.byID[id]; dup {
				return nil, fmt.Errorf("models.csv: row %d: model: %q listed twice", i+2, id)
			}
			c.byID[id] = len(c.models)
		}
		c.models = append(c.models, m)
	}
	return c, nil
}

// Model returns the presentation of a run's model: the catalog's entry when
// the id (or an alias) is listed, else the run's ModelDisplayName and
// ModelGroup hints, else the bare id. ID is always the run's model id.
func (c *Catalog) Model(r *results.Run) Model {
	if i, ok := c.byID[r.Model]; ok {
		m := c.models[i]
		m.ID = r.Model
		return m
	}
	m := Model{ID: r.Model, DisplayName: r.ModelDisplayName, Group: r.ModelGroup}
	if m.DisplayName == "" {
		m.DisplayName = r.Model
	}
	return m
}

// Lookup returns the catalog entry of a model id, if listed.
func (c *Catalog) Lookup(id string) (Model, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Model{}, false
	}
	m := c.models[i]
	m.ID = id
	return m, true
}

// Models returns the catalog's models in file order.
func (c *Catalog) Models() []Model { return append([]Model(nil), c.models...) }

// order returns a sort key for a board: listed models by their order, then
// the others (0 → large).
func (m Model) order(b Board) int {
	o := 0
	switch b {
	case BoardQA:
		o = m.QAOrder
	case BoardSingleLLM:
		o = m.SingleLLMOrder
	case BoardLLMRAG, BoardAdvanced:
		o = m.LLMRAGOrder
	}
	if o == 0 {
		return 1 << 20
	}
	return o
}

func groupOrder(g string) int {
	for i, x := range Groups {
		if x == g {
			return i
		}
	}
	return len(Groups)
}
