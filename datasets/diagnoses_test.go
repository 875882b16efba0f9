package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadDiagnoses(t *testing.T) {
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "diagnoses.csv")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	d, err := ReadDiagnoses(write("question,property,category,evidence\n" +
		"test_a,x,verification bug,\"l.3, the check is inverted\"\ntest_b,y,expected value wrong\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := d.Of("test_a", "x"); !ok || got.Category != "verification bug" || got.Evidence != "l.3, the check is inverted" {
		t.Errorf("test_a/x = %+v, %v", got, ok)
	}
	if got, ok := d.Of("test_b", "y"); !ok || got.Category != "expected value wrong" || got.Evidence != "" {
		t.Errorf("test_b/y = %+v, %v", got, ok)
	}
	if _, ok := d.Of("test_a", "y"); ok || len(d) != 2 {
		t.Errorf("want two diagnoses, got %v", d)
	}
	for _, c := range []struct{ text, want string }{
		{"question,property,category,evidence\ntest_a,x\n", "diagnoses.csv:2: want the fields"},
		{"question,property,category,evidence\ntest_a,x,,e\n", "diagnoses.csv:2: want the fields"},
		{"question,property,category,evidence\ntest_a,x,c,e\ntest_a,x,c,e\n", "diagnoses.csv:3: test_a: property x diagnosed twice"},
	} {
		if _, err := ReadDiagnoses(write(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	if d, err := ReadDiagnoses(filepath.Join(dir, "absent.csv")); err != nil || len(d) != 0 {
		t.Errorf("absent file: %v, %v", d, err)
	}
}

// TestCommittedDiagnosesRead reads the benchmark's own diagnoses file.
func TestCommittedDiagnosesRead(t *testing.T) {
	d, err := ReadDiagnoses("../benchmarks/mattools-tool-usage/diagnoses.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := d.Of("test_substitution", "perturbation_free_sites"); !ok || got.Category != "missing dependency" || !strings.Contains(got.Evidence, "DefectSiteFinder") {
		t.Errorf("test_substitution/perturbation_free_sites = %+v, %v", got, ok)
	}
}
