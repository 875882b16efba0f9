// Package llm is the runner's client for OpenAI-compatible chat-completion
// and embeddings endpoints (OpenAI, Gemini's OpenAI-compatible API, vLLM, Ollama, and this
// project's fake and replay servers). It wraps github.com/sashabaranov/go-openai
// (embeddings; chat completions are posted by the client itself, with
// go-openai's request keys and error types) with what a benchmark run needs:
// the sampling parameters sent exactly as configured (temperature 0 included),
// each request body built once and reused by its retries, a connection pool
// sized to the concurrency (NewHTTPClient), retries with exponential backoff and
// jitter on 429, 5xx, timeouts, transport errors and malformed responses,
// honouring Retry-After (but a call to an endpoint that refuses connections
// and has never answered gives up after RefusedAttempts, with one error
// naming the base URL: ErrNothingAnswers), a per-request timeout, an optional request rate
// limit, and the tokens and latency of every completion. Embed computes
// embeddings with the same retries and checks every vector it returns.
//
// The API key is used only for the Authorization header: it is redacted from
// every error and every completion this package returns, so that it cannot
// reach logs or results files through them.
//
// This is a leaf package: it imports no other package of the project.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/time/rate"
)

// Message is one chat message.
type Message struct {
	Role    string // "system", "user" or "assistant"
	Content string
}

// User returns a user message with the given content.
func User(content string) Message { return Message{Role: openai.ChatMessageRoleUser, Content: content} }

// Params are the sampling parameters of a model. A nil field is not sent, so
// the server's default applies; a non-nil field is always sent, zero
// included (go-openai alone would drop a temperature of 0, which its omitempty tags treat as unset).
type Params struct {
	Temperature *float64
	TopP        *float64
	MaxTokens   *int // sent as max_tokens, which every compatible server honours
	Seed        *int64
}

// Defaults of Config.
const (
	// DefaultTimeout is the per-request timeout, as MatTools' clients use (600 s).
	DefaultTimeout     = 600 * time.Second
	DefaultMaxRetries  = 5
	DefaultBackoffBase = time.Second
	DefaultBackoffMax  = time.Minute
	// NoRetries as Config.MaxRetries disables retries.
	NoRetries = -1
	// DefaultMaxRetryAfter caps how long a server's Retry-After can make one retry wait.
	DefaultMaxRetryAfter = 5 * time.Minute
	// DefaultMaxResponseBytes caps the bytes read of one response body
	// (chat, embeddings and error bodies alike): 32 MiB.
	DefaultMaxResponseBytes = 32 << 20
	// DefaultMaxCompletionBytes is the cap of stored completion text that
	// callers (the runner) apply with CapText: 1 MiB. The client itself
	// caps Completion.Content only when Config.MaxCompletionBytes is set.
	DefaultMaxCompletionBytes = 1 << 20
	// MaxPlausibleTokens bounds a plausible token count of one call (prompt
	// or completion): larger counts, like negative ones, are not trusted.
	MaxPlausibleTokens = 10_000_000
)

// Config configures a Client. Zero durations and counts take the defaults above.
type Config struct {
	// BaseURL is the endpoint's base, e.g. "https://api.openai.com/v1" or
	// "http://127.0.0.1:8000/v1"; "/chat/completions" (or "/embeddings") is
	// appended to its path, and its query string, if any, is kept on every
	// request ("https://h/v1?api-version=1" → "https://h/v1/chat/completions?api-version=1").
	// Its user info and query never appear in an error the client returns.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>" when non-empty. It never
	// appears in an error or completion returned by the client.
	APIKey string
	Model  string // the model id sent in every request
	Params Params

	Timeout       time.Duration // per attempt, from sending the request to the decoded response
	MaxRetries    int           // retries after the first attempt; 0 = DefaultMaxRetries, NoRetries = none
	BackoffBase   time.Duration // first backoff; doubled per retry, with jitter
	BackoffMax    time.Duration // cap of the exponential backoff
	MaxRetryAfter time.Duration // cap of a server's Retry-After
	// RequestsPerMinute limits the rate of attempts (0 = unlimited).
	RequestsPerMinute float64
	// RetryTimeouts says whether an attempt that got no response within
	// Timeout is retried. nil: yes, unless the base URL is local (IsLocal:
	// a loopback address or "localhost"). A local server such as llama.cpp's
	// computes one request at a time and does not cancel a request whose
	// client gave up: it computes it to the end while the retry queues
	// behind it, so every retry adds a whole request to the queue
	// (docs/runner.md, "Local servers"). A timeout that is not retried
	// fails the call with an error saying so.
	RetryTimeouts *bool
	// HTTPClient sends the requests; nil means a client shared by every
	// Client of the process, pooling DefaultConns connections per host
	// (NewHTTPClient). Its own Timeout should be 0 or longer than Timeout.
	HTTPClient *http.Client
	// Sleep waits between attempts; nil means a timer honouring ctx. Tests
	// replace it to observe the delays.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, if set, is called before each retry with the attempt number
	// (1-based) that failed, its error (already redacted) and the delay;
	// not before the retries of a refused connection to an endpoint that
	// has not answered yet (RefusedAttempts), whose call ends in one error.
	OnRetry func(attempt int, err error, delay time.Duration)
	// Endpoints records which endpoints have answered; nil means the record
	// shared by every Client of the process. Clients that share one learn
	// from each other's answers (RefusedAttempts).
	Endpoints *Endpoints
	// EmbeddingFormat is the encoding_format of Embed's requests: "float"
	// (the default when empty: JSON numbers, which every compatible server
	// supports) or "base64" (little-endian float32, 4 bytes per component:
	// about a quarter of the response size; OpenAI's and vLLM's servers
	// support it).
	EmbeddingFormat string
	// MaxResponseBytes caps the bytes read of one response body (0 =
	// DefaultMaxResponseBytes). A longer body fails the attempt at once,
	// not retried, with an error naming the cap; reading stops at the cap,
	// so an endless body costs bounded memory and time.
	MaxResponseBytes int64
	// MaxCompletionBytes, when positive, caps Completion.Content at a UTF-8
	// boundary (Completion.ContentBytes keeps the original length). 0 keeps
	// the content whole (bounded by MaxResponseBytes): the runner extracts
	// code from the whole answer and caps only the text it stores.
	MaxCompletionBytes int
}

// Completion is one answered chat completion.
type Completion struct {
	Content      string // the first choice's message content
	FinishReason string
	Model        string // the model id the server reports
	// ContentBytes is the byte length of the content as received, before
	// any MaxCompletionBytes cap (equal to len(Content) when not capped).
	ContentBytes int64
	// PromptTokens and CompletionTokens are the server's usage counts
	// (0 when the server reports none: see UsageMissing; or an implausible
	// count: see UsageImplausible).
	PromptTokens     int64
	CompletionTokens int64
	// UsageImplausible is set when the server reported a negative token
	// count or one above MaxPlausibleTokens; such a count is replaced by 0
	// (unknown) and the call is counted in the context's UsageAudit.
	UsageImplausible bool
	// UsageMissing is set when the response had no usage (no "usage"
	// object, or neither token count in it), as some local servers answer:
	// the counts are then unknown, not 0, and the call is counted in the
	// context's UsageAudit (UsageAudit.Missing).
	UsageMissing bool
	Latency      time.Duration // of the successful attempt
	Attempts     int           // attempts made, ≥ 1
}

// UsageAudit counts the calls whose reported usage was implausible. Attach
// one to a context with WithUsageAudit; every Complete and Embed made with
// that context (or one derived from it) that gets an implausible usage
// report adds 1. It is safe for concurrent use.
type UsageAudit struct{ n, missing atomic.Int64 }

// Implausible returns the number of calls counted so far.
func (a *UsageAudit) Implausible() int64 { return a.n.Load() }

// Missing returns the number of chat completions answered without usage
// (Completion.UsageMissing) so far.
func (a *UsageAudit) Missing() int64 { return a.missing.Load() }

type auditKey struct{}

// WithUsageAudit returns ctx carrying a.
func WithUsageAudit(ctx context.Context, a *UsageAudit) context.Context {
	return context.WithValue(ctx, auditKey{}, a)
}

// checkUsage returns the server's counts with each implausible one (< 0 or
// > MaxPlausibleTokens) replaced by 0, and whether any was implausible, in
// which case the call is counted in ctx's UsageAudit.
func checkUsage(ctx context.Context, counts ...int) ([]int64, bool) {
	out := make([]int64, len(counts))
	bad := false
	for i, n := range counts {
		if n < 0 || n > MaxPlausibleTokens {
			bad = true
			continue
		}
		out[i] = int64(n)
	}
	if a, ok := ctx.Value(auditKey{}).(*UsageAudit); ok && bad && a != nil {
		a.n.Add(1)
	}
	return out, bad
}

// CapText returns s cut to at most max bytes at a UTF-8 boundary (s
// itself when it fits; "" when max ≤ 0 and s is not empty).
func CapText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// DefaultConns is the connection pool size per host of the client shared by
// every Client whose Config.HTTPClient is nil.
const DefaultConns = 64

var defaultHTTPClient = NewHTTPClient(DefaultConns)

// NewHTTPClient returns an HTTP client for model requests whose transport
// keeps up to conns idle connections per host (and 2·conns in all), so that
// conns concurrent requests to one endpoint reuse their connections instead
// of opening new ones: net/http's default transport keeps 2 idle
// connections per host, so at a concurrency of 64 nearly every request
// dialled (and, over TLS, handshook) anew. Proxies from the environment,
// HTTP/2 and the default dial and TLS timeouts are kept.
func NewHTTPClient(conns int) *http.Client {
	conns = max(conns, 1)
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = conns
	t.MaxIdleConns = 2 * conns
	return &http.Client{Transport: t}
}

// Client sends chat completions to one model of one endpoint. It is safe for
// concurrent use.
type Client struct {
	cfg     Config
	oa      *openai.Client // embeddings
	http    *doer          // chat completions, sent by chatAttempt
	chatURL string         // the base URL (without its query) + "/chat/completions"
	limiter *rate.Limiter
	// endpoints is Config.Endpoints resolved; endpoint is the base URL's
	// key in it (endpointKey).
	endpoints *Endpoints
	endpoint  string
	// retryTimeouts is Config.RetryTimeouts resolved; local is IsLocal of
	// the base URL (for the errors' hints).
	retryTimeouts, local bool
	redact               *strings.Replacer // of completions: the API key
	// redactErr is of errors: the API key and the base URL's credentials
	// (user info, query string and its values).
	redactErr *strings.Replacer
}

// New returns a client for cfg. It fails if the base URL is not an absolute
// http(s) URL or the model is empty; it makes no request.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL %q is not an absolute http(s) URL", RedactURL(cfg.BaseURL))
	}
	if cfg.Model == "" {
		return nil, errors.New("llm: empty model id")
	}
	switch cfg.EmbeddingFormat {
	case "":
		cfg.EmbeddingFormat = string(openai.EmbeddingEncodingFormatFloat)
	case string(openai.EmbeddingEncodingFormatFloat), string(openai.EmbeddingEncodingFormatBase64):
	default:
		return nil, fmt.Errorf("llm: embedding format %q is neither \"float\" nor \"base64\"", cfg.EmbeddingFormat)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = DefaultBackoffBase
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = DefaultBackoffMax
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient
	}
	// go-openai appends the endpoint to BaseURL as a string, so a query
	// would end up before the path: it gets the base without its query,
	// and doer puts the query back on every request.
	query := u.RawQuery
	base := *u
	base.RawQuery, base.ForceQuery, base.Fragment, base.RawFragment = "", false, "", ""
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(base.String(), "/")
	eps := cfg.Endpoints
	if eps == nil {
		eps = defaultEndpoints
	}
	key := endpointKey(u)
	d := &doer{hc: hc, query: query, maxBody: cfg.MaxResponseBytes, model: cfg.Model, answered: func() { eps.mark(key) }}
	oc.HTTPClient = d
	c := &Client{cfg: cfg, oa: openai.NewClientWithConfig(oc), http: d, chatURL: oc.BaseURL + "/chat/completions", redact: strings.NewReplacer(),
		endpoints: eps, endpoint: key}
	if cfg.APIKey != "" {
		c.redact = strings.NewReplacer(cfg.APIKey, "[REDACTED]")
	}
	c.redactErr = strings.NewReplacer(urlSecrets(u, cfg.APIKey)...)
	if cfg.RequestsPerMinute > 0 {
		c.limiter = rate.NewLimiter(rate.Limit(cfg.RequestsPerMinute/60), 1)
	}
	c.local = IsLocal(cfg.BaseURL)
	c.retryTimeouts = !c.local
	if cfg.RetryTimeouts != nil {
		c.retryTimeouts = *cfg.RetryTimeouts
	}
	return c, nil
}

// IsLocal reports whether base URL u names this machine: its host is
// "localhost" (or ends in ".localhost") or a loopback IP address
// (127.0.0.0/8, ::1). Such an endpoint is taken to be a local server
// (llama.cpp, vLLM or Ollama on the user's machine), whose timeouts
// Config.RetryTimeouts does not retry by default.
func IsLocal(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	h := strings.ToLower(p.Hostname())
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// RefusedAttempts is the most attempts a call makes while its connections
// are refused (connection refused, no route to host, network unreachable)
// by an endpoint that has not answered yet: the call then fails with
// ErrNothingAnswers, without the OnRetry reports of those retries. Once the
// endpoint has answered (Endpoints), a refused connection is retried up to
// Config.MaxRetries times as any transport error: a server restarting
// during a long run does not end it.
const RefusedAttempts = 3

// ErrNothingAnswers is wrapped by the *Error of a call whose connections
// were refused RefusedAttempts times (or MaxRetries+1 times, when fewer)
// by an endpoint that had not answered yet. The error's text names the base
// URL (without credentials) and the refusal: "llm: model m: 3 attempt(s):
// nothing answers at http://127.0.0.1:9/v1 (connection refused): is the
// server running?".
var ErrNothingAnswers = errors.New("nothing answers")

// Endpoints records which endpoints have answered an HTTP request (of any
// status: the server is there), keyed by a base URL's scheme and host:port,
// for the clients that share it (Config.Endpoints). The zero value is
// empty and ready; it is safe for concurrent use.
type Endpoints struct{ m sync.Map }

var defaultEndpoints = &Endpoints{}

// Answered reports whether the endpoint of base URL u has answered a request
// of a client using e (false for an unparseable u).
func (e *Endpoints) Answered(u string) bool {
	p, err := url.Parse(u)
	return err == nil && e.answered(endpointKey(p))
}

func (e *Endpoints) answered(key string) bool { _, ok := e.m.Load(key); return ok }

func (e *Endpoints) mark(key string) {
	if !e.answered(key) {
		e.m.Store(key, true)
	}
}

// endpointKey is u's key in Endpoints: its scheme and host:port, lowercased,
// the port made explicit.
func endpointKey(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return strings.ToLower(u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port))
}

// refusedReason names why a transport error err made no connection when
// the endpoint refused it ("connection refused", "no route to host",
// "network is unreachable"); "" for any other error.
func refusedReason(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "no route to host"
	case errors.Is(err, syscall.ENETUNREACH):
		return "network is unreachable"
	}
	return ""
}

// Model returns the model id the client sends.
func (c *Client) Model() string { return c.cfg.Model }

// Complete sends msgs and returns the first choice. Retryable failures (HTTP
// 408, 429 and 5xx, a timeout of the attempt, a transport error, a response
// that is not valid JSON or has no choice) are retried up to MaxRetries
// times, waiting the server's Retry-After (retry-after-ms or Retry-After,
// capped at MaxRetryAfter) when given, otherwise an exponential backoff with
// jitter; a refused connection to an endpoint that has never answered, at
// most RefusedAttempts times in all (ErrNothingAnswers). Other HTTP errors
// are returned at once. When ctx ends, Complete returns ctx's error. Errors
// are *Error.
func (c *Client) Complete(ctx context.Context, msgs []Message) (*Completion, error) {
	return c.CompleteWith(ctx, msgs, CallOptions{})
}

// CallOptions are per-call request settings beyond the model's Params.
type CallOptions struct {
	// JSONObject sends response_format {"type": "json_object"} (OpenAI's
	// JSON mode), as MatTools' agentic RAG does for its reranking, NER and
	// final-answer calls.
	JSONObject bool
	// MaxTokens, when non-nil, is sent as max_tokens for this call,
	// overriding the model's Params.MaxTokens (nil: Params decide), as
	// LightRAG's description summaries send max_tokens=500
	// (docs/graphrag.md §2.7). The other sampling Params are sent as usual.
	MaxTokens *int
}

// CompleteWith is Complete with per-call options.
func (c *Client) CompleteWith(ctx context.Context, msgs []Message, o CallOptions) (*Completion, error) {
	full := chatBody{Model: c.cfg.Model, Messages: make([]chatMessage, len(msgs))}
	if o.JSONObject {
		full.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	for i, m := range msgs {
		full.Messages[i] = chatMessage(m)
	}
	p := c.cfg.Params
	if o.MaxTokens != nil {
		p.MaxTokens = o.MaxTokens
	}
	full.Temperature, full.TopP, full.MaxTokens, full.Seed = p.Temperature, p.TopP, p.MaxTokens, p.Seed
	// The body is built once, with the parameters in it, and sent as it is
	// by every attempt.
	body, err := json.Marshal(&full)
	if err != nil {
		return nil, &Error{Model: c.cfg.Model, msg: "encoding the request: " + err.Error()}
	}
	var comp *Completion
	attempts, err := c.retry(ctx, c.cfg.Model, func(actx context.Context, info *attemptInfo) error {
		var err error
		info.jsonMode = o.JSONObject
		comp, err = c.attempt(actx, info, body)
		return err
	})
	if err != nil {
		return nil, err
	}
	comp.Attempts = attempts
	return comp, nil
}

// retry runs one attempt after another, as Complete documents, until one
// succeeds, a failure is not retryable, MaxRetries is reached or ctx ends.
// It returns the number of attempts made or an *Error naming model.
func (c *Client) retry(ctx context.Context, model string, try func(ctx context.Context, info *attemptInfo) error) (int, error) {
	for attempt := 1; ; attempt++ {
		if c.limiter != nil {
			if err := c.limiter.Wait(ctx); err != nil {
				return 0, c.fail(model, attempt-1, ctx.Err(), 0, err)
			}
		}
		info := &attemptInfo{}
		err := try(ctx, info)
		if err == nil {
			return attempt, nil
		}
		if ctx.Err() != nil {
			return 0, c.fail(model, attempt, ctx.Err(), info.status, err)
		}
		// A refused connection before the endpoint ever answered: most
		// likely nothing listens at the base URL (a server not started, a
		// wrong port), so the call ends soon, with one error saying so. Once
		// the endpoint has answered, a refusal is a server restarting, and
		// is retried as any transport error.
		probing := info.refused != "" && !c.endpoints.answered(c.endpoint)
		if probing && (attempt >= RefusedAttempts || attempt > c.cfg.MaxRetries) {
			return 0, c.fail(model, attempt, nil, 0, fmt.Errorf("%w at %s (%s): is the server running?",
				ErrNothingAnswers, RedactURL(c.cfg.BaseURL), info.refused))
		}
		if !info.retryable || attempt > c.cfg.MaxRetries {
			return 0, c.fail(model, attempt, nil, info.status, err)
		}
		delay := c.backoff(attempt)
		if info.retryAfter > 0 {
			delay = min(info.retryAfter, c.cfg.MaxRetryAfter)
		}
		if c.cfg.OnRetry != nil && !probing {
			c.cfg.OnRetry(attempt, c.fail(model, attempt, nil, info.status, err), delay)
		}
		if err := c.cfg.Sleep(ctx, delay); err != nil {
			return 0, c.fail(model, attempt, ctx.Err(), info.status, err)
		}
	}
}

// ErrInvalidEmbeddings is wrapped by the *Error that Embed returns when a
// response decodes but is wrong: a vector count other than the input count,
// an index out of order, vectors of different dimensions, or a NaN or
// infinite component. Such responses are not retried: they come from a
// misconfigured model or server, and a retry would be paid for again.
var ErrInvalidEmbeddings = errors.New("invalid embeddings response")

// Embeddings is one answered embeddings request.
type Embeddings struct {
	// Vectors holds one vector per input, in input order, all of the same
	// dimension; components are as the server sent them (not normalised).
	Vectors [][]float32
	Model   string // the model id the server reports
	// PromptTokens is the server's usage count of input tokens (0 when the
	// server reports none).
	PromptTokens int64
	// UsageImplausible is as Completion's: an implausible count became 0.
	UsageImplausible bool
	Latency          time.Duration // of the successful attempt
	Attempts         int           // attempts made, ≥ 1
}

// Embed sends inputs to the OpenAI-compatible "/embeddings" endpoint of the
// client's base URL as one request for model (which may differ from the
// chat Model) and returns one vector per input. It retries, waits and
// limits its rate exactly as Complete does, with the same Timeout per
// attempt, and sends none of the sampling Params. With no inputs it makes
// no request and returns no vectors. A response that fails validation (see
// ErrInvalidEmbeddings) is returned at once. Errors are *Error, naming model.
func (c *Client) Embed(ctx context.Context, model string, inputs []string) (*Embeddings, error) {
	if model == "" {
		return nil, &Error{Model: model, msg: "empty embedding model id"}
	}
	if len(inputs) == 0 {
		return &Embeddings{Model: model}, nil
	}
	req := openai.EmbeddingRequestStrings{Input: inputs, Model: openai.EmbeddingModel(model),
		EncodingFormat: openai.EmbeddingEncodingFormat(c.cfg.EmbeddingFormat)}
	var emb *Embeddings
	attempts, err := c.retry(ctx, model, func(actx context.Context, info *attemptInfo) error {
		var err error
		emb, err = c.embedAttempt(actx, info, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	emb.Attempts = attempts
	return emb, nil
}

func (c *Client) embedAttempt(ctx context.Context, info *attemptInfo, req openai.EmbeddingRequestStrings) (*Embeddings, error) {
	actx, cancel := context.WithTimeout(context.WithValue(ctx, infoKey{}, info), c.cfg.Timeout)
	defer cancel()
	start := time.Now()
	resp, err := c.oa.CreateEmbeddings(actx, req)
	latency := time.Since(start)
	var ute *json.UnmarshalTypeError
	if err != nil && ctx.Err() == nil && info.status >= 200 && info.status < 300 && errors.As(err, &ute) && ute.Value == "array" &&
		strings.HasSuffix(ute.Field, "embedding") {
		// Not retried: the server would send the same shape again.
		if req.EncodingFormat == openai.EmbeddingEncodingFormatBase64 {
			return nil, fmt.Errorf("%w: the server sent arrays where encoding_format base64 asks for base64 strings; "+
				"set the embedding format to \"float\"", ErrInvalidEmbeddings)
		}
		return nil, fmt.Errorf("%w: the server sent one vector per token of each input (\"embedding\": [[…], …]), not one per input: "+
			"its model is served without pooling. Start llama-cpp-python's server with --kv_overrides <arch>.pooling_type=int:1 "+
			"(mean pooling; <arch> is the GGUF's general.architecture, e.g. llama.pooling_type=int:1), llama.cpp's llama-server "+
			"with --pooling mean, or serve an embedding model", ErrPerTokenEmbeddings)
	}
	if err != nil {
		return nil, c.classify(ctx, actx, info, err)
	}
	vecs, err := checkEmbeddings(resp.Data, len(req.Input))
	if err != nil {
		return nil, err
	}
	tok, bad := checkUsage(ctx, resp.Usage.PromptTokens)
	if words := minTokens(req.Input); tok[0] > 0 && tok[0] < words {
		return nil, fmt.Errorf("%w: the server counted %d input tokens for %d input(s) of at least %d words (the longest: %d words): "+
			"it embedded only the start of each input; llama.cpp's server cuts every input to n_batch tokens (512 by default): "+
			"start it with --n_batch (and --n_ubatch) of at least the longest input's tokens, and --n_ctx as large, or embed shorter chunks",
			ErrEmbeddingsTruncated, tok[0], len(req.Input), words, longestWords(req.Input))
	}
	return &Embeddings{Vectors: vecs, Model: string(resp.Model),
		PromptTokens: tok[0], UsageImplausible: bad, Latency: latency}, nil
}

// ErrPerTokenEmbeddings (wrapping ErrInvalidEmbeddings) is the error of an
// embeddings response with one vector per token of each input
// ("embedding": [[…], …]), as llama.cpp's servers answer for a model served
// without pooling (a chat model's GGUF); the error names the server
// setting that fixes it.
var ErrPerTokenEmbeddings = fmt.Errorf("%w: per-token embeddings", ErrInvalidEmbeddings)

// ErrEmbeddingsTruncated (wrapping ErrInvalidEmbeddings) is the error of an
// embeddings response whose usage counts fewer input tokens than the inputs
// have words (minTokens): the server embedded only the start of the inputs,
// as llama.cpp's servers do past n_batch tokens. It is detected only where
// the server reports usage, and only when it cut more than the inputs'
// word count; a cut within that is not seen (docs/runner.md, "Local servers").
var ErrEmbeddingsTruncated = fmt.Errorf("%w: inputs truncated by the server", ErrInvalidEmbeddings)

// minTokens is a lower bound of the tokens of inputs under the tokenizers of
// embedding and chat models (BPE with GPT-2-style pre-tokenization, and
// SentencePiece), which never merge two whitespace-separated words into one
// token: the whitespace-separated fields holding a letter or a digit.
func minTokens(inputs []string) int64 {
	var n int64
	for _, in := range inputs {
		n += int64(words(in))
	}
	return n
}

func words(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

func longestWords(inputs []string) int {
	m := 0
	for _, in := range inputs {
		m = max(m, words(in))
	}
	return m
}

// checkEmbeddings returns the vectors of data if there is one per input
// (n), data[i].Index == i, all have the first vector's dimension (> 0) and
// every component is finite; otherwise an error wrapping
// ErrInvalidEmbeddings that names the first offending vector.
func checkEmbeddings(data []openai.Embedding, n int) ([][]float32, error) {
	if len(data) != n {
		return nil, fmt.Errorf("%w: %d vectors for %d inputs", ErrInvalidEmbeddings, len(data), n)
	}
	vecs := make([][]float32, n)
	for i, d := range data {
		if d.Index != i {
			return nil, fmt.Errorf("%w: vector %d has index %d (indices must be 0…%d in order)", ErrInvalidEmbeddings, i, d.Index, n-1)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("%w: vector %d is empty", ErrInvalidEmbeddings, i)
		}
		if len(d.Embedding) != len(data[0].Embedding) {
			return nil, fmt.Errorf("%w: vector %d has %d dimensions, vector 0 has %d", ErrInvalidEmbeddings, i, len(d.Embedding), len(data[0].Embedding))
		}
		for j, x := range d.Embedding {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: vector %d component %d is %v", ErrInvalidEmbeddings, i, j, x)
			}
		}
		vecs[i] = d.Embedding
	}
	return vecs, nil
}

// attemptInfo is what one attempt learned about the failure, filled in by
// doer through the request context.
type attemptInfo struct {
	status     int // HTTP status, 0 when no response arrived
	retryAfter time.Duration
	retryable  bool
	// refused names why no connection was made when the attempt's
	// connection was refused (refusedReason), else "".
	refused  string
	tooLarge atomic.Bool // the response body reached the MaxResponseBytes cap
	jsonMode bool        // the request sent response_format json_object
}

type infoKey struct{}

// chatBody is a chat-completion request body as go-openai writes one (the
// same keys in the same order, for text messages), except that the
// sampling parameters are sent as configured: a nil field is not sent and
// a non-nil one is, zero included (go-openai omits a zero temperature or
// top_p).
type chatBody struct {
	Model          string                               `json:"model"`
	Messages       []chatMessage                        `json:"messages"`
	MaxTokens      *int                                 `json:"max_tokens,omitempty"` // which every compatible server honours
	Temperature    *float64                             `json:"temperature,omitempty"`
	TopP           *float64                             `json:"top_p,omitempty"`
	Stream         bool                                 `json:"stream"`
	ResponseFormat *openai.ChatCompletionResponseFormat `json:"response_format,omitempty"`
	Seed           *int64                               `json:"seed,omitempty"`
}

// chatMessage is a text message as go-openai's ChatCompletionMessage
// marshals one.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content,omitempty"`
}

// chatResponse is the part of a chat-completion response the client reads.
type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			// Content is a string, or (multi-part content, which the
			// client does not read) an array: then "".
			Content textOrParts `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	// Usage is nil when the response has none (or "usage": null); a count
	// is nil when absent.
	Usage *struct {
		PromptTokens     *int `json:"prompt_tokens"`
		CompletionTokens *int `json:"completion_tokens"`
	} `json:"usage"`
}

// textOrParts is a message content: a JSON string, or anything else
// (null, an array of parts) read as "", as go-openai reads it.
type textOrParts string

func (t *textOrParts) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, (*string)(t))
	}
	*t = ""
	return nil
}

// chatAttempt sends one chat-completion request with body and decodes the
// response, as go-openai's CreateChatCompletion does (the same headers;
// an HTTP status below 200 or from 400 on is an *openai.APIError, or an
// *openai.RequestError when the error body does not decode), without its
// request and response structs: the body was built once by CompleteWith,
// and only what Completion needs is decoded.
func (c *Client) chatAttempt(ctx context.Context, body []byte) (*chatResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.chatURL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusBadRequest {
		return nil, errorResponse(resp)
	}
	var out chatResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	return &out, nil
}

// errorResponse is go-openai's error of a failed HTTP response.
func errorResponse(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("error, reading response body: %w", err)
	}
	var er openai.ErrorResponse
	err = json.Unmarshal(body, &er)
	if err != nil || er.Error == nil {
		re := &openai.RequestError{HTTPStatus: resp.Status, HTTPStatusCode: resp.StatusCode, Err: err, Body: body}
		if er.Error != nil {
			re.Err = er.Error
		}
		return re
	}
	er.Error.HTTPStatus, er.Error.HTTPStatusCode = resp.Status, resp.StatusCode
	return er.Error
}

func (c *Client) attempt(ctx context.Context, info *attemptInfo, body []byte) (*Completion, error) {
	actx, cancel := context.WithTimeout(context.WithValue(ctx, infoKey{}, info), c.cfg.Timeout)
	defer cancel()
	start := time.Now()
	resp, err := c.chatAttempt(actx, body)
	latency := time.Since(start)
	if err == nil && len(resp.Choices) == 0 {
		err = errors.New("response has no choices")
	}
	if err != nil {
		return nil, c.classify(ctx, actx, info, err)
	}
	ch := resp.Choices[0]
	content := c.redact.Replace(string(ch.Message.Content))
	n := int64(len(content))
	if c.cfg.MaxCompletionBytes > 0 {
		content = CapText(content, c.cfg.MaxCompletionBytes)
	}
	var pt, ct int
	missing := resp.Usage == nil || (resp.Usage.PromptTokens == nil && resp.Usage.CompletionTokens == nil)
	if !missing {
		pt, ct = derefInt(resp.Usage.PromptTokens), derefInt(resp.Usage.CompletionTokens)
	} else if a, ok := ctx.Value(auditKey{}).(*UsageAudit); ok && a != nil {
		a.missing.Add(1)
	}
	tok, bad := checkUsage(ctx, pt, ct)
	return &Completion{
		UsageMissing:     missing,
		Content:          content,
		ContentBytes:     n,
		FinishReason:     string(ch.FinishReason),
		Model:            resp.Model,
		PromptTokens:     tok[0],
		CompletionTokens: tok[1],
		UsageImplausible: bad,
		Latency:          latency,
	}, nil
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// classify marks a failed attempt's err retryable (HTTP 408, 429, 5xx, a
// timeout of the attempt context actx, a transport error, an undecodable 2xx
// body) in info and returns it, annotated for timeouts and malformed bodies.
func (c *Client) classify(ctx, actx context.Context, info *attemptInfo, err error) error {
	switch {
	case ctx.Err() != nil:
	case info.tooLarge.Load():
		// Not retried: the endpoint would likely send it again, and each
		// attempt reads MaxResponseBytes.
		err = fmt.Errorf("response body (HTTP %d) exceeds the cap of %d bytes (MaxResponseBytes); reading stopped there", info.status, c.cfg.MaxResponseBytes)
	case errors.Is(err, context.DeadlineExceeded) || actx.Err() != nil:
		if !c.retryTimeouts {
			why := "RetryTimeouts is off"
			if c.local {
				why = "the server is local, and a local server (llama.cpp's) keeps computing a request whose client gave up, so a retry would queue behind it"
			}
			err = fmt.Errorf("no response within the request timeout of %s, not retried (%s); raise the model's timeout, or lower its max_concurrency: %w", c.cfg.Timeout, why, err)
			break
		}
		err = fmt.Errorf("no response within the request timeout of %s: %w", c.cfg.Timeout, err)
		info.retryable = true
	case refusal(info.status) && isContextLength(err):
		// Not retried: the same prompt would be refused again.
		err = fmt.Errorf("%w (HTTP %d, not retried): %w", ErrContextLength, info.status, err)
	case info.jsonMode && refusal(info.status) && isJSONModeRefusal(err):
		err = fmt.Errorf("%w (HTTP %d, not retried): %w; set json_mode = false for this model in the plan (docs/runner.md, \"Local servers\")",
			ErrJSONModeUnsupported, info.status, err)
	case info.status >= 400 && isEmbeddingsDisabled(err):
		// Not retried: the server answers every embeddings request so until restarted.
		err = fmt.Errorf("%w (HTTP %d, not retried): %w; start llama-cpp-python's server with --embedding true "+
			"(and --kv_overrides <arch>.pooling_type=int:1 for a chat GGUF), llama.cpp's llama-server with --embeddings "+
			"(docs/runner.md, \"Local servers\")", ErrEmbeddingsDisabled, info.status, err)
	case info.status == 0:
		info.retryable = true // transport error: connection refused or reset, EOF
		info.refused = refusedReason(err)
	case info.status == http.StatusRequestTimeout || info.status == http.StatusTooManyRequests || info.status >= 500:
		info.retryable = true
	case info.status >= 200 && info.status < 300:
		err = fmt.Errorf("malformed response (HTTP %d): %w", info.status, err)
		info.retryable = true
	}
	return err
}

// ErrContextLength is wrapped by the *Error of a request the server refused
// because the prompt (with max_tokens) is longer than the model's context
// window: HTTP 400, 413 or 422 whose error names the context length
// (isContextLength). It is not retried; the runner records it as the
// question's outcome (docs/runner.md, "Local servers").
var ErrContextLength = errors.New("prompt longer than the model's context window")

// ErrJSONModeUnsupported is wrapped by the *Error of a JSON-mode request
// (CallOptions.JSONObject) that the server refused because of its
// response_format (HTTP 400, 413 or 422 naming response_format, json_object
// or JSON mode). It is not retried; the fallback is the plan's
// json_mode = false, which sends no response_format (the prompts ask for
// JSON anyway).
var ErrJSONModeUnsupported = errors.New("server does not support JSON mode (response_format json_object)")

// ErrEmbeddingsDisabled is wrapped by the *Error of an embeddings request
// to a server started without embeddings: llama-cpp-python answers HTTP 500
// "Llama model must be created with embedding=True to call this method",
// llama.cpp's llama-server "This server does not support embeddings. Start
// it with `--embeddings`". It is not retried (a 5xx otherwise is), and the
// error names the server setting (docs/runner.md, "Local servers").
var ErrEmbeddingsDisabled = errors.New("server not started with embeddings")

// embeddingsDisabledMarks are lowercased phrases of those errors.
var embeddingsDisabledMarks = []string{"must be created with embedding=true", "does not support embeddings"}

func isEmbeddingsDisabled(err error) bool {
	t := strings.ToLower(errText(err))
	for _, m := range embeddingsDisabledMarks {
		if strings.Contains(t, m) {
			return true
		}
	}
	return false
}

// refusal reports whether status is a refusal of the request as sent.
func refusal(status int) bool { return status == 400 || status == 413 || status == 422 }

// contextLengthMarks are lowercased phrases of the context-length errors of
// OpenAI and llama-cpp-python ("context_length_exceeded", "This model's
// maximum context length is …"), llama.cpp's llama-server
// ("exceed_context_size_error", "the request exceeds the available context
// size"), vLLM ("… is longer than the maximum model length of …") and
// Ollama ("input length exceeds the context length").
var contextLengthMarks = []string{"context_length_exceeded", "maximum context length", "exceed_context_size",
	"exceeds the available context size", "maximum model length", "context length", "context window"}

func isContextLength(err error) bool {
	t := strings.ToLower(errText(err))
	for _, m := range contextLengthMarks {
		if strings.Contains(t, m) {
			return true
		}
	}
	return false
}

func isJSONModeRefusal(err error) bool {
	t := strings.ToLower(errText(err))
	return strings.Contains(t, "response_format") || strings.Contains(t, "json_object") || strings.Contains(t, "json mode")
}

// errText is err's text with, for an error response, its code and body.
func errText(err error) string {
	t := err.Error()
	var ae *openai.APIError
	if errors.As(err, &ae) {
		t += fmt.Sprintf(" %v %s", ae.Code, ae.Type)
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		t += " " + string(re.Body)
	}
	return t
}

// backoff returns the delay before retry number attempt (1-based): an
// exponential backoff base·2^(attempt−1), capped at BackoffMax, with "equal
// jitter" (uniform in its upper half) so that parallel workers spread out.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.BackoffBase << min(attempt-1, 30)
	if d <= 0 || d > c.cfg.BackoffMax {
		d = c.cfg.BackoffMax
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Error is a failed completion: the last attempt's error after retries, or
// the context's error when the caller gave up. Its text never contains the
// API key.
type Error struct {
	Model    string // the chat model (Complete) or the embedding model (Embed)
	Attempts int
	Status   int // HTTP status of the last attempt; 0 when none arrived
	msg      string
	ctxErr   error
	cause    error // a sentinel such as ErrInvalidEmbeddings, or nil
}

func (e *Error) Error() string {
	return fmt.Sprintf("llm: model %s: %d attempt(s): %s", e.Model, e.Attempts, e.msg)
}

// Unwrap returns the context's error when the caller's context ended, so
// that errors.Is(err, context.Canceled) works; otherwise the sentinel of
// the failure (sentinels: ErrNothingAnswers, ErrContextLength, ErrJSONModeUnsupported,
// ErrEmbeddingsDisabled, ErrPerTokenEmbeddings and ErrEmbeddingsTruncated,
// the last two wrapping ErrInvalidEmbeddings, or ErrInvalidEmbeddings
// itself), or nil.
func (e *Error) Unwrap() error {
	if e.ctxErr != nil {
		return e.ctxErr
	}
	return e.cause
}

// sentinels are the errors an *Error unwraps to, most specific first.
var sentinels = []error{ErrNothingAnswers, ErrContextLength, ErrJSONModeUnsupported, ErrEmbeddingsDisabled, ErrPerTokenEmbeddings, ErrEmbeddingsTruncated, ErrInvalidEmbeddings}

func (c *Client) fail(model string, attempts int, ctxErr error, status int, err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = RedactURL(ue.URL) // a transport or request error names the URL, query included
	}
	e := &Error{Model: model, Attempts: attempts, Status: status,
		msg: c.redactErr.Replace(err.Error()), ctxErr: ctxErr}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			e.cause = s
			break
		}
	}
	return e
}

// doer sends the client's HTTP requests (chat completions from chatAttempt,
// embeddings from go-openai): it puts the base URL's query back, caps the
// response body and records
// the response status and Retry-After for the retry loop.
type doer struct {
	hc      *http.Client
	query   string // the base URL's raw query, put back on every request
	maxBody int64  // MaxResponseBytes
	model   string
	// answered is called on every HTTP response (of any status): the
	// endpoint is there (Endpoints).
	answered func()
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	if d.query != "" {
		if req.URL.RawQuery == "" {
			req.URL.RawQuery = d.query
		} else {
			req.URL.RawQuery = d.query + "&" + req.URL.RawQuery
		}
	}
	resp, err := d.hc.Do(req)
	if resp != nil && d.answered != nil {
		d.answered()
	}
	info, _ := req.Context().Value(infoKey{}).(*attemptInfo)
	if info != nil && resp != nil {
		info.status = resp.StatusCode
		info.retryAfter = retryAfter(resp.Header, time.Now())
	}
	if resp != nil && resp.Body != nil {
		resp.Body = &capBody{rc: resp.Body, left: d.maxBody, max: d.maxBody, model: d.model, info: info}
	}
	return resp, err
}

// BodyTooLargeError is the read error of a response body that reached
// Config.MaxResponseBytes; go-openai's decoder returns it, and the attempt
// fails with an error naming the cap.
type BodyTooLargeError struct {
	Model string
	Max   int64
}

func (e *BodyTooLargeError) Error() string {
	return fmt.Sprintf("llm: model %s: response body exceeds the cap of %d bytes (MaxResponseBytes)", e.Model, e.Max)
}

// capBody reads at most max bytes of a response body, then fails every
// read with a *BodyTooLargeError (and marks the attempt) without reading
// further; Close closes the underlying body, which drops the connection.
type capBody struct {
	rc        io.ReadCloser
	left, max int64
	model     string
	info      *attemptInfo
	err       error
}

func (b *capBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if int64(n) <= b.left {
		b.left -= int64(n)
		return n, err
	}
	n = int(b.left)
	b.left = 0
	b.err = &BodyTooLargeError{Model: b.model, Max: b.max}
	if b.info != nil {
		b.info.tooLarge.Store(true)
	}
	return n, b.err
}

func (b *capBody) Close() error { return b.rc.Close() }

// retryAfter reads a server's requested delay: OpenAI's retry-after-ms
// (milliseconds) if present, else Retry-After in seconds or as an HTTP date
// (RFC 9110 §10.2.3). It returns 0 when absent or unparseable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// urlSecrets returns the strings.Replacer pairs that redact the API key and
// the credentials of base URL u from error text: the base URL as given (and
// its query), its user info, and the query's values of 4 bytes or more
// (shorter ones, like "api-version=1"'s, would match unrelated text).
func urlSecrets(u *url.URL, apiKey string) []string {
	var secrets []string
	add := func(s string, min int) {
		if len(s) >= min {
			secrets = append(secrets, s)
			if e := url.QueryEscape(s); e != s {
				secrets = append(secrets, e)
			}
		}
	}
	add(apiKey, 1)
	if u.User != nil {
		add(u.User.String(), 1)
		add(u.User.Username(), 4)
		if p, ok := u.User.Password(); ok {
			add(p, 1)
		}
	}
	if u.RawQuery != "" {
		add(u.RawQuery, 1)
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v, 4)
			}
		}
	}
	// Longest first, so that a secret containing another is replaced whole.
	for i := 1; i < len(secrets); i++ {
		for j := i; j > 0 && len(secrets[j]) > len(secrets[j-1]); j-- {
			secrets[j], secrets[j-1] = secrets[j-1], secrets[j]
		}
	}
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s, "[REDACTED]")
	}
	return pairs
}

// RedactURL returns u without user info, query or fragment, so that it can
// be logged or recorded: some providers accept a key in the query string.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparseable URL)"
	}
	p.User, p.RawQuery, p.Fragment, p.ForceQuery = nil, "", "", false
	return p.String()
}
