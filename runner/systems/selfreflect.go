package systems

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
)

func init() {
	Register(Registration{Name: results.SystemSelfReflectionRAG, Needs: Needs{Retriever: true, Executor: true}, New: newSelfReflection,
		Plan: plan.SystemSpec{Section: "self_reflection", NewSettings: func() any { return new(SelfReflectionSettings) },
			Check: checkSelfReflection, Expand: expandSelfReflection}})
}

// SelfReflectionSettings are the plan's [self_reflection] section: each
// variant makes configurations of its own.
type SelfReflectionSettings struct {
	// Variants: "as-published" (the loop as MatTools' code runs it: the
	// critique reaches only the next retrieval query) and/or "feedback"
	// (the generator sees its previous answer, the runtime output and the
	// critique). Default ["as-published"].
	Variants []string `toml:"variants"`
	// MaxIterations bounds the loop (default 5, as MatTools;
	// 1–MaxIterationsLimit).
	MaxIterations int `toml:"max_iterations"`
}

// MaxIterationsLimit is the largest max_iterations a plan may give.
const MaxIterationsLimit = 20

// checkSelfReflection checks [self_reflection], setting its defaults.
func checkSelfReflection(c *plan.SectionChecker, settings any) {
	sr := settings.(*SelfReflectionSettings)
	if len(sr.Variants) == 0 {
		sr.Variants = []string{VariantAsPublished}
	}
	for i, v := range sr.Variants {
		switch {
		case v != VariantAsPublished && v != VariantFeedback:
			c.Add(fmt.Sprintf("self_reflection.variants[%d]", i), "is %q; want %s or %s", v, VariantAsPublished, VariantFeedback)
		case slices.Index(sr.Variants, v) != i:
			c.Add(fmt.Sprintf("self_reflection.variants[%d]", i), "%q appears twice", v)
		}
	}
	if !c.Defined("max_iterations") {
		sr.MaxIterations = DefaultMaxIterations
	} else if sr.MaxIterations < 1 || sr.MaxIterations > MaxIterationsLimit {
		c.Add("self_reflection.max_iterations", "is %d; want 1–%d", sr.MaxIterations, MaxIterationsLimit)
	}
}

// expandSelfReflection makes one configuration per variant, with the
// loop bound (none for a plan without settings).
func expandSelfReflection(settings any, c plan.Configuration) []plan.Configuration {
	sr, _ := settings.(*SelfReflectionSettings)
	if sr == nil {
		return nil
	}
	var out []plan.Configuration
	for _, v := range sr.Variants {
		x := c
		x.Variant, x.MaxIterations = v, sr.MaxIterations
		out = append(out, x)
	}
	return out
}

// The self-reflection prompt files (prompts layout), from MatTools
// src/mtr_rag_test/prompts.py.
const (
	PromptSRSystem          = "self_reflection_rag/system.txt"                           // SYSTEM_PROMPT
	PromptSRUserCode        = "self_reflection_rag/user_code_source1.txt"                // USER_PROMPT (source 1)
	PromptSRUserDoc         = "self_reflection_rag/user_doc_source2.txt"                 // USER_PROMPT_DOC (source 2)
	PromptSRUserLLMDoc      = "self_reflection_rag/user_llm_doc_sources3_4.txt"          // USER_PROMPT_LLM_DOC (sources 3, 4)
	PromptSRFormatChecker   = "self_reflection_rag/format_checker.txt"                   // FORMAT_CHECKER_PROMPT
	PromptSRCritic          = "self_reflection_rag/critical_feedback.txt"                // CRITICAL_FEEDBACK_PROMPT
	PromptSRCriticFormatter = "self_reflection_rag/critical_feedback_format_checker.txt" // CRITICAL_FEEDBACK_FORMART_CHECKER_PROMPT
)

// The self-reflection variants (system parameter "variant").
const (
	// VariantAsPublished is the loop as MatTools' code runs it: the runtime
	// output and the critique change only the next retrieval query; the
	// generator is prompted afresh each iteration; an empty dict stops.
	VariantAsPublished = "as-published"
	// VariantFeedback is the loop as the paper describes it: the generator
	// sees its previous answer, the runtime output and the critique
	// (FeedbackPrompt, this project's text); only a non-empty dict with no
	// None value stops.
	VariantFeedback = "feedback"
	// DefaultMaxIterations is MatTools' iteration_limit.
	DefaultMaxIterations = 5
)

// SelfReflectionVariants lists the variants.
var SelfReflectionVariants = []string{VariantAsPublished, VariantFeedback}

// FeedbackPrompt is the feedback variant's extra user message, this
// project's own text (upstream never sent one; the shape follows the
// extra_info it builds but never reaches): fields {runtime_output},
// {critique} and {retrieved_content}.
//
//go:embed prompts/self_reflection_feedback.txt
var FeedbackPrompt string

// FeedbackPromptPath is where FeedbackPrompt lives in this repository,
// recorded in the provenance of the feedback variant's runs.
const FeedbackPromptPath = "runner/systems/prompts/self_reflection_feedback.txt"

// FeedbackPromptSHA256 returns the hex SHA-256 of FeedbackPrompt.
func FeedbackPromptSHA256() string {
	sum := sha256.Sum256([]byte(FeedbackPrompt))
	return hex.EncodeToString(sum[:])
}

// FormatFailure is code_check's fail_result when the answer has no code or
// no name: the text the published loop hands on (MatTools
// src/mtr_rag_test/rag.py).
const FormatFailure = "The response format is incorrect.\nThe response format should be as follows:\n<answer>\n<code>\n```python\n# The generated function code\ndef example_function():\n    pass\n```\n</code>\n<name>name_of_generated_function</name>\n</answer>"

var (
	feedbackTag = regexp.MustCompile(`(?s)<feedback>(.*?)</feedback>`)
	nextTag     = regexp.MustCompile(`(?s)<next_rag_retrieval>(.*?)</next_rag_retrieval>`)
)

// selfReflection is MatTools' self-reflection LLM-doc RAG (RAGPipeline of
// src/mtr_rag_test/rag.py; docs/mattools.md §5). Each of at most
// MaxIterations iterations:
//
//   - retrieve k = 5 with the current query (the question first; then the
//     critic's <next_rag_retrieval> text, or its whole answer when the tags
//     are missing; no new retrieval after an answer that could not be
//     executed), the context formatted as LLM-RAG's;
//   - generate with the self-reflection system and user prompts (as-published:
//     afresh; feedback: the conversation so far plus FeedbackPrompt);
//   - format check: one call that restores the answer format;
//   - execute in the scoring sandbox: function + print(name()), no unit
//     test, no expected value;
//   - stop when stdout parses to a dict with no None value (as-published:
//     an empty dict too, as Python's all() of nothing);
//   - otherwise, before the last iteration: the critic (question, answer,
//     runtime output as JSON) and its format check; skipped when the answer
//     had no code (its suggestion is then the format failure).
//
// The final answer is the last iteration's format-checked answer. A
// question whose data files are absent (data-missing, left out of scoring)
// stops after the first draft, unexecuted. An
// execution that reaches the sandbox's time limit ends that iteration (the
// runtime output says so: the published code had no limit); the loop goes
// on.
type selfReflection struct {
	source, k, max int
	variant        string
	asked          Params // as configured, for the run record
	// Set by Build.
	retriever retrieval.Retriever
	execute   Executor
}

func newSelfReflection(p Params) (System, error) {
	if p.RetrievalSource < 1 || p.RetrievalSource > 4 {
		return nil, fmt.Errorf("system self-reflection-rag needs a retrieval source 1–4; got %d", p.RetrievalSource)
	}
	s := &selfReflection{source: p.RetrievalSource, k: p.TopK, max: p.MaxIterations, variant: p.Variant, asked: p}
	if s.k == 0 {
		s.k = DefaultTopK
	}
	if s.max == 0 {
		s.max = DefaultMaxIterations
	}
	if s.variant == "" {
		s.variant = VariantAsPublished
	}
	switch {
	case s.k < 0:
		return nil, fmt.Errorf("system self-reflection-rag: top-k %d; want ≥ 1", s.k)
	case s.max < 1 || s.max > MaxIterationsLimit:
		return nil, fmt.Errorf("system self-reflection-rag: max_iterations %d; want 1–%d", s.max, MaxIterationsLimit)
	case s.variant != VariantAsPublished && s.variant != VariantFeedback:
		return nil, fmt.Errorf("system self-reflection-rag: variant %q; want one of %v", s.variant, SelfReflectionVariants)
	}
	return s, nil
}

// Record records the variant and the iteration limit as configured (system
// parameters variant and max_iterations) and, for the feedback variant,
// FeedbackPrompt's SHA-256 (system parameter feedback_prompt_sha256) and
// file in the provenance.
func (s *selfReflection) Record(_ Resources, r *results.Run) error {
	if r.SystemParams == nil {
		r.SystemParams = map[string]string{}
	}
	r.SystemParams["variant"] = s.asked.Variant
	r.SystemParams["max_iterations"] = strconv.Itoa(s.asked.MaxIterations)
	if s.asked.Variant == VariantFeedback {
		sum := FeedbackPromptSHA256()
		r.SystemParams["feedback_prompt_sha256"] = sum
		r.Provenance.Source = append(r.Provenance.Source, results.SourceFile{Path: FeedbackPromptPath, SHA256: sum})
	}
	return nil
}

// Build takes the configuration's retriever and the scoring sandbox.
func (s *selfReflection) Build(ctx context.Context, res Resources) (Answerer, error) {
	r, err := res.Retriever(ctx)
	if err != nil {
		return nil, err
	}
	a := *s
	a.retriever, a.execute = r, res.Executor()
	return &a, nil
}

func (s *selfReflection) Name() results.System { return results.SystemSelfReflectionRAG }

// PromptFiles returns the prompt files of the data root the loop sends
// (FeedbackPrompt, embedded, is recorded apart).
func (s *selfReflection) PromptFiles() []string {
	return []string{PromptSRSystem, srUserPrompt(s.source), PromptSRFormatChecker, PromptSRCritic, PromptSRCriticFormatter}
}

func srUserPrompt(source int) string {
	switch source {
	case 1:
		return PromptSRUserCode
	case 2:
		return PromptSRUserDoc
	}
	return PromptSRUserLLMDoc
}

// RuntimeOutputBytes caps each stream of RuntimeOutput: its first and
// last RuntimeOutputBytes/2 bytes are kept around a marker naming the
// bytes dropped. MatTools sent the whole output (and its Docker sandbox had
// no output limit); a draft that prints arrays in a loop would otherwise
// send megabytes to the critic, past any context window.
const RuntimeOutputBytes = 16 << 10

// RuntimeOutput is the critic's {runtime_output}: json.dumps({"stdout":
// …, "stderr": …}, ensure_ascii=False, indent=2) of the stripped outputs,
// as the published loop writes DockerSandbox's result, each stream capped
// at RuntimeOutputBytes.
func RuntimeOutput(stdout, stderr string) string {
	return "{\n  \"stdout\": " + pystr.JSONString(capMiddle(pystr.Strip(stdout))) + ",\n  \"stderr\": " +
		pystr.JSONString(capMiddle(pystr.Strip(stderr))) + "\n}"
}

// capMiddle keeps the first and last RuntimeOutputBytes/2 bytes of s (at
// UTF-8 boundaries) around "[… N bytes dropped …]".
func capMiddle(s string) string {
	if len(s) <= RuntimeOutputBytes {
		return s
	}
	half := RuntimeOutputBytes / 2
	head := llm.CapText(s, half)
	tail := s[len(s)-half:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return head + fmt.Sprintf("\n[… %d bytes dropped …]\n", len(s)-len(head)-len(tail)) + tail
}

// refused reports whether err is the model's refusal of a request (HTTP
// 400, 413 or 422: typically a prompt past its context window), which ends
// the loop with the answer it has rather than failing the run.
func refused(err error) bool {
	var e *llm.Error
	return errors.As(err, &e) && (e.Status == 400 || e.Status == 413 || e.Status == 422)
}

// suggestion is the loop's state.suggestions.
type suggestion struct {
	kind                 string // "", "dict" (feedback + next retrieval), "text" (the critic's answer) or "fail"
	feedback, next, text string
}

func (s *selfReflection) Generate(ctx context.Context, q *datasets.Question, env Env) (Generation, error) {
	var g Generation
	if s.retriever == nil {
		return g, fmt.Errorf("system self-reflection-rag: no retriever for retrieval source %d", s.source)
	}
	if s.execute == nil {
		return g, fmt.Errorf("system self-reflection-rag executes its answers: it needs the sandbox (a scored run)")
	}
	texts := map[string]string{}
	for _, rel := range s.PromptFiles() {
		t, _, err := env.Prompts.Text(rel)
		if err != nil {
			return g, err
		}
		texts[rel] = t
	}
	userRel := srUserPrompt(s.source)
	ctxField := "retrieved_code_documents"
	if s.source == 1 {
		ctxField = "retrieved_code_segments"
	}
	question := pystr.Strip(q.Text)
	llmCall := func(it int, stage string, msgs []llm.Message) (*llm.Completion, error) {
		c, err := env.LLM.Complete(ctx, msgs)
		if err != nil {
			return nil, fmt.Errorf("self-reflection-rag, iteration %d, stage %s: %w", it+1, stage, err)
		}
		g.add(c)
		g.Trace = append(g.Trace, results.TraceStage{Stage: stage, Iteration: int32(it), PromptTokens: c.PromptTokens,
			CompletionTokens: c.CompletionTokens, LatencyMS: c.Latency.Milliseconds()})
		return c, nil
	}

	var (
		sug       suggestion
		retrieved string        // the context given to the generator
		memory    []llm.Message // feedback: the conversation so far
		answer    string
		runtime   string // the last execution's runtime output (or the format failure)
	)
	for it := 0; it < s.max; it++ {
		// Retrieve.
		query, retrieve := question, true
		switch sug.kind {
		case "dict":
			query = sug.next
		case "text":
			query = sug.text
		case "fail":
			retrieve = false
		}
		if retrieve {
			var err error
			if retrieved, err = s.retrieve(ctx, it, query, &g); err != nil {
				return g, err
			}
		}

		// Generate.
		var msgs []llm.Message
		if s.variant == VariantFeedback && it > 0 {
			critique := sug.feedback
			switch sug.kind {
			case "text":
				critique = sug.text
			case "fail":
				critique = "(none: the answer could not be executed)"
			}
			extra, err := format(FeedbackPrompt, FeedbackPromptPath, map[string]string{"runtime_output": runtime, "critique": critique, "retrieved_content": retrieved})
			if err != nil {
				return g, err
			}
			// The conversation is the first prompt, the previous answer and
			// this feedback: earlier turns are dropped, so the prompt does
			// not grow with the iterations.
			msgs = append(append([]llm.Message(nil), memory[:2]...), llm.Message{Role: "assistant", Content: answer}, llm.User(extra))
		} else {
			user, err := format(texts[userRel], userRel, map[string]string{"question": question, ctxField: retrieved})
			if err != nil {
				return g, err
			}
			msgs = []llm.Message{{Role: "system", Content: texts[PromptSRSystem]}, llm.User(user)}
			memory = append([]llm.Message(nil), msgs...)
		}
		c, err := llmCall(it, "generate", msgs)
		if err == nil {
			var check string
			if check, err = format(texts[PromptSRFormatChecker], PromptSRFormatChecker, map[string]string{"generated_code": c.Content}); err != nil {
				return g, err
			}
			c, err = llmCall(it, "format-check", []llm.Message{llm.User(check)})
		}
		if err != nil {
			if it > 0 && refused(err) {
				g.Trace = append(g.Trace, results.TraceStage{Stage: "generate", Iteration: int32(it), StopReason: "model-refused"})
				break // the previous iteration's answer stands
			}
			return g, err
		}
		answer = c.Content
		g.Response, g.FinishReason = c.Content, c.FinishReason

		// Execute.
		code, name, ok := ExtractCode(answer)
		stage := results.TraceStage{Stage: "execute", Iteration: int32(it), Verdict: string(results.VerdictNotRunnable)}
		stop := false
		if !q.Executable() {
			// Its data files are absent: nothing can run, and scoring leaves
			// the question out (data-missing); the first draft is the answer.
			stage.Verdict, stage.StopReason = string(results.VerdictDataMissing), "data-missing"
			g.Trace = append(g.Trace, stage)
			break
		}
		if !ok || code == "" || name == "" {
			runtime = FormatFailure
		} else if runtime, stop, err = s.run(ctx, it, q, code, name, &stage); err != nil {
			return g, err
		}
		switch {
		case stop:
			stage.StopReason = "complete-dict"
		case it == s.max-1:
			stage.StopReason = "max-iterations"
		}
		g.Trace = append(g.Trace, stage)
		if stop || it == s.max-1 {
			break
		}

		// Critic.
		if runtime == FormatFailure {
			sug = suggestion{kind: "fail"}
			continue
		}
		if sug, err = critique(it, llmCall, texts, question, answer, runtime); err != nil {
			if refused(err) {
				g.Trace[len(g.Trace)-1].StopReason = "model-refused" // this iteration's answer stands
				break
			}
			return g, err
		}
	}
	g.Code, g.FunctionName, g.Extracted = ExtractCode(answer)
	return g, nil
}

// retrieve searches the retrieval source for query (top-k) in iteration
// it and returns the generator's context (RAGContext), replacing g's
// retrieved chunks and recording a "retrieve" trace stage. As upstream's
// retrieve functions, which catch every exception, an empty query, or one
// the embeddings endpoint refuses (e.g. past its input limit), gives an
// empty context; any other retrieval error is returned.
func (s *selfReflection) retrieve(ctx context.Context, it int, query string, g *Generation) (string, error) {
	start := time.Now()
	var hits []retrieval.Hit
	if pystr.Strip(query) != "" {
		var err error
		if hits, err = s.retriever.Search(ctx, query, s.k); err != nil && !refused(err) {
			return "", fmt.Errorf("retrieval: %w", err)
		}
	}
	ids := make([]string, len(hits))
	g.Retrieved = g.Retrieved[:0]
	for i, h := range hits {
		ids[i] = h.ChunkID
		g.Retrieved = append(g.Retrieved, results.RetrievedChunk{ChunkID: h.ChunkID, Source: h.Source, Score: h.Score, Rank: int32(h.Rank)})
	}
	g.Trace = append(g.Trace, results.TraceStage{Stage: "retrieve", Iteration: int32(it), LatencyMS: time.Since(start).Milliseconds(), RetrievedIDs: ids})
	return RAGContext(s.source, hits), nil
}

// run executes iteration it's draft (function name of code) in the sandbox
// and returns its runtime output (RuntimeOutput; a timeout is appended to
// stderr as Python would report it) and whether the loop stops: the call
// printed something and returned a dict without None values (with at least
// one key, but for the as-published variant). stage gets the execution's
// latency and, for a dict, the verdict unknown (runnable as far as the loop
// can tell; scoring decides).
func (s *selfReflection) run(ctx context.Context, it int, q *datasets.Question, code, name string, stage *results.TraceStage) (runtime string, stop bool, err error) {
	ex, err := s.execute(ctx, q, code, name)
	if err != nil {
		return "", false, fmt.Errorf("self-reflection-rag, iteration %d: executing: %w", it+1, err)
	}
	stage.LatencyMS = ex.Duration.Milliseconds()
	stderr := ex.Stderr
	if ex.TimedOut {
		stderr += "\nTimeoutError: the sandbox stopped the program at its time limit of " + strconv.FormatFloat(ex.TimeoutSeconds, 'g', -1, 64) + " s"
	}
	if ex.Dict {
		stage.Verdict = string(results.VerdictUnknown)
	}
	stop = pystr.Strip(ex.Stdout) != "" && ex.Dict && ex.NoneValues == 0 && (s.variant == VariantAsPublished || ex.Keys > 0)
	return RuntimeOutput(ex.Stdout, stderr), stop, nil
}

// critique asks the critic about iteration it's answer and its runtime
// output, then the critic's formatter, through call (which records both
// calls), and returns the suggestion for the next iteration: feedback and
// the next retrieval query when the formatted critique holds both tags,
// else the critique's text. A model's refusal is returned as the error
// (refused reports it), so that the caller keeps this iteration's answer.
func critique(it int, call func(int, string, []llm.Message) (*llm.Completion, error), texts map[string]string, question, answer, runtime string) (suggestion, error) {
	critic, err := format(texts[PromptSRCritic], PromptSRCritic, map[string]string{"question": question, "generated_code": answer, "runtime_output": runtime})
	if err != nil {
		return suggestion{}, err
	}
	cc, err := call(it, "critic", []llm.Message{llm.User(critic)})
	if err != nil {
		return suggestion{}, err
	}
	fix, err := format(texts[PromptSRCriticFormatter], PromptSRCriticFormatter, map[string]string{"content": cc.Content})
	if err != nil {
		return suggestion{}, err
	}
	if cc, err = call(it, "critic-format-check", []llm.Message{llm.User(fix)}); err != nil {
		return suggestion{}, err
	}
	fb, next := feedbackTag.FindStringSubmatch(cc.Content), nextTag.FindStringSubmatch(cc.Content)
	if fb == nil || next == nil {
		return suggestion{kind: "text", text: cc.Content}, nil
	}
	return suggestion{kind: "dict", feedback: pystr.Strip(fb[1]), next: pystr.Strip(next[1])}, nil
}

// Estimate is an upper bound: every iteration runs (2 calls each) and the
// critic before each but the last (2 calls each), 4 × MaxIterations − 2
// calls (18 for 5); a question that stops early costs less. Prompt bytes
// assume k context chunks of 1,000 characters with their prefixes and
// answers of estimatedAgenticOutputBytes; the feedback variant's
// conversation grows by one answer and one feedback message per iteration.
func (s *selfReflection) Estimate(q *datasets.Question, p *Prompts) Estimate {
	text := func(rel string) int {
		t, _, _ := p.Text(rel)
		return len(t)
	}
	question := len(pystr.Strip(q.Text))
	ctx := s.k*(1000+120) + len(ContextSeparator)*max(0, s.k-1)
	answer, output := estimatedAgenticOutputBytes, estimatedAgenticOutputBytes
	generate := text(PromptSRSystem) + text(srUserPrompt(s.source)) + question + ctx
	perIteration := text(PromptSRFormatChecker) + answer
	critic := text(PromptSRCritic) + question + answer + output + text(PromptSRCriticFormatter) + answer
	n := 0
	for it := 0; it < s.max; it++ {
		g := generate
		if s.variant == VariantFeedback {
			g += it * (answer + len(FeedbackPrompt) + output + answer + ctx)
		}
		n += g + perIteration
		if it < s.max-1 {
			n += critic
		}
	}
	return Estimate{Calls: 4*s.max - 2, PromptBytes: n, Queries: s.max}
}
