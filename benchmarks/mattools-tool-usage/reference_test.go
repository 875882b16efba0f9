// Package toolusage_test checks the reference solutions of the MatTools
// tool-usage questions (reference/<question>.py, see README.md): statically,
// that each is one function returning a dict with exactly its question's
// property names; and by execution, that a few fast ones score as many
// properties as README.md's table says, under both scoring protocols, in
// the real sandbox.
package toolusage_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// staticCheck is run by the host's python3 on the reference files: it only
// parses them (ast.parse; nothing is executed). For each file it prints one
// JSON line {"file", "error", "function", "required", "keys"}: the name of
// the module's only statement, a function definition; the number of its
// parameters without a default; and the string keys of the dict literal its
// last statement returns.
const staticCheck = `import ast, json, sys
for path in sys.argv[1:]:
    out = {"file": path, "error": "", "function": "", "required": 0, "keys": []}
    try:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        body = tree.body
        if len(body) != 1 or not isinstance(body[0], ast.FunctionDef):
            raise ValueError("the module must hold exactly one statement, a function definition; it holds " + ", ".join(type(n).__name__ for n in body))
        fn = body[0]
        out["function"] = fn.name
        a = fn.args
        out["required"] = len(a.posonlyargs) + len(a.args) - len(a.defaults) + sum(1 for d in a.kw_defaults if d is None)
        last = fn.body[-1]
        if not isinstance(last, ast.Return) or not isinstance(last.value, ast.Dict):
            raise ValueError("the function's last statement must return a dict literal")
        for k in last.value.keys:
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                raise ValueError("every key of the returned dict must be a string literal")
            out["keys"].append(k.value)
    except Exception as e:
        out["error"] = type(e).__name__ + ": " + str(e)
    print(json.dumps(out))
`

type staticResult struct {
	File     string   `json:"file"`
	Error    string   `json:"error"`
	Function string   `json:"function"`
	Required int      `json:"required"`
	Keys     []string `json:"keys"`
}

func referencePath(id string) string { return filepath.Join("reference", id+".py") }

// parseReferences runs staticCheck over the 49 reference files.
func parseReferences(t *testing.T) map[string]staticResult {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("the static check of the reference files needs python3 on PATH: %v", err)
	}
	var files []string
	for _, e := range datasets.Manifest() {
		files = append(files, referencePath(e.ID))
	}
	cmd := exec.Command(py, append([]string{"-I", "-c", staticCheck}, files...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 static check: %v", err)
	}
	res := map[string]staticResult{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r staticResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("static check output %q: %v", line, err)
		}
		res[r.File] = r
	}
	return res
}

// TestReferencesStatic: the folder holds exactly one reference per question
// of the manifest; each parses (Python 3.11), is a single function with no
// required parameter, and returns a dict literal whose keys are the
// question's properties: with MATTOOLS_DATA set, exactly the names of its
// properties.json in their order; without it, as many as the manifest counts.
func TestReferencesStatic(t *testing.T) {
	entries, err := os.ReadDir("reference")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, e := range datasets.Manifest() {
		want[e.ID+".py"] = true
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("reference/%s: no question of the manifest has this name", e.Name())
		}
		delete(want, e.Name())
	}
	for name := range want {
		t.Errorf("reference/%s: missing", name)
	}
	var b *datasets.Benchmark
	if root := os.Getenv(datasets.EnvVar); root != "" {
		if b, err = datasets.Load(root); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("%s is not set: checking the property counts of the manifest, not the names of properties.json", datasets.EnvVar)
	}
	res := parseReferences(t)
	for _, e := range datasets.Manifest() {
		r, ok := res[referencePath(e.ID)]
		switch {
		case !ok:
			continue // reported as missing above
		case r.Error != "":
			t.Errorf("%s: %s", r.File, r.Error)
			continue
		case r.Required != 0:
			t.Errorf("%s: %s has %d required parameters, want none", r.File, r.Function, r.Required)
		}
		if b == nil {
			if len(r.Keys) != e.Properties {
				t.Errorf("%s: returns %d properties, the manifest counts %d", r.File, len(r.Keys), e.Properties)
			}
			continue
		}
		q, _ := b.Question(e.ID)
		var names []string
		for _, p := range q.Properties {
			names = append(names, p.Name)
		}
		if strings.Join(r.Keys, ",") != strings.Join(names, ",") {
			t.Errorf("%s: returns the keys %q, properties.json lists %q", r.File, r.Keys, names)
		}
	}
}

// categories are the diagnosis categories of diagnoses.csv (README.md).
var categories = map[string]bool{
	"verification bug": true, "expected value wrong": true, "library-version drift": true,
	"ambiguous or misleading question": true, "reference wrong": true, "missing dependency": true, "time limit": true,
}

// readDiagnoses reads diagnoses.csv: question → property → category,
// failing on a malformed row (naming its line and field).
func readDiagnoses(t *testing.T) map[string]map[string]string {
	t.Helper()
	f, err := os.Open("diagnoses.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("diagnoses.csv: %v", err)
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != "question,property,category,evidence" {
		t.Fatalf("diagnoses.csv:1: the header must be question,property,category,evidence")
	}
	out := map[string]map[string]string{}
	for i, r := range recs[1:] {
		line := i + 2
		switch {
		case !categories[r[2]]:
			t.Errorf("diagnoses.csv:%d: category: %q is not one of the categories of README.md", line, r[2])
		case strings.TrimSpace(r[3]) == "":
			t.Errorf("diagnoses.csv:%d: evidence: empty", line)
		case out[r[0]][r[1]] != "":
			t.Errorf("diagnoses.csv:%d: %s/%s is diagnosed twice", line, r[0], r[1])
		}
		if out[r[0]] == nil {
			out[r[0]] = map[string]string{}
		}
		out[r[0]][r[1]] = r[2]
	}
	return out
}

// TestDiagnosesFile: every row of diagnoses.csv names a question of the
// manifest and (with MATTOOLS_DATA set) one of its properties, with a known
// category and evidence.
func TestDiagnosesFile(t *testing.T) {
	d := readDiagnoses(t)
	known := map[string]bool{}
	for _, e := range datasets.Manifest() {
		known[e.ID] = true
	}
	var b *datasets.Benchmark
	if root := os.Getenv(datasets.EnvVar); root != "" {
		var err error
		if b, err = datasets.Load(root); err != nil {
			t.Fatal(err)
		}
	}
	for qid, props := range d {
		if !known[qid] {
			t.Errorf("diagnoses.csv: %s is no question of the manifest", qid)
			continue
		}
		if b == nil {
			continue
		}
		q, _ := b.Question(qid)
		names := map[string]bool{}
		for _, p := range q.Properties {
			names[p.Name] = true
		}
		for p := range props {
			if !names[p] {
				t.Errorf("diagnoses.csv: %s has no property %s", qid, p)
			}
		}
	}
}

// functionName returns the name of the one top-level function of a
// reference (TestReferencesStatic checks that there is exactly one).
var defLine = regexp.MustCompile(`(?m)^def ([A-Za-z_][A-Za-z0-9_]*)\(`)

func functionName(code string) string {
	m := defLine.FindAllStringSubmatch(code, -1)
	if len(m) != 1 {
		return ""
	}
	return m[0][1]
}

// expectedPassed is, for a few questions whose reference runs in seconds,
// the number of properties it passes under mattools-v1 and
// mattools-v1-strict (README.md's table; diagnoses.csv says why each
// failed property fails).
var expectedPassed = map[string][2]int{
	"test_vacancy":            {10, 10},
	"test_defect_finder":      {0, 0},
	"test_antisite_generator": {0, 0},
	"test_interstitial":       {8, 8},
	"test_lower_envelope":     {2, 2},
	"test_substitution":       {14, 14},
}

// openSandbox opens the local sandbox with the pinned Python environment,
// or skips (fails under CI, which installs both).
func openSandbox(t *testing.T, root string, cold bool, slots int) sandbox.Sandbox {
	t.Helper()
	py := os.Getenv("MATTOOLS_SANDBOX_PYTHON")
	if py == "" {
		py = "/opt/mattools-sandbox"
	}
	o := sandbox.Options{Slots: slots, Python: py, DataDirs: []string{filepath.Join(root, "src", "tool_source_code")},
		Limits: sandbox.Limits{Wall: 10 * time.Minute, CPU: 10 * time.Minute}, Cold: cold}
	if !cold {
		o.Preload = scoring.Preload
	}
	sb, err := sandbox.Open(context.Background(), "auto", o)
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox with the pinned Python environment (run `make sandbox-env` as root): %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

type scored struct {
	id  string
	out *scoring.Scored
	err error
}

// scoreReferences scores the references of ids in the sandbox, two at a time.
func scoreReferences(t *testing.T, b *datasets.Benchmark, s *scoring.Scorer, ids []string) []scored {
	t.Helper()
	res := make([]scored, len(ids))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, s.Sandbox.Info().Slots))
	for i, id := range ids {
		q, ok := b.Question(id)
		if !ok {
			t.Fatalf("no question %s", id)
		}
		code, err := os.ReadFile(referencePath(id))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out, err := s.Score(context.Background(), q, scoring.Submission{Code: string(code), FunctionName: functionName(string(code))})
			res[i] = scored{id: id, out: out, err: err}
		}()
	}
	wg.Wait()
	return res
}

// TestReferencesScore scores the references of expectedPassed in the real
// sandbox and asserts their properties passed under both protocols. With
// REFERENCE_QUESTIONS=all (the questions whose data files are present) or
// a comma-separated list of question ids it
// scores those instead and only reports, per question, the outcome under
// each protocol and the properties strict failed, with the totals
// "reference: P of N properties passed under PROTOCOL (Q of M questions
// executed)".
func TestReferencesScore(t *testing.T) {
	root := os.Getenv(datasets.EnvVar)
	if root == "" {
		t.Skipf("%s is not set: set it to a MatTools checkout (CI sets it) to score the reference solutions", datasets.EnvVar)
	}
	b, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	report := os.Getenv("REFERENCE_QUESTIONS")
	var ids []string
	switch report {
	case "":
		for id := range expectedPassed {
			ids = append(ids, id)
		}
		sort.Strings(ids)
	case "all":
		for _, q := range b.Questions {
			if q.Executable() {
				ids = append(ids, q.ID)
			}
		}
	default:
		ids = strings.Split(report, ",")
	}
	diagnosed := readDiagnoses(t)
	s := &scoring.Scorer{Sandbox: openSandbox(t, root, os.Getenv("REFERENCE_COLD") != "", 2), Root: root}
	passed, total, executed := map[string]int{}, 0, 0
	for _, r := range scoreReferences(t, b, s, ids) {
		if r.err != nil {
			t.Fatalf("%s: %v", r.id, r.err)
		}
		o := r.out
		if o.Outcomes[results.ProtocolMatToolsV1].Verdict == results.VerdictDataMissing {
			t.Logf("%s: data-missing", r.id)
			continue
		}
		executed++
		total += o.PropertyCount
		passed["mattools-v1"] += o.Outcomes[results.ProtocolMatToolsV1].PropertiesPassed
		passed["mattools-v1-strict"] += o.Outcomes[results.ProtocolMatToolsV1Strict].PropertiesPassed
		line := fmt.Sprintf("%s: mattools-v1 %s %d/%d, mattools-v1-strict %s %d/%d, run %.1fs", r.id,
			o.Outcomes[results.ProtocolMatToolsV1].Verdict, o.Outcomes[results.ProtocolMatToolsV1].PropertiesPassed, o.PropertyCount, o.Outcomes[results.ProtocolMatToolsV1Strict].Verdict, o.Outcomes[results.ProtocolMatToolsV1Strict].PropertiesPassed, o.PropertyCount, o.RunDuration.Seconds())
		if o.Outcomes[results.ProtocolMatToolsV1Strict].Cause != "" || o.Outcomes[results.ProtocolMatToolsV1].Cause != "" {
			line += fmt.Sprintf(" [causes: %q %q; %s; run error %q]", o.Outcomes[results.ProtocolMatToolsV1].Cause, o.Outcomes[results.ProtocolMatToolsV1Strict].Cause, strings.TrimSpace(o.Outcomes[results.ProtocolMatToolsV1Strict].Detail), o.RunError)
		}
		for _, e := range o.Outcomes[results.ProtocolMatToolsV1Strict].Errors {
			line += "\n    strict: " + e
		}
		t.Log(line)
		// Every property the reference fails (strict attributes failures to
		// properties) has a diagnosis, and no diagnosed property passes.
		failed := map[string]bool{}
		for _, p := range o.Outcomes[results.ProtocolMatToolsV1Strict].FailedProperties {
			failed[p] = true
			if diagnosed[r.id][p] == "" {
				t.Errorf("%s: the reference fails %s, which diagnoses.csv does not diagnose", r.id, p)
			}
		}
		for p := range diagnosed[r.id] {
			if !failed[p] {
				t.Errorf("%s: diagnoses.csv diagnoses %s, which the reference passes", r.id, p)
			}
		}
		if report != "" {
			continue
		}
		want := expectedPassed[r.id]
		if o.Outcomes[results.ProtocolMatToolsV1].PropertiesPassed != want[0] || o.Outcomes[results.ProtocolMatToolsV1Strict].PropertiesPassed != want[1] {
			t.Errorf("%s: the reference passes %d (mattools-v1) and %d (mattools-v1-strict) of %d properties, want %d and %d\n  stderr: %s",
				r.id, o.Outcomes[results.ProtocolMatToolsV1].PropertiesPassed, o.Outcomes[results.ProtocolMatToolsV1Strict].PropertiesPassed, o.PropertyCount, want[0], want[1], tail(o.Stderr, 1500))
		}
	}
	for _, p := range scoring.Protocols {
		t.Logf("reference: %d of %d properties passed under %s (%d of %d questions executed)", passed[p], total, p, executed, len(ids))
	}
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// timing runs a reference's function as scoring's first step does (the code
// as __main__ in /app with the question's data files, then the call) and
// writes to fd 3 the wall-clock and CPU seconds (user + system, of the
// process and its children) of loading and calling it, whether it returned
// a dict, its keys and the keys whose value is None.
const timing = `import json, os, resource, sys, time
side = os.dup(3)
os.close(3)
t0 = time.monotonic()
ns = {"__name__": "__main__"}
exec(compile(open("/sbx/function.py").read(), "/app/main.py", "exec"), ns)
value = ns[open("/sbx/name.txt").read()]()
wall = time.monotonic() - t0
cpu = sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
keys = list(value) if isinstance(value, dict) else []
none = [k for k in keys if value[k] is None]
os.write(side, json.dumps({"wall": wall, "cpu": cpu, "dict": isinstance(value, dict), "keys": keys, "none": none}).encode())
`

// TestReferencesTiming (report only: REFERENCE_TIMING=1) runs every
// reference whose data files are present once, in a fresh interpreter of
// the sandbox (cold: imports included), one at a time, and logs its wall
// and CPU seconds, slowest first. REFERENCE_QUESTIONS (comma-separated
// question ids) narrows it to those.
func TestReferencesTiming(t *testing.T) {
	if os.Getenv("REFERENCE_TIMING") == "" {
		t.Skip("report only: set REFERENCE_TIMING=1 to time the references in the sandbox")
	}
	root := os.Getenv(datasets.EnvVar)
	if root == "" {
		t.Skipf("%s is not set", datasets.EnvVar)
	}
	b, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	sb := openSandbox(t, root, true, 1)
	type row struct {
		id        string
		wall, cpu float64
	}
	var rows []row
	only := map[string]bool{}
	for _, id := range strings.Split(os.Getenv("REFERENCE_QUESTIONS"), ",") {
		if id != "" {
			only[id] = true
		}
	}
	for _, q := range b.Questions {
		if !q.Executable() || len(only) > 0 && !only[q.ID] {
			continue
		}
		code, err := os.ReadFile(referencePath(q.ID))
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, f := range q.DataFiles {
			files = append(files, strings.TrimPrefix(f.Path, "tool_source_code/"))
		}
		res, err := sb.Run(context.Background(), sandbox.Spec{
			Files:   map[string][]byte{"timing.py": []byte(timing), "function.py": code, "name.txt": []byte(functionName(string(code)))},
			Argv:    []string{"python3", "-I", "/sbx/timing.py"},
			DataDir: filepath.Join(root, "src", "tool_source_code"), DataFiles: files,
		})
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Wall, CPU float64
			Dict      bool
		}
		if err := json.Unmarshal(res.Side, &got); err != nil || !got.Dict {
			t.Errorf("%s: no timing (%v); stderr: %s", q.ID, err, tail(res.Stderr, 1000))
			continue
		}
		rows = append(rows, row{q.ID, got.Wall, got.CPU})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].cpu > rows[j].cpu })
	for _, r := range rows {
		t.Logf("%-45s wall %6.1f s  cpu %6.1f s", r.id, r.wall, r.cpu)
	}
}

// TestReferencesWithoutData (needs MATTOOLS_DATA and the sandbox; skips
// otherwise, fails under CI): each reference of a question whose
// data files are absent from MATTOOLS_DATA runs in the sandbox without
// them and must still return a dict of all its properties, every one None,
// as the questions require of a property whose computation fails.
func TestReferencesWithoutData(t *testing.T) {
	root := os.Getenv(datasets.EnvVar)
	if root == "" {
		t.Skipf("%s is not set: set it to a MatTools checkout (CI sets it) to run the references of its data-missing questions", datasets.EnvVar)
	}
	b, err := datasets.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	sb := openSandbox(t, root, false, 2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for _, q := range b.Questions {
		if q.Executable() {
			continue
		}
		code, err := os.ReadFile(referencePath(q.ID))
		if err != nil {
			t.Fatal(err)
		}
		n++
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := sb.Run(context.Background(), sandbox.Spec{
				Files: map[string][]byte{"timing.py": []byte(timing), "function.py": code, "name.txt": []byte(functionName(string(code)))},
				Argv:  []string{"python3", "-I", "/sbx/timing.py"},
			})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("%s: %v", q.ID, err)
				return
			}
			var got struct {
				Dict       bool
				Keys, None []string
			}
			if err := json.Unmarshal(res.Side, &got); err != nil || !got.Dict {
				t.Errorf("%s: without its data files the reference returned no dict (%v); stderr: %s", q.ID, err, tail(res.Stderr, 1000))
				return
			}
			var names []string
			for _, p := range q.Properties {
				names = append(names, p.Name)
			}
			if strings.Join(got.Keys, ",") != strings.Join(names, ",") || len(got.None) != len(names) {
				t.Errorf("%s: without its data files the reference returned the keys %q, %d of them None; want %q, all None", q.ID, got.Keys, len(got.None), names)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d references of data-missing questions return a dict of None values without their files", n)
}
