package content

// The reference solution on a question page: the benchmark audit's
// reference function for the question (benchmarks/mattools-tool-usage/
// reference/<question>.py, scored in the sandbox by make audit; docs/
// benchmark-audit.md), its code as the audit scored it, and under each
// scoring protocol the properties it passed and those it failed, each
// failure with the verification's message and its diagnosis
// (diagnoses.csv): what a correct solution reaches on this question.

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// ReferenceSourceDir is where the reference solutions are kept, relative to
// the repository root: one file <question>.py each.
const ReferenceSourceDir = "benchmarks/mattools-tool-usage/reference"

// referenceView is a question's reference solution as its page shows it.
type referenceView struct {
	// Source is the reference's file in the repository.
	Source string `json:"source"`
	// Executed: the audit scored it (the question's data files are present);
	// false for a question outside the audit's question set, whose reference
	// is checked statically only.
	Executed bool   `json:"executed"`
	Function string `json:"function,omitempty"`
	Code     string `json:"code,omitempty"`
	// Protocols are its outcomes, one per scoring protocol, by protocol.
	Protocols []referenceOutcome `json:"protocols,omitempty"`
}

// referenceOutcome is the reference's outcome under one scoring protocol:
// one run of the audit, so one verdict and no ±.
type referenceOutcome struct {
	Protocol    string       `json:"protocol"`
	Run         string       `json:"run"`
	Verdict     string       `json:"verdict"`
	Symbol      string       `json:"symbol"`
	Label       string       `json:"label"`
	PassedText  string       `json:"passed_text"`
	PassedProps []string     `json:"passed_props,omitempty"`
	FailedProps []failedProp `json:"failed_props,omitempty"`
	// Time is the sandbox's wall time of the execution and verification
	// (the row's exec_ms), "" when not recorded.
	Time string `json:"time,omitempty"`
}

// references returns the reference solution of every question the
// benchmark has, by question id: from the edition's reference-solution
// audit runs (Audit, each file read whole from AuditPaths), else
// unexecuted. Nil when the edition has no audit paths (releases cut before
// the section existed). A file that cannot be read is an error naming it.
func (w *writer) references() (map[string]*referenceView, error) {
	e := w.e
	if e.AuditPaths == nil || e.Benchmark == nil {
		return nil, nil
	}
	out := map[string]*referenceView{}
	for _, q := range e.Benchmark.Questions {
		out[q.ID] = &referenceView{Source: ReferenceSourceDir + "/" + q.ID + ".py"}
	}
	for _, f := range e.Audit {
		// MatTools' own reference solutions (the audit of its questions,
		// whose pages these are): the published version's reference (its diagnoses are the page's);
		// a corrected version's is in that version's tables.
		if f.Run.System != results.SystemReferenceSolution || f.Run.Benchmark != results.BenchmarkToolUsage ||
			aggregate.CorrectsVersion(f.Run.BenchmarkVersion) != "" {
			continue
		}
		path := e.AuditPaths[f.Run.RunID]
		if path == "" {
			continue
		}
		// An audit file is small (one row per question): read whole.
		full, err := results.Read(path)
		if err != nil {
			return nil, err
		}
		for i := range full.Questions {
			q := &full.Questions[i]
			ref := out[q.QuestionID]
			if ref == nil || results.Verdict(q.Verdict) == results.VerdictDataMissing {
				continue
			}
			ref.Executed = true
			if ref.Code == "" {
				ref.Code, ref.Function = q.Code, q.FunctionName
			}
			o := referenceOutcome{Protocol: f.Run.ScoringProtocol, Run: f.Run.RunID, Verdict: q.Verdict,
				Symbol: verdictSymbol(results.Verdict(q.Verdict)), Label: verdictLabel(q.Verdict, q.PropertiesPassed)}
			if q.PropertiesPassed != nil {
				o.PassedText = fmt.Sprintf("%d of %s passed", *q.PropertiesPassed, count(q.PropertyCount, "property", "properties"))
			}
			if q.ExecMS != nil {
				o.Time = fmt.Sprintf("%.1f s in the sandbox", float64(*q.ExecMS)/1000)
			}
			o.PassedProps, o.FailedProps = propertyLists(q.PropertyOutcomes)
			for i := range o.FailedProps {
				fp := &o.FailedProps[i]
				if d, ok := e.Diagnoses.Of(q.QuestionID, fp.Name); ok {
					fp.Category, fp.Evidence = d.Category, d.Evidence
				}
			}
			ref.Protocols = append(ref.Protocols, o)
		}
	}
	for _, ref := range out {
		slices.SortFunc(ref.Protocols, func(a, b referenceOutcome) int { return cmp.Compare(a.Protocol, b.Protocol) })
	}
	return out, nil
}
