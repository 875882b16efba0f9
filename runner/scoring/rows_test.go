package scoring_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// TestQuestionSetOfTheDataRoot: the question set of a scored run is the
// questions whose data files the root holds (on a copy without the large files, 28 of the
// 49, with 93 of the 138 properties; on a full checkout "all"). The
// expectation comes from the committed manifest and os.Stat of each data
// file, the name from its documented rule (docs/runner.md: "executable-"
// and the first 8 hex digits of the SHA-256 of the ids joined by newlines).
// Restrict narrows it to the questions asked for.
func TestQuestionSetOfTheDataRoot(t *testing.T) {
	b := loadBenchmark(t)
	var ids []string
	props := 0
	for _, e := range datasets.Manifest() {
		ok := true
		for _, f := range e.DataFiles {
			st, err := os.Stat(filepath.Join(b.Root, "src", filepath.FromSlash(f)))
			ok = ok && err == nil && st.Mode().IsRegular()
		}
		if ok {
			ids = append(ids, e.ID)
			props += e.Properties
		}
	}
	want := fmt.Sprintf("all %d %d 0", len(ids), props)
	if len(ids) < datasets.NumQuestions {
		sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
		want = fmt.Sprintf("executable-%x %d %d %d", sum[:4], len(ids), props, len(ids))
	}
	qs := scoring.QuestionSet(b)
	if got := fmt.Sprintf("%s %d %d %d", qs.Name, qs.Questions, qs.Properties, len(qs.IDs)); got != want {
		t.Errorf("question set (name, questions, properties, ids) %q; the data files under %s/src give %q", got, b.Root, want)
	}
	if len(ids) < datasets.NumQuestions && strings.Join(qs.IDs, ",") != strings.Join(ids, ",") {
		t.Errorf("question set ids %v; want %v", qs.IDs, ids)
	}
	// test_vacancy (10 properties), test_boltzmann (1), test_pchip_eval (1).
	if err := scoring.Restrict(b, []string{"test_vacancy", "test_boltzmann", "test_pchip_eval"}); err != nil {
		t.Fatal(err)
	}
	qs = scoring.QuestionSet(b)
	if qs.Questions != 3 || qs.Properties != 12 || strings.Join(qs.IDs, ",") != "test_vacancy,test_pchip_eval,test_boltzmann" {
		t.Errorf("restricted set %+v; want the 3 questions in the published order, 12 properties", qs)
	}
	if err := scoring.Restrict(b, []string{"test_nothing"}); err == nil || !strings.Contains(err.Error(), "test_nothing") {
		t.Errorf("unknown id: %v", err)
	}
}

// TestFillRowFromATrimmedScoredIsTheSame: the runner journals a Scored cut
// to what FillRow keeps; the rows it fills are those of the whole output.
func TestFillRowFromATrimmedScoredIsTheSame(t *testing.T) {
	s := &scoring.Scored{
		Outcomes: map[string]scoring.Outcome{
			results.ProtocolMatToolsV1: {Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: 2,
				Errors: []string{"b: wrong"}, VerificationOutput: `["b: wrong", 1, 3]`},
			results.ProtocolMatToolsV1Strict: {Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: 2,
				Errors: []string{"b: wrong"}, FailedProperties: []string{"b"}}},
		Stdout: []byte(strings.Repeat("o", 9000) + "é"), StdoutDropped: 5, // 9,002 bytes: 5,002 cut, 5 dropped by the sandbox
		Stderr: []byte("é" + strings.Repeat("e", 6000)), StderrDropped: 1, // 6,002 bytes: the first 2,002 cut
		ExecDuration: 1500 * time.Millisecond,
	}
	trimmed := *s
	trimmed.Stdout, trimmed.Stderr = append([]byte(nil), s.Stdout...), append([]byte(nil), s.Stderr...)
	trimmed.Trim()
	if len(trimmed.Stdout) != scoring.ExcerptBytes || trimmed.StdoutDropped != 5+5002 || len(trimmed.Stderr) != scoring.ExcerptBytes || trimmed.StderrDropped != 1+2002 {
		t.Fatalf("trimmed: %d bytes (+%d), %d bytes (+%d)", len(trimmed.Stdout), trimmed.StdoutDropped, len(trimmed.Stderr), trimmed.StderrDropped)
	}
	for _, p := range scoring.Protocols {
		var a, b results.QuestionRow
		s.FillRow(&a, p)
		trimmed.FillRow(&b, p)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: rows differ:\n%s\n%s", p, rowText(a), rowText(b))
		}
		if *a.StdoutDroppedBytes != 5007 || *a.StderrDroppedBytes != 2003 || *a.ExecMS != 1500 || *a.PropertiesPassed != 2 || *a.ErrorExcerpt != "b: wrong" {
			t.Errorf("%s: row %s", p, rowText(a))
		}
		// The output is valid UTF-8, so the recorded lengths are exact: what the function wrote.
		if *a.StdoutBytes != int64(len(s.Stdout))+s.StdoutDropped || *a.StderrBytes != int64(len(s.Stderr))+s.StderrDropped ||
			*a.ErrorExcerptBytes != int64(len("b: wrong")) {
			t.Errorf("%s: original lengths stdout %d, stderr %d, error %d", p, *a.StdoutBytes, *a.StderrBytes, *a.ErrorExcerptBytes)
		}
		if p == results.ProtocolMatToolsV1 && (a.VerificationOutputBytes == nil || *a.VerificationOutputBytes != int64(len(s.Outcomes[results.ProtocolMatToolsV1].VerificationOutput))) {
			t.Errorf("%s: verification output length %v", p, a.VerificationOutputBytes)
		}
	}
}

// TestTallyCountsRowsAsResultAnalysis: totals are sums over the rows that
// are not data-missing; partial credit counts as runnable.
func TestTallyCountsRowsAsResultAnalysis(t *testing.T) {
	row := func(id string, v results.Verdict, runnable bool, passed int32) results.QuestionRow {
		r := results.QuestionRow{QuestionID: id, Verdict: string(v)}
		if v != results.VerdictDataMissing {
			r.Runnable, r.PropertiesPassed = &runnable, &passed
		}
		return r
	}
	rows := []results.QuestionRow{
		row("a", results.VerdictCorrect, true, 3),
		row("b", results.VerdictPartial, true, -1), // v1 arithmetic may go negative
		row("c", results.VerdictNotRunnable, false, 0),
		row("d", results.VerdictDataMissing, false, 0),
		row("e", results.VerdictVerificationCrash, true, 0), // strict: runnable
	}
	tot, missing := scoring.Tally(rows, results.QuestionSet{Questions: 4, Properties: 9})
	// runnable a, b, e = 3; passed 3 − 1 + 0 + 0 = 2; correct 1, partial 1.
	got := fmt.Sprintf("%d %d %d %d %d/%d %v", *tot.Runnable, *tot.PropertiesPassed, *tot.QuestionsCorrect, *tot.QuestionsPartial, tot.Questions, tot.Properties, missing)
	if got != "3 2 1 1 4/9 [d]" || !tot.Scored {
		t.Errorf("tally %q", got)
	}
}

func rowText(r results.QuestionRow) string {
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return fmt.Sprintf("%q", *p)
	}
	return fmt.Sprintf("%s %s %s out=%d %s err=%d %s v=%s failed=%q", r.Verdict, r.VerdictCause, s(r.ErrorExcerpt), len(*r.StdoutExcerpt),
		fmt.Sprint(*r.StdoutDroppedBytes), len(*r.StderrExcerpt), fmt.Sprint(*r.StderrDroppedBytes), s(r.VerificationOutput), r.FailedProperties)
}

// TestEveryProtocolHasAnOutcome: each tool-usage protocol of the registry
// resolves to its own outcome of a Scored, and a protocol the scorer does
// not score (mattools-original, QA's, a misspelling) is an error that
// leaves the row as it was, not a silent mattools-v1.
func TestEveryProtocolHasAnOutcome(t *testing.T) {
	s := &scoring.Scored{QuestionID: "q", PropertyCount: 3, Outcomes: map[string]scoring.Outcome{
		results.ProtocolMatToolsV1:       {Protocol: results.ProtocolMatToolsV1, Verdict: results.VerdictPartial, Runnable: true, PropertiesPassed: 1},
		results.ProtocolMatToolsV1Strict: {Protocol: results.ProtocolMatToolsV1Strict, Verdict: results.VerdictCorrect, Runnable: true, PropertiesPassed: 3}}}
	if len(scoring.Protocols) != 2 {
		t.Fatalf("Protocols = %q; want mattools-v1 and mattools-v1-strict", scoring.Protocols)
	}
	for _, p := range scoring.Protocols {
		o, err := s.Outcome(p)
		if err != nil || o.Protocol != p {
			t.Errorf("Outcome(%q) = %+v, %v; want the outcome of %s", p, o, err, p)
		}
	}
	for _, p := range []string{results.ProtocolMatToolsOriginal, results.ProtocolQAV1, "mattools-v1-stict", ""} {
		if o, err := s.Outcome(p); err == nil {
			t.Errorf("Outcome(%q) = %+v; want an error", p, o)
		}
		row := results.QuestionRow{QuestionID: "q", Verdict: "untouched"}
		if err := s.FillRow(&row, p); err == nil || row.Verdict != "untouched" || row.Runnable != nil {
			t.Errorf("FillRow(%q) = %v, row %+v; want an error and the row left as it was", p, err, row)
		}
	}
}

// TestDefaultLimitsAgree: the plan's default wall-clock limit is tool-usage
// scoring's, and the CPU-time limit, which decides verdicts, is below the
// wall-clock limit, the safety net.
func TestDefaultLimitsAgree(t *testing.T) {
	if plan.DefaultSandboxTimeout != scoring.DefaultLimits.Wall || scoring.DefaultLimits.CPU <= 0 || scoring.DefaultLimits.CPU >= scoring.DefaultLimits.Wall {
		t.Errorf("plan.DefaultSandboxTimeout %v, scoring.DefaultLimits %+v", plan.DefaultSandboxTimeout, scoring.DefaultLimits)
	}
}

// TestScoredReadsTheFormerLayout: a Scored journaled or cached before
// outcomes were keyed by protocol (fields V1, Strict, Others) reads into
// Outcomes, each under its protocol, and the current layout round-trips.
func TestScoredReadsTheFormerLayout(t *testing.T) {
	old := `{"QuestionID":"q","PropertyCount":2,"V1":{"Protocol":"mattools-v1","Verdict":"partial","Runnable":true,"PropertiesPassed":1},` +
		`"Strict":{"Protocol":"mattools-v1-strict","Verdict":"correct","Runnable":true,"PropertiesPassed":2},` +
		`"Others":{"toy":{"Protocol":"toy","Verdict":"not-runnable","Cause":"empty-code"}},"RunError":"e"}`
	var s scoring.Scored
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%s %d %q", s.QuestionID, s.PropertyCount, s.RunError)
	for _, p := range []string{results.ProtocolMatToolsV1, results.ProtocolMatToolsV1Strict, "toy"} {
		got += fmt.Sprintf(" %s:%s/%d", p, s.Outcomes[p].Verdict, s.Outcomes[p].PropertiesPassed)
	}
	if want := `q 2 "e" mattools-v1:partial/1 mattools-v1-strict:correct/2 toy:not-runnable/0`; got != want || len(s.Outcomes) != 3 {
		t.Errorf("read %s (%d outcomes); want %s", got, len(s.Outcomes), want)
	}
	b, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	var again scoring.Scored
	if err := json.Unmarshal(b, &again); err != nil || !reflect.DeepEqual(again, s) {
		t.Errorf("round trip of %s: %+v, %v", b, again, err)
	}
}
