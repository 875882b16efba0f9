package llm

// Tests of the client's bounds: a response
// body cap that ends an endless body quickly with bounded memory, the
// completion text cap, untrusted usage counts, and base URLs whose query
// string reaches the server but never an error.

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// peakRSS returns the process's peak resident set size (VmHWM), in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

func TestEndlessBodyEndsInCapErrorWithBoundedMemory(t *testing.T) {
	for _, endpoint := range []string{"chat", "embeddings"} {
		t.Run(endpoint, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Options{FaultSequence: []llmtest.Fault{llmtest.FaultEndlessBody}})
			c, err := New(Config{BaseURL: srv.URL, Model: "m-endless", Timeout: time.Minute, Sleep: noSleep})
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			before := peakRSS(t)
			start := time.Now()
			if endpoint == "chat" {
				_, err = c.Complete(context.Background(), []Message{User("hi")})
			} else {
				_, err = c.Embed(context.Background(), "e-endless", []string{"hi"})
			}
			elapsed := time.Since(start)
			growth := peakRSS(t) - before
			t.Logf("%s: endless body: error after %s; peak RSS (VmHWM) %d MB → +%.1f MB: %v",
				endpoint, elapsed.Round(time.Millisecond), before>>20, float64(growth)/(1<<20), err)
			if err == nil {
				t.Fatal("endless body: no error")
			}
			want := strconv.Itoa(DefaultMaxResponseBytes)
			model := map[string]string{"chat": "m-endless", "embeddings": "e-endless"}[endpoint]
			if msg := err.Error(); !strings.Contains(msg, "exceeds the cap of "+want+" bytes") || !strings.Contains(msg, "model "+model) {
				t.Errorf("error %q does not name the cap %s and the model %s", msg, want, model)
			}
			var e *Error
			if !errors.As(err, &e) || e.Attempts != 1 || e.Status != 200 {
				t.Errorf("error %#v: want 1 attempt (not retried) with status 200", e)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1 (the cap error is not retried)", n)
			}
			if elapsed > 20*time.Second {
				t.Errorf("took %s to fail", elapsed)
			}
			if growth > 200<<20 {
				t.Errorf("peak RSS grew by %d MB (limit 200 MB)", growth>>20)
			}
		})
	}
}

func noSleep(context.Context, time.Duration) error { return nil }

func TestResponseCapBoundary(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "hello"} }})
	c, err := New(Config{BaseURL: srv.URL, Model: "m", MaxResponseBytes: 4096, MaxRetries: NoRetries})
	if err != nil {
		t.Fatal(err)
	}
	if comp, err := c.Complete(context.Background(), []Message{User("hi")}); err != nil || comp.Content != "hello" {
		t.Fatalf("small response under a 4096-byte cap: %v %v", comp, err)
	}
	c, _ = New(Config{BaseURL: srv.URL, Model: "m", MaxResponseBytes: 50, MaxRetries: 3, Sleep: noSleep})
	_, err = c.Complete(context.Background(), []Message{User("hi")})
	if err == nil || !strings.Contains(err.Error(), "exceeds the cap of 50 bytes") {
		t.Fatalf("response over a 50-byte cap: %v", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (the capped one not retried)", n)
	}
}

func TestCompletionTextCap(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"abc", 3, "abc"}, {"abcd", 3, "abc"}, {"aé", 2, "a"}, {"aé", 3, "aé"}, {"€€", 4, "€"}, {"€", 0, ""}, {"", 0, ""},
	} {
		if got := CapText(tc.s, tc.max); got != tc.want {
			t.Errorf("CapText(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
	long := strings.Repeat("é", 1000) // 2000 bytes
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: long} }})
	c, _ := New(Config{BaseURL: srv.URL, Model: "m", MaxCompletionBytes: 1001})
	comp, err := c.Complete(context.Background(), []Message{User("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if comp.Content != strings.Repeat("é", 500) || comp.ContentBytes != 2000 {
		t.Errorf("capped content %d bytes (original %d), want 1000 (2000)", len(comp.Content), comp.ContentBytes)
	}
	c, _ = New(Config{BaseURL: srv.URL, Model: "m"}) // default: whole
	if comp, err = c.Complete(context.Background(), []Message{User("hi")}); err != nil || comp.Content != long || comp.ContentBytes != 2000 {
		t.Errorf("uncapped: %d bytes, ContentBytes %d, %v", len(comp.Content), comp.ContentBytes, err)
	}
}

func TestImplausibleUsageIsUnknownAndAudited(t *testing.T) {
	srv := llmtest.New(t, llmtest.Options{})
	srv.Script("neg", llmtest.Reply{Content: "a", PromptTokens: -5, CompletionTokens: 7})
	srv.Script("huge", llmtest.Reply{Content: "b", PromptTokens: 3, CompletionTokens: 1 << 62})
	srv.Script("fine", llmtest.Reply{Content: "c", PromptTokens: MaxPlausibleTokens, CompletionTokens: 2})
	c, _ := New(Config{BaseURL: srv.URL, Model: "m"})
	var audit UsageAudit
	ctx := WithUsageAudit(context.Background(), &audit)
	want := map[string][3]int64{"neg": {0, 7, 1}, "huge": {3, 0, 1}, "fine": {MaxPlausibleTokens, 2, 0}}
	for _, p := range []string{"neg", "huge", "fine"} {
		comp, err := c.Complete(ctx, []Message{User(p)})
		if err != nil {
			t.Fatal(err)
		}
		w := want[p]
		if comp.PromptTokens != w[0] || comp.CompletionTokens != w[1] || comp.UsageImplausible != (w[2] == 1) {
			t.Errorf("%s: tokens %d/%d implausible %v, want %v", p, comp.PromptTokens, comp.CompletionTokens, comp.UsageImplausible, w)
		}
	}
	if n := audit.Implausible(); n != 2 {
		t.Errorf("audit counted %d implausible calls, want 2", n)
	}
	srv.Verify(t)
}

func TestBaseURLQueryIsKeptAndNeverInErrors(t *testing.T) {
	const secret = "SECRET9f3a"
	srv := llmtest.New(t, llmtest.Options{Responder: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Content: "ok"} },
		FaultSequence: []llmtest.Fault{llmtest.FaultNone, llmtest.FaultNone, llmtest.FaultServerError, llmtest.FaultServerError}})
	u := strings.Replace(srv.URL, "http://", "http://user:PASSWORD@", 1) + "/?api-version=1&key=" + secret
	var (
		mu      sync.Mutex
		retries []string
	)
	c, err := New(Config{BaseURL: u, Model: "m", APIKey: "sk-KEY", MaxRetries: 1, Sleep: noSleep,
		OnRetry: func(_ int, err error, _ time.Duration) {
			mu.Lock()
			retries = append(retries, err.Error())
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), []Message{User("hi")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), "e", []string{"hi"}); err != nil {
		t.Fatal(err)
	}
	_, errServer := c.Complete(context.Background(), []Message{User("hi")})
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, want := range []string{"/v1/chat/completions", "/v1/embeddings", "/v1/chat/completions", "/v1/chat/completions"} {
		if want += "?api-version=1&key=" + secret; reqs[i].URL != want {
			t.Errorf("request %d reached %q, want %q", i, reqs[i].URL, want)
		}
	}

	// A transport error (nothing listens, at an endpoint recorded as having
	// answered: a server restarting) names the URL in Go's error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://user:PASSWORD@" + ln.Addr().String() + "/v1?api-version=1&key=" + secret
	ln.Close()
	answered := &Endpoints{}
	du, _ := url.Parse(dead)
	answered.mark(endpointKey(du))
	c2, _ := New(Config{BaseURL: dead, Model: "m", MaxRetries: 1, Sleep: noSleep, Endpoints: answered,
		OnRetry: func(_ int, err error, _ time.Duration) {
			mu.Lock()
			retries = append(retries, err.Error())
			mu.Unlock()
		}})
	_, errDead := c2.Complete(context.Background(), []Message{User("hi")})
	_, errDeadEmbed := c2.Embed(context.Background(), "e", []string{"hi"})
	// An endpoint that never answered: ErrNothingAnswers names the base URL.
	c3, _ := New(Config{BaseURL: dead, Model: "m", Sleep: noSleep, Endpoints: &Endpoints{}})
	_, errNothing := c3.Complete(context.Background(), []Message{User("hi")})
	_, errNew := New(Config{BaseURL: "ftp://user:PASSWORD@h/v1?key=" + secret, Model: "m"})

	msgs := append([]string(nil), retries...)
	for _, err := range []error{errServer, errDead, errDeadEmbed, errNothing, errNew} {
		if err == nil {
			t.Fatal("a failing call succeeded")
		}
		msgs = append(msgs, err.Error())
	}
	if len(retries) != 3 {
		t.Errorf("%d OnRetry messages, want 3", len(retries))
	}
	for _, m := range msgs {
		t.Logf("error: %s", m)
		for _, s := range []string{secret, "PASSWORD", "sk-KEY", "user:"} {
			if strings.Contains(m, s) {
				t.Errorf("error %q contains %q", m, s)
			}
		}
	}
	if !strings.Contains(errDead.Error(), "127.0.0.1") || errors.Is(errDead, ErrNothingAnswers) {
		t.Errorf("transport error %q lost the host", errDead)
	}
	if want := "nothing answers at http://" + ln.Addr().String() + "/v1 (connection refused)"; !strings.Contains(errNothing.Error(), want) {
		t.Errorf("error %q, want it to name %q", errNothing, want)
	}
}
