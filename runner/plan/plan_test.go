package plan

// Tests of the run plan.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/results"
)

func TestExamplePlansParse(t *testing.T) {
	for _, name := range []string{"paper.toml", "paper-rag.toml", "paper-advanced.toml", "replay.toml", "qa-sample.toml", "qa-real-sample-balanced.toml", "qa-real-sample-clean.toml", "local-vllm.toml", "local-ollama.toml", "local-llamacpp.toml"} {
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

// TestAdvancedPlanExpansion: agentic-rag takes only sources 3
// and 4 of the plan's list, self-reflection-rag every source once per
// variant, with the loop bound; a plan whose sources hold neither 3 nor 4
// cannot run agentic-rag, and bad variants or bounds name their field.
func TestAdvancedPlanExpansion(t *testing.T) {
	p, err := Load(filepath.Join("..", "..", "plans", "paper-advanced.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Configurations() {
		got = append(got, fmt.Sprintf("%s/%d/%s/%s/%d/%d/%v", c.System, c.RetrievalSource, c.RetrievalMethod, c.Variant+c.GraphMode, c.MaxIterations, c.TopK, *c.Model.JSONMode))
	}
	want := "agentic-rag/4/embedding//0/5/true self-reflection-rag/1/embedding/as-published/5/5/true self-reflection-rag/4/embedding/as-published/5/5/true graph-rag/1/graph/global/0/60/true"
	if strings.Join(got, " ") != want {
		t.Errorf("configurations %v, want %s", got, want)
	}
	if n := len(p.Runs()); n != 12 {
		t.Errorf("%d runs, want 4 configurations × 3 rounds", n)
	}
	base := "[[models]]\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"
	for text, field := range map[string]string{
		"systems = [\"agentic-rag\"]\nretrieval_sources = [1, 2]\n" + base:                                             "retrieval_sources",
		"systems = [\"self-reflection-rag\"]\nretrieval_sources = [4]\n[self_reflection]\nvariants = [\"x\"]\n" + base: "self_reflection.variants[0]",
		"systems = [\"self-reflection-rag\"]\nretrieval_sources = [4]\n[self_reflection]\nmax_iterations = 0\n" + base: "self_reflection.max_iterations",
	} {
		_, err := Parse([]byte(text), "x.toml")
		var pe *Error
		if !errors.As(err, &pe) || pe.Field != field {
			t.Errorf("plan %q: error %v; want one naming %s", text, err, field)
		}
	}
	q, err := Parse([]byte("systems = [\"self-reflection-rag\"]\nretrieval_sources = [2]\n[self_reflection]\nvariants = [\"as-published\", \"feedback\"]\n"+base+"json_mode = false\n"), "x.toml")
	if err != nil {
		t.Fatal(err)
	}
	if cs := q.Configurations(); len(cs) != 2 || cs[1].Variant != "feedback" || *cs[0].Model.JSONMode {
		t.Errorf("configurations %+v", cs)
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
		p.Sandbox.Backend != "auto" || p.Sandbox.Timeout.Seconds() != 1200 || p.Sandbox.Slots != 0 {
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
		{"bad QA variant", "benchmarks = [\"qa-code\"]\n[qa_sets.qa-code]\npath = \"x.json\"\nvariant = \"shuffled\"\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "qa_sets.qa-code.variant: unknown variant \"shuffled\"; want one of [balanced clean]"},
		{"rag without sources", "systems = [\"llm-rag\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "retrieval_sources: is required"},
		{"zero rounds", "rounds = 0\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "rounds: is 0"},
		{"bad protocol", "[tool_usage]\nscoring_protocols = [\"x\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "tool_usage.scoring_protocols[0]: is \"x\""},
		{"imported-only protocol", "[tool_usage]\nscoring_protocols = [\"mattools-original\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "tool_usage.scoring_protocols[0]: is \"mattools-original\"; want mattools-v1 or mattools-v1-strict"},
		{"unknown benchmark version", "[tool_usage]\nbenchmark_version = \"2026-01\"\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "tool_usage.benchmark_version: is \"2026-01\"; want 2025-05, 2025-05-corrected-1 or 2025-05-corrected-2"},
		{"QA protocol for tool usage", "[tool_usage]\nscoring_protocols = [\"mattools-qa-v1\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://h\"", "tool_usage.scoring_protocols[0]: is \"mattools-qa-v1\"; want mattools-v1 or mattools-v1-strict"},
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

// TestBadValuesNameTheirField: every out-of-range, NaN or infinite value is
// refused by Parse (so before any request) with an error naming its field,
// and the error is the only one (no other field is blamed).
func TestBadValuesNameTheirField(t *testing.T) {
	const model = "[[models]]\nname = \"m\"\nbase_url = \"http://h/v1\"\n"
	const emb = "[retrieval.embedding]\nmodel = \"e\"\nbase_url = \"http://h/v1\"\n"
	tests := []struct{ name, toml, want string }{
		{"concurrency huge", "concurrency = 100000000\n" + model, "p.toml: concurrency: is 100000000; want 1–1024"},
		{"concurrency 1025", "concurrency = 1025\n" + model, "p.toml: concurrency: is 1025; want 1–1024"},
		{"concurrency zero", "concurrency = 0\n" + model, "p.toml: concurrency: is 0; want 1–1024"},
		{"concurrency negative", "concurrency = -3\n" + model, "p.toml: concurrency: is -3; want 1–1024"},
		{"rounds 101", "rounds = 101\n" + model, "p.toml: rounds: is 101; want 1–100"},
		{"rounds negative", "rounds = -1\n" + model, "p.toml: rounds: is -1; want 1–100"},
		{"slots 257", "[sandbox]\nslots = 257\n" + model, "p.toml: sandbox.slots: is 257; want 0–256 (0 = the number of CPUs)"},
		{"sandbox timeout zero", "[sandbox]\ntimeout = \"0s\"\n" + model, "p.toml: sandbox.timeout: is 0s; want 1s–1h0m0s"},
		{"sandbox timeout 500ms", "[sandbox]\ntimeout = \"500ms\"\n" + model, "p.toml: sandbox.timeout: is 500ms; want 1s–1h0m0s"},
		{"sandbox timeout 61m", "[sandbox]\ntimeout = \"61m\"\n" + model, "p.toml: sandbox.timeout: is 1h1m0s; want 1s–1h0m0s"},
		{"model timeout zero", model + "timeout = \"0s\"\n", "p.toml: models[0].timeout: is 0s; want 1s–2h0m0s"},
		{"model timeout 999ms", model + "timeout = \"999ms\"\n", "p.toml: models[0].timeout: is 999ms; want 1s–2h0m0s"},
		{"model timeout 3h", model + "timeout = \"3h\"\n", "p.toml: models[0].timeout: is 3h0m0s; want 1s–2h0m0s"},
		{"max_retries 21", model + "max_retries = 21\n", "p.toml: models[0].max_retries: is 21; want 0–20"},
		{"max_retries negative", model + "max_retries = -1\n", "p.toml: models[0].max_retries: is -1; want 0–20"},
		{"max_concurrency 1025", model + "max_concurrency = 1025\n", "p.toml: models[0].max_concurrency: is 1025; want 0–1024 (0 = the plan's concurrency)"},
		{"max_concurrency negative", model + "max_concurrency = -1\n", "p.toml: models[0].max_concurrency: is -1; want 0–1024"},
		{"rpm negative", model + "requests_per_minute = -1\n", "p.toml: models[0].requests_per_minute: is -1; want a finite number ≥ 0 (0 = unlimited)"},
		{"rpm nan", model + "requests_per_minute = nan\n", "p.toml: models[0].requests_per_minute: is NaN; want a finite number ≥ 0"},
		{"rpm inf", model + "requests_per_minute = inf\n", "p.toml: models[0].requests_per_minute: is +Inf; want a finite number ≥ 0"},
		{"temperature nan", model + "temperature = nan\n", "p.toml: models[0].temperature: is NaN; want 0–2"},
		{"temperature -nan", model + "temperature = -nan\n", "p.toml: models[0].temperature: is NaN; want 0–2"},
		{"temperature inf", model + "temperature = inf\n", "p.toml: models[0].temperature: is +Inf; want 0–2"},
		{"temperature -inf", model + "temperature = -inf\n", "p.toml: models[0].temperature: is -Inf; want 0–2"},
		{"top_p nan", model + "top_p = nan\n", "p.toml: models[0].top_p: is NaN; want 0–1"},
		{"top_p inf", model + "top_p = +inf\n", "p.toml: models[0].top_p: is +Inf; want 0–1"},
		{"top_p 1.5", model + "top_p = 1.5\n", "p.toml: models[0].top_p: is 1.5; want 0–1"},
		{"input price nan", model + "price = { input_per_million = nan, output_per_million = 1 }\n", "p.toml: models[0].price.input_per_million: is NaN; want a finite number ≥ 0"},
		{"output price inf", model + "price = { input_per_million = 1, output_per_million = inf }\n", "p.toml: models[0].price.output_per_million: is +Inf; want a finite number ≥ 0"},
		{"output price negative", model + "price = { input_per_million = 1, output_per_million = -0.5 }\n", "p.toml: models[0].price.output_per_million: is -0.5; want a finite number ≥ 0"},
		{"second model named", model + "[[models]]\nname = \"n\"\nbase_url = \"http://h/v1\"\ntemperature = nan\n", "p.toml: models[1].temperature: is NaN"},
		{"embedding rpm nan", emb + "requests_per_minute = nan\n" + model, "p.toml: retrieval.embedding.requests_per_minute: is NaN; want a finite number ≥ 0 (0 = unlimited)"},
		{"embedding rpm inf", emb + "requests_per_minute = inf\n" + model, "p.toml: retrieval.embedding.requests_per_minute: is +Inf"},
		{"embedding price nan", emb + "price_per_million = nan\n" + model, "p.toml: retrieval.embedding.price_per_million: is NaN; want a finite number ≥ 0"},
		{"embedding price inf", emb + "price_per_million = inf\n" + model, "p.toml: retrieval.embedding.price_per_million: is +Inf; want a finite number ≥ 0"},
		{"embedding price negative", emb + "price_per_million = -1\n" + model, "p.toml: retrieval.embedding.price_per_million: is -1; want a finite number ≥ 0"},
		{"embedding timeout zero", emb + "timeout = \"0s\"\n" + model, "p.toml: retrieval.embedding.timeout: is 0s; want 1s–2h0m0s"},
		{"embedding timeout 3h", emb + "timeout = \"3h\"\n" + model, "p.toml: retrieval.embedding.timeout: is 3h0m0s; want 1s–2h0m0s"},
		{"embedding batch", emb + "batch_size = 4096\n" + model, "p.toml: retrieval.embedding.batch_size: is 4096; want 1–2048"},
		{"bytes_per_token nan", "[estimate]\nbytes_per_token = nan\n" + model, "p.toml: estimate.bytes_per_token: is NaN; want a finite number > 0"},
		{"bytes_per_token inf", "[estimate]\nbytes_per_token = inf\n" + model, "p.toml: estimate.bytes_per_token: is +Inf; want a finite number > 0"},
		{"bytes_per_token zero", "[estimate]\nbytes_per_token = 0.0\n" + model, "p.toml: estimate.bytes_per_token: is 0; want a finite number > 0"},
		{"bytes_per_token negative", "[estimate]\nbytes_per_token = -4.0\n" + model, "p.toml: estimate.bytes_per_token: is -4; want a finite number > 0"},
		{"completion tokens tool-usage zero", "[estimate]\ncompletion_tokens_tool_usage = 0\n" + model, "p.toml: estimate.completion_tokens_tool_usage: is 0; want ≥ 1"},
		{"completion tokens qa negative", "[estimate]\ncompletion_tokens_qa = -10\n" + model, "p.toml: estimate.completion_tokens_qa: is -10; want ≥ 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.toml), "p.toml")
			if err == nil {
				t.Fatalf("accepted: %+v", p)
			}
			var pe *Error
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant *Error containing %q", err, tt.want)
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
				t.Errorf("%d errors, want 1: %v", n, err)
			}
		})
	}
}

// TestBoundsAreInclusive: the limits themselves are accepted and kept.
func TestBoundsAreInclusive(t *testing.T) {
	p, err := Parse([]byte(`rounds = 100
concurrency = 1024
[sandbox]
slots = 256
timeout = "1h"
[retrieval.embedding]
model = "e"
base_url = "http://h/v1"
timeout = "1s"
requests_per_minute = 0
price_per_million = 0
[estimate]
bytes_per_token = 0.5
completion_tokens_tool_usage = 1
completion_tokens_qa = 1
[[models]]
name = "m"
base_url = "http://h/v1"
temperature = 2
top_p = 0
timeout = "2h"
max_retries = 20
max_concurrency = 1024
requests_per_minute = 0
price = { input_per_million = 0, output_per_million = 0 }
[[models]]
name = "n"
base_url = "http://h/v1"
temperature = 0
top_p = 1
timeout = "1s"
max_retries = 0
max_concurrency = 0
`), "p.toml")
	if err != nil {
		t.Fatal(err)
	}
	m, n := p.Models[0], p.Models[1]
	if p.Rounds != 100 || p.Concurrency != 1024 || p.Sandbox.Slots != 256 || p.Sandbox.Timeout.Duration != time.Hour ||
		p.Retrieval.Embedding.Timeout.Duration != time.Second || p.Estimate.BytesPerToken != 0.5 ||
		p.Estimate.CompletionTokensToolUsage != 1 || p.Estimate.CompletionTokensQAQuestion != 1 {
		t.Errorf("plan %+v", p)
	}
	if *m.Temperature != 2 || *m.TopP != 0 || m.Timeout.Duration != 2*time.Hour || *m.MaxRetries != 20 || m.MaxConcurrency != 1024 ||
		*n.Temperature != 0 || *n.TopP != 1 || n.Timeout.Duration != time.Second || *n.MaxRetries != 0 {
		t.Errorf("models %+v %+v", m, n)
	}
	// Absent values still take the defaults.
	d, err := Parse([]byte("[retrieval.embedding]\nmodel = \"e\"\nbase_url = \"http://h/v1\"\n[[models]]\nname = \"m\"\nbase_url = \"http://h/v1\"\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if d.Concurrency != DefaultConcurrency || d.Models[0].Timeout.Duration != DefaultTimeout || d.Sandbox.Timeout.Duration != DefaultSandboxTimeout ||
		d.Retrieval.Embedding.Timeout.Duration != DefaultTimeout || *d.Models[0].MaxRetries != DefaultMaxRetries ||
		d.Estimate.BytesPerToken != DefaultBytesPerToken || d.Estimate.CompletionTokensToolUsage != DefaultCompletionTokensToolUse ||
		d.Estimate.CompletionTokensQAQuestion != DefaultCompletionTokensQA {
		t.Errorf("defaults %+v", d)
	}
}

// TestFolderBenchmarkPlan: [folder_benchmarks.<name>] registers the folder's
// benchmark, which benchmarks may then name; a table named otherwise than
// the folder's benchmark, or a folder without a manifest, is an error.
func TestFolderBenchmarkPlan(t *testing.T) {
	dir, _ := filepath.Abs("../../datasets/testdata/folder-benchmark")
	base := "benchmarks = [\"toy-pymatgen\"]\n[[models]]\nname = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\n"
	p, err := Parse([]byte(base+fmt.Sprintf("[folder_benchmarks.toy-pymatgen]\npath = %q\n", dir)), "plan.toml")
	if err != nil {
		t.Fatal(err)
	}
	cs := p.Configurations()
	if len(cs) != 1 || cs[0].Benchmark != "toy-pymatgen" || strings.Join(cs[0].ScoringProtocols, ",") != "mattools-v1,mattools-v1-strict" {
		t.Errorf("configurations %+v", cs)
	}
	if q, props, ok := results.FullQuestionSet("toy-pymatgen", "0.1"); !ok || q != 3 || props != 5 {
		t.Errorf("registered size %d / %d, %v; want 3 / 5", q, props, ok)
	}
	if _, err := Parse([]byte(base+fmt.Sprintf("[folder_benchmarks.other]\npath = %q\n", dir)), "plan.toml"); err == nil || !strings.Contains(err.Error(), `holds benchmark "toy-pymatgen"`) {
		t.Errorf("misnamed table: %v", err)
	}
	if _, err := Parse([]byte(base+fmt.Sprintf("[folder_benchmarks.toy-pymatgen]\npath = %q\n", t.TempDir())), "plan.toml"); err == nil || !strings.Contains(err.Error(), "benchmark.json") {
		t.Errorf("folder without a manifest: %v", err)
	}
}
