package content

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
)

// SectionsPerPage is the most configuration identities (sections) one
// question page lists: a question with more has pages 2, 3, … at
// questions/<id>/page/<n>/, so that a page's size does not grow with the
// number of runs; every page says how many there are and links them all.
// The published MatTools runs make 29 sections, one page.
const SectionsPerPage = 50

// questionPages returns, per question id, the page (1-based) of each
// identity group's section: groups in identityGroups order, the groups with
// no row for the question skipped, SectionsPerPage to a page. A corrected
// benchmark version's group has a section on the pages of the questions
// that version corrects only, when the published version's group of the
// same identity (its counterpart) has one on the others: there its
// verdicts are the counterpart's, and its anchors are on the counterpart's
// section (questionLanding). It reads only the rows' question ids.
func (v *views) questionPages() map[string]map[*identityGroup]int {
	if v.pageOf != nil {
		return v.pageOf
	}
	v.pageOf = map[string]map[*identityGroup]int{}
	v.landing = map[string]map[*identityGroup]*identityGroup{}
	groups, _ := v.identityGroups()
	questionsOf := map[*identityGroup]map[string]bool{}
	byIdentity := map[string]*identityGroup{}
	for _, g := range groups {
		has := map[string]bool{}
		for _, c := range g.Members {
			for _, r := range c.Runs {
				for i := range r.Questions {
					has[r.Questions[i].QuestionID] = true
				}
			}
		}
		questionsOf[g] = has
		byIdentity[g.Primary.Identity()] = g
	}
	n := map[string]int{}
	for _, g := range groups {
		has := questionsOf[g]
		// A corrected version's runs are the published answers with a few
		// verifications corrected: on the other questions their verdicts
		// are the published version's, which the counterpart's section
		// shows (docs/benchmark-audit.md, "The corrected version").
		cv, corrected := datasets.LookupCorrectedVersion(g.Primary.Key.BenchmarkVersion)
		counterpart := v.publishedCounterpart(g, byIdentity)
		for _, q := range sortedKeys(has) {
			if _, fixed := cv.Corrected(q); corrected && !fixed && counterpart != nil && questionsOf[counterpart][q] {
				if v.landing[q] == nil {
					v.landing[q] = map[*identityGroup]*identityGroup{}
				}
				v.landing[q][g] = counterpart
				continue
			}
			if v.pageOf[q] == nil {
				v.pageOf[q] = map[*identityGroup]int{}
			}
			v.pageOf[q][g] = n[q]/SectionsPerPage + 1
			n[q]++
		}
	}
	return v.pageOf
}

// publishedCounterpart is the group of the benchmark version a corrected
// version's group g corrects, of g's identity otherwise (system, source,
// model, variant, settings, provenance family); nil when g is of no
// corrected version or the edition has no such group.
func (v *views) publishedCounterpart(g *identityGroup, byIdentity map[string]*identityGroup) *identityGroup {
	base := aggregate.CorrectsVersion(g.Primary.Key.BenchmarkVersion)
	if base == "" {
		return nil
	}
	k := g.Primary.Key
	k.BenchmarkVersion = base
	return byIdentity[(&aggregate.Configuration{Key: k}).Identity()]
}

// questionLanding returns, for question qid, the corrected-version groups
// whose anchors are on another group's section (questionPages), by the
// group holding them.
func (v *views) questionLanding(qid string) map[*identityGroup][]*identityGroup {
	v.questionPages()
	out := map[*identityGroup][]*identityGroup{}
	groups, _ := v.identityGroups()
	for _, g := range groups { // in identityGroups order, so that the anchors are in a fixed order
		if to := v.landing[qid][g]; to != nil {
			out[to] = append(out[to], g)
		}
	}
	return out
}

// questionPageHref links configuration c's verdicts on question qid: its
// section (or the section holding its anchor, questionLanding) on the
// question's page that shows it, "questions/<id>/[page/<n>/]#<slug>"; the
// question's first page without a fragment when no page shows c there (no
// run of c's identity has a row for the question).
func (v *views) questionPageHref(qid string, c *aggregate.Configuration) string {
	_, groupOf := v.identityGroups()
	g := groupOf[c]
	pages := v.questionPages()
	if to := v.landing[qid][g]; to != nil {
		g = to
	}
	n, ok := pages[qid][g]
	if !ok {
		return questionHref(qid)
	}
	return questionPageRel(qid, n) + "#" + c.Slug
}

// questionPageRel is page n (1-based) of question id: the question's own
// path for the first.
func questionPageRel(id string, n int) string {
	if n <= 1 {
		return questionHref(id)
	}
	return href("questions", id, "page", strconv.Itoa(n))
}

// groupRows are the question rows of a group's runs, by run and question
// id, with the texts the page shows.
type groupRows map[*aggregate.Run]map[string]*results.QuestionRow

// detailsOf reads the rows of g's runs with their texts: from each run's
// results file (results.ReadDetails, joined row by row with the summary
// rows in Files) when the edition has its path, else the rows in Files.
func (w *writer) detailsOf(g *identityGroup) (groupRows, error) {
	out := groupRows{}
	for _, c := range g.Members {
		for _, r := range c.Runs {
			path, ok := w.e.ResultsPaths[r.ID()]
			if !ok {
				out[r] = fullRowsByQuestion(r)
				continue
			}
			det, err := results.ReadDetails(path)
			if err != nil {
				return nil, err
			}
			sum := r.Questions
			if len(det) != len(sum) {
				return nil, fmt.Errorf("%s: %d question rows, %d when first read: the file changed during the build", path, len(det), len(sum))
			}
			m := make(map[string]*results.QuestionRow, len(det))
			for i := range det {
				d, s := &det[i], &sum[i]
				if d.QuestionID != s.QuestionID {
					return nil, fmt.Errorf("%s: row %d is question %s, %s when first read: the file changed during the build", path, i+1, d.QuestionID, s.QuestionID)
				}
				q := s.QuestionRow()
				q.Code, q.FunctionName = d.Code, d.FunctionName
				q.ErrorExcerpt, q.StdoutExcerpt, q.StderrExcerpt = d.ErrorExcerpt, d.StdoutExcerpt, d.StderrExcerpt
				q.ErrorExcerptBytes, q.StdoutBytes, q.StderrBytes = d.ErrorExcerptBytes, d.StdoutBytes, d.StderrBytes
				q.Retrieved, q.Trace = d.Retrieved, d.Trace
				q.PropertyOutcomes = d.PropertyOutcomes
				if len(q.PropertyOutcomes) == 0 && len(r.File.Questions) == len(det) && r.File.Questions[i].QuestionID == q.QuestionID {
					q.PropertyOutcomes = r.File.Questions[i].PropertyOutcomes // the summary read them (results.ScanDir)
				}
				m[q.QuestionID] = &q
			}
			out[r] = m
		}
	}
	return out, nil
}

// prefetch returns the rows of each group in turn, reading those of up to
// GOMAXPROCS groups ahead in parallel; only that many groups' texts are in
// memory at once. Every element of the returned channel must be received.
func (w *writer) prefetch(groups []*identityGroup) <-chan groupResult {
	out := make(chan groupResult)
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	pending := make(chan chan groupResult, runtime.GOMAXPROCS(0))
	go func() {
		for _, g := range groups {
			slots <- struct{}{}
			ch := make(chan groupResult, 1)
			pending <- ch
			go func() {
				rows, err := w.detailsOf(g)
				ch <- groupResult{rows, err}
			}()
		}
		close(pending)
	}()
	go func() {
		for ch := range pending {
			res := <-ch
			<-slots
			out <- res
		}
		close(out)
	}()
	return out
}

type groupResult struct {
	rows groupRows
	err  error
}

type questionOption struct {
	Value string `json:"value"`
	Text  string `json:"text"`
}

// questionState is what a question's pages share, from the summary rows,
// and the sections of the page being filled.
type questionState struct {
	q                            questionRef
	sections                     int // sections on all pages
	runs, rounds, known, correct int
	pages                        int
	page                         int                // the page being filled (1-based)
	pending                      []*identitySection // its sections so far
	models, systems, verdicts    []questionOption
	data                         map[string]any // the page data every page shares
	lastGroup                    *identityGroup // the last group with a section
	// landing: the corrected-version groups whose anchors are on a
	// group's section (questionLanding).
	landing map[*identityGroup][]*identityGroup
}

func addOption(opts *[]questionOption, value, text string) {
	if !slices.ContainsFunc(*opts, func(o questionOption) bool { return o.Value == value }) {
		*opts = append(*opts, questionOption{Value: value, Text: text})
	}
}

// writeQuestions writes the pages of each question: one section per
// configuration identity (model · system · source · provenance family), one
// entry per round with the code once and the verdict under each scoring
// protocol present, and a filter by model, system and verdict
// (static/assets/questions.js; the page reads in full without it), at most
// SectionsPerPage sections to a page. The counts come from the summary
// rows; the texts are read group by group (prefetch), all questions' pages
// filled from one group's rows before the next group's are read.
func (w *writer) writeQuestions(v *views) {
	b := w.e.Benchmark
	if b == nil {
		w.page("questions", "Questions", "questions", map[string]any{"questions": []any{}})
		return
	}
	if w.err != nil {
		return
	}
	groups, _ := v.identityGroups()
	pages := v.questionPages()
	refs, err := w.references()
	if err != nil {
		w.err = err
		return
	}
	type questionItem struct {
		questionRef
		Properties int    `json:"properties"`
		Executable bool   `json:"executable"`
		Runs       int    `json:"runs"`
		Known      string `json:"known"` // "k of n rounds with a known verdict fully correct"
	}
	states := map[string]*questionState{}
	var order []*questionState
	for _, q := range b.Questions {
		st := &questionState{q: questionRef{ID: q.ID, Index: q.Index, Href: questionHref(q.ID)}, page: 1, landing: v.questionLanding(q.ID)}
		states[q.ID] = st
		order = append(order, st)
	}
	// The totals every page shows, from the summary rows.
	light := map[*aggregate.Run]map[string]*results.QuestionRow{}
	for _, g := range groups {
		for _, c := range g.Members {
			for _, r := range c.Runs {
				light[r] = fullRowsByQuestion(r)
			}
		}
		for _, st := range order {
			if _, ok := pages[st.q.ID][g]; !ok {
				continue
			}
			s := v.questionSection(g, st.q.ID, func(r *aggregate.Run) *results.QuestionRow { return light[r][st.q.ID] })
			if s == nil {
				continue
			}
			st.sections++
			st.runs += s.Runs
			st.rounds += len(s.Entries)
			st.known += s.Known
			st.correct += s.Correct
			st.lastGroup = g
		}
		for _, c := range g.Members {
			for _, r := range c.Runs {
				delete(light, r)
			}
		}
	}
	items := []questionItem{}
	for _, q := range b.Questions {
		st := states[q.ID]
		st.pages = max(1, (st.sections+SectionsPerPage-1)/SectionsPerPage)
		type prop struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Format      string `json:"format"`
			Value       string `json:"value"`
		}
		type dataFile struct {
			Path    string `json:"path"`
			Present bool   `json:"present"`
			Bytes   int64  `json:"bytes"`
		}
		var props []prop
		for _, p := range q.Properties {
			props = append(props, prop{Name: p.Name, Description: p.Description, Format: p.Format, Value: p.ValueText()})
		}
		files := []dataFile{}
		for _, f := range q.DataFiles {
			files = append(files, dataFile{Path: f.Path, Present: f.Present, Bytes: f.Bytes})
		}
		knownText := "no per-question outcomes known"
		if st.known > 0 {
			knownText = fmt.Sprintf("%d of %s with a known verdict fully correct", st.correct, count(st.known, "round", "rounds"))
		}
		st.data = map[string]any{
			"id": q.ID, "index": q.Index, "number": q.Index + 1, "statement": q.Text, "properties": props, "data_files": files,
			"executable": q.Executable(), "configurations": st.sections, "runs": st.runs, "rounds": st.rounds, "known": knownText,
		}
		if ref := refs[q.ID]; ref != nil {
			st.data["reference"] = ref
		}
		items = append(items, questionItem{questionRef: st.q, Properties: len(q.Properties), Executable: q.Executable(), Runs: st.runs, Known: knownText})
	}
	// The pages, group by group.
	var readErr error
	gi := 0
	for res := range w.prefetch(groups) {
		g := groups[gi]
		gi++
		if res.err != nil || readErr != nil {
			if readErr == nil {
				readErr = res.err
			}
			continue // receive every group (prefetch's contract)
		}
		for _, st := range order {
			if _, ok := pages[st.q.ID][g]; !ok {
				continue
			}
			s := v.questionSection(g, st.q.ID, func(r *aggregate.Run) *results.QuestionRow { return res.rows[r][st.q.ID] })
			if s == nil {
				continue
			}
			landSection(s, st.landing[g])
			st.pending = append(st.pending, w.writeQuestionCode(st, s))
			addOption(&st.models, s.ModelID, s.Model)
			addOption(&st.systems, s.SystemID, aggregate.SystemTitle(results.System(s.SystemID)))
			for _, e := range s.Entries {
				text := verdictSymbol(results.Verdict(e.Verdict)) + " " + e.Verdict
				if results.Verdict(e.Verdict) == results.VerdictPartial { // the verdict of wrong values too (verdictLabel)
					text += " or " + strings.ToLower(aggregate.OutcomeWrongValues.Title())
				}
				addOption(&st.verdicts, e.Verdict, text)
			}
			if len(st.pending) == SectionsPerPage || g == st.lastGroup {
				w.writeQuestionPage(st)
			}
		}
	}
	if readErr != nil {
		w.err = readErr
		return
	}
	for _, st := range order {
		if st.sections == 0 { // a question no run answers: its one page, empty
			w.writeQuestionPage(st)
		}
	}
	w.page("questions", "Questions", "questions", map[string]any{"questions": items, "benchmark_commit": w.e.Benchmark.Commit})
}

// landSection puts on s the anchors of the corrected-version groups that
// land on it (questionLanding) and says why they are there.
func landSection(s *identitySection, groups []*identityGroup) {
	var versions []string
	for _, g := range groups {
		for _, c := range g.Members {
			s.Anchors = append(s.Anchors, c.Slug)
		}
		if v := g.Primary.Key.BenchmarkVersion; !slices.Contains(versions, v) {
			versions = append(versions, v)
		}
	}
	if len(versions) > 0 {
		s.Landing = fmt.Sprintf("Benchmark version %s does not correct this question: its verdicts on it are these, and its configurations' links land here.",
			strings.Join(versions, ", "))
	}
}

// questionCodeRel is the code page of question id's section whose anchor
// (its identity group's primary configuration's slug) is anchor.
func questionCodeRel(id, anchor string) string { return href("questions", id, "code", anchor) }

// writeQuestionCode writes the code page of section s of st's question:
// each round's code, retrieved context, stage trace, per-property outcomes
// and output excerpts, which the question page does not hold (they made a
// question page of the published runs over 1 MB), so that the question
// page's size grows with the number of configurations and rounds only. It
// returns s as the question page shows it: each round's verdict line and a
// link to its entry on the code page (Detail), which
// static/assets/questions.js loads into the round when it is opened.
func (w *writer) writeQuestionCode(st *questionState, s *identitySection) *identitySection {
	rel := questionCodeRel(st.q.ID, s.Anchor)
	light := *s
	light.Entries = make([]roundEntry, len(s.Entries))
	for i := range s.Entries {
		e := &s.Entries[i]
		e.ID = fmt.Sprintf("entry-%d", i+1)
		l := *e
		l.Codes, l.ID = nil, ""
		l.Verdicts = make([]verdictView, len(e.Verdicts))
		var what []string
		for j, vv := range e.Verdicts {
			if len(vv.PassedProps)+len(vv.FailedProps) > 0 && !slices.Contains(what, "per-property outcomes") {
				what = append(what, "per-property outcomes")
			}
			if vv.Error != "" || vv.Stdout != "" || vv.Stderr != "" {
				if !slices.Contains(what, "output excerpts") {
					what = append(what, "output excerpts")
				}
			}
			vv.PassedProps, vv.FailedProps, vv.Error, vv.Stdout, vv.Stderr = nil, nil, "", "", ""
			l.Verdicts[j] = vv
		}
		text := "No code was extracted from the model's answer"
		if slices.ContainsFunc(e.Codes, func(c codeView) bool { return c.Code != "" }) {
			text = "The generated code"
		}
		for _, c := range e.Codes {
			if len(c.Retrieved) > 0 && !slices.Contains(what, "retrieved context") {
				what = append(what, "retrieved context")
			}
			if c.Trace != nil && !slices.Contains(what, "stage trace") {
				what = append(what, "stage trace")
			}
		}
		if len(what) > 0 {
			text += "; " + strings.Join(what, ", ")
		}
		l.Detail = &linkView{Text: fmt.Sprintf("%s (round %d, on its own page)", text, e.Round), Href: rel + "#" + e.ID}
		light.Entries[i] = l
	}
	back := questionPageRel(st.q.ID, st.page) + "#" + s.Anchor
	w.page(rel, fmt.Sprintf("%s · %s · code", st.q.ID, s.Model), "questioncode", map[string]any{
		"id": st.q.ID, "number": st.q.Index + 1, "section": s,
		"back": linkView{Text: fmt.Sprintf("Back to question %d's page, this configuration's section", st.q.Index+1), Href: back},
	})
	return &light
}

// writeQuestionPage writes st's page being filled and starts the next.
func (w *writer) writeQuestionPage(st *questionState) {
	slices.SortStableFunc(st.models, func(a, b questionOption) int { return strings.Compare(a.Text, b.Text) })
	slices.SortStableFunc(st.verdicts, func(a, b questionOption) int { return strings.Compare(a.Value, b.Value) })
	for _, o := range []*[]questionOption{&st.models, &st.systems, &st.verdicts} {
		if *o == nil {
			*o = []questionOption{}
		}
	}
	data := map[string]any{}
	for k, x := range st.data {
		data[k] = x
	}
	sections := st.pending
	if sections == nil {
		sections = []*identitySection{}
	}
	data["sections"] = sections
	data["filter"] = map[string]any{"models": st.models, "systems": st.systems, "verdicts": st.verdicts}
	title := st.q.ID
	if st.pages > 1 {
		var links []pageLink
		for n := 1; n <= st.pages; n++ {
			links = append(links, pageLink{Number: n, Href: questionPageRel(st.q.ID, n), Current: n == st.page})
		}
		data["pages"] = links
		data["page"] = st.page
		data["page_count"] = st.pages
		data["per_page"] = SectionsPerPage
		data["first_section"] = (st.page-1)*SectionsPerPage + 1
		data["last_section"] = (st.page-1)*SectionsPerPage + len(sections)
		title = fmt.Sprintf("%s (page %d of %d)", st.q.ID, st.page, st.pages)
	}
	w.page(questionPageRel(st.q.ID, st.page), title, "question", data)
	st.page++
	st.pending, st.models, st.systems, st.verdicts = nil, nil, nil, nil
}
