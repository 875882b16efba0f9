package audit

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// Report is audit.json.
type Report struct {
	GeneratorVersion string              `json:"generator_version"`
	DataRoot         string              `json:"data_root"`
	DataCommit       string              `json:"data_commit"`
	BenchmarkVersion string              `json:"benchmark_version"`
	Reference        string              `json:"reference"`
	Environment      scoring.Environment `json:"environment"`
	Limits           ReportLimits        `json:"limits"`
	Questions        []*QuestionReport   `json:"questions"`
	Totals           []Total             `json:"totals"`
	Flags            []Flag              `json:"flags"`
	// Slowest is the reference that took the most CPU time (wall time when
	// CPU time was not measured).
	Slowest *Timing `json:"slowest,omitempty"`
	// Verified is the verified question set: the properties the reference
	// passes under the benchmark's reference protocol (MatTools:
	// mattools-v1-strict) whose diagnosis is not "expected value wrong", by
	// question (questions whose data files are present).
	Verified results.PropertySet `json:"verified_properties"`
	// VerifiedScores are the audit's own results files scored on Verified
	// from their stored per-property outcomes (results.TallyProperties), by
	// system, under the reference protocol.
	VerifiedScores map[string][2]int `json:"verified_scores"`
	// benchmark is the benchmark audited: its scored protocols head the
	// table's columns, its reference protocol judges (not in audit.json).
	benchmark results.Benchmark
}

// ReportLimits are the limits the audit's executions ran under.
type ReportLimits struct {
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"` // per process
}

// Timing is one reference's run: wall and CPU time of the function's
// execution (not the parse and the verification), seconds.
type Timing struct {
	Question    string  `json:"question"`
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
}

// QuestionReport is one question's audit.
type QuestionReport struct {
	ID         string `json:"question"`
	Index      int    `json:"question_index"`
	Properties int    `json:"properties"`
	DataFiles  bool   `json:"data_files_present"`
	Reference  string `json:"reference"` // "executed", "data-missing" (present, not executed) or "absent"
	// Outcomes are the reference's outcomes by protocol (executed only).
	Outcomes map[string]*Outcome `json:"outcomes,omitempty"`
	Timing   *Timing             `json:"timing,omitempty"`
	// Controls are the properties each control passed, by kind and protocol
	// (each must be 0).
	Controls map[string]map[string]int `json:"controls"`
	// Probe holds the strict per-property outcomes of each probe kind.
	Probe map[string][]results.PropertyOutcome `json:"probe"`
	// Stated is what the question's text states about each property's
	// value (its line, format phrase, and what it names), the judgments
	// the equivalent forms follow.
	Stated map[string]statedFormat `json:"stated"`
	// Equivalents are the equivalent-form probes' answers: every property
	// a form applied to, with its outcome under the reference protocol.
	Equivalents []Equivalent `json:"equivalents"`
	// QuestionText is the question-text audit of question.txt.
	QuestionText *TextAudit `json:"question_text"`
	Flags        []Flag     `json:"flags,omitempty"`
}

// Equivalent is one equivalent-form probe of one property: the form, the
// answer's description, and whether the property's check passed it.
type Equivalent struct {
	Property string `json:"property"`
	Form     string `json:"form"`
	Answer   string `json:"answer"`
	Passed   bool   `json:"passed"`
	Message  string `json:"message,omitempty"`
}

// Outcome is the reference's outcome under one protocol.
type Outcome struct {
	Verdict    string                    `json:"verdict"`
	Cause      string                    `json:"cause,omitempty"`
	Passed     int                       `json:"properties_passed"`
	Properties []results.PropertyOutcome `json:"property_outcomes,omitempty"`
}

// Total is one protocol's last line.
type Total struct {
	Protocol   string `json:"protocol"`
	Passed     int    `json:"properties_passed"`
	Properties int    `json:"properties"` // of the questions whose data files are present
	Executed   int    `json:"questions_executed"`
	Questions  int    `json:"questions"`
}

// Flag is a check of a question's verification that misbehaves: a
// property that its own expected value fails ("never-passes"; when the
// reference passes it nonetheless, "expected-fails"), that passes
// a probe or control that must fail ("passes-wrong", "passes-zero",
// "passes-none", "passes-wrong-type", "passes-true"), that refuses a form
// of its expected value the question allows ("refuses-equivalent"), or a
// probe the verification could not score property by property
// ("unscorable"); or a defect of the question's text ("question-defect").
type Flag struct {
	Question string `json:"question"`
	Property string `json:"property,omitempty"`
	Check    string `json:"check"`
	Detail   string `json:"detail,omitempty"`
	// Line is the line of question.txt a question-defect or
	// refuses-equivalent flag cites (1-based; 0: none).
	Line int `json:"line,omitempty"`
}

// verifiedSet is the verified question set of the executed questions: the
// properties the reference passes under protocol ref (the benchmark's
// reference protocol), less those whose diagnosis is "expected value
// wrong".
func verifiedSet(qs []*QuestionReport, diagnoses datasets.Diagnoses, ref string) results.PropertySet {
	set := results.PropertySet{}
	for _, q := range qs {
		if q.Outcomes == nil {
			continue
		}
		for _, po := range q.Outcomes[ref].Properties {
			if po.Passed && !strings.EqualFold(diagnoses[q.ID+"/"+po.Property].Category, "expected value wrong") {
				set[q.ID] = append(set[q.ID], po.Property)
			}
		}
	}
	return set
}

// scoreVerified scores the results files among paths scored under protocol
// ref (the reference protocol) on set from their stored rows: system →
// [passed, properties].
func scoreVerified(paths []string, set results.PropertySet, ref string) (map[string][2]int, error) {
	out := map[string][2]int{}
	for _, path := range paths {
		f, err := results.Read(path)
		if err != nil {
			return nil, err
		}
		if f.Run.ScoringProtocol != ref {
			continue
		}
		passed, total, err := results.TallyProperties(f.Questions, set)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[string(f.Run.System)] = [2]int{passed, total}
	}
	return out, nil
}

// buildQuestion is q's report from its items (ref nil: no reference file),
// scored under protocols (the benchmark's scored protocols) and judged
// under refP (its reference protocol: the probes', the equivalent forms'
// and the controls' per-property outcomes; a control's count of properties
// passed under each other protocol).
func buildQuestion(q *datasets.Question, ref *item, its map[string]*item, protocols []string, refP string) *QuestionReport {
	qr := &QuestionReport{ID: q.ID, Index: q.Index, Properties: len(q.Properties), DataFiles: q.Executable(),
		Controls: map[string]map[string]int{}, Probe: map[string][]results.PropertyOutcome{}}
	switch {
	case ref == nil:
		qr.Reference = "absent"
	case !q.Executable():
		qr.Reference = "data-missing"
	default:
		qr.Reference = "executed"
		qr.Outcomes = map[string]*Outcome{}
		for _, p := range protocols {
			o, err := ref.scored.Outcome(p) // p is one of the scorer's own protocols: err is nil
			if err != nil {
				qr.Flags = append(qr.Flags, Flag{Question: q.ID, Check: "unscorable", Detail: err.Error()})
				continue
			}
			qr.Outcomes[p] = &Outcome{Verdict: string(o.Verdict), Cause: o.Cause, Passed: o.PropertiesPassed, Properties: o.Properties}
		}
		qr.Timing = &Timing{Question: q.ID, WallSeconds: ref.scored.RunDuration.Seconds(), CPUSeconds: ref.scored.RunCPU.Seconds()}
	}
	flag := func(prop, check, detail string) {
		qr.Flags = append(qr.Flags, Flag{Question: q.ID, Property: prop, Check: check, Detail: detail})
	}
	// A property passes its own expected value when the value as written
	// or as parsed passes (some tests store numbers as text).
	expectedPassed := map[string]bool{}
	expectedMsg := map[string]string{}
	scorable := true
	for _, k := range probeKinds {
		st := its[k].scored.Outcomes[refP]
		qr.Probe[k] = st.Properties
		if st.Verdict != results.VerdictCorrect && st.Verdict != results.VerdictPartial {
			flag("", "unscorable", fmt.Sprintf("the %s probe is %s (%s) under %s: %s", k, st.Verdict, st.Cause,
				refP, firstLine(st.Detail)))
			if k == kindExpected || k == kindParsed {
				scorable = false
			}
			continue
		}
		for _, po := range st.Properties {
			switch {
			case k == kindExpected || k == kindParsed:
				expectedPassed[po.Property] = expectedPassed[po.Property] || po.Passed
				if k == kindExpected {
					expectedMsg[po.Property] = po.Message
				}
			case po.Passed:
				flag(po.Property, "passes-"+k, fmt.Sprintf("the %s probe passes", k))
			}
		}
	}
	if scorable {
		refPassed := map[string]bool{}
		if o := qr.Outcomes[refP]; o != nil {
			for _, po := range o.Properties {
				refPassed[po.Property] = po.Passed
			}
		}
		for _, po := range its[kindExpected].scored.Outcomes[refP].Properties {
			switch {
			case expectedPassed[po.Property]:
			case refPassed[po.Property]:
				// Passable (the reference passes it), but not with the value
				// the benchmark states.
				flag(po.Property, "expected-fails", "its own expected value fails, as written and as parsed, but the reference passes it: "+firstLine(expectedMsg[po.Property]))
			default:
				flag(po.Property, "never-passes", "its own expected value fails, as written and as parsed: "+firstLine(expectedMsg[po.Property]))
			}
		}
	}
	qr.Stated = statedFormats(q)
	for _, f := range equivForms {
		it := its[equivKind(f)]
		changed, err := parseEquivalents(it.scored.Stdout)
		if err != nil {
			flag("", "unscorable", fmt.Sprintf("the %s probe: %v (%s)", it.kind, err, firstLine(it.scored.RunError)))
			continue
		}
		for _, po := range it.scored.Outcomes[refP].Properties {
			answer, ok := changed[po.Property]
			if !ok {
				continue
			}
			qr.Equivalents = append(qr.Equivalents, Equivalent{Property: po.Property, Form: f, Answer: answer, Passed: po.Passed, Message: firstLine(po.Message)})
			if !po.Passed && expectedPassed[po.Property] {
				st := qr.Stated[po.Property]
				phrase := st.Phrase
				if phrase == "" {
					phrase = "no format"
				}
				qr.Flags = append(qr.Flags, Flag{Question: q.ID, Property: po.Property, Check: "refuses-equivalent", Line: st.Line,
					Detail: fmt.Sprintf("%s: %s, which the question allows (question.txt l.%d states %q): %s", f, answer, st.Line, phrase, firstLine(po.Message))})
			}
		}
	}
	if it := its[kindQuestionText]; it != nil {
		ta, err := parseTextAudit(it.scored.Stdout)
		if err != nil {
			flag("", "unscorable", fmt.Sprintf("the question-text audit: %v (%s)", err, firstLine(it.scored.RunError)))
		} else {
			qr.QuestionText = ta
			for _, f := range ta.Findings {
				if questionDefectKinds[f.Kind] {
					qr.Flags = append(qr.Flags, Flag{Question: q.ID, Check: "question-defect", Line: f.Line,
						Detail: fmt.Sprintf("question.txt l.%d: %s: %s", f.Line, f.Kind, f.Detail)})
				}
			}
		}
	}
	for _, k := range controlKinds {
		sc := its[k].scored
		qr.Controls[k] = map[string]int{}
		for _, p := range protocols {
			o, err := sc.Outcome(p) // p is one of the scorer's own protocols: err is nil
			if err != nil {
				flag("", "unscorable", err.Error())
				continue
			}
			qr.Controls[k][p] = o.PropertiesPassed
		}
		for _, po := range sc.Outcomes[refP].Properties {
			if po.Passed {
				flag(po.Property, "passes-"+k, fmt.Sprintf("the %s control passes under %s", k, refP))
			}
		}
		for _, p := range protocols {
			// Another protocol may credit no property by name (mattools-v1's
			// partial credit): its count of properties passed is flagged.
			if o := sc.Outcomes[p]; p != refP && o.PropertiesPassed > 0 {
				flag("", "passes-"+k, fmt.Sprintf("the %s control gets %d of %d properties under %s (%s)", k, o.PropertiesPassed, len(q.Properties),
					p, o.Verdict))
			}
		}
	}
	return qr
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// column heads protocol id's columns in the audit's table: the last word
// of its id (mattools-v1: "v1"; mattools-v1-strict: "strict").
func column(id string) string {
	return id[strings.LastIndex(id, "-")+1:]
}

// printReport prints the per-question table (a column per scored protocol
// of the benchmark, in display order, for the reference and for the
// controls), the static probe's flags, the reference's failed properties
// with their diagnoses, and the totals.
func printReport(w io.Writer, rep *Report, diagnoses datasets.Diagnoses) {
	protocols, ref := results.ScoredProtocols(rep.benchmark), rep.benchmark.Reference()
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	head := []string{"question", "data", "reference"}
	for _, p := range protocols {
		head = append(head, column(p))
	}
	head = append(head, "wall s", "CPU s")
	for _, p := range protocols {
		head = append(head, "controls "+column(p))
	}
	fmt.Fprintln(tw, strings.Join(append(head, "flags"), "\t"))
	for _, q := range rep.Questions {
		passed := make([]string, len(protocols))
		wall, cpu := "-", "-"
		for i, p := range protocols {
			passed[i] = "-"
			if q.Outcomes != nil {
				passed[i] = fmt.Sprintf("%d/%d", q.Outcomes[p].Passed, q.Properties)
			}
		}
		if q.Outcomes != nil {
			wall, cpu = fmt.Sprintf("%.1f", q.Timing.WallSeconds), fmt.Sprintf("%.1f", q.Timing.CPUSeconds)
		}
		data := "yes"
		if !q.DataFiles {
			data = "missing"
		}
		ctl := func(p string) string {
			var parts []string
			for _, k := range controlKinds {
				parts = append(parts, fmt.Sprint(q.Controls[k][p]))
			}
			return strings.Join(parts, " ")
		}
		row := append([]string{q.ID, data, q.Reference}, passed...)
		row = append(row, wall, cpu)
		for _, p := range protocols {
			row = append(row, ctl(p))
		}
		fmt.Fprintf(tw, "%s\t%d\n", strings.Join(row, "\t"), len(q.Flags))
	}
	tw.Flush()
	fmt.Fprintf(w, "\ncontrols: properties passed by the None, wrong-type and True controls (each must be 0)\n")
	fmt.Fprintf(w, "\nflags of the static probe and the controls (%d):\n", len(rep.Flags))
	for _, f := range rep.Flags {
		prop := f.Property
		if prop == "" {
			prop = "(question)"
		}
		fmt.Fprintf(w, "  %s %s: %s: %s\n", f.Question, prop, f.Check, f.Detail)
	}
	counts := map[string]int{}
	for _, f := range rep.Flags {
		counts[f.Check]++
	}
	probed, refused := map[string]int{}, map[string]int{}
	for _, q := range rep.Questions {
		for _, e := range q.Equivalents {
			probed[e.Form]++
			if !e.Passed {
				refused[e.Form]++
			}
		}
	}
	fmt.Fprintf(w, "\nequivalent forms (properties probed, of them failed):")
	for _, f := range equivForms {
		fmt.Fprintf(w, " %s %d/%d", f, refused[f], probed[f])
	}
	fmt.Fprintf(w, "\nrefuses-equivalent: %d flags; question-defect: %d flags\n", counts["refuses-equivalent"], counts["question-defect"])
	fmt.Fprintf(w, "\nproperties the reference fails:\n")
	for _, q := range rep.Questions {
		if q.Outcomes == nil {
			continue
		}
		failed := map[string][]string{}
		var order []string
		for _, p := range protocols {
			o := q.Outcomes[p]
			if o.Verdict == string(results.VerdictCorrect) {
				continue
			}
			if len(o.Properties) == 0 { // mattools-v1 partial: its credit is not attributable
				fmt.Fprintf(w, "  %s (%s: %d of %d, not attributable to properties)\n", q.ID, p, o.Passed, q.Properties)
				continue
			}
			for _, po := range o.Properties {
				if !po.Passed {
					if failed[po.Property] == nil {
						order = append(order, po.Property)
					}
					failed[po.Property] = append(failed[po.Property], p)
				}
			}
		}
		for _, prop := range order {
			protos := failed[prop]
			if protos == nil {
				continue
			}
			failed[prop] = nil
			d := diagnoses[q.ID+"/"+prop].Category
			if d == "" {
				d = "undiagnosed"
			}
			fmt.Fprintf(w, "  %s %s (%s): %s\n", q.ID, prop, strings.Join(protos, ", "), d)
		}
	}
	if s := rep.Slowest; s != nil {
		fmt.Fprintf(w, "\nslowest reference: %s, %.1f s wall, %.1f s CPU (the audit's limits: wall %.0f s, CPU %.0f s per process)\n", s.Question, s.WallSeconds, s.CPUSeconds,
			rep.Limits.WallSeconds, rep.Limits.CPUSeconds)
		def := scoring.DefaultLimits
		fmt.Fprintf(w, "default limits of tool-usage scoring: CPU %s per process, wall %s per execution", def.CPU, def.Wall)
		if s.CPUSeconds > 0 {
			fmt.Fprintf(w, " (%.1f times the slowest reference's CPU time)", def.CPU.Seconds()/s.CPUSeconds)
		}
		fmt.Fprintln(w)
		for _, q := range rep.Questions {
			if t := q.Timing; t != nil && t.CPUSeconds > def.CPU.Seconds()/3 {
				fmt.Fprintf(w, "  %s: %.1f s of CPU time, more than a third of the default limit\n", q.ID, t.CPUSeconds)
			}
		}
	}
	vq, vp := rep.Verified.Size()
	fmt.Fprintf(w, "\nverified question set: %d properties of %d questions (the reference passes them under %s; no diagnosis says expected value wrong)\n",
		vp, vq, ref)
	for _, sys := range results.AuditSystems {
		if s, ok := rep.VerifiedScores[string(sys)]; ok {
			fmt.Fprintf(w, "  %s: %d of %d, scored from its stored per-property outcomes\n", sys, s[0], s[1])
		}
	}
	fmt.Fprintln(w)
	for _, t := range rep.Totals {
		fmt.Fprintf(w, "reference: %d of %d properties passed under %s (%d of %d questions executed)\n", t.Passed, t.Properties, t.Protocol, t.Executed, t.Questions)
	}
}
