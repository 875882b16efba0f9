package results

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// outcomesFile is toolUsageFile (format v3) with the per-property outcomes
// of each scored row: q_a 4 of 4 passed, q_b 1 of 2 (b failed), q_c none
// (not runnable).
func outcomesFile() *File {
	f := toolUsageFile()
	f.Questions[0].PropertyOutcomes = []PropertyOutcome{{"a1", true, ""}, {"a2", true, ""}, {"a3", true, ""}, {"a4", true, ""}}
	f.Questions[1].PropertyOutcomes = []PropertyOutcome{{"a", true, ""}, {"b", false, "b: Expected 2 but got 3"}}
	f.Questions[2].PropertyOutcomes = []PropertyOutcome{{"c", false, "not-runnable: empty-code"}}
	return f
}

// TestV2FileWithoutPropertyOutcomesReads: the committed format-v2 file
// (testdata/v2, written before property_outcomes existed) reads through
// Read and ReadSummary with its totals and no per-property outcomes, and
// writes as version 3.
func TestV2FileWithoutPropertyOutcomesReads(t *testing.T) {
	path := filepath.Join("testdata", "v2", "tool-usage"+Extension)
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Run.FormatVersion != 2 || len(f.Questions) != 3 {
		t.Fatalf("format_version %d, %d rows; want a v2 file of 3 rows", f.Run.FormatVersion, len(f.Questions))
	}
	passed := 0
	for _, q := range f.Questions {
		if q.PropertyOutcomes != nil {
			t.Errorf("%s: property outcomes read from a v2 file: %+v", q.QuestionID, q.PropertyOutcomes)
		}
		passed += int(*q.PropertiesPassed)
	}
	if passed != 12 || *f.Run.Totals.PropertiesPassed != 12 || !reflect.DeepEqual(f.Questions[1].FailedProperties, []string{"prop_1", "prop_3"}) {
		t.Errorf("passed %d (totals %d), failed %q; want 12 and [prop_1 prop_3]", passed, *f.Run.Totals.PropertiesPassed, f.Questions[1].FailedProperties)
	}
	s, err := ReadSummary(path, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.File.Questions) != 3 || s.File.Questions[1].PropertyOutcomes != nil || *s.File.Questions[1].PropertiesPassed != 2 {
		t.Errorf("summary rows %+v", s.File.Questions)
	}
	f.Run.FormatVersion = FormatVersion
	out := filepath.Join(t.TempDir(), "v3"+Extension)
	if err := Write(out, f); err != nil {
		t.Fatal(err)
	}
	if g, err := Read(out); err != nil || g.Run.FormatVersion != 3 {
		t.Errorf("rewritten as v3: %v", err)
	}
}

// TestPropertyOutcomesRoundTrip: a v3 file's per-property outcomes read
// back as written, through Read and ReadSummary.
func TestPropertyOutcomesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run"+Extension)
	want := outcomesFile()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Questions {
		if !reflect.DeepEqual(got.Questions[i].PropertyOutcomes, want.Questions[i].PropertyOutcomes) {
			t.Errorf("row %d: outcomes %+v, want %+v", i+1, got.Questions[i].PropertyOutcomes, want.Questions[i].PropertyOutcomes)
		}
	}
	s, err := ReadSummary(path, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.File.Questions[1].PropertyOutcomes, want.Questions[1].PropertyOutcomes) {
		t.Errorf("summary outcomes %+v", s.File.Questions[1].PropertyOutcomes)
	}
}

// TestPropertyOutcomesThatDisagreeAreRefused: a file whose per-property
// outcomes disagree with its properties_passed (or its property count,
// failed_properties, verdict or format version) is refused by Read and
// ReadSummary, naming the file, the row and the field.
func TestPropertyOutcomesThatDisagreeAreRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(f *File)
		want  string
		where string // "" = Read and ReadSummary; "read" = Read only (failed_properties is not a summary column)
	}{
		{"passed-disagrees", func(f *File) { f.Questions[1].PropertyOutcomes[1].Passed = true },
			"row 2: property_outcomes: 2 of its 2 properties passed but properties_passed is 1", ""},
		{"passed-disagrees-zero", func(f *File) { f.Questions[2].PropertyOutcomes[0].Passed = true },
			"row 3: property_outcomes: 1 of its 1 properties passed but properties_passed is 0", ""},
		{"too-few", func(f *File) { f.Questions[0].PropertyOutcomes = f.Questions[0].PropertyOutcomes[:3] },
			"row 1: property_outcomes: lists 3 properties but property_count is 4", ""},
		{"twice", func(f *File) { f.Questions[0].PropertyOutcomes[3].Property = "a1" },
			`row 1: property_outcomes[3].property: "a1" appears twice`, ""},
		{"unnamed", func(f *File) { f.Questions[0].PropertyOutcomes[2].Property = "" },
			"row 1: property_outcomes[2].property: required field missing", ""},
		{"failed-list", func(f *File) { f.Questions[1].FailedProperties = []string{"a"} },
			`row 2: failed_properties: is ["a"] but the failed properties of property_outcomes are ["b"]`, "read"},
		{"v2", func(f *File) { f.Run.FormatVersion = 2 },
			"row 1: property_outcomes: is a column of format version 3; this file is version 2", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := outcomesFile()
			c.edit(f)
			path := filepath.Join(t.TempDir(), "bad"+Extension)
			writeUnchecked(t, path, f)
			_, err := Read(path)
			if err == nil || !strings.Contains(err.Error(), path+":"+c.want) {
				t.Errorf("Read = %v\nwant %s:%s", err, path, c.want)
			}
			if c.where == "" {
				_, err = ReadSummary(path, SummaryOptions{})
				if err == nil || !strings.Contains(err.Error(), path+":"+c.want) {
					t.Errorf("ReadSummary = %v\nwant %s:%s", err, path, c.want)
				}
			}
			if err := Validate(f); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate = %v", err)
			}
		})
	}
	// A question without an outcome has no per-property outcomes.
	f := outcomesFile()
	f.Run.Totals.Scored = false
	f.Run.Totals.Runnable, f.Run.Totals.PropertiesPassed, f.Run.Totals.QuestionsCorrect, f.Run.Totals.QuestionsPartial = nil, nil, nil, nil
	for i := range f.Questions {
		f.Questions[i].Verdict, f.Questions[i].Runnable, f.Questions[i].PropertiesPassed = string(VerdictUnknown), nil, nil
		f.Questions[i].FailedProperties = nil
	}
	if err := Validate(f); err == nil || !strings.Contains(err.Error(), "row 1: property_outcomes: lists 4 outcomes but the question has none (verdict unknown") {
		t.Errorf("Validate = %v", err)
	}
}

// TestStreamWriterChecksPropertyOutcomes: the stream writer (the runner's)
// writes per-property outcomes as Write does, and refuses a row whose
// outcomes disagree with its properties_passed at Close, naming the row.
func TestStreamWriterChecksPropertyOutcomes(t *testing.T) {
	for _, bad := range []bool{false, true} {
		f := outcomesFile()
		if bad {
			f.Questions[0].PropertyOutcomes[0].Passed = false
		}
		path := filepath.Join(t.TempDir(), "stream"+Extension)
		w, err := NewStreamWriter(path, &f.Run)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Questions {
			if err := w.WriteQuestion(&f.Questions[i]); err != nil {
				t.Fatal(err)
			}
		}
		err = w.Close(&f.Run)
		switch {
		case bad && (err == nil || !strings.Contains(err.Error(), "row 1: property_outcomes: 3 of its 4 properties passed but properties_passed is 4")):
			t.Errorf("Close = %v", err)
		case !bad && err != nil:
			t.Fatal(err)
		case !bad:
			g, err := Read(path)
			if err != nil || !reflect.DeepEqual(g.Questions[1].PropertyOutcomes, f.Questions[1].PropertyOutcomes) {
				t.Errorf("read back %v: %+v", err, g)
			}
		}
	}
}

// TestAuditRuns: the audit's systems go with provenance kind audit and only
// with it, from format v3, as tool-usage runs of model none.
func TestAuditRuns(t *testing.T) {
	audit := func(edit func(r *Run)) error {
		f := outcomesFile()
		f.Run.System, f.Run.Model, f.Run.Provenance = SystemReferenceSolution, ModelNone, Provenance{Kind: ProvenanceAudit}
		edit(&f.Run)
		f.Run.RunID = MakeRunID(&f.Run)
		return Validate(f)
	}
	if err := audit(func(r *Run) {}); err != nil {
		t.Errorf("an audit run: %v", err)
	}
	for _, c := range []struct {
		edit func(r *Run)
		want string
	}{
		{func(r *Run) { r.Provenance.Kind = ProvenanceRunner }, `metadata: system: is "reference-solution" with provenance kind "runner"`},
		{func(r *Run) { r.System = SystemSingleLLM }, `metadata: system: is "single-llm" with provenance kind "audit"`},
		{func(r *Run) { r.Model = "gpt-4o" }, `metadata: system: an audit run is a tool-usage run with retrieval source 0 and model "none"`},
		{func(r *Run) { r.FormatVersion = 2 }, "metadata: provenance.kind: audit runs exist from format version 3; this file is version 2"},
	} {
		if err := audit(c.edit); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate = %v\nwant %s", err, c.want)
		}
	}
}

// TestTallyPropertiesFromStoredRows: a set defined by properties is scored
// from the rows' per-property outcomes; a question whose row has none is an
// error naming it.
func TestTallyPropertiesFromStoredRows(t *testing.T) {
	rows := outcomesFile().Questions
	set := PropertySet{"q_a": {"a1", "a3"}, "q_b": {"b", "a"}, "q_c": {"c"}}
	if q, p := set.Size(); q != 3 || p != 5 {
		t.Errorf("size %d questions, %d properties", q, p)
	}
	// q_a: a1, a3 passed; q_b: a passed, b failed; q_c: c failed.
	if passed, total, err := TallyProperties(rows, set); err != nil || passed != 3 || total != 5 {
		t.Errorf("TallyProperties = %d of %d, %v; want 3 of 5", passed, total, err)
	}
	for _, c := range []struct {
		set  PropertySet
		edit func(rows []QuestionRow)
		want string
	}{
		{PropertySet{"q_x": {"x"}}, func([]QuestionRow) {}, "question q_x: no row"},
		{PropertySet{"q_a": {"zz"}}, func([]QuestionRow) {}, `question q_a: the row has no outcome for property "zz"`},
		{PropertySet{"q_b": {"a"}}, func(r []QuestionRow) { r[1].PropertyOutcomes = nil }, "question q_b: the row (verdict partial) has no per-property outcomes"},
	} {
		rows := outcomesFile().Questions
		c.edit(rows)
		if _, _, err := TallyProperties(rows, c.set); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("TallyProperties = %v, want %s", err, c.want)
		}
		// The leaderboard's compact rows keep the outcomes (without the
		// messages) and give the same errors.
		if _, _, err := TallySummaryProperties(SummaryRows(rows), c.set); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("TallySummaryProperties = %v, want %s", err, c.want)
		}
	}
	if passed, total, err := TallySummaryProperties(SummaryRows(rows), set); err != nil || passed != 3 || total != 5 {
		t.Errorf("TallySummaryProperties = %d of %d, %v; want 3 of 5", passed, total, err)
	}
}

// TestDetailsReadPropertyOutcomes: ReadDetails, which a question page
// reads, returns each row's per-property outcomes as written (a page lists
// which properties passed and which failed), and none from a v2 file.
func TestDetailsReadPropertyOutcomes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run"+Extension)
	want := outcomesFile()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDetails(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.Questions) {
		t.Fatalf("%d rows, want %d", len(got), len(want.Questions))
	}
	for i := range want.Questions {
		if !reflect.DeepEqual(got[i].PropertyOutcomes, want.Questions[i].PropertyOutcomes) {
			t.Errorf("row %d: outcomes %+v, want %+v", i+1, got[i].PropertyOutcomes, want.Questions[i].PropertyOutcomes)
		}
	}
	v2, err := ReadDetails(filepath.Join("testdata", "v2", "tool-usage"+Extension))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range v2 {
		if q.PropertyOutcomes != nil {
			t.Errorf("%s: outcomes read from a v2 file: %+v", q.QuestionID, q.PropertyOutcomes)
		}
	}
}
