package llm

// Tests of refused connections: an endpoint where nothing listens ends a
// call after RefusedAttempts with one error naming the base URL; once the
// endpoint has answered, refusals are retried as any transport error.
// Attempts are counted as dials, never timed.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// dialCounting returns an HTTP client that dials anew for every request
// (no keep-alive, no proxy) and the count of its dials.
func dialCounting() (*http.Client, *atomic.Int64) {
	var n atomic.Int64
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DisableKeepAlives = true
	var d net.Dialer
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		n.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: t}, &n
}

// deadBaseURL returns a base URL on 127.0.0.1 where nothing listens: the
// port of a listener opened and closed.
func deadBaseURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

func TestRefusedBeforeAnyAnswerEndsAfterThreeAttemptsWithOneError(t *testing.T) {
	base := deadBaseURL(t)
	for _, tc := range []struct {
		name       string
		maxRetries int
		want       int // attempts
	}{
		{"default retries", 0, RefusedAttempts},
		{"10 retries", 10, RefusedAttempts},
		{"1 retry", 1, 2},
		{"no retries", NoRetries, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hc, dials := dialCounting()
			rs := &recordSleep{}
			var reports atomic.Int64
			c, err := New(Config{BaseURL: base + "?api-version=2024&key=secret-in-query", Model: "gpt-x", MaxRetries: tc.maxRetries,
				HTTPClient: hc, Endpoints: &Endpoints{}, Sleep: rs.sleep,
				OnRetry: func(int, error, time.Duration) { reports.Add(1) }})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Complete(context.Background(), []Message{User("hi")})
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrNothingAnswers) {
				t.Fatalf("error %v, want an *Error wrapping ErrNothingAnswers", err)
			}
			want := fmt.Sprintf("llm: model gpt-x: %d attempt(s): nothing answers at %s (connection refused): is the server running?", tc.want, base)
			if e.Error() != want || e.Attempts != tc.want || e.Status != 0 {
				t.Errorf("error %q (attempts %d, status %d), want %q", e.Error(), e.Attempts, e.Status, want)
			}
			if n := dials.Load(); n != int64(tc.want) {
				t.Errorf("%d dials, want %d", n, tc.want)
			}
			if n := reports.Load(); n != 0 {
				t.Errorf("OnRetry called %d times, want 0: the call's one error is its only report", n)
			}
			if len(rs.delays) != tc.want-1 {
				t.Errorf("%d waits, want %d", len(rs.delays), tc.want-1)
			}
		})
	}
}

func TestEmbedToANothingAnsweringEndpointEndsAfterThreeAttempts(t *testing.T) {
	base := deadBaseURL(t)
	hc, dials := dialCounting()
	c, err := New(Config{BaseURL: base, Model: "chat", HTTPClient: hc, Endpoints: &Endpoints{}, Sleep: noSleep})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Embed(context.Background(), "emb", []string{"a text"})
	want := "llm: model emb: 3 attempt(s): nothing answers at " + base + " (connection refused): is the server running?"
	if !errors.Is(err, ErrNothingAnswers) || err.Error() != want || dials.Load() != 3 {
		t.Errorf("error %v after %d dials, want %q after 3", err, dials.Load(), want)
	}
}

// TestParallelCallsToANothingAnsweringEndpoint: N workers calling at once
// each make at most RefusedAttempts attempts and report no retry.
func TestParallelCallsToANothingAnsweringEndpoint(t *testing.T) {
	const workers = 8
	base := deadBaseURL(t)
	hc, dials := dialCounting()
	var reports atomic.Int64
	c, err := New(Config{BaseURL: base, Model: "gpt-x", HTTPClient: hc, Endpoints: &Endpoints{}, Sleep: noSleep,
		OnRetry: func(int, error, time.Duration) { reports.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Complete(context.Background(), []Message{User(fmt.Sprint("question ", i))})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrNothingAnswers) || e.Attempts != RefusedAttempts {
			t.Errorf("worker %d: %v", i, err)
		}
	}
	if n := dials.Load(); n != workers*RefusedAttempts {
		t.Errorf("%d dials, want %d", n, workers*RefusedAttempts)
	}
	if n := reports.Load(); n != 0 {
		t.Errorf("%d retries reported, want 0", n)
	}
}

// TestRefusalsAfterAnAnswerAreRetried: a server that answered once and
// then stops listening (restarting) is retried MaxRetries times, by every
// client sharing the Endpoints record; a client with a record of its own
// has seen no answer and gives up after RefusedAttempts.
func TestRefusalsAfterAnAnswerAreRetried(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} }})
	hc, dials := dialCounting()
	eps := &Endpoints{}
	var reports atomic.Int64
	cfg := Config{BaseURL: srv.URL, Model: "m", HTTPClient: hc, Endpoints: eps, MaxRetries: 5, Sleep: noSleep,
		OnRetry: func(int, error, time.Duration) { reports.Add(1) }}
	first, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if eps.Answered(srv.URL) {
		t.Fatal("answered before any request")
	}
	if comp, err := first.Complete(context.Background(), []Message{User("hi")}); err != nil || comp.Content != "ok" {
		t.Fatalf("%v, %v", comp, err)
	}
	// Another path on the same host and port is the same endpoint.
	if !eps.Answered(srv.URL) || !eps.Answered(strings.TrimSuffix(srv.URL, "/v1")+"/other/v1") {
		t.Fatal("the answer is not recorded")
	}
	srv.Close()

	second, err := New(cfg) // a client of the same record, as the runner's clients of one run are
	if err != nil {
		t.Fatal(err)
	}
	dials.Store(0)
	_, err = second.Complete(context.Background(), []Message{User("hi")})
	var e *Error
	if !errors.As(err, &e) || errors.Is(err, ErrNothingAnswers) || e.Attempts != 6 || !strings.Contains(e.Error(), "connection refused") {
		t.Fatalf("error %v, want 6 attempts ending in connection refused, not ErrNothingAnswers", err)
	}
	if n, r := dials.Load(), reports.Load(); n != 6 || r != 5 {
		t.Errorf("%d dials and %d retries reported, want 6 and 5", n, r)
	}

	cfg.Endpoints = &Endpoints{}
	fresh, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dials.Store(0)
	if _, err = fresh.Complete(context.Background(), []Message{User("hi")}); !errors.Is(err, ErrNothingAnswers) || dials.Load() != RefusedAttempts {
		t.Errorf("fresh record: %v after %d dials, want ErrNothingAnswers after %d", err, dials.Load(), RefusedAttempts)
	}
}

// TestAnErrorStatusIsAnAnswer: an endpoint that answered with an HTTP error
// is there, and its later refusals are retried.
func TestAnErrorStatusIsAnAnswer(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{FaultSequence: []llmtest.Fault{llmtest.FaultServerError}, FaultRate: 0,
		Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} }})
	hc, dials := dialCounting()
	c, err := New(Config{BaseURL: srv.URL, Model: "m", HTTPClient: hc, Endpoints: &Endpoints{}, MaxRetries: NoRetries, Sleep: noSleep})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), []Message{User("hi")}); err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("error %v, want the injected 500", err)
	}
	srv.Close()
	c2, _ := New(Config{BaseURL: srv.URL, Model: "m", HTTPClient: hc, Endpoints: c.endpoints, MaxRetries: 4, Sleep: noSleep})
	dials.Store(0)
	if _, err := c2.Complete(context.Background(), []Message{User("hi")}); errors.Is(err, ErrNothingAnswers) || dials.Load() != 5 {
		t.Errorf("%v after %d dials, want a connection refused after 5", err, dials.Load())
	}
}
