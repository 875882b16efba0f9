package plan

// Tests of the run plan (issue 5).

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
)

func TestExamplePlansParse(t *testing.T) {
	for _, name := range []string{"paper.toml", "paper-rag.toml", "replay.toml", "qa-sample.toml"} {
		t.Run(name, func(t *testing.T) {
			p, err := Load(filepath.Join("..", "..", "plans", name))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Runs()) == 0 {
				t.Error("no runs")
			}
		})
	}
}

func TestPaperPlanExpandsToFiveModelsTimesThreeRounds(t *testing.T) {
	p, err := Load("../../plans/paper.toml")
	if err != nil {
		t.Fatal(err)
	}
	runs := p.Runs()
	// 1 benchmark × 1 system × 1 source × 5 models × 3 rounds = 15 runs (the paper's 15 single-LLM runs).
	if len(runs) != 15 {
		t.Fatalf("%d runs, want 15", len(runs))
	}
	if runs[0].Round != 1 || runs[4].Round != 1 || runs[5].Round != 2 || runs[14].Round != 3 {
		t.Errorf("runs are not round-major")
	}
	m := runs[2].Model
	if m.Name != "gpt-4o-2024-08-06" || *m.Temperature != 0.7 || m.Price.InputPerMillion != 2.5 || m.APIKeyEnv != "OPENAI_API_KEY" ||
		m.Timeout.Duration.Seconds() != 600 || strings.Join(runs[2].ScoringProtocols, " ") != "mattools-v1 mattools-v1-strict" {
		t.Errorf("model 3 = %+v", m)
	}
	// 1M prompt + 1M completion tokens of gpt-4o cost 2.50 + 10.00 dollars.
	if c := m.Price.Cost(1_000_000, 1_000_000); c != 12.5 {
		t.Errorf("cost = %g, want 12.5", c)
	}
	if runs[3].Model.Price == nil || runs[4].Model.Price != nil {
		t.Error("gemini-2.0-flash has a price, the thinking model none")
	}
}

func TestDefaults(t *testing.T) {
	p, err := Parse([]byte(`[[models]]
name = "m"
base_url = "http://127.0.0.1:8000/v1"
`), "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Rounds != 3 || p.Concurrency != 4 || *p.Models[0].Temperature != 0.7 || p.Models[0].TopP != nil ||
		p.Benchmarks[0] != results.BenchmarkToolUsage || p.Systems[0] != results.SystemSingleLLM ||
		strings.Join(p.ToolUsage.ScoringProtocols, " ") != "mattools-v1 mattools-v1-strict" || p.Estimate.BytesPerToken != 4 ||
		p.Sandbox.Backend != "auto" || p.Sandbox.Timeout.Seconds() != 60 || p.Sandbox.Slots != 0 {
		t.Errorf("defaults: %+v", p)
	}
	if got := p.Models[0].BaseURLFor(2); got != "http://127.0.0.1:8000/v1" {
		t.Errorf("BaseURLFor = %q", got)
	}
}

func TestTemperatureZeroIsKept(t *testing.T) {
	p, err := Parse([]byte("[[models]]\nname = \"m\"\nbase_url = \"http://h/v1\"\ntemperature = 0\n"), "")
	if err != nil || *p.Models[0].Temperature != 0 {
		t.Fatalf("temperature = %v, %v; want 0", p.Models[0].Temperature, err)
	}
}

func TestRetrievalSystemsExpandOverSources(t *testing.T) {
	p, err := Parse([]byte(`rounds = 2
systems = ["single-llm", "llm-rag"]
tool_usage = { scoring_protocols = ["mattools-v1-strict"] }
retrieval_sources = [1, 4]
benchmarks = ["tool-usage", "qa-doc"]
[qa_sets.qa-doc]
path = "sets/doc.json"
[[models]]
name = "a"
base_url = "http://127.0.0.1:1/round{round}/v1"
[[models]]
name = "b"
base_url = "http://127.0.0.1:1/v1"
`), "/plans/x.toml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Configurations() {
		got = append(got, string(c.Benchmark)+"/"+string(c.System)+"/"+string(rune('0'+c.RetrievalSource))+"/"+c.Model.Name+"/"+strings.Join(c.ScoringProtocols, "+"))
	}
	want := "tool-usage/single-llm/0/a/mattools-v1-strict tool-usage/single-llm/0/b/mattools-v1-strict " +
		"tool-usage/llm-rag/1/a/mattools-v1-strict tool-usage/llm-rag/1/b/mattools-v1-strict tool-usage/llm-rag/4/a/mattools-v1-strict tool-usage/llm-rag/4/b/mattools-v1-strict " +
		"qa-doc/single-llm/0/a/mattools-qa-v1 qa-doc/single-llm/0/b/mattools-qa-v1"
	if strings.Join(got, " ") != want {
		t.Errorf("configurations\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if n := len(p.Runs()); n != 16 {
		t.Errorf("%d runs, want 8 configurations × 2 rounds", n)
	}
	if qa := p.Configurations()[6].QA; qa.Path != "/plans/sets/doc.json" || qa.Name != "all" {
		t.Errorf("QA set %+v: want the path resolved against the plan and name all", qa)
	}
	if got := p.Models[0].BaseURLFor(3); got != "http://127.0.0.1:1/round3/v1" {
		t.Errorf("BaseURLFor(3) = %q", got)
	}
}

func TestQAPathExpandsEnvironment(t *testing.T) {
	t.Setenv("MATTOOLS_DATA", "/data/MatTools")
	p, err := Parse([]byte(`benchmarks = ["qa-code"]
[qa_sets.qa-code]
path = "$MATTOOLS_DATA/qa_benchmark/generated_qa/generation_results_code.json.zip"
[[models]]
name = "m"
base_url = "http://h/v1"
`), "plan.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.QASets["qa-code"].Path; got != "/data/MatTools/qa_benchmark/generated_qa/generation_results_code.json.zip" {
		t.Errorf("path = %q", got)
	}
}

func TestParseErrorsNameFileAndField(t *testing.T) {
	const secret = "sk-proj-abcdefghijklmnop0123456789"
	tests := []struct{ name, toml, want string }{
		{"syntax", "rounds = = 3", "p.toml:1: "},
		{"unknown key", "[[models]]\nname = \"m\"\nbase_url = \"http://h\"\ntemprature = 0.5", "p.toml: models.temprature: unknown key"},
		{"api key in plan", "[[models]]\nname = \"m\"\nbase_url = \"http://h\"\napi_key = \"" + secret + "\"", "API keys never go in a plan"},
		{"key pasted into api_key_env", "[[models]]\nname = \"m\"\nbase_url = \"http://h\"\napi_key_env = \"" + secret + "-x\"", "models[0].api_key_env: must be the NAME"},
		{"no models", "rounds = 3", "models: no [[models]] given"},
		{"bad url", "[[models]]\nname = \"m\"\nbase_url = \"127.0.0.1:80\"", "models[0].base_url: must start with http"},
		{"duplicate model", "[[models]]\nname = \"m\"\nbase_url = \"http://h\"\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "models[1].name: \"m\" appears twice"},
		{"bad benchmark", "benchmarks = [\"qa\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "benchmarks[0]: unknown benchmark"},
		{"QA without set", "benchmarks = [\"qa-code\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "qa_sets.qa-code.path: is required"},
		{"rag without sources", "systems = [\"llm-rag\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "retrieval_sources: is required"},
		{"zero rounds", "rounds = 0\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "rounds: is 0"},
		{"bad protocol", "[tool_usage]\nscoring_protocols = [\"x\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "tool_usage.scoring_protocols[0]: is \"x\""},
		{"no protocol", "[tool_usage]\nscoring_protocols = []\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "tool_usage.scoring_protocols: is empty"},
		{"protocol twice", "[tool_usage]\nscoring_protocols = [\"mattools-v1\", \"mattools-v1\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "scoring_protocols[1]: \"mattools-v1\" appears twice"},
		{"old protocol key", "[tool_usage]\nscoring_protocol = \"mattools-v1\"\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "tool_usage.scoring_protocol: is now a list: scoring_protocols = [\"mattools-v1\"]"},
		{"bad sandbox", "[sandbox]\nbackend = \"none\"\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "sandbox.backend: is \"none\"; want one of [auto local docker]"},
		{"negative slots", "[sandbox]\nslots = -1\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "sandbox.slots: is -1"},
		{"bad temperature", "[[models]]\nname = \"m\"\nbase_url = \"http://h\"\ntemperature = 3", "models[0].temperature: is 3"},
		{"bad timeout", "[[models]]\nname = \"m\"\nbase_url = \"http://h\"\ntimeout = \"ten\"", "p.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.toml), "p.toml")
			var pe *Error
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want *Error containing %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("error echoes the key: %v", err)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "none.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v", err)
	}
}
