// Command gen-docs writes LLM documentation of pymatgen's code objects
// (the text of retrieval sources 3 and 4) with an OpenAI-compatible model,
// in upstream's JSON schema (corpus.LoadLLMDocs reads it):
//
//	gen-docs [-data DIR] [-under pymatgen/analysis/defects] -model M
//	         [-base-url URL] [-api-key-env OPENAI_API_KEY]
//	         [-concurrency 4] [-rpm 0] [-out build/llm-docs/<model>.json]
//	         [-journal <out>.journal.jsonl] [-max-answer-bytes 65536]
//	         [-dry-run [-price-in $/Mtok -price-out $/Mtok]] [-python P]
//
// It walks the objects (runner/docgen.Walk), asks the model once per
// object not yet in the journal (runner/docgen.Generate: resumable, a
// progress bar with ETA on stderr), writes -out, and prints the objects,
// the calls made, the flagged answers and the wall time. The API key is
// read from the environment variable named by -api-key-env, never from a
// flag. -dry-run walks and prints the objects, calls and estimated tokens
// (and cost, with prices) without any request.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/runner/docgen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen-docs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := cliflags.Data(fs, nil, "")
	under := fs.String("under", "pymatgen", "folder to document, e.g. pymatgen/analysis/defects")
	model := fs.String("model", "", "model id")
	baseURL := fs.String("base-url", "https://api.openai.com/v1", "OpenAI-compatible base URL")
	keyEnv := fs.String("api-key-env", "OPENAI_API_KEY", "name of the environment variable holding the API key")
	conc := fs.Int("concurrency", 4, "requests in flight")
	rpm := fs.Float64("rpm", 0, "requests per minute (0 = unlimited)")
	out := fs.String("out", "", "output JSON (default build/llm-docs/<model>.json)")
	journal := fs.String("journal", "", "journal (default <out without .json>.journal.jsonl)")
	maxAnswer := fs.Int("max-answer-bytes", docgen.DefaultMaxAnswerBytes, "cap of one answer; longer ones are cut and flagged")
	dry := fs.Bool("dry-run", false, "print objects, calls and estimated tokens and cost; send nothing")
	priceIn := fs.Float64("price-in", 0, "price per million prompt tokens (dry run)")
	priceOut := fs.Float64("price-out", 0, "price per million completion tokens (dry run)")
	python := fs.String("python", docgen.DefaultPython, "Python interpreter for parsing (run with -I)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return 2
	}
	if *data == "" {
		fmt.Fprintf(stderr, "gen-docs: no data root: give -data or set %s\n", datasets.EnvVar)
		return 2
	}
	start := time.Now()
	objs, err := docgen.Walk(*data, *under, *python)
	if err != nil {
		fmt.Fprintln(stderr, "gen-docs:", err)
		return 1
	}
	if *dry {
		e := docgen.EstimateCalls(objs, *maxAnswer)
		edges := 0
		for _, o := range objs {
			edges += len(o.Calls)
		}
		fmt.Fprintf(stdout, "dry run: %s (prompt %s)\n", *under, docgen.PromptSHA256)
		fmt.Fprintf(stdout, "objects: %d\ncalls: %d\nestimated prompt tokens: %d\nestimated completion tokens: %d\n", e.Objects, e.Calls, e.PromptTokens, e.CompletionTokens)
		fmt.Fprintf(stdout, "static call edges between objects: %d\n", edges)
		if *priceIn > 0 || *priceOut > 0 {
			fmt.Fprintf(stdout, "estimated cost: $%.2f (at $%g / $%g per million prompt / completion tokens)\n", e.Cost(*priceIn, *priceOut), *priceIn, *priceOut)
		}
		return 0
	}
	if *model == "" {
		fmt.Fprintln(stderr, "gen-docs: -model is required")
		return 2
	}
	if *out == "" {
		*out = filepath.Join("build", "llm-docs", strings.ReplaceAll(*model, "/", "_")+".json")
	}
	if *journal == "" {
		*journal = strings.TrimSuffix(*out, ".json") + ".journal.jsonl"
	}
	key := ""
	if *keyEnv != "" {
		key = os.Getenv(*keyEnv)
		os.Unsetenv(*keyEnv) // no child process may inherit the key
	}
	client, err := llm.New(llm.Config{BaseURL: *baseURL, APIKey: key, Model: *model, RequestsPerMinute: *rpm})
	if err != nil {
		fmt.Fprintln(stderr, "gen-docs:", err)
		return 1
	}
	fmt.Fprintf(stderr, "gen-docs %s: %d objects under %s, model %s, prompt %s\n", version.String(), len(objs), *under, *model, docgen.PromptSHA256)
	res, err := docgen.Generate(ctx, objs, client, docgen.Options{Concurrency: *conc, Journal: *journal, Out: *out, MaxAnswerBytes: *maxAnswer, Progress: stderr,
		Endpoint: llm.RedactURL(*baseURL)})
	if res != nil {
		fmt.Fprintf(stdout, "objects: %d (%d from the journal)\ncalls made: %d (%d answered, %d failed)\nflagged: %d empty (dropped), %d oversize (capped at %d bytes)\ntokens: %d prompt, %d completion\nwall time: %s\n",
			res.Objects, res.Resumed, res.Requested, res.Completions, res.Failed, res.Empty, res.Oversize, *maxAnswer,
			res.PromptTokens, res.CompletionTokens, time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		fmt.Fprintln(stderr, "gen-docs:", err)
		return 1
	}
	// The sidecar names who wrote the documents (the runner labels sources
	// 3 and 4 with it): <out>.origin, written atomically.
	if err := atomicfile.WriteFile(*out+".origin", []byte(res.Origin+"\n"), 0o644); err != nil {
		fmt.Fprintln(stderr, "gen-docs:", err)
		return 1
	}
	c := corpus.BuildLLMDocFull(res.Docs, res.Origin)
	fmt.Fprintf(stdout, "wrote %s: %d documents; source-4 corpus %s (%s)\n", *out, len(res.Docs), c.ID, c.Origin)
	return 0
}
