package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// Upstream's pipeline files, relative to the data root.
const (
	// OriginalsFile holds MatTools' 55 triplets before review.
	OriginalsFile = QuestionGenerationDir + "/defect_questions_original.json"
	// PublishedDir holds the 49 reviewed tasks, one folder per test.
	PublishedDir = "src/question_segments/pymatgen_analysis_defects"
	// DefectsTestsDir holds the unit tests they were made from.
	DefectsTestsDir = "src/tool_source_code/pymatgen-analysis-defects/tests"
)

// Original is one of MatTools' triplets before review, with the test it
// was made from.
type Original struct {
	// Index is its 0-based position in OriginalsFile.
	Index int
	// Triplet holds its three fields (ID and Test: the matched test's).
	Triplet Triplet
	// Test is the test function it was made from; How says how it was
	// matched: "name" (its JSON_File_Name is the test's name) or "order"
	// (the test following the previous entry's in its file: the entry's
	// properties JSON is null or invalid, or names a file).
	Test Test
	How  string
}

var unitTestDef = regexp.MustCompile(`(?m)^def (\w+)\(`)

// LoadOriginals reads OriginalsFile and matches each entry to its test
// function among tests (Split of DefectsTestsDir): by JSON_File_Name when
// it names a test, else to the test after the previous entry's in the same
// file (upstream generated them in file order). An entry matching no test
// is an error naming it.
func LoadOriginals(root string, tests []Test) ([]Original, error) {
	p := filepath.Join(root, filepath.FromSlash(OriginalsFile))
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	var raw []struct {
		Props    *string `json:"properties_json_str"`
		Question *string `json:"question"`
		UnitTest *string `json:"new_unit_test"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("synth: %s: %w", p, err)
	}
	byName := map[string]int{}
	for i, t := range tests {
		if _, dup := byName[t.Name]; !dup {
			byName[t.Name] = i
		}
	}
	var out []Original
	prev := -1
	for i, r := range raw {
		o := Original{Index: i, Triplet: Triplet{PropertiesJSON: r.Props, Question: r.Question, NewUnitTest: r.UnitTest}}
		k := -1
		if r.Props != nil {
			if name, _, err := ParsePropertiesJSON(*r.Props); err == nil {
				if j, ok := byName[name]; ok {
					k, o.How = j, "name"
				}
			}
		}
		if k < 0 && prev >= 0 && prev+1 < len(tests) && fileOf(tests[prev+1].ID) == fileOf(tests[prev].ID) {
			k, o.How = prev+1, "order"
		}
		if k < 0 {
			return nil, fmt.Errorf("synth: %s: entry %d matches no test function", p, i)
		}
		o.Test = tests[k]
		o.Triplet.ID, o.Triplet.Test = tests[k].ID, tests[k].Name
		out = append(out, o)
		prev = k
	}
	return out, nil
}

func fileOf(id string) string {
	f, _, _ := strings.Cut(id, "::")
	return f
}

// Review outcomes: what MatTools' reviewers did to an original triplet,
// judged from the published folder of its test.
const (
	ReviewDropped   = "dropped"   // no published folder
	ReviewChanged   = "changed"   // its properties (names, formats or values) changed
	ReviewUnchanged = "unchanged" // the same properties (the question was edited in every folder)
)

// Review is what the review did to one original.
type Review struct {
	Outcome string
	// VerificationEdited says the published new_unit_test.py differs from
	// the original's beyond the function's name (dropped: false).
	VerificationEdited bool
	// Changes lists the property changes ("added p", "removed p", "p:
	// value V → W", "p: format F → G", "properties JSON did not parse").
	Changes []string
}

// ReviewOf compares an original's properties with its published folder
// (root/PublishedDir/<test name>/properties.json), if any.
func ReviewOf(root string, o Original) (Review, error) {
	p := filepath.Join(root, filepath.FromSlash(PublishedDir), o.Test.Name, "properties.json")
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return Review{Outcome: ReviewDropped}, nil
	}
	if err != nil {
		return Review{}, fmt.Errorf("synth: %w", err)
	}
	_, pub, err := ParsePropertiesJSON(string(b))
	if err != nil {
		return Review{}, fmt.Errorf("synth: %s: %w", p, err)
	}
	edited := true
	if ut, err := os.ReadFile(filepath.Join(filepath.Dir(p), "new_unit_test.py")); err == nil && o.Triplet.NewUnitTest != nil {
		orig := *o.Triplet.NewUnitTest
		if n := FunctionName(orig); n != "" {
			orig = strings.Replace(orig, "def "+n+"(", "def "+o.Test.Name+"(", 1)
		}
		edited = strings.TrimSpace(orig) != strings.TrimSpace(string(ut))
	}
	if o.Triplet.PropertiesJSON == nil {
		return Review{ReviewChanged, edited, []string{"properties JSON was null"}}, nil
	}
	_, orig, err := ParsePropertiesJSON(*o.Triplet.PropertiesJSON)
	if err != nil {
		return Review{ReviewChanged, edited, []string{"properties JSON did not parse"}}, nil
	}
	om, pm := map[string]Property{}, map[string]Property{}
	for _, x := range orig {
		om[x.Name] = x
	}
	for _, x := range pub {
		pm[x.Name] = x
	}
	var ch []string
	for _, x := range orig {
		y, ok := pm[x.Name]
		switch {
		case !ok:
			ch = append(ch, "removed "+x.Name)
		case !sameJSON(x.Value, y.Value):
			ch = append(ch, fmt.Sprintf("%s: value %s → %s", x.Name, short(x.Value), short(y.Value)))
		case x.Format != y.Format:
			ch = append(ch, fmt.Sprintf("%s: format %s → %s", x.Name, x.Format, y.Format))
		}
	}
	for _, y := range pub {
		if _, ok := om[y.Name]; !ok {
			ch = append(ch, "added "+y.Name)
		}
	}
	if len(ch) == 0 {
		return Review{Outcome: ReviewUnchanged, VerificationEdited: edited}, nil
	}
	return Review{ReviewChanged, edited, ch}, nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

func short(v json.RawMessage) string {
	s := oneLine(string(v))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// OriginalsReport is check (a) on MatTools' original triplets next to
// what the review did.
type OriginalsReport struct {
	Rows []OriginalRow
	// Counts[flagged][review outcome] counts the originals by check (a);
	// ExecCounts those check (b) ran on (nil before RunExecution).
	Counts, ExecCounts map[bool]map[string]int
	// LeakCounts counts them by check (c).
	LeakCounts map[bool]map[string]int
}

// OriginalRow is one original in the report.
type OriginalRow struct {
	Original Original
	Check    CheckResult
	Review   Review
	// Exec is check (b) (RunExecution), nil before it ran; MissingData the
	// test-data files of its test this data root lacks (the test itself is
	// then not run).
	Exec        *ExecResult
	MissingData []string
	// Leak is check (c) (CheckLeak).
	Leak []string
}

// Flagged says check (a) flags it.
func (r OriginalRow) Flagged() bool { return len(r.Check.Problems) > 0 }

// FlaggedExec says check (b) ran and flags it.
func (r OriginalRow) FlaggedExec() bool { return r.Exec != nil && len(r.Exec.Problems) > 0 }

// RunExecution runs check (b) on every original with a verification and
// a parsable properties JSON (MatTools kept no reference solutions, so
// only the dict of None and the test itself run; the test only when its
// data files are here). It fills Rows[i].Exec and ExecCounts.
func (r *OriginalsReport) RunExecution(ctx context.Context, sb sandbox.Sandbox, root string, wall time.Duration) error {
	return r.RunExecutionOf(ctx, sb, root, wall, nil)
}

// RunExecutionOf is RunExecution on the rows whose Original.Index only
// lists (all when nil).
func (r *OriginalsReport) RunExecutionOf(ctx context.Context, sb sandbox.Sandbox, root string, wall time.Duration, only []int) error {
	testsDir := filepath.Join(root, filepath.FromSlash(DefectsTestsDir))
	var in []ExecInput
	var idx []int
	keep := map[int]bool{}
	for _, i := range only {
		keep[i] = true
	}
	for i := range r.Rows {
		if only != nil && !keep[r.Rows[i].Original.Index] {
			continue
		}
		row := &r.Rows[i]
		o := row.Original
		if o.Triplet.NewUnitTest == nil || o.Triplet.PropertiesJSON == nil {
			continue
		}
		_, props, err := ParsePropertiesJSON(*o.Triplet.PropertiesJSON)
		if err != nil {
			continue
		}
		e := ExecInput{UnitTest: *o.Triplet.NewUnitTest}
		for _, p := range props {
			e.Properties = append(e.Properties, p.Name)
		}
		_, row.MissingData, _ = DataFiles(o.Test, testsDir)
		if len(row.MissingData) == 0 {
			e.Test = o.Test
		}
		in = append(in, e)
		idx = append(idx, i)
	}
	res, err := CheckExecution(ctx, sb, root, in, wall)
	if err != nil {
		return err
	}
	r.ExecCounts = map[bool]map[string]int{true: {}, false: {}}
	for k, i := range idx {
		x := res[k]
		r.Rows[i].Exec = &x
		r.ExecCounts[len(x.Problems) > 0][r.Rows[i].Review.Outcome]++
	}
	return nil
}

// CheckOriginals splits the defects tests, loads the originals, runs
// check (a) on each and compares with the review.
func CheckOriginals(root, python string) (*OriginalsReport, error) {
	files, err := SplitDir(filepath.Join(root, filepath.FromSlash(DefectsTestsDir)), python)
	if err != nil {
		return nil, err
	}
	var tests []Test
	for _, f := range files {
		tests = append(tests, f.Tests...)
	}
	origs, err := LoadOriginals(root, tests)
	if err != nil {
		return nil, err
	}
	in := make([]CheckInput, len(origs))
	for i, o := range origs {
		in[i] = CheckInput{Code: o.Test.Code, PropertiesJSON: o.Triplet.PropertiesJSON}
	}
	checks, err := CheckProperties(python, in)
	if err != nil {
		return nil, err
	}
	rep := &OriginalsReport{Counts: map[bool]map[string]int{true: {}, false: {}}, LeakCounts: map[bool]map[string]int{true: {}, false: {}}}
	for i, o := range origs {
		rv, err := ReviewOf(root, o)
		if err != nil {
			return nil, err
		}
		row := OriginalRow{Original: o, Check: checks[i], Review: rv, Leak: CheckLeak(o.Triplet.Question, o.Test)}
		rep.Rows = append(rep.Rows, row)
		rep.Counts[row.Flagged()][rv.Outcome]++
		rep.LeakCounts[len(row.Leak) > 0][rv.Outcome]++
	}
	return rep, nil
}

// Summary prints the report's table: flagged / not flagged by review
// outcome, then one line per original that is flagged or was dropped or
// changed.
func (r *OriginalsReport) Summary() string {
	var b strings.Builder
	outs := []string{ReviewDropped, ReviewChanged, ReviewUnchanged}
	table := func(name string, counts map[bool]map[string]int) {
		if counts == nil {
			return
		}
		fmt.Fprintf(&b, "%-16s %8s %8s %10s %6s\n", name, outs[0], outs[1], outs[2], "total")
		for _, f := range []bool{true, false} {
			label := "flagged"
			if !f {
				label = "passed"
			}
			t := 0
			for _, o := range outs {
				t += counts[f][o]
			}
			fmt.Fprintf(&b, "%-16s %8d %8d %10d %6d\n", label, counts[f][outs[0]], counts[f][outs[1]], counts[f][outs[2]], t)
		}
	}
	table("check (a)", r.Counts)
	table("check (b)", r.ExecCounts)
	table("check (c)", r.LeakCounts)
	any := map[bool]map[string]int{true: {}, false: {}}
	for _, row := range r.Rows {
		any[row.Flagged() || row.FlaggedExec() || len(row.Leak) > 0][row.Review.Outcome]++
	}
	table("any check", any)
	edited := map[bool]map[string]int{true: {}, false: {}}
	for _, row := range r.Rows {
		if row.Review.Outcome != ReviewDropped {
			edited[row.Flagged() || row.FlaggedExec() || len(row.Leak) > 0][fmt.Sprint(row.Review.VerificationEdited)]++
		}
	}
	fmt.Fprintf(&b, "of the published: verification edited by the review %d (%d flagged by a check), not edited %d (%d flagged)\n",
		edited[true]["true"]+edited[false]["true"], edited[true]["true"], edited[true]["false"]+edited[false]["false"], edited[true]["false"])
	if r.ExecCounts != nil {
		st := map[string]int{}
		for _, row := range r.Rows {
			switch {
			case row.Exec == nil:
			case len(row.MissingData) > 0:
				st["not run (data files missing)"]++
			case row.Exec.Test.Status == "skipped" && strings.HasPrefix(row.Exec.Test.Detail, "data missing"):
				st["skipped (a data file missing)"]++
			case row.Exec.Test.Status == "skipped":
				st["skipped (a package the sandbox lacks)"]++
			default:
				st[row.Exec.Test.Status]++
			}
		}
		fmt.Fprintf(&b, "the test itself:")
		for _, k := range []string{"passed", "failed", "error", "skipped (a data file missing)", "skipped (a package the sandbox lacks)", "not run (data files missing)"} {
			fmt.Fprintf(&b, " %s %d;", k, st[k])
		}
		b.WriteString("\n")
	}
	rows := append([]OriginalRow(nil), r.Rows...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Original.Index < rows[j].Original.Index })
	for _, row := range rows {
		if !row.Flagged() && !row.FlaggedExec() && len(row.Leak) == 0 && row.Review.Outcome == ReviewUnchanged {
			continue
		}
		ed := ""
		if row.Review.VerificationEdited {
			ed = ", verification edited"
		}
		fmt.Fprintf(&b, "\n#%d %s (matched by %s): review %s%s", row.Original.Index, row.Original.Test.ID, row.Original.How, row.Review.Outcome, ed)
		for _, c := range row.Review.Changes {
			fmt.Fprintf(&b, "\n    review: %s", c)
		}
		for _, p := range row.Check.Problems {
			fmt.Fprintf(&b, "\n    check (a): %s", p)
		}
		for _, p := range row.Leak {
			fmt.Fprintf(&b, "\n    check (c): %s", p)
		}
		if row.Exec != nil {
			for _, p := range row.Exec.Problems {
				fmt.Fprintf(&b, "\n    check (b): %s", p)
			}
			if len(row.MissingData) > 0 {
				fmt.Fprintf(&b, "\n    check (b): test not run, data missing: %s", strings.Join(row.MissingData, ", "))
			} else if row.Exec.Test.Status == "skipped" {
				fmt.Fprintf(&b, "\n    check (b): test skipped: %s", oneLine(row.Exec.Test.Detail))
			}
		}
	}
	b.WriteString("\n")
	return b.String()
}

// PublishedRow is one of MatTools' 49 published tasks under check (a)
// and (c): the reviewed properties and question against the test.
type PublishedRow struct {
	Test  Test
	Check CheckResult
	Leak  []string
}

// CheckPublished runs checks (a) and (c) on the published tasks (root's
// PublishedDir, each folder matched to the test of its name): what the
// checks flag in tasks two reviewers approved (their false alarms, or
// what the review left). A folder without a test of its name is an
// error naming it.
func CheckPublished(root, python string) ([]PublishedRow, error) {
	files, err := SplitDir(filepath.Join(root, filepath.FromSlash(DefectsTestsDir)), python)
	if err != nil {
		return nil, err
	}
	byName := map[string]Test{}
	for _, f := range files {
		for _, t := range f.Tests {
			byName[t.Name] = t
		}
	}
	dir := filepath.Join(root, filepath.FromSlash(PublishedDir))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	var rows []PublishedRow
	var in []CheckInput
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		t, ok := byName[e.Name()]
		if !ok {
			return nil, fmt.Errorf("synth: %s: no test function %s in %s", filepath.Join(dir, e.Name()), e.Name(), DefectsTestsDir)
		}
		pj, err := os.ReadFile(filepath.Join(dir, e.Name(), "properties.json"))
		if err != nil {
			return nil, fmt.Errorf("synth: %w", err)
		}
		q, err := os.ReadFile(filepath.Join(dir, e.Name(), "question.txt"))
		if err != nil {
			return nil, fmt.Errorf("synth: %w", err)
		}
		s, qs := string(pj), string(q)
		in = append(in, CheckInput{Code: t.Code, PropertiesJSON: &s})
		rows = append(rows, PublishedRow{Test: t, Leak: CheckLeak(&qs, t)})
	}
	res, err := CheckProperties(python, in)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].Check = res[i]
	}
	return rows, nil
}
