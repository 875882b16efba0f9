package results

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"strings"
	"testing"
	"time"
)

const factsHead = "# a comment\n" + ModelFactsHeader + "\n"

func TestParseModelFactsGoodFile(t *testing.T) {
	data := factsHead +
		"m-open,2024-09-19,\"Qwen team, Alibaba Cloud\",open,7.61B,https://a.example/card https://b.example/blog,card and blog\n" +
		"# between rows\n" +
		"m-closed,2024-08,OpenAI,closed,,https://c.example/,\n" +
		"m-none,,,,,,nothing is public\n" +
		"m-small,,,,135M,https://d.example/,\n"
	got, err := ParseModelFacts("facts.csv", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []ModelFacts{
		{Model: "m-open", ReleaseDate: "2024-09-19", Provider: "Qwen team, Alibaba Cloud", Weights: WeightsOpen, Parameters: "7.61B",
			Sources: []string{"https://a.example/card", "https://b.example/blog"}, Note: "card and blog"},
		{Model: "m-closed", ReleaseDate: "2024-08", Provider: "OpenAI", Weights: WeightsClosed, Sources: []string{"https://c.example/"}},
		{Model: "m-none", Note: "nothing is public"},
		{Model: "m-small", Parameters: "135M", Sources: []string{"https://d.example/"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if d, ok := got[0].Released(); !ok || !d.Equal(time.Date(2024, 9, 19, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Released() = %v, %v", d, ok)
	}
	if d, ok := got[1].Released(); !ok || !d.Equal(time.Date(2024, 8, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("month-only Released() = %v, %v", d, ok)
	}
	if _, ok := got[2].Released(); ok {
		t.Error("no date, yet Released() says there is one")
	}
	if n, ok := got[0].ParameterCount(); !ok || n != 7.61e9 {
		t.Errorf("ParameterCount(7.61B) = %v, %v", n, ok)
	}
	if n, ok := got[3].ParameterCount(); !ok || n != 135e6 {
		t.Errorf("ParameterCount(135M) = %v, %v", n, ok)
	}
	if _, ok := got[1].ParameterCount(); ok {
		t.Error("no parameters, yet ParameterCount() says there are")
	}
}

func TestParseModelFactsErrors(t *testing.T) {
	good := "ok,2024-01-02,Org,open,1B,https://x.example/,\n"
	for _, c := range []struct {
		name, rows, want string
	}{
		{"date month 13", "m,2024-13,Org,open,,https://x.example/,\n", `f.csv:3: row 2 (model "m"): release_date: "2024-13" is not a date YYYY-MM-DD or YYYY-MM`},
		{"date with slashes", "m,2024/05/14,Org,open,,https://x.example/,\n", `row 2 (model "m"): release_date: "2024/05/14" is not a date`},
		{"date day 31 of June", "m,2024-06-31,Org,open,,https://x.example/,\n", `release_date: "2024-06-31" is not a date`},
		{"year only", "m,2024,Org,open,,https://x.example/,\n", `release_date: "2024" is not a date`},
		{"weights proprietary", "m,2024-06,Org,proprietary,,https://x.example/,\n", `f.csv:3: row 2 (model "m"): weights: "proprietary" is not open or closed`},
		{"weights capitalised", "m,2024-06,Org,Open,,https://x.example/,\n", `weights: "Open" is not open or closed`},
		{"parameters without unit", "m,,,,7.61,https://x.example/,\n", `f.csv:3: row 2 (model "m"): parameters: "7.61" is not a number with the unit B or M`},
		{"parameters guessed", "m,,,,~7B,https://x.example/,\n", `parameters: "~7B" is not a number`},
		{"missing source", "m,2024-06,Org,closed,,,\n", `f.csv:3: row 2 (model "m"): source: empty, but release_date, provider, weights given: every value needs a source`},
		{"missing source for parameters", "m,,,,7B,,\n", `source: empty, but parameters given`},
		{"relative source", "m,2024-06,Org,closed,,blog.google/x,\n", `source: "blog.google/x" is not an absolute http(s) URL`},
		{"empty model", ",2024-06,Org,closed,,https://x.example/,\n", `f.csv:3: row 2 (model ""): model: empty`},
		{"model twice", "ok,,,,,,\n", `f.csv:3: row 2 (model "ok"): model: listed twice (also on line 2)`},
		{"short row", "m,2024-06,Org\n", `f.csv:3: row 2 (model "m"): model: 3 fields, want 7`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseModelFacts("f.csv", []byte(ModelFactsHeader+"\n"+good+c.rows))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
	if _, err := ParseModelFacts("f.csv", []byte("model,release_date,provider,weights,source\n")); err == nil ||
		!strings.Contains(err.Error(), "f.csv:1: header must be "+ModelFactsHeader) {
		t.Errorf("bad header: %v", err)
	}
	if _, err := ParseModelFacts("f.csv", []byte("# only comments\n")); err == nil || !strings.Contains(err.Error(), "f.csv: no header") {
		t.Errorf("no header: %v", err)
	}
}

// Every model of models.csv has exactly one facts row, and the facts file
// names no model models.csv lacks.
func TestEveryModelHasFacts(t *testing.T) {
	r := csv.NewReader(bytes.NewReader(ModelsCSV()))
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	facts, err := ParseModelFacts("results/model-facts.csv", ModelFactsCSV())
	if err != nil {
		t.Fatal(err)
	}
	inFacts := map[string]bool{}
	for _, f := range facts {
		inFacts[f.Model] = true
	}
	models := map[string]bool{}
	for _, rec := range recs[1:] {
		id := rec[0]
		models[id] = true
		if !inFacts[id] {
			t.Errorf("model %q of models.csv has no row in model-facts.csv", id)
		}
		ids := []string{id}
		if rec[1] != "" {
			ids = append(ids, strings.Split(rec[1], "|")...)
		}
		for _, a := range ids {
			f, ok := ModelFactsOf(a)
			if !ok || f.Model != id {
				t.Errorf("ModelFactsOf(%q) = %q, %v; want the row of %q", a, f.Model, ok, id)
			}
		}
	}
	for _, f := range facts {
		if !models[f.Model] {
			t.Errorf("model-facts.csv: %q is not a model id of models.csv", f.Model)
		}
	}
	if len(facts) != len(recs)-1 {
		t.Errorf("%d facts rows for %d models", len(facts), len(recs)-1)
	}
}

// Values the brief and the model cards fix: Qwen2.5-7B-Instruct's card says
// 7.61B parameters; GPT-4o's count is not public; an alias reads its model's row.
func TestModelFactsValues(t *testing.T) {
	q, _ := ModelFactsOf("qwen2.5-7b-instruct")
	if q.Parameters != "7.61B" || q.Weights != WeightsOpen || q.ReleaseDate != "2024-09-19" {
		t.Errorf("qwen2.5-7b-instruct: %+v", q)
	}
	g, _ := ModelFactsOf("gpt-4o-2024-08-06")
	if g.Parameters != "" || g.Weights != WeightsClosed || g.ReleaseDate != "2024-08-06" || g.Provider != "OpenAI" {
		t.Errorf("gpt-4o-2024-08-06: %+v", g)
	}
	a, ok := ModelFactsOf("qwen2.5-72b-instruct-GPTQ-int4")
	if !ok || a.Model != "qwen2.5-72b-instruct-int4" || a.Parameters != "72.7B" {
		t.Errorf("alias qwen2.5-72b-instruct-GPTQ-int4: %+v, %v", a, ok)
	}
	if _, ok := ModelFactsOf("no-such-model"); ok {
		t.Error("ModelFactsOf(no-such-model) found a row")
	}
}
