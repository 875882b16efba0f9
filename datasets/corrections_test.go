package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCorrectedVersionsAreWellFormed(t *testing.T) {
	vs := CorrectedVersions()
	if len(vs) == 0 || vs[0].ID != Version2025_05Corrected1 {
		t.Fatalf("corrected versions %v; want %s first", vs, Version2025_05Corrected1)
	}
	counts := map[string]int{}
	for _, e := range Manifest() {
		counts[e.ID] = e.Properties
	}
	for _, v := range vs {
		if v.Base != Version2025_05 || v.Title == "" || v.Description == "" || len(v.Corrections) == 0 {
			t.Errorf("%s: base %q, title %q, %d corrections", v.ID, v.Base, v.Title, len(v.Corrections))
		}
		for _, c := range v.Corrections {
			if _, ok := counts[c.Question]; !ok {
				t.Errorf("%s: %s is not a question of the manifest", v.ID, c.Question)
			}
			textOnly := len(c.Edits) > 0
			for _, e := range c.Edits {
				textOnly = textOnly && e.File == QuestionTextFile
			}
			if (len(c.Properties) == 0 && !textOnly) || len(c.Properties) > counts[c.Question] || len(c.Edits) == 0 {
				t.Errorf("%s %s: %d properties (of %d), %d edits", v.ID, c.Question, len(c.Properties), counts[c.Question], len(c.Edits))
			}
			// Every correction follows a line of the original unit test, or
			// cites the question's line and the audit's flag that found it.
			follows := strings.Contains(c.Test, "tests/test_") && strings.Contains(c.Test, "l.")
			cites := strings.Contains(c.Cites, "question.txt l.") && len(c.Flags) > 0
			if !(follows || cites) || c.Reason == "" {
				t.Errorf("%s %s: test %q, cites %q, flags %v, reason %q: want the original test's file and line, or the question's line and the flag", v.ID, c.Question, c.Test, c.Cites, c.Flags, c.Reason)
			}
			for _, f := range c.Flags {
				if !strings.HasPrefix(f, "refuses-equivalent ") && !strings.HasPrefix(f, "question-defect ") {
					t.Errorf("%s %s: flag %q is not one of the audit's (refuses-equivalent FORM, question-defect KIND)", v.ID, c.Question, f)
				}
			}
			for i, e := range c.Edits {
				if _, err := v.expandHelpers(e.Replace); err != nil {
					t.Errorf("%s %s edit %d: %v", v.ID, c.Question, i+1, err)
				}
			}
		}
	}
	if _, ok := LookupCorrectedVersion(Version2025_05); ok {
		t.Error("2025-05 is the published version, not a corrected one")
	}
}

// TestLoadCorrectedVersion applies the corrections to the real questions:
// each edit's text occurs once, only the corrected questions' verification
// changes, and each corrected check is the one the original test makes.
func TestLoadCorrectedVersion(t *testing.T) {
	root := dataRoot(t)
	pub, err := LoadVersion(root, "")
	if err != nil {
		t.Fatal(err)
	}
	cor, err := LoadVersion(root, Version2025_05Corrected1)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Version != Version2025_05 || cor.Version != Version2025_05Corrected1 {
		t.Fatalf("versions %q, %q", pub.Version, cor.Version)
	}
	var changed []string
	for i, q := range cor.Questions {
		p := pub.Questions[i]
		if q.Text != p.Text || !slices.EqualFunc(q.Properties, p.Properties, func(a, b Property) bool { return a.Name == b.Name }) {
			t.Errorf("%s: the question text or properties changed", q.ID)
		}
		if q.UnitTest != p.UnitTest {
			changed = append(changed, q.ID)
		}
	}
	slices.Sort(changed)
	if want := []string{"test_antisite_generator", "test_defect_finder", "test_interstitial"}; !slices.Equal(changed, want) {
		t.Errorf("corrected questions %v, want %v", changed, want)
	}
	for id, want := range map[string][]string{
		"test_defect_finder":      {"if not actual_value < expected_info['value']:"},
		"test_interstitial":       {"from pymatgen.core import Element", `"value": {Element("N"): 1}`},
		"test_antisite_generator": {"if sorted(actual_value, key=str) != expected_value:"},
	} {
		q, _ := cor.Question(id)
		for _, w := range want {
			if !strings.Contains(q.UnitTest, w) {
				t.Errorf("%s: corrected verification lacks %q:\n%s", id, w, q.UnitTest)
			}
		}
	}
}

// TestLoadCorrectedVersion2 applies 2025-05-corrected-2 to the real
// questions: the checks of the questions it corrects accept the equivalent
// forms (a helper inserted once per test), 16 question texts change and
// nothing else, corrected-1's test_defect_finder and test_antisite_generator
// corrections are kept and its test_interstitial one is not.
func TestLoadCorrectedVersion2(t *testing.T) {
	root := dataRoot(t)
	pub, err := LoadVersion(root, "")
	if err != nil {
		t.Fatal(err)
	}
	cor, err := LoadVersion(root, "2025-05-corrected-2")
	if err != nil {
		t.Fatal(err)
	}
	var tests, texts []string
	for i, q := range cor.Questions {
		p := pub.Questions[i]
		if q.UnitTest != p.UnitTest {
			tests = append(tests, q.ID)
		}
		if q.Text != p.Text {
			texts = append(texts, q.ID)
		}
	}
	slices.Sort(tests)
	slices.Sort(texts)
	if want := []string{"test_antisite_generator", "test_complex", "test_defect_finder", "test_get_local_extrema", "test_interstitial",
		"test_parsing_and_grouping_NamedDefects", "test_substitution", "test_vacancy"}; !slices.Equal(tests, want) {
		t.Errorf("corrected verifications %v, want %v", tests, want)
	}
	if want := []string{"test_HarmonicDefect", "test_boltzmann", "test_chgcar_insertion", "test_competing_phases", "test_defect_entry",
		"test_defect_entry_grouping", "test_dielectric_func", "test_formation_energy_diagram_numerical", "test_formation_energy_diagram_shape_fixed",
		"test_formation_energy_diagram_using_atomic_entries", "test_formation_energy_diagram_using_bulk_entry", "test_formation_from_directory",
		"test_kumagai", "test_multi", "test_parsing_and_grouping_NamedDefects", "test_supercells"}; !slices.Equal(texts, want) {
		t.Errorf("corrected question texts %v, want %v", texts, want)
	}
	inter, _ := cor.Question("test_interstitial")
	if strings.Contains(inter.UnitTest, `{Element("N"): 1}`) || !strings.Contains(inter.UnitTest, `"value": {"N": 1}`) ||
		strings.Count(inter.UnitTest, "def _equivalent(") != 1 || !strings.Contains(inter.UnitTest, `"element_changes": ("keys",)`) {
		t.Errorf("test_interstitial: want the published expected value with the keys form:\n%s", inter.UnitTest)
	}
	// Every question text of the version parses: each fenced block of code
	// (the benchmark's [MASK] read as a name) is checked by make audit; here
	// only that the syntax defects it flagged in 2025-05 are edited away.
	for id, gone := range map[string]string{"test_chgcar_insertion": "```python\\n", "test_defect_entry_grouping": "Path(correct path)",
		"test_formation_energy_diagram_numerical": "mg_site)\n        def defect_entries_and_plot_data_Mg_Ga"} {
		q, _ := cor.Question(id)
		if strings.Contains(q.Text, gone) {
			t.Errorf("%s: the text still holds %q", id, gone)
		}
	}
	boltz, _ := cor.Question("test_boltzmann")
	if !strings.Contains(boltz.Text, "results.flatten()") || strings.Contains(boltz.Text, " result.flatten()") {
		t.Errorf("test_boltzmann's text not corrected:\n%s", boltz.Text)
	}
}

func TestLoadVersionFailsClearly(t *testing.T) {
	root := copyQuestions(t)
	if _, err := LoadVersion(root, "2026-01"); err == nil || !strings.Contains(err.Error(), `version "2026-01": not 2025-05`) {
		t.Errorf("unknown version: %v", err)
	}
	// Data the correction was not written for: its text is absent.
	file := filepath.Join(root, QuestionsDir, "test_antisite_generator", "new_unit_test.py")
	if err := os.WriteFile(file, []byte("def test_antisite_generator(properties):\n    return 'ok'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadVersion(root, Version2025_05Corrected1)
	if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "correction 2025-05-corrected-1 edit 1: its text occurs 0 times") {
		t.Errorf("edit not found: %v", err)
	}
}
