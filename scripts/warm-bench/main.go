// Command warm-bench measures the warm workers of the local sandbox against
// cold executions, in one run:
//
//  1. per-execution overhead: one execution of an empty script, and the
//     scoring (run, parse, verify) of an empty function returning {"a": 1},
//     cold and warm, median of -n;
//  2. one stored run (default: GPT-4o single LLM round 1, the executable
//     questions), every question scored cold and warm on one slot, one after
//     another, against the pure-compute bound: each question's code and
//     verification timed inside one warm interpreter with every preloaded
//     module imported (no interpreter start, no import, no parse, no second
//     or third process).
//
// Wall times on one slot, so a question's time is its CPU time plus waits;
// the machine's load is printed with the figures.
//
//	MATTOOLS_DATA=... go run ./scripts/warm-bench [-n 10] [-run REGEXP]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// bound is the pure-compute harness: the code and its question's unit test
// in one interpreter whose imports are done, timed around each.
const bound = `import json, os, time
code = open("/sbx/function.py", encoding="utf-8").read()
name = open("/sbx/name.txt", encoding="utf-8").read()
test = open("/sbx/unit_test.py", encoding="utf-8").read()
qid = open("/sbx/qid.txt", encoding="utf-8").read()
t0 = time.perf_counter()
value = None
try:
    ns = {"__name__": "__main__"}
    exec(compile(code, "/app/main.py", "exec"), ns)
    value = eval(compile(name + "()", "<call>", "eval"), ns)
except BaseException:
    pass
t1 = time.perf_counter()
try:
    tns = {"__name__": "__main__"}
    exec(compile(test, "/app/unit_test.py", "exec"), tns)
    tns[qid](value if isinstance(value, dict) else {})
except BaseException:
    pass
t2 = time.perf_counter()
os.write(3, json.dumps({"code": t1 - t0, "verify": t2 - t1}).encode())
`

func main() {
	n := flag.Int("n", 10, "repetitions of the overhead measurements")
	runRE := flag.String("run", `^imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-original__r1$`, "the stored run (regular expression over published run ids)")
	python := flag.String("python", "/opt/mattools-sandbox", "the sandbox's Python environment")
	flag.Parse()
	root, err := datasets.RootFromEnv()
	if err != nil {
		fail(err)
	}
	root, _ = filepath.Abs(root)
	bench, err := datasets.Load(root)
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	dataDir := filepath.Join(root, "src", "tool_source_code")
	open := func(cold bool) *scoring.Scorer {
		o := sandbox.Options{Slots: 1, Python: *python, DataDirs: []string{dataDir}, Cold: cold}
		if !cold {
			o.Preload = scoring.Preload
		}
		sb, err := sandbox.Open(ctx, "local", o)
		if err != nil {
			fail(err)
		}
		return &scoring.Scorer{Sandbox: sb, Root: root}
	}
	t := time.Now()
	cold := open(true)
	defer cold.Close()
	warm := open(false)
	defer warm.Close()
	fmt.Printf("sandboxes open in %v (the warm worker imports %d modules once); load average %s\n\n", time.Since(t).Round(time.Millisecond), len(scoring.Preload), loadavg())

	// 1. Overhead.
	vacancy, ok := bench.Question("test_vacancy")
	if !ok {
		fail(fmt.Errorf("no test_vacancy in %s", root))
	}
	empty := scoring.Submission{Code: "def f():\n    return {\"a\": 1}\n", FunctionName: "f"}
	type measure struct {
		name string
		fn   func(*scoring.Scorer) error
	}
	for _, m := range []measure{
		{"one execution of an empty script", func(s *scoring.Scorer) error {
			res, err := s.Sandbox.Run(ctx, sandbox.Spec{Files: map[string][]byte{"p.py": []byte("pass")}, Argv: []string{"python3", "-I", "/sbx/p.py"}})
			if err == nil && res.ExitCode != 0 {
				err = fmt.Errorf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			return err
		}},
		{"scoring an empty function (run, parse, verify)", func(s *scoring.Scorer) error {
			sc, err := s.Score(ctx, vacancy, empty)
			// MatTools' question test_vacancy, scored as MatTools scores it.
			if o := sc.Outcomes[results.ProtocolMatToolsV1]; err == nil && o.Verdict != results.VerdictPartial {
				err = fmt.Errorf("verdict %s %s", o.Verdict, o.Cause)
			}
			return err
		}},
	} {
		med := func(s *scoring.Scorer) time.Duration {
			var ds []time.Duration
			for range *n {
				t := time.Now()
				if err := m.fn(s); err != nil {
					fail(fmt.Errorf("%s: %w", m.name, err))
				}
				ds = append(ds, time.Since(t))
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			return ds[len(ds)/2]
		}
		c, w := med(cold), med(warm)
		fmt.Printf("%-50s cold %8.1f ms   warm %7.1f ms   cold/warm %5.1f×\n", m.name, ms(c), ms(w), float64(c)/float64(w))
	}

	// 2. The stored run.
	re, err := regexp.Compile(*runRE)
	if err != nil {
		fail(err)
	}
	imp, err := published.Read(root, published.Options{Reexecuted: published.NewReexecuted()})
	if err != nil {
		fail(err)
	}
	var run *results.File
	for _, f := range imp.Files {
		if f.Run.Benchmark == results.BenchmarkToolUsage && re.MatchString(f.Run.RunID) { // a published MatTools run
			run = f
			break
		}
	}
	if run == nil {
		fail(fmt.Errorf("no published tool-usage run matches %s", *runRE))
	}
	code := map[string]scoring.Submission{}
	for _, q := range run.Questions {
		code[q.QuestionID] = scoring.Submission{Code: q.Code, FunctionName: q.FunctionName}
	}
	var coldT, warmT, boundT time.Duration
	questions, same := 0, 0
	for i := range bench.Questions {
		q := &bench.Questions[i]
		if !q.Executable() {
			continue
		}
		sub := code[q.ID]
		questions++
		t := time.Now()
		c, err := cold.Score(ctx, q, sub)
		if err != nil {
			fail(err)
		}
		coldT += time.Since(t)
		t = time.Now()
		w, err := warm.Score(ctx, q, sub)
		if err != nil {
			fail(err)
		}
		warmT += time.Since(t)
		if sameVerdicts(c, w) {
			same++
		}
		var files []string
		for _, f := range q.DataFiles {
			files = append(files, strings.TrimPrefix(f.Path, "tool_source_code/"))
		}
		res, err := warm.Sandbox.Run(ctx, sandbox.Spec{Files: map[string][]byte{"bound.py": []byte(bound), "function.py": []byte(sub.Code),
			"name.txt": []byte(sub.FunctionName), "unit_test.py": []byte(q.UnitTest), "qid.txt": []byte(q.ID)},
			Argv: []string{"python3", "-I", "/sbx/bound.py"}, DataDir: dataDir, DataFiles: files})
		if err != nil {
			fail(err)
		}
		var b struct{ Code, Verify float64 }
		if json.Unmarshal(res.Side, &b) != nil {
			fail(fmt.Errorf("%s: the bound harness reported %q (stderr %q)", q.ID, res.Side, res.Stderr))
		}
		boundT += time.Duration((b.Code + b.Verify) * float64(time.Second))
	}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(questions) }
	fmt.Printf("\n%s: %d questions, both protocols, one slot; load average %s\n", run.Run.RunID, questions, loadavg())
	fmt.Printf("  cold   %6.3f s per question (%.1f s in all)\n", per(coldT), coldT.Seconds())
	fmt.Printf("  warm   %6.3f s per question (%.1f s in all)   cold/warm %.1f×\n", per(warmT), warmT.Seconds(), float64(coldT)/float64(warmT))
	fmt.Printf("  bound  %6.3f s per question (code + verification, one warm interpreter)   warm/bound %.1f×\n", per(boundT), float64(warmT)/float64(boundT))
	fmt.Printf("  verdicts equal cold and warm: %d of %d questions (both protocols)\n", same, questions)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "warm-bench:", err)
	os.Exit(1)
}

// sameVerdicts reports whether a and b have the same verdict, cause and
// properties passed under every protocol.
func sameVerdicts(a, b *scoring.Scored) bool {
	if len(a.Outcomes) != len(b.Outcomes) {
		return false
	}
	for p, x := range a.Outcomes {
		y, ok := b.Outcomes[p]
		if !ok || x.Verdict != y.Verdict || x.PropertiesPassed != y.PropertiesPassed || x.Cause != y.Cause {
			return false
		}
	}
	return true
}
