package sitetest

import (
	"fmt"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// GPT35 is a catalogued model that has LLM-RAG runs only in AdvancedRuns.
const GPT35 = "gpt-3.5-turbo-0125"

// FeedbackPromptSHA256 is the feedback_prompt_sha256 system parameter of
// AdvancedRuns' self-reflection feedback variant.
var FeedbackPromptSHA256 = strings.Repeat("ab", 32)

// Properties passed per question (10, 4 and 1 properties) of each
// configuration of AdvancedRuns, the same in rounds 1–3. Task success rate
// = sum / 15: LLM-RAG source 4 GPT-4o 9/15 = 60%, agentic RAG 12/15 = 80%,
// self-reflection as published 6/15 = 40%, feedback 13/15 = 86.67%,
// LLM-RAG source 1 GPT-4o 3/15 = 20%, LLM-RAG source 4 GPT-3.5 10/15 =
// 66.67%, and LLM-RAG source 4 GPT-4o under mattools-v1-strict 8/15.
var (
	AdvancedRAG4         = [3]int32{5, 3, 1}
	AdvancedAgentic      = [3]int32{10, 2, 0}
	AdvancedAsPublished  = [3]int32{5, 0, 1}
	AdvancedFeedback     = [3]int32{10, 2, 1}
	AdvancedRAG1         = [3]int32{3, 0, 0}
	AdvancedOtherRAG4    = [3]int32{6, 3, 1}
	AdvancedStrictRAG4   = [3]int32{5, 2, 1}
	AdvancedAgenticTrace = []string{"keywords", "queries", "retrieve", "rerank", "ner", "lookup", "answer"}
)

// AdvancedRuns returns runner runs (question set "tiny", 3 questions, 15
// properties, rounds 1–3, scored under mattools-v1 unless said) that
// exercise the advanced-systems board:
//   - GPT-4o: agentic RAG on source 4, self-reflection RAG on source 4 in
//     two variants (system parameter variant "as-published", and
//     "feedback" with max_iterations and feedback_prompt_sha256), LLM-RAG
//     on sources 4 and 1, and LLM-RAG on source 4 under mattools-v1-strict
//     (a protocol no advanced system was scored under);
//   - GPT-3.5: LLM-RAG on source 4 only (no advanced system).
//
// Every question row of the agentic and self-reflection runs carries a
// stage trace: agentic RAG's stages (AdvancedAgenticTrace) in iteration 0;
// self-reflection's retrieve, generate, format-check, execute in
// iterations 0 and 1, a critic between them, and stop reason
// "complete-dict" (correct questions) or "max-iterations" on the last
// execute stage. Retrieval stages name chunk ids "<question>#<n>".
func AdvancedRuns() []*results.File {
	type conf struct {
		sys      results.System
		src      int
		model    string
		protocol string
		params   map[string]string
		passed   [3]int32
	}
	confs := []conf{
		{results.SystemLLMRAG, 4, GPT4o, results.ProtocolMatToolsV1, nil, AdvancedRAG4},
		{results.SystemLLMRAG, 1, GPT4o, results.ProtocolMatToolsV1, nil, AdvancedRAG1},
		{results.SystemLLMRAG, 4, GPT4o, results.ProtocolMatToolsV1Strict, nil, AdvancedStrictRAG4},
		{results.SystemLLMRAG, 4, GPT35, results.ProtocolMatToolsV1, nil, AdvancedOtherRAG4},
		{results.SystemAgenticRAG, 4, GPT4o, results.ProtocolMatToolsV1, nil, AdvancedAgentic},
		{results.SystemSelfReflectionRAG, 4, GPT4o, results.ProtocolMatToolsV1,
			map[string]string{"variant": "as-published", "max_iterations": "5"}, AdvancedAsPublished},
		{results.SystemSelfReflectionRAG, 4, GPT4o, results.ProtocolMatToolsV1,
			map[string]string{"variant": "feedback", "max_iterations": "5", "feedback_prompt_sha256": FeedbackPromptSHA256}, AdvancedFeedback},
	}
	var fs []*results.File
	for _, c := range confs {
		for round := 1; round <= 3; round++ {
			r := baseRun(results.BenchmarkToolUsage, c.sys, c.src, c.model, c.protocol, results.ProvenanceRunner, round)
			r.RetrievalMethod, r.TopK, r.SystemParams = "bm25", 5, c.params
			f := &results.File{Run: r}
			runnable, passed, correct, partial := 0, 0, 0, 0
			for i, q := range Questions {
				p := c.passed[i]
				row := results.QuestionRow{QuestionIndex: int32(i), QuestionID: q.ID, PropertyCount: int32(q.Props),
					Code: fmt.Sprintf("def f():\n    # %s source %d round %d\n    return {}\n", c.sys, c.src, round), FunctionName: "f",
					Runnable: ptr(p > 0), PropertiesPassed: ptr(p)}
				switch {
				case p == int32(q.Props):
					row.Verdict = string(results.VerdictCorrect)
					correct++
				case p > 0:
					row.Verdict = string(results.VerdictPartial)
					partial++
				default:
					row.Verdict, row.VerdictCause, row.Code, row.FunctionName = string(results.VerdictNotRunnable), "empty-code", "", ""
				}
				if p > 0 {
					runnable++
				}
				passed += int(p)
				row.Trace = advancedTrace(c.sys, q.ID, results.Verdict(row.Verdict))
				f.Questions = append(f.Questions, row)
			}
			f.Run.Totals = results.Totals{Scored: true, Questions: 3, Properties: 15, Runnable: ptr(runnable), PropertiesPassed: ptr(passed),
				QuestionsCorrect: ptr(correct), QuestionsPartial: ptr(partial)}
			f.Run.RunID = results.MakeRunID(&f.Run)
			fs = append(fs, f)
		}
	}
	return fs
}

// advancedTrace is the stage trace of one answer (nil for LLM-RAG).
func advancedTrace(sys results.System, qid string, v results.Verdict) []results.TraceStage {
	ids := func(it int) []string {
		return []string{fmt.Sprintf("%s#%d", qid, 2*it+1), fmt.Sprintf("%s#%d", qid, 2*it+2)}
	}
	switch sys {
	case results.SystemAgenticRAG:
		var out []results.TraceStage
		for i, st := range AdvancedAgenticTrace {
			s := results.TraceStage{Stage: st, LatencyMS: int64(100 * (i + 1))}
			if st == "retrieve" || st == "lookup" {
				s.RetrievedIDs = ids(i)
			} else {
				s.PromptTokens, s.CompletionTokens = int64(1000+i), int64(50+i)
			}
			out = append(out, s)
		}
		return out
	case results.SystemSelfReflectionRAG:
		var out []results.TraceStage
		for it := int32(0); it < 2; it++ {
			out = append(out,
				results.TraceStage{Stage: "retrieve", Iteration: it, LatencyMS: 20, RetrievedIDs: ids(int(it))},
				results.TraceStage{Stage: "generate", Iteration: it, PromptTokens: 2000, CompletionTokens: 300, LatencyMS: 1500},
				results.TraceStage{Stage: "format-check", Iteration: it, PromptTokens: 400, CompletionTokens: 300, LatencyMS: 900})
			ex := results.TraceStage{Stage: "execute", Iteration: it, LatencyMS: 2500, Verdict: string(results.VerdictNotRunnable)}
			if it == 1 {
				ex.Verdict = string(v)
				ex.StopReason = "max-iterations"
				if v == results.VerdictCorrect {
					ex.StopReason = "complete-dict"
				}
				out = append(out, ex)
				continue
			}
			out = append(out, ex, results.TraceStage{Stage: "critic", Iteration: it, PromptTokens: 1200, CompletionTokens: 150, LatencyMS: 800})
		}
		return out
	}
	return nil
}
