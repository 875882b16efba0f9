package runner

// The replay acceptance check: the runner, talking HTTP on
// 127.0.0.1 to the replay server of MatTools' recorded GPT batches, yields
// code and function names equal to the published
// function_generation_results.jsonl, 49/49 in each of the 9 runs.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm/replay"
)

var gptModels = []string{"gpt-3.5-turbo-0125", "gpt-4o-mini-2024-07-18", "gpt-4o-2024-08-06"}

func TestReplayThroughTheRunnerReproducesPublishedFunctions(t *testing.T) {
	root := mattoolstest.DataRoot(t, "to replay the recorded GPT runs")
	batches, err := replay.LoadRecorded(root, []int{1, 2, 3}, gptModels)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := replay.NewServer(0, batches...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(rs) // listens on 127.0.0.1
	defer hs.Close()
	planText := "rounds = 3\nconcurrency = 8\n"
	for _, m := range gptModels {
		planText += fmt.Sprintf("[[models]]\nname = %q\nbase_url = %q\ntemperature = 0.7\n", m, hs.URL+"/round{round}/v1")
	}
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, planText), DataRoot: root, PromptsCache: t.TempDir(), OutDir: t.TempDir(), Unscored: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 9 {
		t.Fatalf("%d runs, want 3 models × 3 rounds", len(res))
	}
	for _, rr := range res {
		f := readRun(t, rr.Path)
		r := f.Run
		dir := filepath.Join(root, replay.PureAgentDir, fmt.Sprintf("round%d", r.Round), r.Model)
		published := readPublished(t, filepath.Join(dir, "function_generation_results.jsonl"))
		equal := 0
		for i, q := range f.Questions {
			p := published[i]
			if p.QuestionFilePath != q.QuestionID {
				t.Errorf("%s row %d: question %s, published %s", rr.RunID, i, q.QuestionID, p.QuestionFilePath)
			}
			if q.Code == p.Function && q.FunctionName == p.FunctionName {
				equal++
			} else {
				t.Errorf("%s %s: code/function name differ from the published jsonl (%q vs %q)", rr.RunID, q.QuestionID, q.FunctionName, p.FunctionName)
			}
		}
		wantTokens := recordedTokens(t, filepath.Join(dir, replay.ResponsesFile))
		t.Logf("round %d %-24s %d/49 equal to the published jsonl; %d prompt + %d completion tokens (recorded %d + %d)",
			r.Round, r.Model, equal, r.Usage.PromptTokens, r.Usage.CompletionTokens, wantTokens[0], wantTokens[1])
		if equal != 49 || r.Usage.PromptTokens != wantTokens[0] || r.Usage.CompletionTokens != wantTokens[1] {
			t.Errorf("%s: %d/49 equal, tokens %d/%d, recorded %v", rr.RunID, equal, r.Usage.PromptTokens, r.Usage.CompletionTokens, wantTokens)
		}
	}
	// Every recorded request was matched exactly once: the runner's 441
	// requests carried the recorded model, messages and temperature.
	served := rs.Served()
	if len(served) != 441 {
		t.Errorf("%d recorded requests served, want 441", len(served))
	}
	for k, n := range served {
		if n != 1 {
			t.Errorf("%s served %d times", k, n)
		}
	}
}

type publishedRow struct {
	QuestionFilePath string `json:"question_file_path"`
	Function         string `json:"function"`
	FunctionName     string `json:"function_name"`
}

func readPublished(t *testing.T, path string) []publishedRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []publishedRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r publishedRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// recordedTokens sums the usage of a raw_responses.jsonl.
func recordedTokens(t *testing.T, path string) [2]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sum [2]int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r struct {
			Response struct {
				Body struct {
					Usage struct {
						PromptTokens     int64 `json:"prompt_tokens"`
						CompletionTokens int64 `json:"completion_tokens"`
					} `json:"usage"`
				} `json:"body"`
			} `json:"response"`
		}
		json.Unmarshal(sc.Bytes(), &r)
		sum[0] += r.Response.Body.Usage.PromptTokens
		sum[1] += r.Response.Body.Usage.CompletionTokens
	}
	return sum
}
