package apicheck_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/site/apicheck"
)

// sandboxPython returns the sandbox's interpreter (MATTOOLS_SANDBOX_PYTHON,
// default /opt/mattools-sandbox), skipping outside CI when it is missing.
func sandboxPython(t *testing.T) string {
	t.Helper()
	root := os.Getenv("MATTOOLS_SANDBOX_PYTHON")
	if root == "" {
		root = "/opt/mattools-sandbox"
	}
	py := filepath.Join(root, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		msg := "no sandbox Python environment at " + root + " (make setup; MATTOOLS_SANDBOX_PYTHON names another): " + err.Error()
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return py
}

func repo(t *testing.T) string {
	r, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCheckFindsMissingNamesWithoutRunningTheCode checks hand-written
// answers against the pinned pymatgen: each case lists the names that do not
// exist. One answer would create a file if it ran; it must not exist after.
func TestCheckFindsMissingNamesWithoutRunningTheCode(t *testing.T) {
	py := sandboxPython(t)
	marker := filepath.Join(t.TempDir(), "executed")
	cases := []struct {
		name, code string
		missing    []string
	}{
		{"removed alias Specie", "from pymatgen.core import Structure, Specie\n", []string{"pymatgen.core.Specie"}},
		{"missing module", "import pymatgen.analysis.defects.nothing_here as n\n", []string{"pymatgen.analysis.defects.nothing_here"}},
		{"missing function of a real module", "from pymatgen.analysis.defects.utils import get_closest_sc_mat, get_local_extrema\n",
			[]string{"pymatgen.analysis.defects.utils.get_closest_sc_mat"}},
		{"method chain", "from pymatgen.core import Structure\ns = Structure.from_file('x')\nt = Structure.from_fil('x')\n",
			[]string{"pymatgen.core.Structure.from_fil"}},
		{"module attribute chain", "import pymatgen.core\nx = pymatgen.core.Lattice.cubic(3)\ny = pymatgen.core.Latice\n",
			[]string{"pymatgen.core.Latice"}},
		// DefectEntry is a dataclass: its field charge_state exists without a class attribute.
		{"dataclass field on the class", "from pymatgen.analysis.defects.thermo import DefectEntry\nprint(DefectEntry.charge_state, DefectEntry.get_ediff)\n", nil},
		// Vacancy sets site in __init__: Vacancy.site raises AttributeError when run, so it is reported.
		{"instance attribute read on the class", "from pymatgen.analysis.defects.core import Vacancy\nprint(Vacancy.site, Vacancy.get_multiplicity)\n",
			[]string{"pymatgen.analysis.defects.core.Vacancy.site"}},
		{"rebound name is not followed", "from pymatgen.core import Structure\nStructure = dict\nStructure.whatever\n", nil},
		{"other libraries are not checked", "import numpy as np\nfrom scipy import nothing\n", nil},
		{"never executed", "import os\nos.system('touch " + marker + "')\nopen('" + marker + "', 'w')\nfrom pymatgen.core import Specie\n",
			[]string{"pymatgen.core.Specie"}},
	}
	var codes []string
	for _, c := range cases {
		codes = append(codes, c.code)
	}
	codes = append(codes, "def f(:\n", "")
	got, env, err := apicheck.Check(context.Background(), py, repo(t), codes)
	if err != nil {
		t.Fatal(err)
	}
	if env["pymatgen"] != "2024.8.9" || env["pymatgen-analysis-defects"] != "2024.7.19" {
		t.Errorf("environment %v, want the pinned pymatgen 2024.8.9 and pymatgen-analysis-defects 2024.7.19", env)
	}
	for _, c := range cases {
		r, ok := got[apicheck.Key(c.code)]
		if !ok || !slices.Equal(r.Missing, c.missing) && (len(r.Missing) != 0 || len(c.missing) != 0) || r.Error != "" {
			t.Errorf("%s: %+v (found %v), want missing %v", c.name, r, ok, c.missing)
		}
	}
	if r := got[apicheck.Key("def f(:\n")]; !strings.HasPrefix(r.Error, "syntax error") {
		t.Errorf("syntax error: %+v", r)
	}
	if _, ok := got[apicheck.Key("")]; ok || len(got) != len(cases)+1 {
		t.Errorf("%d results; want one per non-empty code (%d)", len(got), len(cases)+1)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the checked code ran: its marker file exists")
	}
}

// TestCommittedStoreMatchesTheImportErrorsOfGPT4o checks the
// committed store on the published single-LLM GPT-4o round 1 answers: it
// holds every answer's code, agrees with a fresh check, and every question
// that the re-executed run records as ImportError has a missing name.
func TestCommittedStoreMatchesTheImportErrorsOfGPT4o(t *testing.T) {
	root := mattoolstest.DataRoot(t, "for the published GPT-4o answers")
	py := sandboxPython(t)
	store, err := apicheck.Committed()
	if err != nil {
		t.Fatal(err)
	}
	im, err := published.Read(root, published.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const id = "rescored-imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-v1__set-executable-85659656__r1"
	var codes []string
	var importErrors []string
	found := false
	for _, f := range im.Files {
		if f.Run.RunID != id {
			continue
		}
		found = true
		for _, q := range f.Questions {
			codes = append(codes, q.Code)
			if q.VerdictCause == "exception:ImportError" || q.VerdictCause == "exception:ModuleNotFoundError" {
				importErrors = append(importErrors, q.QuestionID)
				r, ok := store.Lookup(q.Code)
				if !ok || len(r.Missing) == 0 {
					t.Errorf("%s: ImportError when run, but the store has %+v (found %v)", q.QuestionID, r, ok)
				} else {
					t.Logf("%s: ImportError; missing %v", q.QuestionID, r.Missing)
				}
			}
		}
	}
	if !found {
		var ids []string
		for _, f := range im.Files {
			ids = append(ids, f.Run.RunID)
		}
		t.Fatalf("no run %s among %d imported runs", id, len(ids))
	}
	// The store covers every published answer (cmd/check-api was run after the last import change).
	unchecked := 0
	for _, f := range im.Files {
		for _, q := range f.Questions {
			if _, ok := store.Lookup(q.Code); !ok && strings.TrimSpace(q.Code) != "" {
				unchecked++
			}
		}
	}
	if unchecked > 0 {
		t.Errorf("%d published answers are not in %s: run go run ./cmd/check-api", unchecked, apicheck.StorePath)
	}
	if len(importErrors) < 5 {
		t.Errorf("only %d ImportError questions: %v", len(importErrors), importErrors)
	}
	fresh, env, err := apicheck.Check(context.Background(), py, repo(t), codes)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range fresh {
		want, _ := json.Marshal(r)
		got, _ := json.Marshal(store.Codes[k])
		if string(got) != string(want) {
			t.Errorf("code %s: store %s, fresh check %s", k, got, want)
		}
	}
	if len(store.Environment) == 0 || store.Environment["pymatgen"] != env["pymatgen"] {
		t.Errorf("store environment %v, interpreter %v", store.Environment, env)
	}
}

func TestStoreMarshalRoundTrips(t *testing.T) {
	s := &apicheck.Store{About: "x", Environment: map[string]string{"pymatgen": "1"},
		Codes: map[string]apicheck.Result{"b": {Missing: []string{"pymatgen.x"}, Checked: 2}, "a": {Checked: 1}, "c": {Error: "syntax error: y"}}}
	back, err := apicheck.Parse(s.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Codes) != 3 || back.Codes["b"].Missing[0] != "pymatgen.x" || back.Codes["c"].Error == "" || back.Environment["pymatgen"] != "1" {
		t.Errorf("round trip: %+v", back)
	}
	if !strings.Contains(string(s.Marshal()), "\n  \"a\": ") {
		t.Errorf("not one code per line:\n%s", s.Marshal())
	}
}
