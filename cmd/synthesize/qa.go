package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/docgen"
	"github.com/mattools-leaderboard/leaderboard/synth/qasynth"
)

// qaFlags are the flags of the QA synthesis (-qa doc|code).
type qaFlags struct {
	set, docs, under, out, journal, model, baseURL, keyEnv, python string
	only                                                           *regexp.Regexp
	conc                                                           int
	rpm, temp, priceIn, priceOut                                   float64
	dry                                                            bool
}

// runQA synthesises a QA set (synth/qasynth; docs/synthesis.md §6) from
// the documents of -docs (an LLM-documentation file in upstream's schema:
// upstream's documents_llm_doc_gemini_20_flash_full.json or cmd/gen-docs
// output) or, without -docs, from the code objects under -under walked as
// cmd/gen-docs walks them (their code is all the code set needs; the doc
// set then only dry-runs, its texts estimated).
func runQA(ctx context.Context, data string, f qaFlags, stdout, stderr io.Writer) int {
	start := time.Now()
	p, err := qasynth.LoadPrompt(data, f.set, f.python)
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	var docs []corpus.LLMDoc
	from := f.docs
	if f.docs != "" {
		if docs, err = corpus.LoadLLMDocs(f.docs); err != nil {
			fmt.Fprintln(stderr, "synthesize:", err)
			return 1
		}
	} else {
		if f.set == qasynth.SetDoc && !f.dry {
			fmt.Fprintln(stderr, "synthesize: the doc set is made from the documents' texts: give -docs (upstream's documents_llm_doc_gemini_20_flash_full.json or cmd/gen-docs output)")
			return 2
		}
		objs, err := docgen.Walk(data, f.under, f.python)
		if err != nil {
			fmt.Fprintln(stderr, "synthesize:", err)
			return 1
		}
		for _, o := range objs {
			docs = append(docs, corpus.LLMDoc{Metadata: corpus.LLMDocMetadata{CodeSourceFile: o.File, Type: o.Kind, Name: o.Name,
				CodeStartLine: o.StartLine, CodeEndLine: o.EndLine, HaveReturn: o.HaveReturn, CodeContent: o.Code, NameColumn: o.NameColumn,
				ItemStatus: "doc_has_not_been_generated"}})
		}
		from = "code objects under " + f.under + " (walked)"
	}
	if f.only != nil {
		var kept []corpus.LLMDoc
		for i, id := range qasynth.DocIDs(docs) {
			if f.only.MatchString(id) {
				kept = append(kept, docs[i])
			}
		}
		docs = kept
		from += ", matching -only " + f.only.String()
	}
	if f.dry {
		e := qasynth.EstimateCalls(docs, p)
		fmt.Fprintf(stdout, "dry run: QA set %s from %s\n", f.set, from)
		fmt.Fprintf(stdout, "prompt %s:%s %s\n", p.Source, p.Variable, p.SHA256)
		fmt.Fprintf(stdout, "documents: %d\n", e.Documents)
		if e.PagesEstimated > 0 {
			fmt.Fprintf(stdout, "documents without a text (estimated as cmd/gen-docs' answer): %d\n", e.PagesEstimated)
		}
		fmt.Fprintf(stdout, "calls: %d (up to %d if every answer is rejected %d times)\nexpected questions: %d (%.2f a document, as upstream's)\nestimated prompt tokens: %d\nestimated completion tokens: %d\n",
			e.Calls, e.MaxCalls, qasynth.MaxAttempts, e.Items, qasynth.ItemsPerDocument(f.set), e.PromptTokens, e.CompletionTokens)
		if f.priceIn > 0 || f.priceOut > 0 {
			fmt.Fprintf(stdout, "estimated cost: $%.2f (at $%g / $%g per million prompt / completion tokens)\n", e.Cost(f.priceIn, f.priceOut), f.priceIn, f.priceOut)
		} else {
			fmt.Fprintln(stdout, "cost unknown (no price given: -price-in, -price-out)")
		}
		return 0
	}
	if f.model == "" {
		fmt.Fprintln(stderr, "synthesize: -model is required")
		return 2
	}
	if f.out == "" {
		f.out = filepath.Join("build", "synth", "generation_results_"+f.set+"-"+strings.ReplaceAll(f.model, "/", "_")+".json")
	}
	if f.journal == "" {
		f.journal = strings.TrimSuffix(f.out, ".json") + ".journal.jsonl"
	}
	key := ""
	if f.keyEnv != "" {
		key = os.Getenv(f.keyEnv)
		os.Unsetenv(f.keyEnv)
	}
	temp := f.temp
	if temp < 0 {
		temp = qasynth.UpstreamTemperature
	}
	client, err := llm.New(llm.Config{BaseURL: f.baseURL, APIKey: key, Model: f.model, RequestsPerMinute: f.rpm, Params: llm.Params{Temperature: &temp}})
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	fmt.Fprintf(stderr, "synthesize %s: QA set %s from %d documents of %s, model %s, prompt %s\n", version.String(), f.set, len(docs), from, f.model, p.SHA256)
	res, err := qasynth.Generate(ctx, docs, p, client, qasynth.Options{Concurrency: f.conc, Journal: f.journal, Endpoint: llm.RedactURL(f.baseURL), Progress: stderr})
	if res != nil {
		fmt.Fprintf(stdout, "documents: %d (%d finished)\ncalls: %d from the journal, %d made (%d answered, %d failed)\ntokens: %d prompt, %d completion\nwall time: %s\n",
			res.Documents, res.Finished, res.Resumed, res.Requested, res.Completions, res.Failed, res.PromptTokens, res.CompletionTokens, time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	entries, rv := qasynth.Build(docs, res.Docs, f.set, f.model, p)
	if err := qasynth.WriteSet(f.out, entries, rv); err != nil {
		fmt.Fprintln(stderr, "synthesize:", err)
		return 1
	}
	byRule := map[string]int{}
	for _, d := range rv.Dropped {
		for _, r := range d.Rules {
			byRule[r]++
		}
	}
	fmt.Fprintf(stdout, "answers rejected by check_answer: %d documents dropped after %d attempts\n", len(rv.Rejected), qasynth.MaxAttempts)
	fmt.Fprintf(stdout, "questions: %d, kept %d, dropped %d %v\n", rv.Items, rv.Kept, len(rv.Dropped), byRule)
	fmt.Fprintf(stdout, "correct letters A B C D: %v as written, %v rebalanced\n", rv.LettersBefore, rv.LettersAfter)
	fmt.Fprintf(stdout, "wrote %s: %d documents, %d questions (review %s)\n", f.out, len(entries), rv.Kept, qasynth.ReviewPath(f.out))
	return 0
}
