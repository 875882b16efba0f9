// Command check-api updates the committed store of hallucinated-API checks
// (site/apicheck/names.json): for the generated code of every tool-usage run
// under the given results folders that the store does not hold yet, it lists
// the pymatgen / pymatgen-analysis-defects names the code imports or reads
// that do not exist in the pinned libraries. The code is parsed with Python's
// ast module and never executed (scripts/api-check/check_api.py, run with the
// sandbox's Python).
//
//	check-api [-python /opt/mattools-sandbox/bin/python] [-store site/apicheck/names.json] [results-dir ...]
//
// With no folder it reads build/results. A store made in another library
// environment is checked again from scratch.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"

	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/apicheck"
)

func main() { os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-api", flag.ContinueOnError)
	fs.SetOutput(stderr)
	python := fs.String("python", "/opt/mattools-sandbox/bin/python", "the sandbox's Python interpreter (pinned pymatgen)")
	store := fs.String("store", apicheck.StorePath, "the store to update")
	repo := fs.String("repo", ".", "the repository root (for "+apicheck.ScriptPath+")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		dirs = []string{"build/results"}
	}
	s := &apicheck.Store{Codes: map[string]apicheck.Result{}}
	if data, err := os.ReadFile(*store); err == nil {
		if s, err = apicheck.Parse(data); err != nil {
			fmt.Fprintln(stderr, "check-api:", err)
			return 1
		}
	}
	var codes []string
	for _, d := range dirs {
		files, invalid, err := results.ReadDirReport(d)
		if err != nil {
			fmt.Fprintln(stderr, "check-api:", err)
			return 1
		}
		for _, inv := range invalid {
			fmt.Fprintf(stderr, "check-api: skipped %v\n", inv)
		}
		for _, f := range files {
			for _, q := range f.Questions {
				if _, ok := s.Lookup(q.Code); !ok && q.Code != "" {
					codes = append(codes, q.Code)
				}
			}
		}
	}
	got, env, err := apicheck.Check(ctx, *python, *repo, codes)
	if err != nil {
		fmt.Fprintln(stderr, "check-api:", err)
		return 1
	}
	if len(s.Environment) > 0 && !maps.Equal(s.Environment, env) {
		fmt.Fprintf(stderr, "check-api: the store was made with %v, this interpreter has %v: run again on every code after removing %s\n", s.Environment, env, *store)
		return 1
	}
	s.Environment = env
	s.About = "Hallucinated-API checks of generated code (cmd/check-api, scripts/api-check/check_api.py): per code (first 16 hex digits of its SHA-256), " +
		"the pymatgen names it imports or reads that do not exist in the environment below; the code is parsed with ast, never executed."
	added := 0
	for k, r := range got {
		if _, ok := s.Codes[k]; !ok {
			added++
		}
		s.Codes[k] = r
	}
	if err := results.WriteFileAtomic(*store, s.Marshal(), 0o644); err != nil {
		fmt.Fprintln(stderr, "check-api:", err)
		return 1
	}
	fmt.Fprintf(stdout, "check-api: %s checked, %d added; the store holds %d (%s)\n", words.Count(len(got), "code", "codes"), added, len(s.Codes), *store)
	return 0
}
