package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/internal/version"
	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/journal"
	"github.com/mattools-leaderboard/leaderboard/runner/plan"
	"github.com/mattools-leaderboard/leaderboard/runner/systems"
)

// A QA line that copyExact lets stand for the journal's copy decodes from
// its journal encoding to itself; one with a text that is not valid UTF-8
// does not (the encoding replaces the bytes), and copyExact refuses it.
func TestCopyExactLinesRoundTripThroughTheJournalEncoding(t *testing.T) {
	if qaTextFields == nil {
		t.Fatal("results.QAItem has a field of a kind copyExact does not know; every QA line would be read back")
	}
	s := func(v string) *string { return &v }
	i32, i64 := int32(1), int64(150)
	full := journal.Line{Kind: "item", Index: 7, ID: "pymatgen/core/structure.py/Structure#3.2", Calls: 2, Attempts: 3,
		QA: &results.QAItem{ItemIndex: 7, Item: "pymatgen/core/structure.py/Structure#3.2", Questions: 1, Correct: 1, CorrectLenient: &i32,
			AnswerText: s("Thé answer is <answer>B</answer> & \u2028 \"quoted\"\n"), ExtractedStrict: s("B"), ExtractedLenient: s(""),
			CorrectAnswer: s("B"), PromptTokens: &i64, CompletionTokens: new(int64), AnswerTextBytes: &i64}}
	bare := journal.Line{Kind: "item", Index: 0, ID: "q", QA: &results.QAItem{Item: "q"}}
	// Every field of results.QAItem set, by reflection, so that a field
	// added later is covered too.
	filled := &results.QAItem{}
	v := reflect.ValueOf(filled).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.New(f.Type().Elem()))
			f = f.Elem()
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("field %d: <é> & \u2028\n", i))
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("results.QAItem field %s is a %s: extend this test and copyExact", v.Type().Field(i).Name, f.Kind())
		}
	}
	reflected := journal.Line{Kind: "item", Index: 3, ID: "r", QA: filled}
	for name, l := range map[string]journal.Line{"every field": full, "nil pointers": bare, "every field, by reflection": reflected} {
		if !copyExact(&l) {
			t.Fatalf("%s: copyExact refuses a valid line", name)
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var back journal.Line
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, l) {
			t.Errorf("%s: decoded %+v\nwant %+v", name, back.QA, l.QA)
		}
	}
	bad := full
	qa := *full.QA
	qa.AnswerText = s("<answer>B</answer> \xff\xfe")
	bad.QA = &qa
	if copyExact(&bad) {
		t.Error("copyExact accepts an answer that is not valid UTF-8")
	}
	if tu := (journal.Line{Kind: "item", Question: &results.QuestionRow{}}); copyExact(&tu) {
		t.Error("copyExact accepts a tool-usage line")
	}
}

// A QA run's results file is the same whether its rows came from memory
// (the default) or, with room for one line only, nearly all back from the
// journal, and the same as a run interrupted after half its questions and
// resumed (timings aside); the interrupted run leaves no results file and
// no temporary file, and the resumed one removes a stale temporary file.
func TestLiveWriterRowsEqualTheJournals(t *testing.T) {
	root, respond, mkPlan := qa20Live(t)
	// run runs the plan into out with room for limit lines; block > 0
	// interrupts it once block answers are in and every worker waits.
	run := func(t *testing.T, out string, limit, block int) (*results.File, []RunResult, error) {
		srv := llmtest.New(t, llmtest.Options{BlockAfter: block, Responder: respond})
		p := mkPlan(t, srv.URL)
		defer func(old int) { maxLiveLines = old }(maxLiveLines)
		maxLiveLines = limit
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if block > 0 {
			go func() {
				for srv.Blocked() < 4 {
					time.Sleep(5 * time.Millisecond)
				}
				cancel()
			}()
		}
		res, err := Run(ctx, Options{Plan: p, DataRoot: root, OutDir: out})
		if err != nil {
			return nil, res, err
		}
		return readRun(t, res[0].Path), res, nil
	}
	strip := func(f *results.File) ([]results.QAItem, results.Totals) {
		rows := append([]results.QAItem(nil), f.QAItems...)
		for i := range rows {
			rows[i].LatencyMS = nil
		}
		return rows, f.Run.Totals
	}
	memDir := t.TempDir()
	mem, memRes, err := run(t, memDir, 4096, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The same file assembled from the journal alone (every question
	// done, none asked): the same rows, latencies included, and usage.
	os.Remove(memRes[0].Path)
	fromJournal, _, err := run(t, memDir, 4096, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJournal.QAItems, mem.QAItems) || !reflect.DeepEqual(fromJournal.Run.Totals, mem.Run.Totals) ||
		!reflect.DeepEqual(fromJournal.Run.Usage, mem.Run.Usage) {
		t.Error("the file written alongside the answers differs from the one assembled from the journal alone")
	}
	back, _, err := run(t, t.TempDir(), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	resumedDir := t.TempDir()
	if _, res, err := run(t, resumedDir, 4096, 10); !errors.Is(err, ErrInterrupted) || res[0].Status != StatusInterrupted || res[0].Done != 10 {
		t.Fatalf("first session: %v, %+v; want the run interrupted after 10 questions", err, res)
	}
	if temps, _ := filepath.Glob(filepath.Join(resumedDir, ".*.tmp-*")); len(temps) > 0 {
		t.Errorf("the interrupted run left %v", temps)
	}
	if files, _ := filepath.Glob(filepath.Join(resumedDir, "*.parquet")); len(files) > 0 {
		t.Errorf("the interrupted run wrote %v", files)
	}
	// A temporary file such as a killed writer leaves is removed on resume.
	stale := filepath.Join(resumedDir, ".runner__qa-code__single-llm__s0__scripted__mattools-qa-v1__set-sample-20__r1.parquet.tmp-123")
	os.WriteFile(stale, []byte("killed"), 0o644)
	resumed, _, err := run(t, resumedDir, 4096, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there (%v)", err)
	}
	wantRows, wantTotals := strip(mem)
	if len(wantRows) != 20 || *wantTotals.Correct != 6 || *wantTotals.CorrectLenient != 13 {
		t.Fatalf("in-memory run: %d rows, totals %+v; want 20 rows, 6 strict and 13 lenient correct", len(wantRows), wantTotals)
	}
	for name, f := range map[string]*results.File{"read back": back, "resumed": resumed} {
		rows, totals := strip(f)
		if !reflect.DeepEqual(rows, wantRows) || !reflect.DeepEqual(totals, wantTotals) {
			t.Errorf("%s: rows or totals differ from the in-memory run's", name)
		}
	}
	if w := resumed.Run.Warnings; len(w) != 1 || !strings.Contains(w[0], "2 sessions") {
		t.Errorf("the resumed run's warnings %q; want one, that it was written over 2 sessions", w)
	}
}

// A build stamped with a commit (-ldflags -X …version.Commit=…, as the
// Makefile and the Kubernetes image build) records it as the generator
// version, whatever the build info says.
func TestGeneratorVersionIsTheStampedCommit(t *testing.T) {
	defer func(old string) { version.Commit = old }(version.Commit)
	version.Commit = ""
	unstamped := generatorVersion()
	version.Commit = "4b992d5e0c"
	if got := generatorVersion(); got != "4b992d5e0c" {
		t.Errorf("stamped build: generator version %q, want the commit (unstamped: %q)", got, unstamped)
	}
}

// textFields refuses a type with a field that the journal's JSON would
// drop or encode its own way, so that copyExact then reads every line back.
func TestTextFieldsRefusesFieldsTheJournalChanges(t *testing.T) {
	type plain struct {
		A string
		B *string
		N int32
	}
	type dropped struct {
		A    string
		Note string `json:"-"`
	}
	type own struct {
		A string
		T *time.Time // a json.Marshaler
	}
	type hidden struct {
		A    string
		note string
	}
	if got := textFields(reflect.TypeFor[plain]()); fmt.Sprint(got) != "[0 1]" {
		t.Errorf("plain: %v, want [0 1]", got)
	}
	for name, typ := range map[string]reflect.Type{"json:\"-\"": reflect.TypeFor[dropped](), "a json.Marshaler": reflect.TypeFor[own](),
		"unexported": reflect.TypeFor[hidden]()} {
		if got := textFields(typ); got != nil {
			t.Errorf("a field %s: %v, want nil (every line read back)", name, got)
		}
	}
	_ = hidden{note: ""}
}

// A live source holds at most maxLiveBytes of texts: lines beyond are read
// back from the journal; what is read frees its share.
func TestLiveSourceHoldsABoundedNumberOfBytes(t *testing.T) {
	defer func(old int64) { maxLiveBytes = old }(maxLiveBytes)
	maxLiveBytes = 1000
	j, err := journal.Open(filepath.Join(t.TempDir(), "j.jsonl"), "run", "fp", time.Now(), journal.Options{Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	s := newLiveSource(j, nil)
	answer := strings.Repeat("a", 300)
	for i := range 5 {
		s.offer(journal.Line{Kind: "item", Index: i, ID: "q", QA: &results.QAItem{Item: "q", AnswerText: &answer}})
	}
	if len(s.mem) != 3 || s.memBytes != 3*302 {
		t.Fatalf("held %d lines of %d bytes; want 3 of 906 (302 bytes each, at most 1,000)", len(s.mem), s.memBytes)
	}
	s.markDurable(0)
	if l, ok, err := s.read(item{index: 0}); !ok || err != nil || *l.QA.AnswerText != answer {
		t.Fatalf("read: %v, %v", ok, err)
	}
	if len(s.mem) != 2 || s.memBytes != 2*302 {
		t.Errorf("after a read: %d lines of %d bytes; want 2 of 604", len(s.mem), s.memBytes)
	}
}

// removeStaleTemps matches the temporary files by name, not by a glob of
// the directory (an -out such as "runs[1]" held no match).
func TestRemoveStaleTempsInADirectoryWithGlobCharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs[1]")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "run.parquet")
	stale, other := filepath.Join(dir, ".run.parquet.tmp-42"), filepath.Join(dir, ".other.parquet.tmp-42")
	os.WriteFile(stale, nil, 0o644)
	os.WriteFile(other, nil, 0o644)
	removeStaleTemps(path)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there (%v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another run's temporary file was removed: %v", err)
	}
}

// qa20Live returns a data root, a responder answering each question of the
// 20-question QA sample with its qa20Replies reply (prompt tokens 100 + its
// index, 3 completion tokens) and a maker of the sample's plan (one round,
// concurrency 4) against a server's URL.
func qa20Live(t *testing.T) (root string, respond func(llmtest.Request) llmtest.Reply, mkPlan func(*testing.T, string) *plan.Plan) {
	t.Helper()
	root = mattoolstest.NewRoot(t).Dir
	set, err := datasets.LoadQA("testdata/qa20.json")
	if err != nil {
		t.Fatal(err)
	}
	prompts, _ := systems.LoadPrompts(filepath.Join(root, "prompts"))
	abs, _ := filepath.Abs("testdata/qa20.json")
	respond = func(r llmtest.Request) llmtest.Reply {
		for i, q := range set.Questions {
			if p, _ := systems.QAPrompt(&q, prompts); p == r.Prompt() {
				return llmtest.Reply{Content: qa20Replies[i].reply, PromptTokens: 100 + i, CompletionTokens: 3}
			}
		}
		return llmtest.Reply{Content: "no such question"}
	}
	return root, respond, func(t *testing.T, url string) *plan.Plan {
		return mustPlan(t, fmt.Sprintf(`rounds = 1
concurrency = 4
benchmarks = ["qa-code"]
[qa_sets.qa-code]
path = %q
name = "sample-20"
[[models]]
name = "scripted"
base_url = %q
temperature = 0
`, abs, url))
	}
}
