package scoring

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// Protocol is the behaviour of one tool-usage scoring protocol: how a
// question's verdict is decided from what the shared executions of
// Scorer.Score report. The function runs once, its result is parsed once
// per Channel and checked once per Channel, whatever the number of
// protocols; each protocol then decides its own outcome from its channel's
// parse and check. A question whose data files are absent (data-missing),
// empty code and a function run that reached the time limit (not-runnable)
// are decided alike for every protocol before any protocol is asked.
//
// Each protocol is one file of this package (protocol_v1.go,
// protocol_v1strict.go) or of the package that registers it (Register),
// beside its entry in the registry of results/protocols.go (id, kind,
// title, display order).
type Protocol interface {
	// ID is the protocol's id, registered in results/protocols.go as a
	// scored tool-usage protocol (the runs' scoring_protocol).
	ID() string
	// Channel is the result of the function the protocol judges and how
	// it is checked.
	Channel() Channel
	// Admit returns the not-runnable cause of a question whose function
	// run ended with runCause ("" when the function returned a value; else
	// one of the Cause constants or "exception:<Type>") and whose channel
	// parsed to p, or "" to check p's dict. ParseCause is the mapping both
	// built-in protocols start from.
	Admit(runCause string, p Parse) string
	// Judge returns the outcome of question q from its channel's check
	// (Outcome.Protocol set to ID). Errors are disagreements between the
	// check and the question that no verdict can express (the unit test
	// checks another number of properties than q has).
	Judge(q *datasets.Question, c Check) (Outcome, error)
}

// Channel is one of the two results of a function run that the harness
// parses and checks (harness/parse.py, harness/verify.py).
type Channel int

const (
	// Printed is what the call printed on stdout, parsed as MatTools
	// parses it whatever the run did, and checked by one call of the
	// question's unit test with the whole dict (MatTools' check,
	// docs/mattools.md §2.4 C–D): Check's Decision, List and Text.
	Printed Channel = iota
	// Returned is the repr of the value the function returned (the
	// harness's side channel), parsed token by token, and checked property
	// by property, an empty value failing its property: Check's Names,
	// Passed, Errors, Messages and Crash.
	Returned
)

// Parse is the harness's parse of one channel.
type Parse struct {
	// Status is "ok" (a non-empty dict was parsed), "empty" (no text),
	// "not-dict", "empty-dict", "unparseable", "absent" (no text at all:
	// the function returned no value), or "harness:<cause>" when the
	// parser itself gave no answer (cause timeout or unparseable-output).
	Status     string `json:"status"`
	Error      string `json:"error"` // why it did not parse
	Type       string `json:"type"`
	Pickle     string `json:"pickle"`      // base64 of the pickled dict, for Status "ok"
	Keys       int    `json:"keys"`        // of a parsed dict
	NoneValues int    `json:"none_values"` // values of a parsed dict that are None
}

// Check is what the verification harness reports for one channel.
type Check struct {
	// Answered is false when the harness gave no report for the channel
	// (it crashed or reached the time limit): HarnessCause says which
	// (CauseVerifyOutput or CauseTimeout) and HarnessDetail holds the last
	// 2,000 bytes of its stderr.
	Answered                    bool
	HarnessCause, HarnessDetail string

	// Printed: MatTools' check of the whole dict. Decision is "ok" (the
	// check printed ok), "list" (it printed a JSON list: the error strings
	// then the counts of expected and failed properties) or "error";
	// Text is what it printed.
	Decision string
	List     []json.RawMessage
	Text     string

	// Returned: one check per property, in the unit test's order. Crash is
	// set when the unit test could not be run at all.
	Names    []string
	Passed   []bool
	Errors   []string
	Messages []string
	Crash    string
}

// ParseCause maps a channel's parse to the not-runnable cause MatTools'
// scorer gives it: "" for a parsed dict (whatever runCause), else
// runCause when the run failed, else the parse's own cause (timeout,
// no-output, no-dict or unparseable-output).
func ParseCause(runCause string, p Parse) string {
	if p.Status == "ok" {
		return ""
	}
	if runCause != "" {
		return runCause
	}
	switch p.Status {
	case "harness:" + CauseTimeout:
		return CauseTimeout // the parse reached the time limit
	case "empty":
		return CauseNoOutput
	case "not-dict", "empty-dict":
		return CauseNoDict
	}
	return CauseUnparseable // "unparseable", or no text at all ("absent")
}

// VerificationCrash is the outcome of a question whose check crashed or
// could not be read, with the crash's cause and text; runnable says
// whether the protocol still counts the function as runnable.
func VerificationCrash(protocol, cause, detail string, runnable bool) Outcome {
	return Outcome{Protocol: protocol, Verdict: results.VerdictVerificationCrash, Cause: cause, Runnable: runnable, Detail: detail}
}

var (
	protocolsMu sync.RWMutex
	behaviours  []Protocol // in registration order
)

// Register adds p's behaviour: Scorer.Score decides p's outcome of every
// question from then on. Errors: an id the registry of results/protocols.go
// does not hold as a scored tool-usage protocol, or one already registered.
func Register(p Protocol) error {
	info, ok := results.LookupScoringProtocol(p.ID())
	if !ok || !info.Scored || info.Kind != results.KindToolUsage {
		return fmt.Errorf("scoring protocol %q: not registered in results as a scored %s protocol", p.ID(), results.KindToolUsage)
	}
	protocolsMu.Lock()
	defer protocolsMu.Unlock()
	if slices.ContainsFunc(behaviours, func(q Protocol) bool { return q.ID() == p.ID() }) {
		return fmt.Errorf("scoring protocol %s: behaviour already registered", p.ID())
	}
	behaviours = append(behaviours, p)
	return nil
}

func mustRegister(p Protocol) {
	if err := Register(p); err != nil {
		panic(err)
	}
}

// Behaviours returns the registered protocols' behaviours, in registration
// order (a copy).
func Behaviours() []Protocol {
	protocolsMu.RLock()
	defer protocolsMu.RUnlock()
	return slices.Clone(behaviours)
}
