package runner

// Tests of the runner's bounds: implausible usage
// from the server, capped stored responses, code too large.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/llm"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

func TestImplausibleUsageIsNotTrusted(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: func(r llmtest.Request) llmtest.Reply {
		rep := toolAnswer(r)
		switch {
		case strings.Contains(r.Prompt(), "Question 0 ("):
			rep.PromptTokens = -5
		case strings.Contains(r.Prompt(), "Question 1 ("):
			rep.CompletionTokens = 1 << 62
		case strings.Contains(r.Prompt(), "Question 2 ("):
			rep.PromptTokens, rep.CompletionTokens = -(1 << 62), 1<<62
		}
		return rep
	}})
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: root, OutDir: t.TempDir(), Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err != nil {
		t.Fatal(err)
	}
	f := readRun(t, res[0].Path)
	// Of TestToolUsageRunWritesUnscoredRows' 35476 prompt and 6076 completion
	// tokens, unknown: prompt 700 (q0) + 702 (q2), completion 101 (q1) + 102 (q2).
	u := f.Run.Usage
	wantCost := (float64(35476-700-702)*2.5 + float64(6076-101-102)*10) / 1e6
	if u.Calls != 49 || u.PromptTokens != 35476-700-702 || u.CompletionTokens != 6076-101-102 || u.CostUSD == nil ||
		fmt.Sprintf("%.6f", *u.CostUSD) != fmt.Sprintf("%.6f", wantCost) {
		t.Errorf("usage %+v (cost %v), want prompt %d completion %d cost %.6f", *u, *u.CostUSD, 35476-700-702, 6076-101-102, wantCost)
	}
	t.Logf("usage %+v, cost $%.6f; warnings %q", *u, *u.CostUSD, f.Run.Warnings)
	found := false
	for _, w := range f.Run.Warnings {
		found = found || strings.Contains(w, "usage: 3 model call(s) reported implausible token counts")
	}
	if !found {
		t.Errorf("no implausible-usage warning naming 3 calls in %q", f.Run.Warnings)
	}
	for i, q := range f.Questions[:3] {
		if *q.PromptTokens < 0 || *q.CompletionTokens < 0 || *q.PromptTokens > llm.MaxPlausibleTokens || *q.CompletionTokens > llm.MaxPlausibleTokens {
			t.Errorf("row %d tokens %d/%d", i, *q.PromptTokens, *q.CompletionTokens)
		}
	}
}

// bigAnswers: question 0's code is 300 KiB (over the 256 KiB cap); question
// 1's answer is small code followed by 1.5 MiB of 3-byte runes (over the
// 1 MiB stored-response cap, not at a rune boundary); others as toolAnswer.
func bigAnswers(r llmtest.Request) llmtest.Reply {
	rep := toolAnswer(r)
	m := questionRE.FindStringSubmatch(r.Prompt())
	if m == nil {
		return rep
	}
	switch m[1] {
	case "0":
		body := strings.Repeat("    x = 1  # padding padding padding\n", 300<<10/37+1)
		rep.Content = fmt.Sprintf("<answer>\n<code>\n```python\ndef f_%s():\n%s    return {}\n```\n</code>\n<name>f_%s</name>\n</answer>", m[2], body, m[2])
	case "1":
		rep.Content += "\n" + strings.Repeat("€", 512<<10)
	}
	return rep
}

func TestLargeAnswersAreCappedAndLargeCodeRefused(t *testing.T) {
	root := mattoolstest.NewRoot(t).Dir
	srv := llmtest.New(t, llmtest.Options{Responder: bigAnswers})
	out := t.TempDir()
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: root, OutDir: out, Unscored: true,
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}})
	if err != nil {
		t.Fatal(err)
	}
	f := readRun(t, res[0].Path)
	q0, q1 := f.Questions[0], f.Questions[1]
	var orig0 int64
	for _, r := range srv.Requests() {
		if strings.Contains(r.Prompt(), "Question 0 (") {
			orig0 = int64(len(bigAnswers(r).Content))
		}
	}
	if q0.Code != "" || q0.VerdictCause != scoring.CauseCodeTooLarge || q0.FunctionName != "f_"+datasets.Order()[0] ||
		*q0.ResponseBytes != orig0 || int64(len(*q0.Response)) != orig0 {
		t.Errorf("row 0: code %d bytes, cause %q, response %d/%d bytes (want code refused, response whole: %d)",
			len(q0.Code), q0.VerdictCause, len(*q0.Response), *q0.ResponseBytes, orig0)
	}
	id1 := datasets.Order()[1]
	if want := fmt.Sprintf("def f_%s():\n    return {'n': 1}", id1); q1.Code != want {
		t.Errorf("row 1 code %q, want %q", q1.Code, want)
	}
	if n := len(*q1.Response); n > llm.DefaultMaxCompletionBytes || n < llm.DefaultMaxCompletionBytes-3 || !utf8.ValidString(*q1.Response) ||
		*q1.ResponseBytes <= int64(n) || *q1.ResponseBytes < 3*512<<10 {
		t.Errorf("row 1: stored response %d bytes (valid UTF-8 %v), response_bytes %d", n, utf8.ValidString(*q1.Response), *q1.ResponseBytes)
	}
	t.Logf("row 0: code refused (%s), response %d bytes; row 1: response stored %d of %d bytes",
		q0.VerdictCause, *q0.ResponseBytes, len(*q1.Response), *q1.ResponseBytes)
	// The journal line of question 1 is bounded by the cap.
	matches, _ := filepath.Glob(filepath.Join(out, JournalDir, "*"))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if len(line) > 2*llm.DefaultMaxCompletionBytes+64<<10 {
				t.Errorf("journal %s: a line of %d bytes", m, len(line))
			}
		}
	}
}

// With a real scorer, the refused code is scored as nothing to run, with
// cause code-too-large under both protocols (no sandbox is needed: the
// scorer runs nothing for empty code).
func TestCodeTooLargeVerdictUnderBothProtocols(t *testing.T) {
	r := mattoolstest.NewRoot(t)
	r.AddDataFiles()
	srv := llmtest.New(t, llmtest.Options{Responder: func(req llmtest.Request) llmtest.Reply {
		rep := toolAnswer(req)
		if m := questionRE.FindStringSubmatch(req.Prompt()); m != nil {
			body := strings.Repeat("    x = 1  # padding padding padding\n", 300<<10/37+1)
			rep.Content = fmt.Sprintf("<answer>\n<code>\n```python\ndef f_%s():\n%s    return {}\n```\n</code>\n<name>f_%s</name>\n</answer>", m[2], body, m[2])
		}
		return rep
	}})
	sc := &scoring.Scorer{Env: scoring.Environment{Sandbox: results.Sandbox{Backend: "fake", TimeoutSeconds: 60, LockSHA256: "0123"},
		Libraries: map[string]string{"pymatgen": "2024.8.9"}}}
	res, err := Run(context.Background(), Options{Plan: mustPlan(t, toolPlan(srv.URL, 1, "")), DataRoot: r.Dir, OutDir: t.TempDir(),
		APIKeys: map[string]string{"FAKE_API_KEY": testKey}, Scorer: sc})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("%d runs", len(res))
	}
	for _, rr := range res {
		f := readRun(t, rr.Path)
		for i, q := range f.Questions {
			if q.Code != "" || q.Verdict != string(results.VerdictNotRunnable) || q.VerdictCause != scoring.CauseCodeTooLarge {
				t.Errorf("%s row %d: %d bytes of code, %s %s", f.Run.ScoringProtocol, i, len(q.Code), q.Verdict, q.VerdictCause)
			}
		}
		if tot := f.Run.Totals; *tot.Runnable != 0 {
			t.Errorf("%s: %d runnable", f.Run.ScoringProtocol, *tot.Runnable)
		}
	}
}
