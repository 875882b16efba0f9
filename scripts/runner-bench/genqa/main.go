// Command genqa writes a synthetic QA set of N questions in MatTools'
// upstream JSON format (datasets.LoadQA), for scripts/runner-bench: 100
// questions per document, choices A–D, the correct answer cycling A–D.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/mattools-leaderboard/leaderboard/results"
)

type question struct {
	QuestionID    string            `json:"question_id"`
	Question      string            `json:"question"`
	Choices       map[string]string `json:"choices"`
	CorrectAnswer string            `json:"correct_answer"`
}

func main() {
	n := flag.Int("n", 20000, "questions")
	out := flag.String("out", "qa.json", "output file")
	flag.Parse()
	var docs []map[string]any
	for d := 0; d*100 < *n; d++ {
		var qs []question
		for i := d * 100; i < min((d+1)*100, *n); i++ {
			qs = append(qs, question{QuestionID: fmt.Sprint(i + 1),
				Question: fmt.Sprintf("In pymatgen's synthetic module %d, which call returns the value number %d of the structure analysed in benchmark item %d?", i%97, i, i),
				Choices: map[string]string{"A": fmt.Sprintf("A. get_value_%d", i), "B": fmt.Sprintf("B. value_%d", i),
					"C": fmt.Sprintf("C. compute_%d", i), "D": fmt.Sprintf("D. read_%d", i)},
				CorrectAnswer: string(rune('A' + i%4))})
		}
		docs = append(docs, map[string]any{"source": map[string]any{"page_content": "synthetic",
			"metadata": map[string]string{"code_source_file": fmt.Sprintf("pymatgen/synthetic/m%d.py", d), "name": fmt.Sprintf("M%d", d), "type": "ClassDef"}},
			"questions": qs})
	}
	b, err := json.Marshal(docs)
	if err == nil {
		err = results.WriteFileAtomic(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genqa:", err)
		os.Exit(1)
	}
}
