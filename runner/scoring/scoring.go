// Package scoring turns generated code for a tool-usage question into a
// verdict and a count of properties passed, under the scoring protocols
// mattools-v1 (MatTools' scorer reimplemented, quirks included;
// docs/mattools.md §2.4) and mattools-v1-strict (the quirks fixed). It
// never calls a model and never evaluates untrusted text on the host: the
// generated function runs in one sandbox, its output is parsed in a second
// and verified by the question's unit test in a third, fed only the pickled
// parsed objects. The Python harnesses are embedded (harness/*.py).
//
// Each protocol is a behaviour (Protocol) in a file of its own:
// protocol_v1.go and protocol_v1strict.go decide a question's verdict
// from the shared run, parse and check; protocol_qa.go scores QA answers
// under mattools-qa-v1. A Scored holds a question's outcome under every
// registered protocol, by protocol id (Scored.Outcomes).
//
// # Verdicts and what they count
//
//	verdict             runnable  properties passed
//	correct             yes       all k of the question's properties
//	partial             yes       mattools-v1: L[-1] − L[-2] of the unit test's error list L
//	                              (#expected − #error strings; may undercount, even go negative);
//	                              strict: the properties whose checks raised no error
//	not-runnable        no        0     (Cause says why; see the Cause constants)
//	verification-crash  v1: no    0     (MatTools counts a crashed or unparseable check as a
//	                    strict: yes      function error; strict: the function did return a dict)
//	data-missing        —         —     (not scored: a data file the question reads is absent;
//	                                     the run's question set leaves the question out)
//
// Function runnable rate = runnable questions / questions in the set;
// task success rate = Σ properties passed / properties in the set.
//
// # What mattools-v1-strict changes
//
//   - No "ok"-substring passes: a question is correct only when every
//     property's check passes.
//   - Credit per property: each property is checked on its own, so an error
//     (or a crash such as a shape error inside np.allclose) costs only that
//     property.
//   - The function's dict comes back on a side channel (fd 3), so a debug
//     print does not make a correct function not runnable; values are read
//     token by token, so "Element Mg" inside a string stays a string, and
//     placeholders inside tuples and sets are restored.
//   - A warning on stderr during verification does not turn an error list
//     into a crash.
//   - An empty value (a zero-size array, or an empty list, tuple, set, dict
//     or string) fails its property: np.allclose broadcasts an empty array
//     against anything to "all close", which let a function that computes
//     nothing pass 21 of the 138 properties. None of the 138 expected values
//     is empty.
package scoring

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

//go:embed harness/*.py
var harness embed.FS

func harnessFile(name string) []byte {
	b, err := harness.ReadFile("harness/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return b
}

// Protocols are the protocols the default tool-usage benchmark
// (results.DefaultBenchmark: MatTools' tool usage) is scored under
// (mattools-v1 and mattools-v1-strict, each a Protocol of this package), in
// display order, as the registry of results/benchmarks.go lists them.
var Protocols = results.ScoredProtocols(results.DefaultBenchmark(results.KindToolUsage))

// Causes refine not-runnable and verification-crash verdicts
// (results.QuestionRow.VerdictCause).
const (
	CauseEmptyCode          = "empty-code"          // no code was extracted
	CauseSyntaxError        = "syntax-error"        // the program does not compile (Python 3.11)
	CauseMissingFunction    = "missing-function"    // the named function is not defined
	CauseRequiredParameters = "required-parameters" // calling it with no arguments raised TypeError
	CauseTimeout            = "timeout"             // the wall-clock limit expired
	CauseNoOutput           = "no-output"           // v1: stdout was empty
	CauseNoDict             = "no-dict"             // the value is not a dict, or an empty dict
	CauseUnparseable        = "unparseable-output"  // the printed text (v1) or repr (strict) did not parse
	CauseKilled             = "killed"              // ended by a signal without a status (e.g. a resource limit)
	CauseVerifyOutput       = "verify-output"       // v1: the check printed neither "ok" nor a JSON list
	CauseVerifyException    = "verify-exception"    // strict: the unit test could not be run at all
	CauseVerifyMalformed    = "verify-malformed"    // v1: a list whose last two items are not counts
	CauseCodeTooLarge       = "code-too-large"      // the runner refused the extracted code whole: over its size cap, not run
	CauseContextLength      = "context-length"      // the server refused a model call as longer than the model's context window: no answer, not run
	// "exception:<Type>" — the code raised <Type> (e.g. exception:FileNotFoundError).
)

// Submission is the stored output of a system for one question.
type Submission struct {
	Code         string // the generated code ("" when extraction failed)
	FunctionName string // the function name, verbatim (MatTools' <name> tag)
}

// Outcome is one question's result under one protocol.
type Outcome struct {
	Protocol         string
	Verdict          results.Verdict
	Cause            string // see the Cause constants; "" for correct and partial
	Runnable         bool
	PropertiesPassed int      // out of the question's properties; v1 may be negative (see package doc)
	Errors           []string // error strings of the check (v1: L without its two counts)
	// FailedProperties names the properties whose checks failed (strict
	// only: mattools-v1 cannot attribute errors to properties), in the
	// unit test's order.
	FailedProperties []string
	// Properties is the outcome of each property, in the unit test's order
	// (results.QuestionRow.PropertyOutcomes): set under strict whenever the
	// check ran; under mattools-v1 only for a correct question (every
	// property passed), since MatTools' credit for a partial question is a
	// count of error strings that cannot be attributed to properties. A
	// question that is not runnable, or whose check crashed, gets its
	// properties from FillRow (each failed, with the verdict as message).
	Properties []results.PropertyOutcome
	// VerificationOutput is what MatTools' check printed (v1: "ok", a JSON
	// list of errors and counts, or an error text); "" when no check ran
	// and under strict, whose per-property calls print nothing.
	VerificationOutput string
	Detail             string // why the code is not runnable or the check crashed (parse error, crash text, harness stderr)
}

// Scored is the outcome of one question under every registered protocol
// (Behaviours), with what the generated code printed.
type Scored struct {
	QuestionID    string
	PropertyCount int
	// Outcomes holds the question's outcome under each protocol, by
	// protocol id (mattools-v1, mattools-v1-strict and any protocol
	// registered with Register; a Scorer of another package may fill it
	// with protocols of its own).
	Outcomes       map[string]Outcome
	Stdout, Stderr []byte // the function run's output, capped (see the Dropped counts)
	StdoutDropped  int64
	StderrDropped  int64
	RunError       string // the function's exception, "" if none
	RunDuration    time.Duration
	// ExecDuration is the sandbox wall time of all executions (run, parse,
	// verify); TotalDuration adds the scorer's own work.
	ExecDuration  time.Duration
	TotalDuration time.Duration
	// RunCPU is the CPU time of the function's run (its processes, user and
	// system), and ExecCPU of all executions; 0 when the sandbox does not
	// measure it (sandbox.Result CPU).
	RunCPU, ExecCPU time.Duration
}

// Outcome returns the outcome under protocol p; a protocol s has no
// outcome for (mattools-original, a QA protocol, a misspelling) is an
// error.
func (s *Scored) Outcome(p string) (Outcome, error) {
	if o, ok := s.Outcomes[p]; ok {
		return o, nil
	}
	have := slices.Sorted(maps.Keys(s.Outcomes))
	return Outcome{}, fmt.Errorf("scoring protocol %q: this scorer scores %s", p, strings.Join(have, " and "))
}

// ReplaceCause gives every outcome whose cause is from the cause to
// instead (the runner: empty-code becomes code-too-large or context-length
// when it emptied the code itself).
func (s *Scored) ReplaceCause(from, to string) {
	for p, o := range s.Outcomes {
		if o.Cause == from {
			o.Cause = to
			s.Outcomes[p] = o
		}
	}
}

// UnmarshalJSON reads a Scored as encoding/json writes it, and also as
// stored before outcomes were keyed by protocol (fields V1, Strict and
// Others: journals and caches written then), each outcome under its
// Protocol.
func (s *Scored) UnmarshalJSON(b []byte) error {
	type plain Scored
	var aux struct {
		*plain
		V1, Strict *Outcome
		Others     map[string]Outcome
	}
	aux.plain = (*plain)(s)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	legacy := aux.Others
	for _, o := range []*Outcome{aux.V1, aux.Strict} {
		if o != nil && o.Protocol != "" {
			if legacy == nil {
				legacy = map[string]Outcome{}
			}
			legacy[o.Protocol] = *o
		}
	}
	for p, o := range legacy {
		if s.Outcomes == nil {
			s.Outcomes = map[string]Outcome{}
		}
		if _, ok := s.Outcomes[p]; !ok {
			s.Outcomes[p] = o
		}
	}
	return nil
}

// Scorer scores submissions in a sandbox.
type Scorer struct {
	Sandbox sandbox.Sandbox
	// Root is the MatTools data root; its src/tool_source_code is mounted
	// read-only at /app/tool_source_code.
	Root string
	// Limits for each of the three executions (zero fields: the sandbox's defaults).
	Limits sandbox.Limits
	// Env is the environment recorded on the runs it scores (see Open).
	Env Environment
}

// runStatus is what harness/run.py reports on the side channel.
type runStatus struct {
	Status  string  `json:"status"`
	Type    string  `json:"type"`
	Message string  `json:"message"`
	Where   string  `json:"where"`
	Repr    *string `json:"repr"`
}

// verified is what harness/verify.py reports on the side channel: one
// check per channel it was given a pickle for.
type verified struct {
	V1 *struct {
		Decision string            `json:"decision"`
		List     []json.RawMessage `json:"list"`
		Text     string            `json:"text"`
		Exit     int               `json:"exit"`
	} `json:"v1"`
	Strict *struct {
		Names    []string `json:"names"`
		Passed   []bool   `json:"passed"`
		Errors   []string `json:"errors"`
		Messages []string `json:"messages"`
		Crash    string   `json:"crash"`
	} `json:"strict"`
}

// pickleFile names the pickle of each channel's parsed dict that
// harness/verify.py checks.
var pickleFile = map[Channel]string{Printed: "v1.pickle", Returned: "strict.pickle"}

func notRunnable(p, cause string) Outcome {
	return Outcome{Protocol: p, Verdict: results.VerdictNotRunnable, Cause: cause}
}

// Score scores one submission for question q under every registered
// protocol (Behaviours), from one run of the function, one parse and one
// check of each channel. A question whose data files are absent from Root
// gets data-missing without running anything, and so does empty code get
// not-runnable (empty-code). Errors are failures of the sandbox, never of
// the code.
func (s *Scorer) Score(ctx context.Context, q *datasets.Question, sub Submission) (*Scored, error) {
	start := time.Now()
	protos := Behaviours()
	out := &Scored{QuestionID: q.ID, PropertyCount: len(q.Properties), Outcomes: make(map[string]Outcome, len(protos))}
	defer func() {
		out.TotalDuration = time.Since(start)
		for p, o := range out.Outcomes {
			failAll(&o, q)
			out.Outcomes[p] = o
		}
	}()
	all := func(o Outcome) {
		for _, p := range protos {
			o.Protocol = p.ID()
			out.Outcomes[p.ID()] = o
		}
	}
	if !q.Executable() {
		all(Outcome{Verdict: results.VerdictDataMissing})
		return out, nil
	}
	if strings.TrimSpace(sub.Code) == "" {
		all(notRunnable("", CauseEmptyCode))
		return out, nil
	}

	// A. Run the function.
	run, st, runCause, err := s.run(ctx, q, sub)
	if err != nil {
		return nil, err
	}
	out.Stdout, out.Stderr, out.StdoutDropped, out.StderrDropped = run.Stdout, run.Stderr, run.StdoutDropped, run.StderrDropped
	out.RunDuration, out.ExecDuration = run.Duration, run.Duration
	out.RunCPU, out.ExecCPU = run.CPU, run.CPU
	if runCause != "" && st.Status != "" {
		out.RunError = st.Type + ": " + st.Message
	}
	if run.TimedOut {
		// MatTools had no timeout; ours is a not-runnable verdict under every protocol.
		all(notRunnable("", CauseTimeout))
		return out, nil
	}

	// B. Parse both channels; each protocol admits its channel's dict or
	// gives the question its not-runnable cause.
	parses, err := s.parse(ctx, q, run, st, runCause, out)
	if err != nil {
		return nil, err
	}
	pickles := map[Channel][]byte{}
	var admitted []Protocol
	for _, p := range protos {
		ps := parses[p.Channel()]
		cause := p.Admit(runCause, ps)
		if cause == "" {
			b, err := base64.StdEncoding.DecodeString(ps.Pickle)
			if err != nil {
				cause = CauseUnparseable
			} else {
				pickles[p.Channel()] = b
			}
		}
		if cause != "" {
			o := notRunnable(p.ID(), cause)
			o.Detail = ps.Error
			out.Outcomes[p.ID()] = o
			continue
		}
		admitted = append(admitted, p)
	}
	if len(admitted) == 0 {
		return out, nil
	}

	// C–D. Verify, in a fresh sandbox fed only the pickled dicts; each
	// admitted protocol judges its channel's check.
	checks, err := s.verify(ctx, q, pickles, out)
	if err != nil {
		return nil, err
	}
	for _, p := range admitted {
		o, err := p.Judge(q, checks[p.Channel()])
		if err != nil {
			return nil, err
		}
		out.Outcomes[p.ID()] = o
	}
	return out, nil
}

// parse parses the function's result on both channels (step B), in a fresh
// sandbox: stdout whatever happened (only stdout counts in MatTools), and
// the returned value's repr when the function returned one. Sandbox time
// is added to out. Errors are failures of the sandbox.
func (s *Scorer) parse(ctx context.Context, q *datasets.Question, run *sandbox.Result, st runStatus, runCause string, out *Scored) (map[Channel]Parse, error) {
	files := map[string][]byte{"parse.py": harnessFile("parse.py"), "stdout.txt": run.Stdout}
	if runCause == "" && st.Repr != nil {
		files["repr.txt"] = []byte(*st.Repr)
	}
	pr, err := s.Sandbox.Run(ctx, sandbox.Spec{Files: files, Argv: []string{"python3", "-I", "/sbx/parse.py"}, Limits: s.Limits})
	if err != nil {
		return nil, fmt.Errorf("question %s: parsing the output: %w", q.ID, err)
	}
	out.ExecDuration += pr.Duration
	out.ExecCPU += pr.CPU
	var ps struct{ V1, Strict Parse }
	if err := json.Unmarshal(pr.Side, &ps); err != nil {
		// The shared parse gave no answer (typically the parse of a huge,
		// noisy stdout reached the time limit). Each channel is parsed on
		// its own then: Printed's cause is that failure (a timeout is a
		// timeout), and Returned, which judges the returned value, parses
		// its repr again in a fresh sandbox with a time limit of its own.
		cause := CauseUnparseable
		if pr.TimedOut {
			cause = CauseTimeout
		}
		ps.V1 = Parse{Status: "harness:" + cause, Error: tail(pr.Stderr, 2000)}
		ps.Strict = ps.V1
		if repr, ok := files["repr.txt"]; ok {
			sr, err := s.Sandbox.Run(ctx, sandbox.Spec{Files: map[string][]byte{"parse.py": harnessFile("parse.py"), "repr.txt": repr},
				Argv: []string{"python3", "-I", "/sbx/parse.py"}, Limits: s.Limits})
			if err != nil {
				return nil, fmt.Errorf("question %s: parsing the returned value: %w", q.ID, err)
			}
			out.ExecDuration += sr.Duration
			out.ExecCPU += sr.CPU
			var alone struct{ Strict Parse }
			if json.Unmarshal(sr.Side, &alone) == nil && alone.Strict.Status != "" {
				ps.Strict = alone.Strict
			} else if sr.TimedOut {
				ps.Strict = Parse{Status: "harness:" + CauseTimeout, Error: tail(sr.Stderr, 2000)}
			}
		}
	}
	return map[Channel]Parse{Printed: ps.V1, Returned: ps.Strict}, nil
}

// verify checks the pickled dict of each channel in pickles with question
// q's unit test (steps C–D), in a fresh sandbox fed only the pickles, and
// returns each channel's Check. Sandbox time is added to out. Errors are
// failures of the sandbox.
func (s *Scorer) verify(ctx context.Context, q *datasets.Question, pickles map[Channel][]byte, out *Scored) (map[Channel]Check, error) {
	files := map[string][]byte{"verify.py": harnessFile("verify.py"), "unit_test.py": []byte(q.UnitTest), "name.txt": []byte(q.ID)}
	for ch, b := range pickles {
		files[pickleFile[ch]] = b
	}
	vr, err := s.Sandbox.Run(ctx, sandbox.Spec{Files: files, Argv: []string{"python3", "-I", "/sbx/verify.py"}, Limits: s.Limits})
	if err != nil {
		return nil, fmt.Errorf("question %s: verifying: %w", q.ID, err)
	}
	out.ExecDuration += vr.Duration
	out.ExecCPU += vr.CPU
	var v verified
	vErr := json.Unmarshal(vr.Side, &v)
	harness := Check{HarnessCause: CauseVerifyOutput, HarnessDetail: tail(vr.Stderr, 2000)}
	if vr.TimedOut {
		harness.HarnessCause = CauseTimeout
	}
	printed, returned := harness, harness
	if vErr == nil && v.V1 != nil {
		printed.Answered, printed.Decision, printed.List, printed.Text = true, v.V1.Decision, v.V1.List, v.V1.Text
	}
	if vErr == nil && v.Strict != nil {
		returned.Answered, returned.Names, returned.Passed, returned.Errors, returned.Messages, returned.Crash =
			true, v.Strict.Names, v.Strict.Passed, v.Strict.Errors, v.Strict.Messages, v.Strict.Crash
	}
	return map[Channel]Check{Printed: printed, Returned: returned}, nil
}

// failAll gives an outcome whose checks did not run (not-runnable) or
// crashed (verification-crash) its per-property outcomes: every property of
// q failed, with the verdict and its cause as message.
func failAll(o *Outcome, q *datasets.Question) {
	if o.Properties != nil || (o.Verdict != results.VerdictNotRunnable && o.Verdict != results.VerdictVerificationCrash) {
		return
	}
	msg := string(o.Verdict)
	if o.Cause != "" {
		msg += ": " + o.Cause
	}
	for _, p := range q.Properties {
		o.Properties = append(o.Properties, results.PropertyOutcome{Property: p.Name, Message: msg})
	}
}

// run executes sub's function for question q (step A): the function code
// as __main__, then name() printed, in a fresh sandbox with the data
// mounted read-only. It returns the sandbox's result, the harness's status
// (zero when the harness reported none) and the run cause ("" when the
// function returned a value). Errors are failures of the sandbox.
func (s *Scorer) run(ctx context.Context, q *datasets.Question, sub Submission) (*sandbox.Result, runStatus, string, error) {
	files := map[string][]byte{"run.py": harnessFile("run.py"), "function.py": []byte(sub.Code),
		"name.txt": []byte(sub.FunctionName)}
	for name, b := range q.Modules { // a folder benchmark's modules, beside the function (datasets.Question.Modules)
		if files[name] == nil {
			files[name] = b
		}
	}
	run, err := s.Sandbox.Run(ctx, sandbox.Spec{
		Files:     files,
		Argv:      []string{"python3", "-I", "/sbx/run.py"},
		Env:       q.Env,
		DataDir:   filepath.Join(s.Root, "src", "tool_source_code"),
		DataFiles: dataFiles(q),
		Limits:    s.Limits,
	})
	if err != nil {
		return nil, runStatus{}, "", fmt.Errorf("question %s: running the function: %w", q.ID, err)
	}
	var st runStatus
	if json.Unmarshal(run.Side, &st) != nil {
		st = runStatus{}
	}
	haveStatus := st.Status != ""
	runCause := ""
	switch {
	case run.TimedOut:
		runCause = CauseTimeout
	case !haveStatus && run.Signal != "":
		runCause = CauseKilled
	case !haveStatus:
		runCause = "exception:SystemExit" // os._exit or a closed side channel: the program ended early
	case st.Status == "syntax-error":
		runCause = CauseSyntaxError
	case st.Status == "missing-function":
		runCause = CauseMissingFunction
	case st.Status == "exception" && st.Where == "call-site" && st.Type == "TypeError":
		runCause = CauseRequiredParameters
	case st.Status == "exception" || st.Status == "exit":
		runCause = "exception:" + st.Type
	}
	return run, st, runCause, nil
}

// dataFiles returns q's data files relative to src/tool_source_code, the
// sandbox's Spec.DataFiles: each execution sees only its question's files,
// as a private copy. Of the 2,436 published answers to the 28 questions
// whose files are present, one lists a directory and one opens a file
// outside its question's files (which does not exist).
func dataFiles(q *datasets.Question) []string {
	if q.WholeDataDir {
		return nil // the whole folder, read-only
	}
	out := []string{}
	for _, f := range q.DataFiles {
		out = append(out, strings.TrimPrefix(f.Path, "tool_source_code/"))
	}
	return out
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// HarnessSHA256 returns the SHA-256 (hex) of the embedded harnesses
// (harness/*.py, in name order, each name and content): what a cache of
// scored outcomes must be keyed on besides the code and the environment.
func HarnessSHA256() string {
	h := sha256.New()
	entries, _ := harness.ReadDir("harness")
	for _, e := range entries {
		fmt.Fprintf(h, "%s\n%d\n", e.Name(), len(harnessFile(e.Name())))
		h.Write(harnessFile(e.Name()))
	}
	return hex.EncodeToString(h.Sum(nil))
}
