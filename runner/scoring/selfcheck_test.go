package scoring_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/audit"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// expectedCode returns a generated function that returns the question's own
// expected properties, taken from its unit test's expected_properties
// literal (the statements before it, the imports, run first): the audit's
// probe (audit.ExpectedCode). mutate is Python applied to the dict `props`
// before it is returned, e.g. a deletion; it may call wrong(v), a value of
// v's type that differs from v.
func expectedCode(q *datasets.Question, mutate string) string {
	return audit.ExpectedCode(q, "expected_properties_of_the_question", "v", mutate)
}

func loadBenchmark(t *testing.T) *datasets.Benchmark {
	t.Helper()
	root := mattoolstest.DataRoot(t, "to check self-consistency on the MatTools questions")
	b, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// benchmarkDefects reads testdata/benchmark-defects.csv: the questions (and
// protocols) whose own expected properties do not score as fully correct,
// each with the reason.
func benchmarkDefects(t *testing.T) map[string]string {
	f, err := os.Open("testdata/benchmark-defects.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, rec := range recs[1:] {
		out[rec[0]+"/"+rec[1]] = rec[2] + " " + rec[3]
	}
	return out
}

type job struct {
	q      *datasets.Question
	label  string
	mutate string
	prop   string
	out    *scoring.Scored
	err    error
}

func scoreAll(t *testing.T, s *scoring.Scorer, jobs []*job) {
	t.Helper()
	ch := make(chan *job)
	var wg sync.WaitGroup
	for w := 0; w < s.Sandbox.Info().Slots; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				q := *j.q
				q.DataFiles = nil // the verification functions read no data files
				j.out, j.err = s.Score(context.Background(), &q, scoring.Submission{Code: expectedCode(j.q, j.mutate), FunctionName: "expected_properties_of_the_question"})
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	for _, j := range jobs {
		if j.err != nil {
			t.Fatalf("%s: %v", j.label, j.err)
		}
	}
}

// TestSelfConsistency: for each of the 49 questions, a function returning the
// question's own expected properties is scored correct with all of them under
// both protocols, unless testdata/benchmark-defects.csv lists the question
// with the verdict it gets instead and why.
func TestSelfConsistency(t *testing.T) {
	b := loadBenchmark(t)
	s := &scoring.Scorer{Sandbox: openSandbox(t), Root: fixtureRoot(t)}
	defects := benchmarkDefects(t)
	var jobs []*job
	for i := range b.Questions {
		jobs = append(jobs, &job{q: &b.Questions[i], label: b.Questions[i].ID})
	}
	scoreAll(t, s, jobs)
	correct := map[string]int{}
	for _, j := range jobs {
		k := len(j.q.Properties)
		for _, o := range []scoring.Outcome{j.out.Outcomes[results.ProtocolMatToolsV1], j.out.Outcomes[results.ProtocolMatToolsV1Strict]} {
			got := fmt.Sprintf("%s %d", o.Verdict, o.PropertiesPassed)
			if o.Verdict == results.VerdictCorrect && o.PropertiesPassed == k {
				correct[o.Protocol]++
				if d, ok := defects[j.q.ID+"/"+o.Protocol]; ok {
					t.Errorf("%s %s: correct, but benchmark-defects.csv lists it as %q", j.q.ID, o.Protocol, d)
				}
				continue
			}
			d, ok := defects[j.q.ID+"/"+o.Protocol]
			if !ok || !strings.HasPrefix(d, got+" ") && d != got {
				t.Errorf("%s %s: %s (%s) with %d of %d properties; not listed as such in benchmark-defects.csv (listed: %q)\n  detail: %s\n  errors: %q",
					j.q.ID, o.Protocol, o.Verdict, o.Cause, o.PropertiesPassed, k, d, tailString([]byte(o.Detail+o.VerificationOutput), 600), o.Errors)
			}
		}
	}
	t.Logf("self-consistency: correct with all properties: mattools-v1 %d/49, mattools-v1-strict %d/49", correct[results.ProtocolMatToolsV1], correct[results.ProtocolMatToolsV1Strict])
}

// TestSelfConsistencyPerProperty (heavy: MATTOOLS_SELFCHECK=full): for every
// one of the 138 properties, dropping it and giving it a wrong value of the
// same type. Strict must lose exactly that property; v1 must give what
// docs/mattools.md §2.4 E predicts (L[-1] − L[-2] with the unit test's
// error strings, or all k when the output contains "ok"). Differences are
// listed (t.Log) and counted; they are the documented exceptions.
func TestSelfConsistencyPerProperty(t *testing.T) {
	if os.Getenv("MATTOOLS_SELFCHECK") != "full" {
		t.Skip("heavy (276 scorings, about 10 minutes on 2 cores): set MATTOOLS_SELFCHECK=full (make selfcheck)")
	}
	b := loadBenchmark(t)
	s := &scoring.Scorer{Sandbox: openSandbox(t), Root: fixtureRoot(t)}
	var jobs []*job
	for i := range b.Questions {
		q := &b.Questions[i]
		for _, p := range q.Properties {
			jobs = append(jobs,
				&job{q: q, prop: p.Name, label: "drop", mutate: fmt.Sprintf("del props[%q]", p.Name)},
				&job{q: q, prop: p.Name, label: "wrong", mutate: fmt.Sprintf("props[%q] = wrong(props[%q])", p.Name, p.Name)})
		}
	}
	scoreAll(t, s, jobs)
	var lines []string
	exact := map[string]int{}
	for _, j := range jobs {
		k := len(j.q.Properties)
		st, v1 := j.out.Outcomes[results.ProtocolMatToolsV1Strict], j.out.Outcomes[results.ProtocolMatToolsV1]
		strictOK := st.Verdict == results.VerdictPartial && st.PropertiesPassed == k-1
		if k == 1 && j.label == "drop" {
			// Dropping the only property leaves {}: no dict under both protocols.
			strictOK = st.Verdict == results.VerdictNotRunnable && st.Cause == scoring.CauseNoDict
		}
		// §2.4 E: "ok" anywhere in the check's output → all k; else L[-1] − L[-2].
		v1Want := fmt.Sprintf("partial %d", k-len(v1.Errors))
		if strings.Contains(v1.VerificationOutput, "ok") {
			v1Want = fmt.Sprintf("correct %d", k)
		}
		if k == 1 && j.label == "drop" {
			v1Want = "not-runnable 0"
		}
		v1Got := fmt.Sprintf("%s %d", v1.Verdict, v1.PropertiesPassed)
		v1OK := v1Got == v1Want && (v1.Verdict != results.VerdictPartial || len(v1.Errors) == 1 || j.q.ID == "test_HarmonicDefect")
		if strictOK {
			exact["strict"]++
		}
		if v1OK {
			exact["v1"]++
		}
		if v1Got != v1Want {
			// The tally must always be §2.4 E applied to the check's own output.
			t.Errorf("%s %s %s: v1 %s, but §2.4 E on its output gives %s", j.q.ID, j.prop, j.label, v1Got, v1Want)
		}
		if !strictOK && st.Verdict == results.VerdictCorrect {
			t.Errorf("%s %s %s: strict scores a dropped or wrong property as correct", j.q.ID, j.prop, j.label)
		}
		if !strictOK || !v1OK || len(v1.Errors) > 1 {
			lines = append(lines, fmt.Sprintf("%s\t%s\t%s\tk=%d\tstrict=%s %s %d\tv1=%s (errors %d, §2.4E %s)\t%s",
				j.q.ID, j.prop, j.label, k, st.Verdict, st.Cause, st.PropertiesPassed, v1Got, len(v1.Errors), v1Want,
				strings.ReplaceAll(tailString([]byte(strings.Join(append(st.Errors, st.Detail), " | ")), 300), "\n", " ")))
		}
	}
	sort.Strings(lines)
	report := fmt.Sprintf("per-property self-consistency: %d cases; strict loses exactly that property in %d; v1 matches §2.4 E with one error string per property in %d\n%s\n",
		len(jobs), exact["strict"], exact["v1"], strings.Join(lines, "\n"))
	t.Log(report)
	if out := os.Getenv("MATTOOLS_SELFCHECK_OUT"); out != "" {
		os.WriteFile(out, []byte(report), 0o644)
	}
}
