package content

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// identityGroup is the configurations that score the same answers
// (aggregate.Configuration.Identity): e.g. MatTools' published
// GPT-4o single-LLM runs as published (mattools-original) and re-executed by
// this project (mattools-v1, mattools-v1-strict): a rescoring keeps the
// generation settings of the run it re-executes
// (results.GenerationParams.Rescored), so both have one identity.
type identityGroup struct {
	// Members in display order: as published first, then by protocol
	// display order (results.ProtocolRank), then question set size (largest first).
	Members []*aggregate.Configuration
	// Primary is the member whose verdicts the per-question views show
	// first: a non-published member under the first scored protocol in
	// display order that has one (mattools-v1, then mattools-v1-strict),
	// else the first member.
	Primary *aggregate.Configuration
}

func compareMembers(x, y *aggregate.Configuration) int {
	px, py := aggregate.BadgeOf(x.Key.Provenance) == aggregate.BadgePublished, aggregate.BadgeOf(y.Key.Provenance) == aggregate.BadgePublished
	if px != py {
		if px {
			return -1
		}
		return 1
	}
	return cmp.Or(
		cmp.Compare(results.ProtocolRank(x.Key.ScoringProtocol), results.ProtocolRank(y.Key.ScoringProtocol)),
		strings.Compare(x.Key.ScoringProtocol, y.Key.ScoringProtocol),
		-cmp.Compare(x.QuestionSet().Questions, y.QuestionSet().Questions),
		strings.Compare(x.Key.String(), y.Key.String()),
	)
}

// primaryOf picks the member whose verdicts are shown first.
func primaryOf(members []*aggregate.Configuration) *aggregate.Configuration {
	for _, sp := range results.ScoringProtocols() {
		if !sp.Scored {
			continue
		}
		var best *aggregate.Configuration
		for _, c := range members {
			if c.Key.ScoringProtocol != sp.ID || aggregate.BadgeOf(c.Key.Provenance) == aggregate.BadgePublished {
				continue
			}
			if best == nil || c.QuestionSet().Questions > best.QuestionSet().Questions {
				best = c
			}
		}
		if best != nil {
			return best
		}
	}
	return members[0]
}

// identityGroups groups the edition's tool-usage configurations by
// Identity, in the order of their first member in the leaderboard, and
// indexes each configuration's group.
func (v *views) identityGroups() ([]*identityGroup, map[*aggregate.Configuration]*identityGroup) {
	if v.groupOf != nil {
		return v.groups, v.groupOf
	}
	byIdentity := map[string]*identityGroup{}
	groups := []*identityGroup{}
	groupOf := map[*aggregate.Configuration]*identityGroup{}
	for _, c := range v.toolConfigs() {
		g := byIdentity[c.Identity()]
		if g == nil {
			g = &identityGroup{}
			byIdentity[c.Identity()] = g
			groups = append(groups, g)
		}
		g.Members = append(g.Members, c)
		groupOf[c] = g
	}
	for _, g := range groups {
		slices.SortStableFunc(g.Members, compareMembers)
		g.Primary = primaryOf(g.Members)
	}
	// A corrected benchmark version's groups after the published ones:
	// its sections follow theirs on a question's pages.
	corrected := func(g *identityGroup) int {
		if aggregate.CorrectsVersion(g.Primary.Key.BenchmarkVersion) != "" {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(groups, func(x, y *identityGroup) int { return cmp.Compare(corrected(x), corrected(y)) })
	v.groups, v.groupOf = groups, groupOf
	return groups, groupOf
}

// badgeText labels a configuration's verdicts: its scoring protocol and,
// when they are not MatTools' own, how they were obtained.
func badgeText(c *aggregate.Configuration) string {
	switch aggregate.BadgeOf(c.Key.Provenance) {
	case aggregate.BadgePublished:
		return "as published"
	case aggregate.BadgeReexecuted:
		return "re-executed by this project"
	}
	return string(aggregate.BadgeOf(c.Key.Provenance))
}

// familyText describes a provenance family (aggregate.Family) in words.
func familyText(c *aggregate.Configuration) string {
	f := aggregate.Family(c.Key.Provenance)
	switch {
	case f == "published":
		return "MatTools' published answers"
	case f == string(results.ProvenanceRunner):
		return "this project's runner"
	case strings.HasPrefix(f, "submitted:"):
		return "submission " + strings.TrimPrefix(f, "submitted:")
	}
	return f
}

// agreement counts a run list's rounds (their verdicts) that are correct (k)
// of those with a known verdict (n): not unknown, not data-missing.
func agreement(verdicts []string) (k, n int) {
	for _, verdict := range verdicts {
		switch results.Verdict(verdict) {
		case results.VerdictUnknown, results.VerdictDataMissing, "":
		case results.VerdictCorrect:
			k++
			n++
		default:
			n++
		}
	}
	return k, n
}

// memberView is one configuration of a group as a per-question view shows it.
type memberView struct {
	configView
	Slug       string `json:"slug"`
	Badge      string `json:"badge"`       // "as published", "re-executed", "runner", …
	BadgeText  string `json:"badge_text"`  // "as published", "re-executed by this project", …
	Reexecuted bool   `json:"reexecuted"`  // badge re-executed
	Primary    bool   `json:"primary"`     // the group's primary member
	QuestionN  int    `json:"question_n"`  // questions in its question set
	SetWords   string `json:"set_words"`   // "49 questions", "28 of 49 questions (data files present)"
	Identity   string `json:"identity"`    // aggregate.Configuration.Identity
	FamilyText string `json:"family_text"` // familyText
}

func (v *views) member(c *aggregate.Configuration, primary bool) memberView {
	b := aggregate.BadgeOf(c.Key.Provenance)
	qs := c.QuestionSet()
	words := count(qs.Questions, "question", "questions")
	if qs.Name != "all" {
		words = fmt.Sprintf("question set %s", c.Key.QuestionSet)
	}
	return memberView{configView: v.config(c), Slug: c.Slug, Badge: string(b), BadgeText: badgeText(c), Reexecuted: b == aggregate.BadgeReexecuted,
		Primary: primary, QuestionN: qs.Questions, SetWords: words, Identity: c.Identity(), FamilyText: familyText(c)}
}

// verdictView is one configuration's verdict on one question in one round.
type verdictView struct {
	outcomeView
	Protocol   string `json:"protocol"`
	Badge      string `json:"badge"`
	BadgeText  string `json:"badge_text"`
	Reexecuted bool   `json:"reexecuted"`
	Primary    bool   `json:"primary"`
	Config     string `json:"config_href"`
}

// codeView is one distinct generated code of a round (normally one: all
// protocols score the same code).
type codeView struct {
	Code      string `json:"code"`
	Function  string `json:"function"`
	Protocols string `json:"protocols"` // the protocols whose rows hold it, when a round has several codes
	// Retrieved is the context the system retrieved for this answer, in
	// the order given to the model (results column retrieved).
	Retrieved []retrievedView `json:"retrieved"`
	// Trace is the answer's stage trace (results column trace); nil, and
	// absent from the page data, when the row has none.
	Trace *traceView `json:"trace,omitempty"`
}

// traceView is one answer's stage trace as a question page shows it,
// collapsed: Summary, then one row per stage in the order recorded.
type traceView struct {
	Summary string           `json:"summary"` // "Stage trace: 9 stages, 1 iteration"
	Stages  []traceStageView `json:"stages"`
}

// traceStageView is one results.TraceStage. Numbers are decimal text, as
// the page prints them (Hugo would print a large JSON number in exponent
// form). Fields that are empty for the stage (no chunk ids, no verdict, no
// stop reason) are left out of the page data, so that a trace costs the
// page only what it holds.
type traceStageView struct {
	Iteration        string   `json:"iteration"` // 1-based, for display
	Stage            string   `json:"stage"`
	PromptTokens     string   `json:"prompt_tokens"`
	CompletionTokens string   `json:"completion_tokens"`
	LatencyMS        string   `json:"latency_ms"`          // milliseconds
	Retrieved        []string `json:"retrieved,omitempty"` // chunk ids
	Verdict          string   `json:"verdict,omitempty"`
	StopReason       string   `json:"stop_reason,omitempty"`
}

// newTrace returns the view of a stage trace, nil for an empty one. The
// iterations counted are the distinct loop iterations the stages name.
func newTrace(stages []results.TraceStage) *traceView {
	if len(stages) == 0 {
		return nil
	}
	tv := &traceView{}
	iterations := map[int32]bool{}
	for _, st := range stages {
		iterations[st.Iteration] = true
		tv.Stages = append(tv.Stages, traceStageView{Iteration: strconv.Itoa(int(st.Iteration) + 1), Stage: st.Stage,
			PromptTokens: strconv.FormatInt(st.PromptTokens, 10), CompletionTokens: strconv.FormatInt(st.CompletionTokens, 10),
			LatencyMS: strconv.FormatInt(st.LatencyMS, 10), Retrieved: st.RetrievedIDs, Verdict: st.Verdict, StopReason: st.StopReason})
	}
	tv.Summary = fmt.Sprintf("Stage trace: %s, %s", count(len(stages), "stage", "stages"), count(len(iterations), "iteration", "iterations"))
	return tv
}

type retrievedView struct {
	Rank   int32  `json:"rank"`
	Chunk  string `json:"chunk"`
	Source string `json:"source"`
	Score  string `json:"score"`
}

func retrievedViews(rs []results.RetrievedChunk) []retrievedView {
	out := []retrievedView{}
	for _, r := range rs {
		out = append(out, retrievedView{Rank: r.Rank, Chunk: r.ChunkID, Source: r.Source, Score: strconv.FormatFloat(r.Score, 'g', 4, 64)})
	}
	return out
}

// roundEntry is one round of a group on one question: the code once and
// the verdict under each scoring protocol present.
type roundEntry struct {
	Round    int           `json:"round"`
	Runs     string        `json:"runs"` // the run ids, space-separated (data-runs)
	Verdict  string        `json:"verdict"`
	Verdicts []verdictView `json:"verdicts"`
	Codes    []codeView    `json:"codes"`
	// ID is the entry's id on its configuration's code page
	// (questionCodeRel): "entry-<n>", n its 1-based place in the section.
	ID string `json:"id,omitempty"`
	// Detail links, on a question page, the entry on the code page that
	// holds its code and verdict details (Codes and the verdicts' texts are
	// left out of the question page); nil on the code page.
	Detail *linkView `json:"detail,omitempty"`
}

// identitySection is one group on one question page.
type identitySection struct {
	Anchor    string       `json:"anchor"`
	Anchors   []string     `json:"anchors"` // the other members' slugs (old links land here)
	Model     string       `json:"model"`
	ModelID   string       `json:"model_id"`
	System    string       `json:"system"`
	SystemID  string       `json:"system_id"`
	Source    string       `json:"source"`
	Family    string       `json:"family"`
	Version   string       `json:"version"` // "corrected version 2025-05-corrected-1"; "" for a published version
	Href      string       `json:"href"`
	Members   []memberView `json:"members"`
	Agreement string       `json:"agreement"` // "2 of 3 rounds correct under mattools-v1"
	Verdicts  string       `json:"verdicts"`  // the entries' verdicts, space-separated (data-verdicts)
	Entries   []roundEntry `json:"entries"`
	Runs      int          `json:"-"`
	Correct   int          `json:"-"`
	Known     int          `json:"-"`
	// Landing says which corrected benchmark versions' configurations
	// land on this section (their anchors are in Anchors); "" for none.
	Landing string `json:"landing,omitempty"`
}

// questionSection builds a group's section for question qid; nil when no
// member has a row for it.
func (v *views) questionSection(g *identityGroup, qid string, rows func(*aggregate.Run) *results.QuestionRow) *identitySection {
	p := g.Primary
	s := &identitySection{Anchor: p.Slug, Model: p.Model.DisplayName, ModelID: p.Key.Model, System: p.SystemLabel(),
		SystemID: string(p.Key.System), Source: aggregate.RetrievalTitle(&p.Runs[0].File.Run), Family: familyText(p), Href: confHref(p),
		Anchors: []string{}}
	if aggregate.CorrectsVersion(p.Key.BenchmarkVersion) != "" {
		s.Version = "corrected version " + p.Key.BenchmarkVersion
	}
	entries := map[string]*roundEntry{}
	var order []string
	var primaryVerdicts []string
	inGroup := map[string]bool{}
	for _, c := range g.Members {
		for _, r := range c.Runs {
			inGroup[r.ID()] = true
		}
	}
	for _, c := range g.Members {
		if c != p {
			s.Anchors = append(s.Anchors, c.Slug)
		}
		s.Members = append(s.Members, v.member(c, c == p))
		for _, r := range c.Runs {
			qr := rows(r)
			if qr == nil {
				continue
			}
			s.Runs++
			base := r.ID()
			if d := r.File.Run.Provenance.DerivedFrom; d != "" && inGroup[d] {
				base = d
			}
			e := entries[base]
			if e == nil {
				e = &roundEntry{Round: r.Round()}
				entries[base] = e
				order = append(order, base)
			}
			if e.Runs != "" {
				e.Runs += " "
			}
			e.Runs += r.ID()
			b := aggregate.BadgeOf(c.Key.Provenance)
			vv := verdictView{outcomeView: outcome(r, qr), Protocol: c.Key.ScoringProtocol, Badge: string(b), BadgeText: badgeText(c),
				Reexecuted: b == aggregate.BadgeReexecuted, Primary: c == p, Config: confHref(c)}
			if c == p {
				e.Verdict = qr.Verdict
				primaryVerdicts = append(primaryVerdicts, qr.Verdict)
			}
			e.Verdicts = append(e.Verdicts, vv)
			if i := slices.IndexFunc(e.Codes, func(x codeView) bool { return x.Code == qr.Code && x.Function == qr.FunctionName }); i >= 0 {
				e.Codes[i].Protocols += ", " + c.Key.ScoringProtocol
			} else {
				e.Codes = append(e.Codes, codeView{Code: qr.Code, Function: qr.FunctionName, Protocols: c.Key.ScoringProtocol,
					Retrieved: retrievedViews(qr.Retrieved), Trace: newTrace(qr.Trace)})
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(entries[a].Round, entries[b].Round) })
	var verdicts []string
	for _, k := range order {
		e := entries[k]
		if e.Verdict == "" {
			e.Verdict = e.Verdicts[0].Verdict
		}
		if !slices.Contains(verdicts, e.Verdict) {
			verdicts = append(verdicts, e.Verdict)
		}
		s.Entries = append(s.Entries, *e)
	}
	slices.Sort(verdicts)
	s.Verdicts = strings.Join(verdicts, " ")
	s.Correct, s.Known = agreement(primaryVerdicts)
	if s.Known > 0 {
		s.Agreement = fmt.Sprintf("%d of %s correct under %s", s.Correct, count(s.Known, "round", "rounds"), p.Key.ScoringProtocol)
		if aggregate.BadgeOf(p.Key.Provenance) == aggregate.BadgeReexecuted {
			s.Agreement += " (re-executed by this project)"
		}
	} else {
		s.Agreement = fmt.Sprintf("no round has a known verdict under %s", p.Key.ScoringProtocol)
		switch {
		case slices.Contains(primaryVerdicts, string(results.VerdictDataMissing)):
			s.Agreement += " (the question's data files were absent where it was scored)"
		case aggregate.BadgeOf(p.Key.Provenance) == aggregate.BadgePublished:
			s.Agreement += " (MatTools published run totals only)"
		}
	}
	return s
}
