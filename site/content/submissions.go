package content

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// SubmissionsPath is the edition-relative path of the submissions page; a
// submission's anchor on it is its folder.
const SubmissionsPath = "submissions"

type runLinkView struct {
	ID   string `json:"id"`
	Href string `json:"href"`
}

type submissionView struct {
	ID           string        `json:"id"` // the folder, the page anchor
	Model        string        `json:"model"`
	ModelID      string        `json:"model_id"`
	ModelHref    string        `json:"model_href"`
	Organization string        `json:"organization"`
	Provider     string        `json:"provider"`
	System       string        `json:"system"`
	SystemHref   string        `json:"system_href"`
	Source       string        `json:"source"`
	Authors      string        `json:"authors"`
	Contact      string        `json:"contact"`
	Link         string        `json:"link"`
	Date         string        `json:"date"`
	ModelRelease string        `json:"model_release_date"`
	OpenModel    string        `json:"open_model"`
	OpenSystem   string        `json:"open_system"`
	License      string        `json:"license"`
	Notes        string        `json:"notes"`
	Badge        badgeView     `json:"badge"`
	Status       string        `json:"status"`
	Runs         []runLinkView `json:"runs"`
	Verified     []runLinkView `json:"verified"`
}

// editionSubmissions returns the submissions with a run in the edition.
func editionSubmissions(e *Edition) []*Submission {
	in := map[string]*results.File{}
	for _, f := range e.Files {
		in[f.Run.RunID] = f
	}
	var out []*Submission
	for _, s := range e.Submissions {
		if slices.ContainsFunc(s.Runs, func(id string) bool { return in[id] != nil }) {
			out = append(out, s)
		}
	}
	return out
}

// submissionModel returns the model of a submission as the pages name it:
// the catalogue's entry, else its metadata's display name or model id.
func submissionModel(c *aggregate.Catalog, m submission.Metadata) aggregate.Model {
	model, ok := c.Lookup(m.Model)
	if !ok {
		model = aggregate.Model{ID: m.Model, DisplayName: m.Model}
		if m.ModelDisplayName != "" {
			model.DisplayName = m.ModelDisplayName
		}
	}
	return model
}

// writeSubmissions writes the submissions page: each submission of the
// edition with its metadata, its badge (verified when the edition holds
// verified records of it, else self-reported) and its runs.
func (w *writer) writeSubmissions(v *views) {
	in := map[string]*results.File{}
	for _, f := range w.e.Files {
		in[f.Run.RunID] = f
	}
	yesNo := func(b *bool) string {
		switch {
		case b == nil:
			return "not stated"
		case *b:
			return "yes"
		}
		return "no"
	}
	links := func(ids []string) []runLinkView {
		out := []runLinkView{}
		for _, id := range ids {
			if in[id] != nil {
				out = append(out, runLinkView{ID: id, Href: "downloads/runs/" + id + results.Extension})
			}
		}
		return out
	}
	views := []submissionView{}
	for _, s := range editionSubmissions(w.e) {
		m := s.Metadata
		model := submissionModel(w.e.Catalog, m)
		sv := submissionView{ID: s.Folder, Model: model.DisplayName, ModelID: m.Model, Organization: m.Organization, Provider: m.Provider,
			System: aggregate.SystemTitle(results.System(m.System)), SystemHref: systemHref(results.System(m.System)),
			Authors: strings.Join(m.Authors, ", "), Contact: m.Contact, Link: m.Link, Date: m.Date, ModelRelease: m.ModelReleaseDate,
			OpenModel: yesNo(m.OpenModel), OpenSystem: yesNo(m.OpenSystem), License: m.OutputsLicense, Notes: m.Notes,
			Runs: links(s.Runs), Verified: links(s.Verified)}
		if _, has := v.modelSlug[m.Model]; has {
			sv.ModelHref = v.modelHref(m.Model)
		}
		if m.RetrievalSource != nil {
			sv.Source = aggregate.SourceTitle(*m.RetrievalSource)
		}
		if len(sv.Verified) > 0 {
			sv.Badge = newBadge(aggregate.BadgeVerified)
			verifiedQ := in[sv.Verified[0].ID].Run.QuestionSet.Questions
			submittedQ := verifiedQ
			if len(sv.Runs) > 0 {
				submittedQ = in[sv.Runs[0].ID].Run.QuestionSet.Questions
			}
			if verifiedQ < submittedQ {
				sv.Badge.Text = fmt.Sprintf("verified on %d of %s", verifiedQ, count(submittedQ, "question", "questions"))
			}
			sv.Status = fmt.Sprintf("Verified on %d of its %s: this project re-executed the submitted code of %d of its %s in its sandbox "+
				"under both scoring protocols (validate-submission -reexecute), found every verdict of those questions as submitted, and recorded its own "+
				"verdicts; the rows badged verified show them. The other %s no data files on the verifying machine and %s not re-executed: "+
				"the rows over all %s stay self-reported.",
				verifiedQ, count(submittedQ, "question", "questions"), len(sv.Verified), count(len(sv.Runs), "run", "runs"),
				count(submittedQ-verifiedQ, "question had", "questions had"), noun(submittedQ-verifiedQ, "was", "were"), count(submittedQ, "question", "questions"))
			if verifiedQ >= submittedQ {
				sv.Status = fmt.Sprintf("Verified: this project re-executed the submitted code of %d of its %s in its sandbox under both scoring protocols "+
					"(validate-submission -reexecute), found every verdict as submitted, and recorded its own verdicts; the rows badged verified show them.",
					len(sv.Verified), count(len(sv.Runs), "run", "runs"))
			}
		} else {
			sv.Badge = newBadge(aggregate.BadgeSubmitted)
			sv.Status = selfReportedStatus(s.Runs, in)
		}
		views = append(views, sv)
	}
	w.page(SubmissionsPath, "Submissions", "submissions", map[string]any{"submissions": views})
}

// selfReportedStatus returns the status line of a submission without
// verified records: which harness scored its runs, as their results files
// record it (environment.generator and generator_version), and that this
// project has not yet re-executed them, as SUBMITTING.md says: its pull
// request's check re-executes every generated function in the sandbox, and
// the rows stay self-reported until the maintainers record the project's
// verdicts.
func selfReportedStatus(runs []string, in map[string]*results.File) string {
	var gens []string
	runner := true // every run's file written by the runner
	for _, id := range runs {
		f := in[id]
		if f == nil {
			continue
		}
		env := f.Run.Environment
		g := env.Generator
		if env.GeneratorVersion != "" {
			g += " " + env.GeneratorVersion
		}
		if !slices.Contains(gens, g) {
			gens = append(gens, g)
		}
		runner = runner && (env.Generator == results.GeneratorRunner || env.Generator == results.GeneratorRescore)
	}
	slices.Sort(gens)
	runner = runner && len(gens) > 0
	who := "the submitters' own harness scored these runs"
	if len(gens) > 0 {
		who += " (generator " + strings.Join(gens, ", ") + ", as their results files record it)"
	}
	if runner {
		who = "this project's runner (or its re-execution) scored these runs on the submitters' machine (generator " + strings.Join(gens, ", ") +
			", as their results files record it) and make-submission made the folder"
	}
	return "Self-reported: " + who + ". Not yet re-executed by this project: its pull request's check re-executes every generated function " +
		"in the sandbox under both scoring protocols and compares the verdicts, and the rows stay self-reported until the maintainers record " +
		"the project's own verdicts (then they are badged verified). The validator checked their format, totals, rounds, question ids " +
		"and the absence of credentials."
}
