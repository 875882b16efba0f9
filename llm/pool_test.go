package llm

// Tests of the pooled transport and of the request body built once.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// connCounting starts a loopback chat server that counts the TCP
// connections it accepts.
func connCounting(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(ok("<answer>A</answer>"))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// complete sends n requests through a client of hc, from workers
// goroutines at once.
func complete(t *testing.T, url string, hc *http.Client, workers, n int) {
	t.Helper()
	c, err := New(Config{BaseURL: url + "/v1", Model: "m", HTTPClient: hc, MaxRetries: NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	jobs := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if _, err := c.Complete(context.Background(), []Message{User(fmt.Sprint("q", i))}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// At a concurrency of 16, a client of NewHTTPClient(16) opens at most 32
// connections for 800 requests (16 in use, plus the few dials net/http
// races against a connection being returned to the pool); net/http's
// default transport (2 idle connections per host) opens hundreds for the
// same load, which is what the pool is for.
func TestPooledClientReusesItsConnections(t *testing.T) {
	const workers, n = 16, 800
	srv, conns := connCounting(t)
	complete(t, srv.URL, NewHTTPClient(workers), workers, n)
	if got := conns.Load(); got < 1 || got > 2*workers {
		t.Errorf("pooled client: %d connections for %d requests at concurrency %d, want 1…%d", got, n, workers, 2*workers)
	}

	srv2, conns2 := connCounting(t)
	unpooled := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	complete(t, srv2.URL, unpooled, workers, n)
	t.Logf("connections for %d requests at concurrency %d: pooled %d, default transport %d", n, workers, conns.Load(), conns2.Load())
	if conns2.Load() <= 4*workers {
		t.Errorf("default transport opened only %d connections: the comparison no longer shows what the pool avoids", conns2.Load())
	}
}

// The body is built once per call: every attempt of a retried call sends
// the same bytes, parameters included.
func TestRetriedCallSendsTheSameBody(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "x"} },
		FaultSequence: []llmtest.Fault{llmtest.FaultServerError, llmtest.FaultRateLimit, llmtest.FaultNone}, RetryAfter: "0"})
	c, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m", Params: Params{Temperature: ptr(0.0), Seed: ptr(int64(7))},
		BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	comp, err := c.Complete(context.Background(), []Message{User("hello")})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if comp.Attempts != 3 || len(reqs) != 3 {
		t.Fatalf("%d attempts, %d requests; want 3 and 3", comp.Attempts, len(reqs))
	}
	want := `{"model":"m","messages":[{"role":"user","content":"hello"}],"temperature":0,"stream":false,"seed":7}`
	for i, r := range reqs {
		if !bytes.Equal(r.Body, []byte(want)) {
			t.Errorf("attempt %d sent %s, want %s", i+1, r.Body, want)
		}
	}
}
