package systems

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
)

func init() {
	Register(Registration{Name: results.SystemAgenticRAG, Needs: Needs{Retriever: true, CodeObjects: true}, New: newAgenticRAG,
		Plan: plan.SystemSpec{Section: "agentic", NewSettings: func() any { return new(AgenticSettings) },
			Check: checkAgentic, Expand: expandAgentic}})
}

// AgenticSettings are the plan's [agentic] section.
type AgenticSettings struct {
	// NameLookup: "as-published" (MatTools' lookup, which never finds an
	// object in its file: both lookups give "No matching item found.") or
	// "metadata-name" (match the documents' metadata name, as the paper
	// describes it, up to 5 objects a name); a configuration of its own.
	// Default "as-published".
	NameLookup string `toml:"name_lookup"`
}

// checkAgentic checks [agentic], and that a plan naming agentic-rag lists
// retrieval source 3 or 4.
func checkAgentic(c *plan.SectionChecker, settings any) {
	a, p := settings.(*AgenticSettings), c.Plan()
	if a.NameLookup == "" {
		a.NameLookup = LookupAsPublished
	}
	if l := a.NameLookup; l != LookupAsPublished && l != LookupMetadataName {
		c.Add("agentic.name_lookup", "is %q; want %s or %s", l, LookupAsPublished, LookupMetadataName)
	}
	if slices.Contains(p.Systems, results.SystemAgenticRAG) && !slices.Contains(p.RetrievalSources, 3) && !slices.Contains(p.RetrievalSources, 4) {
		c.Add("retrieval_sources", "holds neither 3 nor 4, which agentic-rag needs (it looks objects up in the LLM-written documentation, as MatTools)")
	}
}

// expandAgentic sets the name lookup ("" for a plan without settings).
func expandAgentic(settings any, c plan.Configuration) []plan.Configuration {
	if a, _ := settings.(*AgenticSettings); a != nil {
		c.NameLookup = a.NameLookup
	}
	return []plan.Configuration{c}
}

// The agentic-RAG prompt files (prompts layout), from MatTools
// src/agentic_RAG_test/prompt.py and text_analysis_tool.py.
const (
	PromptAgenticChatWrapper    = "agentic_rag/chat_wrapper.txt"           // format_chat_prompt, with an instruction
	PromptAgenticKeywords       = "agentic_rag/keywords.txt"               // TextAnalysisTool.keyword
	PromptAgenticQueries        = "agentic_rag/query_generation.txt"       // query_generation_prompt_str
	PromptAgenticRerankSystem   = "agentic_rag/relevance_ranking.txt"      // relevance_ranking_instruction
	PromptAgenticRerankUser     = "agentic_rag/relevance_ranking_user.txt" // relevance_ranking_guideline
	PromptAgenticRAG            = "agentic_rag/rag.txt"                    // rag_prompt_str
	PromptAgenticNERSystem      = "agentic_rag/ner_system.txt"             // nerquery's instruction
	PromptAgenticNERUser        = "agentic_rag/ner_user.txt"               // nerquery's query
	PromptAgenticFinal          = "agentic_rag/rag_final_answer.txt"       // rag_ar_prompt_str
	agenticQueries              = 4                                        // generate_queries(prompt, 4)
	agenticRerankKeep           = 5                                        // rerank keeps the top 5
	AgenticMaxRerankAttempts    = 10                                       // rerank: max_retries = 10
	AgenticMaxFinalAttempts     = 10                                       // attempt_rag_ar: max_attempts = 10
	agenticNoMatch              = "No matching item found."                // JsonFileProcessor's answer when nothing matches
	agenticCodeRule             = "--------------\n\n"                     // around each retrieved object's code
	estimatedDocBytes           = 2000                                     // a source-4 document, for estimates
	estimatedCodeBytes          = 2500                                     // an object's code, for estimates
	estimatedAgenticOutputBytes = 1500                                     // keyword, query, NER and RAG answers, for estimates
)

// agenticRAG is MatTools' agentic RAG (PymatgenRepoAssistant.respond of
// src/agentic_RAG_test/rag.py; docs/mattools.md §5), stage by stage:
//
//  1. the question (stripped) is wrapped as "User: {q}\nAssistant: " (the
//     chat wrapper without an instruction);
//  2. keywords: one call, the wrapped prompt asking for ≤ 3 code keywords;
//  3. queries: one call writing 4 search queries, one per line (empty
//     lines and "```" dropped);
//  4. each query retrieves k = 5; hits are deduplicated by their text (first
//     position, last hit's metadata, as a Python dict keeps them), and each
//     hit's object gives "--------------\n\n{file}\n\n{code}--------------\n\n";
//  5. rerank (system: the ranker's instruction; user: the question and
//     str(list) of the texts), JSON mode: the top 5 contents by
//     relevance_score; up to 10 attempts while the JSON is unusable, then
//     every document;
//  6. rag: an answer from the reranked documents joined by blank lines;
//  7. NER twice, JSON mode: one object name from the RAG answer, one from
//     the wrapped prompt + the keywords' answer ("" when unusable);
//  8. lookup of each name in the LLM documentation: as published
//     (LookupAsPublished) it never matches, and gives "No matching item
//     found." for the code and the markdown; LookupMetadataName returns the
//     code and markdown of up to 5 objects of that name;
//  9. the documents and the looked-up markdown merged and reranked; the
//     looked-up code and the retrieved code merged and reranked;
//  10. the final answer, JSON mode: {"function_name", "function"} from
//     str(list) of the code and of the documents; up to 10 attempts until
//     both are non-empty, else "" and "".
//
// That is ≥ 9 calls per question. Where the published code would stop with
// an exception (a JSON answer that is a list or lacks its key, a
// non-numeric relevance score, a non-string content or function), this
// system counts the answer as unusable instead and goes on as for a parse
// failure (a null content or score too; only numeric scores are sorted,
// where Python would also sort all-string ones); it does not sleep a second
// between attempts; and with LookupMetadataName the set of looked-up
// documents keeps first-seen order (Python's set order is not reproducible).
type agenticRAG struct {
	source, k int
	json      bool
	lookup    string
	asked     string // the name lookup as configured (system parameter name_lookup)
	// Set by Build.
	retriever retrieval.Retriever
	objects   CodeObjects
}

// Agentic RAG's name lookups (system parameter "name_lookup").
const (
	// LookupAsPublished is the lookup as MatTools' code runs it:
	// JsonFileProcessor.recursive_search compares "name" only on dicts that
	// are list items, which in the lookup file (construct_doc.ipynb:
	// [{"page_content", "metadata": {…}}], all metadata values scalars) are
	// the documents themselves, which have no "name": it never finds
	// anything, and both lookups give "No matching item found.".
	LookupAsPublished = "as-published"
	// LookupMetadataName matches metadata.name, as the paper describes the
	// lookup, keeping at most MaxLookupObjects objects per name (pymatgen
	// defines __init__ 556 times).
	LookupMetadataName = "metadata-name"
	MaxLookupObjects   = 5
)

// NameLookups lists agentic RAG's name lookups.
var NameLookups = []string{LookupAsPublished, LookupMetadataName}

func newAgenticRAG(p Params) (System, error) {
	if p.RetrievalSource != 3 && p.RetrievalSource != 4 {
		return nil, fmt.Errorf("system agentic-rag needs retrieval source 3 or 4 (the LLM-written documentation, as MatTools); got %d", p.RetrievalSource)
	}
	k := p.TopK
	if k == 0 {
		k = DefaultTopK
	}
	if k < 0 {
		return nil, fmt.Errorf("system agentic-rag: top-k %d; want ≥ 1", k)
	}
	lookup := p.NameLookup
	if lookup == "" {
		lookup = LookupAsPublished
	}
	if lookup != LookupAsPublished && lookup != LookupMetadataName {
		return nil, fmt.Errorf("system agentic-rag: name lookup %q; want one of %v", lookup, NameLookups)
	}
	return &agenticRAG{source: p.RetrievalSource, k: k, json: p.JSONMode, lookup: lookup, asked: p.NameLookup}, nil
}

func (s *agenticRAG) Name() results.System { return results.SystemAgenticRAG }

// Record records the response format of the JSON-mode calls (a model
// setting that changes the requests: part of the configuration, as
// generation setting response_format) and the name lookup (system
// parameter name_lookup).
func (s *agenticRAG) Record(_ Resources, r *results.Run) error {
	mode := "none"
	if s.json {
		mode = "json_object"
	}
	r.Generation.Extra = map[string]string{"response_format": mode}
	if r.SystemParams == nil {
		r.SystemParams = map[string]string{}
	}
	r.SystemParams["name_lookup"] = s.asked
	return nil
}

// Build takes the configuration's retriever and the code objects of its
// LLM documentation.
func (s *agenticRAG) Build(ctx context.Context, res Resources) (Answerer, error) {
	r, err := res.Retriever(ctx)
	if err != nil {
		return nil, err
	}
	objs, err := res.CodeObjects()
	if err != nil {
		return nil, err
	}
	a := *s
	a.retriever, a.objects = r, objs
	return &a, nil
}

// PromptFiles returns the nine prompt files agentic RAG sends.
func (s *agenticRAG) PromptFiles() []string {
	return []string{PromptAgenticChatWrapper, PromptAgenticKeywords, PromptAgenticQueries, PromptAgenticRerankSystem,
		PromptAgenticRerankUser, PromptAgenticRAG, PromptAgenticNERSystem, PromptAgenticNERUser, PromptAgenticFinal}
}

// agenticPrompts are the texts, read once per question.
type agenticPrompts struct {
	wrapper, keywords, queries, rerankSys, rerankUser, rag, nerSys, nerUser, final string
}

func loadAgenticPrompts(p *Prompts) (*agenticPrompts, error) {
	var a agenticPrompts
	for _, f := range []struct {
		rel string
		dst *string
	}{{PromptAgenticChatWrapper, &a.wrapper}, {PromptAgenticKeywords, &a.keywords}, {PromptAgenticQueries, &a.queries},
		{PromptAgenticRerankSystem, &a.rerankSys}, {PromptAgenticRerankUser, &a.rerankUser}, {PromptAgenticRAG, &a.rag},
		{PromptAgenticNERSystem, &a.nerSys}, {PromptAgenticNERUser, &a.nerUser}, {PromptAgenticFinal, &a.final}} {
		t, _, err := p.Text(f.rel)
		if err != nil {
			return nil, err
		}
		*f.dst = t
	}
	// format_chat_prompt without an instruction is the same f-string
	// without its "System:{instruction}\n" line.
	const sysLine = "System:{instruction}\n"
	if !strings.HasPrefix(a.wrapper, sysLine) {
		return nil, fmt.Errorf("prompt %s: want a text starting %q, as format_chat_prompt's", PromptAgenticChatWrapper, sysLine)
	}
	a.wrapper = strings.TrimPrefix(a.wrapper, sysLine)
	return &a, nil
}

// agenticRun is the state of one question.
type agenticRun struct {
	s   *agenticRAG
	env Env
	p   *agenticPrompts
	g   *Generation
}

func (r *agenticRun) call(ctx context.Context, stage string, msgs []llm.Message, json bool) (*llm.Completion, error) {
	c, err := call(ctx, r.env.LLM, msgs, json && r.s.json)
	if err != nil {
		return nil, fmt.Errorf("agentic-rag, stage %s: %w", stage, err)
	}
	r.g.add(c)
	r.g.Trace = append(r.g.Trace, results.TraceStage{Stage: stage, PromptTokens: c.PromptTokens,
		CompletionTokens: c.CompletionTokens, LatencyMS: c.Latency.Milliseconds()})
	return c, nil
}

func format(tmpl, rel string, fields map[string]string) (string, error) {
	out, err := pystr.Format(tmpl, fields)
	if err != nil {
		return "", fmt.Errorf("prompt %s: %w", rel, err)
	}
	return out, nil
}

// rerank is PymatgenRepoAssistant.rerank: the top agenticRerankKeep
// contents of the first usable JSON answer, or docs when ten are not.
func (r *agenticRun) rerank(ctx context.Context, question string, docs []string) ([]string, error) {
	user, err := format(r.p.rerankUser, PromptAgenticRerankUser, map[string]string{"query": question, "docs": pystr.ReprList(docs)})
	if err != nil {
		return nil, err
	}
	msgs := []llm.Message{{Role: "system", Content: r.p.rerankSys}, llm.User(user)}
	for range AgenticMaxRerankAttempts {
		c, err := r.call(ctx, "rerank", msgs, true)
		if err != nil {
			return nil, err
		}
		if top, ok := RerankAnswer(c.Content); ok {
			return top, nil
		}
	}
	return docs, nil
}

// RerankAnswer reads a reranking answer as rerank does: a JSON object whose
// "documents" is a list of objects with "content" and "relevance_score";
// it returns the contents of the (at most) 5 highest scores, in descending
// order of score (ties in answer order, as Python's stable sort). ok is
// false for anything else (here a non-string content or a non-numeric
// score too, which would stop the published code).
func RerankAnswer(content string) (top []string, ok bool) {
	var answer map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &answer) != nil {
		return nil, false
	}
	var docs []map[string]json.RawMessage
	if json.Unmarshal(answer["documents"], &docs) != nil || answer["documents"] == nil || string(answer["documents"]) == "null" {
		return nil, false
	}
	type scored struct {
		content string
		score   float64
	}
	list := make([]scored, 0, len(docs))
	for _, d := range docs {
		var sc scored
		c, r := d["content"], d["relevance_score"]
		if d == nil || isNull(c) || isNull(r) || json.Unmarshal(c, &sc.content) != nil || json.Unmarshal(r, &sc.score) != nil {
			return nil, false
		}
		list = append(list, sc)
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].score > list[j].score })
	top = []string{}
	for i := 0; i < len(list) && i < agenticRerankKeep; i++ {
		top = append(top, list[i].content)
	}
	return top, true
}

// NERName reads a NER answer as respond does: str(json.loads(answer)["name"]),
// "" when the answer is not a JSON object with a "name". A string is taken
// as is; null, true and false as Python's None, True and False; a number
// as its JSON text.
func NERName(content string) string {
	var answer map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &answer) != nil {
		return ""
	}
	raw, ok := answer["name"]
	if !ok {
		return ""
	}
	t := strings.TrimSpace(string(raw))
	var s string
	if t != "null" && json.Unmarshal(raw, &s) == nil {
		return s
	}
	switch {
	case t == "null":
		return "None"
	case t == "true":
		return "True"
	case t == "false":
		return "False"
	case len(t) > 0 && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')):
		return pyNumber(t)
	}
	return "" // an object or a list: str() would give its repr; treated as no name
}

// isNull reports whether a JSON value is absent or null.
func isNull(r json.RawMessage) bool { return r == nil || strings.TrimSpace(string(r)) == "null" }

// pyNumber returns str() of the value json.loads gives for the JSON number
// t: an integer as written (without a leading minus on zero), a float as
// Python's repr (shortest round-trip digits, ".0" on whole numbers,
// exponent form below 1e-4 and from 1e16: 1e5 → "100000.0", 1.50 → "1.5",
// 1e-05 → "1e-05", 1e16 → "1e+16").
func pyNumber(t string) string {
	if !strings.ContainsAny(t, ".eE") {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
		return strings.TrimPrefix(t, "+")
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return t
	}
	if f == 0 || (math.Abs(f) >= 1e-4 && math.Abs(f) < 1e16) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // e.g. 1e-05 → "1e-05", 1.5e+20 → "1.5e+20"
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	if len(exp) < 2 {
		exp = strings.Repeat("0", 2-len(exp)) + exp
	}
	return mant + "e" + string(sign) + exp
}

// FinalAnswer reads a final answer as extract_response does: from a JSON
// object, "function" and "function_name" stripped ("" when absent or not
// strings).
func FinalAnswer(content string) (code, name string) {
	var answer map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &answer) != nil {
		return "", ""
	}
	json.Unmarshal(answer["function"], &code)
	json.Unmarshal(answer["function_name"], &name)
	return pystr.Strip(code), pystr.Strip(name)
}

// dedupe returns items without repeats, in first-seen order (Python's
// list(dict.fromkeys(items))).
func dedupe(items []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range items {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func (s *agenticRAG) Generate(ctx context.Context, q *datasets.Question, env Env) (Generation, error) {
	var g Generation
	if s.retriever == nil {
		return g, fmt.Errorf("system agentic-rag: no retriever for retrieval source %d", s.source)
	}
	if s.objects == nil {
		return g, fmt.Errorf("system agentic-rag: no code objects of retrieval source %d for the name lookup", s.source)
	}
	p, err := loadAgenticPrompts(env.Prompts)
	if err != nil {
		return g, err
	}
	r := &agenticRun{s: s, env: env, p: p, g: &g}
	question := pystr.Strip(q.Text)
	prompt, err := format(p.wrapper, PromptAgenticChatWrapper, map[string]string{"message": question})
	if err != nil {
		return g, err
	}

	// 2–3. Keywords and queries.
	kwPrompt, err := format(p.keywords, PromptAgenticKeywords, map[string]string{"query": prompt})
	if err != nil {
		return g, err
	}
	kw, err := r.call(ctx, "keywords", []llm.Message{llm.User(kwPrompt)}, false)
	if err != nil {
		return g, err
	}
	qPrompt, err := format(p.queries, PromptAgenticQueries, map[string]string{"num_queries": strconv.Itoa(agenticQueries), "query": prompt})
	if err != nil {
		return g, err
	}
	qc, err := r.call(ctx, "queries", []llm.Message{llm.User(qPrompt)}, false)
	if err != nil {
		return g, err
	}
	var queries []string
	for _, line := range strings.Split(qc.Content, "\n") {
		if line != "```" && line != "" {
			queries = append(queries, line)
		}
	}

	// 4. Retrieve per query; deduplicate by text.
	docs, code, err := r.retrieve(ctx, queries)
	if err != nil {
		return g, err
	}

	// 5–6. Rerank, then the RAG answer.
	reranked, err := r.rerank(ctx, question, docs)
	if err != nil {
		return g, err
	}
	ragPrompt, err := format(p.rag, PromptAgenticRAG, map[string]string{"query": prompt, "information": strings.Join(reranked, "\n\n")})
	if err != nil {
		return g, err
	}
	rag, err := r.call(ctx, "generate", []llm.Message{llm.User(ragPrompt)}, false)
	if err != nil {
		return g, err
	}

	// 7–8. NER twice, then the name lookups.
	var names [2]string
	for i, msg := range []string{rag.Content, prompt + kw.Content} {
		user, err := format(p.nerUser, PromptAgenticNERUser, map[string]string{"message": msg})
		if err != nil {
			return g, err
		}
		c, err := r.call(ctx, "ner", []llm.Message{{Role: "system", Content: p.nerSys}, llm.User(user)}, true)
		if err != nil {
			return g, err
		}
		names[i] = NERName(c.Content)
	}
	foundCode, foundDocs := r.lookup(names)

	// 9. Merge and rerank documents, then code.
	reranked, err = r.rerank(ctx, question, dedupe(append(append([]string{}, reranked...), dedupe(foundDocs)...)))
	if err != nil {
		return g, err
	}
	relatedCode, err := r.rerank(ctx, question, dedupe(append(dedupe(foundCode), code...)))
	if err != nil {
		return g, err
	}

	// 10. The final answer.
	final, err := format(p.final, PromptAgenticFinal, map[string]string{"query": prompt,
		"related_code": pystr.ReprList(relatedCode), "embedding_recall": pystr.ReprList(reranked)})
	if err != nil {
		return g, err
	}
	for range AgenticMaxFinalAttempts {
		c, err := r.call(ctx, "answer", []llm.Message{llm.User(final)}, true)
		if err != nil {
			return g, err
		}
		g.Response, g.FinishReason = c.Content, c.FinishReason
		if fn, name := FinalAnswer(c.Content); fn != "" && name != "" {
			g.Code, g.FunctionName, g.Extracted = fn, name, true
			break
		}
	}
	return g, nil
}

// retrieve searches the retrieval source once per query (top-k each),
// deduplicating hits by text (the first position, the last hit's values,
// as upstream's dict does); it returns the documents and, for each, its
// code object framed by agenticCodeRule, in that order, recording a
// "retrieve" trace stage per query and the retrieved chunks.
func (r *agenticRun) retrieve(ctx context.Context, queries []string) (docs, code []string, err error) {
	type unique struct {
		text, chunk, source string
		score               float64
	}
	var uniq []unique
	pos := map[string]int{}
	for _, query := range queries {
		start := time.Now()
		hits, err := r.s.retriever.Search(ctx, query, r.s.k)
		if err != nil {
			return nil, nil, fmt.Errorf("retrieval: %w", err)
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.ChunkID
			u := unique{h.Text, h.ChunkID, h.Source, h.Score}
			if at, ok := pos[h.Text]; ok {
				uniq[at] = u // the dict keeps the first position and the last value
			} else {
				pos[h.Text] = len(uniq)
				uniq = append(uniq, u)
			}
		}
		r.g.Trace = append(r.g.Trace, results.TraceStage{Stage: "retrieve", LatencyMS: time.Since(start).Milliseconds(), RetrievedIDs: ids})
	}
	docs = make([]string, len(uniq))
	code = make([]string, len(uniq))
	for i, u := range uniq {
		docs[i] = u.text
		file, c, ok := r.s.objects.ByChunk(u.chunk)
		if !ok {
			return nil, nil, fmt.Errorf("system agentic-rag: chunk %s has no code object in retrieval source %d", u.chunk, r.s.source)
		}
		code[i] = agenticCodeRule + file + "\n\n" + c + agenticCodeRule
		r.g.Retrieved = append(r.g.Retrieved, results.RetrievedChunk{ChunkID: u.chunk, Source: u.source, Score: u.score, Rank: int32(i + 1)})
	}
	return docs, code, nil
}

// lookup looks each NER name up among the code objects by metadata name
// (at most MaxLookupObjects each; agenticNoMatch for a name with none, or
// when the lookup is off), recording a "lookup" trace stage per name.
func (r *agenticRun) lookup(names [2]string) (foundCode, foundDocs []string) {
	for _, name := range names {
		var codes, mds []string
		if r.s.lookup == LookupMetadataName && name != "" {
			codes, mds = r.s.objects.ByName(name)
			codes, mds = codes[:min(len(codes), MaxLookupObjects)], mds[:min(len(mds), MaxLookupObjects)]
		}
		if len(codes) == 0 && len(mds) == 0 {
			codes, mds = []string{agenticNoMatch}, []string{agenticNoMatch}
		}
		foundCode = append(foundCode, codes...)
		foundDocs = append(foundDocs, mds...)
		r.g.Trace = append(r.g.Trace, results.TraceStage{Stage: "lookup"})
	}
	return foundCode, foundDocs
}

// Estimate counts the nine calls of a question without retries; the prompt
// bytes assume source-4 documents of estimatedDocBytes, object code of
// estimatedCodeBytes and short answers of estimatedAgenticOutputBytes (the
// documents are unknown before retrieval).
func (s *agenticRAG) Estimate(q *datasets.Question, p *Prompts) Estimate {
	a, err := loadAgenticPrompts(p)
	if err != nil {
		return Estimate{Calls: 9, Queries: agenticQueries}
	}
	prompt := len(a.wrapper) + len(pystr.Strip(q.Text))
	out := estimatedAgenticOutputBytes
	docs := func(n, size int) int { return n * (size + 4) }
	n := len(a.keywords) + prompt + // keywords
		len(a.queries) + prompt + // queries
		len(a.rerankSys) + len(a.rerankUser) + len(q.Text) + docs(agenticQueries*s.k, estimatedDocBytes) + // rerank 1
		len(a.rag) + prompt + docs(agenticRerankKeep, estimatedDocBytes) + // rag
		2*(len(a.nerSys)+len(a.nerUser)) + out + prompt + out + // ner ×2
		len(a.rerankSys) + len(a.rerankUser) + len(q.Text) + docs(agenticRerankKeep+2, estimatedDocBytes) + // rerank 2
		len(a.rerankSys) + len(a.rerankUser) + len(q.Text) + docs(agenticQueries*s.k+2, estimatedCodeBytes) + // rerank 3
		len(a.final) + prompt + docs(2*agenticRerankKeep, (estimatedDocBytes+estimatedCodeBytes)/2) // answer
	return Estimate{Calls: 9, PromptBytes: n, Queries: agenticQueries}
}
