package results

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Weights of a model (ModelFacts.Weights).
const (
	WeightsOpen   = "open"   // the weights can be downloaded
	WeightsClosed = "closed" // served only through the provider's API
)

// ModelFacts are public facts about a model, each cited by Sources: when it
// was released, by whom, whether its weights are open and its parameter
// count. An empty field is a fact no source states. It carries no scores.
type ModelFacts struct {
	Model string // the model id of models.csv's model column
	// ReleaseDate is "YYYY-MM-DD" or "YYYY-MM", as precise as the source
	// states it; for a dated snapshot, the snapshot's date.
	ReleaseDate string
	Provider    string // the organisation that released the model
	Weights     string // WeightsOpen, WeightsClosed or "" (not known)
	// Parameters is the total parameter count as the source states it: a
	// number with the unit "B" (billions) or "M" (millions), e.g. "7.61B";
	// "" where it is not public.
	Parameters string
	Sources    []string // absolute http(s) URLs stating the values
	Note       string   // how to read a value, or ""
}

// Released returns the release date as a time (UTC; the first of the month
// when only the month is known) and whether the facts have one.
func (f ModelFacts) Released() (time.Time, bool) {
	t, _, err := parseReleaseDate(f.ReleaseDate)
	return t, err == nil && f.ReleaseDate != ""
}

// ParameterCount returns Parameters as a number of parameters (7.61e9 for
// "7.61B") and whether it is known.
func (f ModelFacts) ParameterCount() (float64, bool) {
	n, err := parseParameters(f.Parameters)
	return n, err == nil && f.Parameters != ""
}

// ModelFactsHeader is the header row of model-facts.csv.
const ModelFactsHeader = "model,release_date,provider,weights,parameters,source,note"

//go:embed model-facts.csv
var modelFactsCSV []byte

var knownFacts = mustParseFacts()

func mustParseFacts() map[string]ModelFacts {
	facts, err := ParseModelFacts("results/model-facts.csv", modelFactsCSV)
	if err != nil {
		panic(err) // the embedded file is tested
	}
	out := map[string]ModelFacts{}
	for _, f := range facts {
		out[f.Model] = f
	}
	return out
}

// ModelFactsOf returns the facts of a model id or of one of its aliases in
// models.csv (ModelFacts.Model is then the id the aliases belong to), and
// whether results/model-facts.csv has a row for it.
func ModelFactsOf(id string) (ModelFacts, bool) {
	if c, ok := canonicalModel[id]; ok {
		id = c
	}
	f, ok := knownFacts[id]
	return f, ok
}

// ModelFactsCSV returns model-facts.csv as committed (its header comment
// says what each column means).
func ModelFactsCSV() []byte { return bytes.Clone(modelFactsCSV) }

var parametersRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)([MB])$`)

func parseParameters(s string) (float64, error) {
	m := parametersRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a number with the unit B or M (e.g. 7.61B)", s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive number with the unit B or M", s)
	}
	if m[2] == "B" {
		return n * 1e9, nil
	}
	return n * 1e6, nil
}

// parseReleaseDate reads "YYYY-MM-DD" or "YYYY-MM"; precise says which.
func parseReleaseDate(s string) (t time.Time, precise bool, err error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true, nil
	}
	if t, err := time.Parse("2006-01", s); err == nil {
		return t, false, nil
	}
	return time.Time{}, false, fmt.Errorf("%q is not a date YYYY-MM-DD or YYYY-MM", s)
}

// ParseModelFacts reads a table in the format of model-facts.csv (lines
// starting with # are comments; header ModelFactsHeader), in file order.
// name is the file's name in errors, which name it, the row (the line of
// the file), the data row (1-based) with its model and the field: a malformed release date or parameter count,
// weights other than open, closed or empty, a source that is not an
// absolute http(s) URL, a fact without a source, an empty or repeated model.
func ParseModelFacts(name string, data []byte) ([]ModelFacts, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comment = '#'
	r.FieldsPerRecord = -1
	var out []ModelFacts
	seen := map[string]int{}
	header := true
	for {
		rec, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := r.FieldPos(0)
		if header {
			if strings.Join(rec, ",") != ModelFactsHeader {
				return nil, fmt.Errorf("%s:%d: header must be %s", name, line, ModelFactsHeader)
			}
			header = false
			continue
		}
		row := len(out) + 1
		fail := func(field, format string, a ...any) error {
			return fmt.Errorf("%s:%d: row %d (model %q): %s: %s", name, line, row, strings.TrimSpace(rec[0]), field, fmt.Sprintf(format, a...))
		}
		if len(rec) != 7 {
			return nil, fail("model", "%d fields, want 7 (%s)", len(rec), ModelFactsHeader)
		}
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		f := ModelFacts{Model: rec[0], ReleaseDate: rec[1], Provider: rec[2], Weights: rec[3], Parameters: rec[4], Note: rec[6]}
		if f.Model == "" {
			return nil, fail("model", "empty")
		}
		if prev, dup := seen[f.Model]; dup {
			return nil, fail("model", "listed twice (also on line %d)", prev)
		}
		seen[f.Model] = line
		if f.ReleaseDate != "" {
			if _, _, err := parseReleaseDate(f.ReleaseDate); err != nil {
				return nil, fail("release_date", "%v", err)
			}
		}
		if f.Weights != "" && f.Weights != WeightsOpen && f.Weights != WeightsClosed {
			return nil, fail("weights", "%q is not open or closed (or empty when not known)", f.Weights)
		}
		if f.Parameters != "" {
			if _, err := parseParameters(f.Parameters); err != nil {
				return nil, fail("parameters", "%v", err)
			}
		}
		for _, s := range strings.Fields(rec[5]) {
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return nil, fail("source", "%q is not an absolute http(s) URL", s)
			}
			f.Sources = append(f.Sources, s)
		}
		if len(f.Sources) == 0 {
			var given []string
			for i, v := range []string{f.ReleaseDate, f.Provider, f.Weights, f.Parameters} {
				if v != "" {
					given = append(given, strings.Split(ModelFactsHeader, ",")[i+1])
				}
			}
			if len(given) > 0 {
				return nil, fail("source", "empty, but %s given: every value needs a source", strings.Join(given, ", "))
			}
		}
		out = append(out, f)
	}
	if header {
		return nil, fmt.Errorf("%s: no header (want %s)", name, ModelFactsHeader)
	}
	return out, nil
}
