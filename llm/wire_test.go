package llm

// Replays of real servers' recorded exchanges (testdata/wire/<server>/*.json,
// written by scripts/record-llamacpp/record.py: make record-llamacpp) through
// the fake server: the client sends the recorded request and parses the bytes
// the real server answered (docs/runner.md, "Local servers").

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// wireExchange is one recorded exchange, as record.py writes it.
type wireExchange struct {
	Server   string                     `json:"server"`
	Kind     string                     `json:"kind"`
	Endpoint string                     `json:"endpoint"` // "chat/completions" or "embeddings"
	Request  map[string]json.RawMessage `json:"request"`
	Status   int                        `json:"status"`
	Response string                     `json:"response"` // the body as received (embeddings vectors trimmed)
	Trimmed  string                     `json:"trimmed"`
	// Source names the documentation of a shape written by this project
	// rather than recorded (vllm/, ollama/).
	Source string `json:"source"`
}

// wireResult is what the client returned for a replayed exchange.
type wireResult struct {
	ex       wireExchange
	comp     *Completion
	emb      *Embeddings
	err      error
	requests []llmtest.Request // as the fake received them
}

// wireChecks holds, per call kind, what the client must make of the recorded
// response. Every recorded kind must have one (TestWireReplaysEveryRecordedExchange).
var wireChecks = map[string]func(t *testing.T, r wireResult){
	"chat-plain":  checkChatAnswer,
	"chat-system": checkChatAnswer,
	"chat-json-mode": func(t *testing.T, r wireResult) {
		checkChatAnswer(t, r)
		if !bytes.Contains(r.requests[0].Body, []byte(`"response_format":{"type":"json_object"}`)) {
			t.Errorf("the request did not ask for JSON mode: %s", r.requests[0].Body)
		}
		if r.comp != nil && !json.Valid([]byte(r.comp.Content)) {
			t.Errorf("JSON-mode content %q is not JSON", r.comp.Content)
		}
	},
	"chat-max-tokens": func(t *testing.T, r wireResult) {
		checkChatAnswer(t, r)
		var max int64
		if err := json.Unmarshal(r.ex.Request["max_tokens"], &max); err != nil {
			t.Fatalf("request max_tokens: %v", err)
		}
		if r.comp.FinishReason != "length" || r.comp.CompletionTokens != max {
			t.Errorf("finish reason %q after %d tokens; want length after max_tokens %d", r.comp.FinishReason, r.comp.CompletionTokens, max)
		}
	},
	"chat-past-context":          checkContextLength,
	"chat-past-context-toplevel": checkContextLength,
	"embeddings-disabled": func(t *testing.T, r wireResult) {
		// HTTP 500, but not retried like other 5xx: the error names the server setting.
		var e *Error
		if !errors.Is(r.err, ErrEmbeddingsDisabled) || !errors.As(r.err, &e) || e.Status != r.ex.Status || e.Attempts != 1 || len(r.requests) != 1 {
			t.Fatalf("err = %v after %d requests; want ErrEmbeddingsDisabled with status %d after 1 attempt", r.err, len(r.requests), r.ex.Status)
		}
		for _, w := range []string{"embedding=True", "--embedding true", "--embeddings"} {
			if !strings.Contains(r.err.Error(), w) {
				t.Errorf("error %q does not say %q", r.err, w)
			}
		}
	},
	"embeddings-batch": checkEmbeddingsAnswer,
	"embeddings-truncated": func(t *testing.T, r wireResult) {
		if !errors.Is(r.err, ErrEmbeddingsTruncated) || len(r.requests) != 1 {
			t.Fatalf("err = %v after %d requests; want ErrEmbeddingsTruncated, not retried", r.err, len(r.requests))
		}
		var doc struct {
			Usage struct {
				PromptTokens int64 `json:"prompt_tokens"`
			}
		}
		if err := json.Unmarshal([]byte(r.ex.Response), &doc); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.err.Error(), "counted "+itoa(doc.Usage.PromptTokens)+" input tokens") {
			t.Errorf("error %q does not give the server's count %d", r.err, doc.Usage.PromptTokens)
		}
	},
	"embeddings-per-token": func(t *testing.T, r wireResult) {
		if !errors.Is(r.err, ErrPerTokenEmbeddings) || len(r.requests) != 1 {
			t.Fatalf("err = %v after %d requests; want ErrPerTokenEmbeddings, not retried", r.err, len(r.requests))
		}
		if !strings.Contains(r.err.Error(), "pooling_type=int:1") {
			t.Errorf("error %q does not name the pooling setting", r.err)
		}
	},
}

// checkContextLength: a prompt past the context window is ErrContextLength
// with the recorded status, not retried, whichever error shape the server used.
func checkContextLength(t *testing.T, r wireResult) {
	t.Helper()
	var e *Error
	if !errors.Is(r.err, ErrContextLength) || !errors.As(r.err, &e) || e.Status != r.ex.Status || e.Attempts != 1 || len(r.requests) != 1 {
		t.Fatalf("err = %v after %d requests; want ErrContextLength with status %d after 1 attempt (not retried)", r.err, len(r.requests), r.ex.Status)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// checkChatAnswer compares the client's completion with the recorded body,
// decoded here on its own.
func checkChatAnswer(t *testing.T, r wireResult) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("Complete: %v", r.err)
	}
	var doc struct {
		Model   string
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
		Usage *struct {
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(r.ex.Response), &doc); err != nil || len(doc.Choices) == 0 {
		t.Fatalf("recorded response: %v (%d choices)", err, len(doc.Choices))
	}
	c := r.comp
	if c.Content != doc.Choices[0].Message.Content || c.FinishReason != doc.Choices[0].FinishReason || c.Model != doc.Model {
		t.Errorf("completion %q, finish %q, model %q; recorded %q, %q, %q", c.Content, c.FinishReason, c.Model,
			doc.Choices[0].Message.Content, doc.Choices[0].FinishReason, doc.Model)
	}
	if doc.Usage == nil {
		if !c.UsageMissing {
			t.Errorf("no usage recorded, but UsageMissing is false")
		}
	} else if c.UsageMissing || c.PromptTokens != doc.Usage.PromptTokens || c.CompletionTokens != doc.Usage.CompletionTokens {
		t.Errorf("tokens %d + %d (missing %v); recorded %d + %d", c.PromptTokens, c.CompletionTokens, c.UsageMissing,
			doc.Usage.PromptTokens, doc.Usage.CompletionTokens)
	}
	if c.PromptTokens <= 0 && !c.UsageMissing {
		t.Errorf("prompt tokens %d", c.PromptTokens)
	}
}

func checkEmbeddingsAnswer(t *testing.T, r wireResult) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("Embed: %v", r.err)
	}
	var doc struct {
		Data []struct {
			Index     int
			Embedding []float32
		}
		Usage struct {
			PromptTokens int64 `json:"prompt_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(r.ex.Response), &doc); err != nil {
		t.Fatal(err)
	}
	var inputs []string
	if err := json.Unmarshal(r.ex.Request["input"], &inputs); err != nil {
		t.Fatal(err)
	}
	want := make([][]float32, len(doc.Data))
	for _, d := range doc.Data {
		want[d.Index] = d.Embedding
	}
	if len(want) != len(inputs) || !reflect.DeepEqual(r.emb.Vectors, want) || r.emb.PromptTokens != doc.Usage.PromptTokens {
		t.Errorf("vectors %v (%d tokens); recorded %v (%d tokens) for %d inputs", r.emb.Vectors, r.emb.PromptTokens, want, doc.Usage.PromptTokens, len(inputs))
	}
}

// wireReplay sends ex's request through the client to a fake that answers it
// with ex's recorded status and body, allowing one retry.
func wireReplay(t *testing.T, ex wireExchange) wireResult {
	t.Helper()
	srv := llmtest.New(t, llmtest.Options{Raw: func(req llmtest.Request) (int, []byte, bool) {
		return ex.Status, []byte(ex.Response), req.Endpoint == ex.Endpoint
	}})
	var model string
	if err := json.Unmarshal(ex.Request["model"], &model); err != nil {
		t.Fatalf("request model: %v", err)
	}
	cfg := Config{BaseURL: srv.URL, Model: model, MaxRetries: 1, Timeout: time.Minute,
		Sleep: func(context.Context, time.Duration) error { return nil }}
	opt := func(key string, into any) bool {
		raw, ok := ex.Request[key]
		if ok {
			if err := json.Unmarshal(raw, into); err != nil {
				t.Fatalf("request %s: %v", key, err)
			}
		}
		return ok
	}
	var temp float64
	var seed int64
	var maxTokens int
	if opt("temperature", &temp) {
		cfg.Params.Temperature = &temp
	}
	if opt("seed", &seed) {
		cfg.Params.Seed = &seed
	}
	if opt("max_tokens", &maxTokens) {
		cfg.Params.MaxTokens = &maxTokens
	}
	var format string
	if opt("encoding_format", &format) {
		cfg.EmbeddingFormat = format
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := wireResult{ex: ex}
	switch ex.Endpoint {
	case "chat/completions":
		var msgs []Message
		opt("messages", &msgs)
		var rf map[string]string
		opt("response_format", &rf)
		r.comp, r.err = c.CompleteWith(context.Background(), msgs, CallOptions{JSONObject: rf["type"] == "json_object"})
	case "embeddings":
		var inputs []string
		opt("input", &inputs)
		r.emb, r.err = c.Embed(context.Background(), model, inputs)
	default:
		t.Fatalf("endpoint %q", ex.Endpoint)
	}
	r.requests = srv.Requests()
	if len(r.requests) == 0 {
		t.Fatalf("no request reached the server (err %v)", r.err)
	}
	checkSentAsRecorded(t, ex, r.requests[0].Body)
	return r
}

// checkSentAsRecorded checks that the client sent every field of the
// recorded request with its recorded value (stream aside: the client never
// streams and leaves it out).
func checkSentAsRecorded(t *testing.T, ex wireExchange, body []byte) {
	t.Helper()
	var sent map[string]any
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatalf("sent body: %v", err)
	}
	for k, raw := range ex.Request {
		if k == "stream" {
			continue
		}
		var want any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sent[k], want) {
			t.Errorf("sent %s = %v; recorded %v", k, sent[k], want)
		}
	}
}

func loadWire(t *testing.T) map[string]wireExchange {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "wire", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded exchanges under testdata/wire (%v)", err)
	}
	out := map[string]wireExchange{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var ex wireExchange
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ex); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ex.Kind+".json" != filepath.Base(f) || ex.Server == "" || ex.Status == 0 {
			t.Fatalf("%s: kind %q, server %q, status %d: want the file named after its kind, a server and a status", f, ex.Kind, ex.Server, ex.Status)
		}
		rel, _ := filepath.Rel(filepath.Join("testdata", "wire"), f)
		out[filepath.ToSlash(rel)] = ex
	}
	return out
}

func TestWireReplaysEveryRecordedExchange(t *testing.T) {
	wire := loadWire(t)
	names := make([]string, 0, len(wire))
	for n := range wire {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		ex := wire[name]
		t.Run(name, func(t *testing.T) {
			check, ok := wireChecks[ex.Kind]
			if !ok {
				t.Fatalf("no check for call kind %q (%s): add one to wireChecks", ex.Kind, ex.Server)
			}
			check(t, wireReplay(t, ex))
		})
	}
}

// TestWireRecordedLlamaCppCallKinds pins the call kinds make record-llamacpp
// records, so that a re-recording that loses one fails here.
func TestWireRecordedLlamaCppCallKinds(t *testing.T) {
	var got []string
	for name, ex := range loadWire(t) {
		if strings.HasPrefix(name, "llama-cpp-python/") {
			got = append(got, ex.Kind)
		}
	}
	sort.Strings(got)
	want := []string{"chat-json-mode", "chat-max-tokens", "chat-past-context", "chat-plain", "chat-system",
		"embeddings-batch", "embeddings-disabled", "embeddings-per-token", "embeddings-truncated"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded kinds %v; want %v", got, want)
	}
}
