package llm

// Tests of the LLM client: parameters in the JSON body, retries,
// Retry-After, timeouts, redaction of the API key.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

func ptr[T any](v T) *T { return &v }

// sequence serves the given handlers in order, one per request; the last
// one repeats.
func sequence(t *testing.T, hs ...http.HandlerFunc) (*httptest.Server, *int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := min(n, len(hs)-1)
		n++
		mu.Unlock()
		hs[i](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func ok(content string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m-reported","choices":[{"index":0,"finish_reason":"stop",` +
			`"message":{"role":"assistant","content":` + quote(content) + `}}],"usage":{"prompt_tokens":711,"completion_tokens":732,"total_tokens":1443}}`))
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func status(code int, hdr ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(hdr); i += 2 {
			w.Header().Set(hdr[i], hdr[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write([]byte(`{"error":{"message":"status ` + http.StatusText(code) + `","type":"x"}}`))
	}
}

// recordSleep replaces real waiting and records the delays.
type recordSleep struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (r *recordSleep) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.delays = append(r.delays, d)
	r.mu.Unlock()
	return ctx.Err()
}

func TestParamsReachTheServerExactlyIncludingTemperatureZero(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "<answer>A</answer>"} }})
	tests := []struct {
		name   string
		params Params
		want   map[string]string // key → raw JSON value; "" = must be absent
	}{
		{"temperature 0 is sent", Params{Temperature: ptr(0.0)}, map[string]string{"temperature": "0", "top_p": "", "seed": "", "max_tokens": ""}},
		{"paper default 0.7", Params{Temperature: ptr(0.7)}, map[string]string{"temperature": "0.7"}},
		{"nil sends nothing", Params{}, map[string]string{"temperature": "", "top_p": ""}},
		{"zeros of every field", Params{Temperature: ptr(0.0), TopP: ptr(0.0), MaxTokens: ptr(0), Seed: ptr(int64(0))},
			map[string]string{"temperature": "0", "top_p": "0", "max_tokens": "0", "seed": "0"}},
		{"other values", Params{Temperature: ptr(1.25), TopP: ptr(0.95), MaxTokens: ptr(4096), Seed: ptr(int64(42))},
			map[string]string{"temperature": "1.25", "top_p": "0.95", "max_tokens": "4096", "seed": "42"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(Config{BaseURL: srv.URL, Model: "gpt-4o-2024-08-06", Params: tt.params})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Complete(context.Background(), []Message{User("q")}); err != nil {
				t.Fatal(err)
			}
			body := srv.Requests()[i].Body
			var m map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			for k, want := range tt.want {
				got, present := m[k]
				if want == "" && present {
					t.Errorf("body %s: %s present (%s), want absent", body, k, got)
				}
				if want != "" && string(got) != want {
					t.Errorf("body %s: %s = %s, want %s", body, k, got, want)
				}
			}
			if tt.name == "temperature 0 is sent" && !regexp.MustCompile(`"temperature":0[,}]`).Match(body) {
				t.Errorf("body %s does not contain the literal \"temperature\":0", body)
			}
			if string(m["model"]) != `"gpt-4o-2024-08-06"` || !strings.Contains(string(m["messages"]), `"content":"q"`) {
				t.Errorf("body %s: model or messages wrong", body)
			}
		})
	}
}

func TestCompletionRecordsTokensLatencyAndContent(t *testing.T) {
	srv, _ := sequence(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(30 * time.Millisecond)
		ok("<answer>B</answer>")(w, r)
	})
	c, _ := New(Config{BaseURL: srv.URL + "/v1", Model: "m"})
	comp, err := c.Complete(context.Background(), []Message{User("q")})
	if err != nil {
		t.Fatal(err)
	}
	if comp.Content != "<answer>B</answer>" || comp.PromptTokens != 711 || comp.CompletionTokens != 732 ||
		comp.Model != "m-reported" || comp.FinishReason != "stop" || comp.Attempts != 1 {
		t.Errorf("completion = %+v", comp)
	}
	if comp.Latency < 30*time.Millisecond {
		t.Errorf("latency %v, want ≥ 30ms (server sleeps 30ms)", comp.Latency)
	}
}

func TestRetriesTransientFailuresThenSucceeds(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // the server notices the client leaving only after the body is read
		<-r.Context().Done()
	}
	malformed := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"message":`))
	}
	noChoices := func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"choices":[]}`)) }
	srv, n := sequence(t, status(500), status(503), malformed, hang, noChoices, status(408), ok("done"))
	rs := &recordSleep{}
	var retries []string
	// RetryTimeouts: the fake is on 127.0.0.1, whose timeouts are not retried by default.
	c, _ := New(Config{BaseURL: srv.URL, Model: "m", Timeout: 2 * time.Second, MaxRetries: 6, RetryTimeouts: ptr(true), // the good answers arrive well within it, loaded or not
		BackoffBase: time.Second, BackoffMax: 10 * time.Second, Sleep: rs.sleep,
		OnRetry: func(a int, err error, d time.Duration) { retries = append(retries, err.Error()) }})
	comp, err := c.Complete(context.Background(), []Message{User("q")})
	if err != nil {
		t.Fatal(err)
	}
	if comp.Content != "done" || comp.Attempts != 7 || *n != 7 {
		t.Fatalf("content %q after %d attempts (%d requests), want done after 7", comp.Content, comp.Attempts, *n)
	}
	// Equal jitter: retry k waits in [base·2^(k−1)/2, base·2^(k−1)], capped at 10s.
	for k, d := range rs.delays {
		hi := min(time.Second<<k, 10*time.Second)
		if d < hi/2 || d > hi {
			t.Errorf("delay %d = %v, want in [%v, %v]", k+1, d, hi/2, hi)
		}
	}
	for i, want := range []string{"500", "503", "malformed response", "request timeout", "no choices", "408"} {
		if !strings.Contains(retries[i], want) {
			t.Errorf("retry %d error %q does not mention %q", i+1, retries[i], want)
		}
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name string
		hdr  []string
		want time.Duration // approximate for the date form
	}{
		{"seconds", []string{"Retry-After", "7"}, 7 * time.Second},
		{"milliseconds first", []string{"Retry-After", "7", "Retry-After-Ms", "250"}, 250 * time.Millisecond},
		{"HTTP date", []string{"Retry-After", date}, 90 * time.Second},
		{"capped", []string{"Retry-After", "3600"}, 2 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := sequence(t, status(429, tt.hdr...), ok("x"))
			rs := &recordSleep{}
			c, _ := New(Config{BaseURL: srv.URL, Model: "m", Sleep: rs.sleep, MaxRetryAfter: 2 * time.Minute})
			if _, err := c.Complete(context.Background(), []Message{User("q")}); err != nil {
				t.Fatal(err)
			}
			if len(rs.delays) != 1 {
				t.Fatalf("delays %v, want one", rs.delays)
			}
			if d := rs.delays[0]; d > tt.want || d < tt.want-2*time.Second || (tt.name != "HTTP date" && d != tt.want) {
				t.Errorf("waited %v, want %v", d, tt.want)
			}
		})
	}
}

func TestRetryAfterReallyWaits(t *testing.T) {
	srv, _ := sequence(t, status(429, "Retry-After", "1"), ok("x"))
	c, _ := New(Config{BaseURL: srv.URL, Model: "m"})
	start := time.Now()
	if _, err := c.Complete(context.Background(), []Message{User("q")}); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < time.Second {
		t.Errorf("returned after %v; Retry-After: 1 asks for ≥ 1s", el)
	}
}

func TestPermanentErrorsAreNotRetried(t *testing.T) {
	for _, code := range []int{400, 401, 403, 404, 422} {
		srv, n := sequence(t, status(code), ok("x"))
		c, _ := New(Config{BaseURL: srv.URL, Model: "m", Sleep: (&recordSleep{}).sleep})
		_, err := c.Complete(context.Background(), []Message{User("q")})
		var e *Error
		if !errors.As(err, &e) || e.Status != code || e.Attempts != 1 || *n != 1 {
			t.Errorf("HTTP %d: err %v after %d requests, want *Error with status %d after 1", code, err, *n, code)
		}
	}
}

func TestGivesUpAfterMaxRetries(t *testing.T) {
	srv, n := sequence(t, status(500))
	c, _ := New(Config{BaseURL: srv.URL, Model: "m", MaxRetries: 3, Sleep: (&recordSleep{}).sleep})
	_, err := c.Complete(context.Background(), []Message{User("q")})
	var e *Error
	if !errors.As(err, &e) || e.Attempts != 4 || e.Status != 500 || *n != 4 {
		t.Errorf("err %v after %d requests, want 4 attempts", err, *n)
	}
}

func TestAPIKeyIsSentButNeverReturned(t *testing.T) {
	const key = "sk-test-SECRET-0123456789abcdef"
	var auth string
	srv, _ := sequence(t, func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		w.WriteHeader(401)
		w.Write([]byte(`{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error"}}`))
	}, ok("the key is "+key))
	c, _ := New(Config{BaseURL: srv.URL, Model: "m", APIKey: key})
	_, err := c.Complete(context.Background(), []Message{User("q")})
	if auth != "Bearer "+key {
		t.Errorf("Authorization = %q", auth)
	}
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Errorf("error %v: want the key redacted", err)
	}
	comp, err := c.Complete(context.Background(), []Message{User("q")})
	if err != nil || strings.Contains(comp.Content, key) {
		t.Errorf("completion %q, %v: want the key redacted", comp.Content, err)
	}
}

func TestCancelledContextStopsRetrying(t *testing.T) {
	srv, _ := sequence(t, status(500))
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := New(Config{BaseURL: srv.URL, Model: "m", Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}})
	_, err := c.Complete(ctx, []Message{User("q")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestRequestsPerMinuteSpacesAttempts(t *testing.T) {
	srv, _ := sequence(t, ok("x"))
	c, _ := New(Config{BaseURL: srv.URL, Model: "m", RequestsPerMinute: 600}) // one per 100 ms
	start := time.Now()
	for range 4 {
		if _, err := c.Complete(context.Background(), []Message{User("q")}); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Errorf("4 requests at 600/min took %v, want ≥ 300ms", el)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{{BaseURL: "127.0.0.1:8000", Model: "m"}, {BaseURL: "ftp://x/v1", Model: "m"}, {BaseURL: "http://x/v1"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func TestRedactURL(t *testing.T) {
	if got := RedactURL("https://user:pw@host/v1beta/openai?key=abc#f"); got != "https://host/v1beta/openai" {
		t.Errorf("RedactURL = %q", got)
	}
}
