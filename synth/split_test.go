package synth

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
)

func needPython(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(DefaultPython); err != nil {
		t.Skipf("no %s (scripts/setup.sh installs it): %v", DefaultPython, err)
	}
	return DefaultPython
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const conftestPy = `from pathlib import Path
import pytest

ROOT = Path("data")


@pytest.fixture(scope="session")
def test_dir():
    return ROOT / "files"


@pytest.fixture
def structure(test_dir):
    return str(test_dir / "GaN.vasp")


@pytest.fixture
def unused():
    return 1
`

const subConftestPy = `import pytest


@pytest.fixture
def structure():
    return "nearer"
`

const testModPy = `import math
import pytest

FACTOR = 2.0
OTHER = FACTOR * 3


def helper(x):
    return x * OTHER


@pytest.fixture
def local_value(structure):
    return len(structure)


@pytest.fixture(autouse=True)
def _chdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def test_plain(local_value, tmp_path) -> None:
    assert helper(local_value) > 0  # checked


class Base:
    unit = "eV"

    def setUp(self):
        self.base = 1


class TestThing(Base):
    def setUp(self):
        self.x = math.pi

    @pytest.mark.slow
    def test_x(self):
        assert self.x == pytest.approx(3.14159, abs=1e-4)

    def helper_not_a_test(self):
        return 0
`

// TestSplitInlinesFixturesAndSetUp: a module-level test gets its fixtures
// transitively, nearest conftest first, with the autouse one of its file;
// a method gets its class's and its base's set-up; neither gets unused
// fixtures.
func TestSplitInlinesFixturesAndSetUp(t *testing.T) {
	py := needPython(t)
	dir := writeFiles(t, map[string]string{
		"conftest.py":        conftestPy,
		"sub/conftest.py":    subConftestPy,
		"sub/test_mod.py":    testModPy,
		"sub/helpers.py":     "def test_not_collected(): pass\n",
		"files/test_data.py": "def test_in_a_data_folder(): pass\n",
	})
	files, err := SplitDir(dir, py)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Rel != "sub/test_mod.py" {
		t.Fatalf("files: %+v", files)
	}
	f := files[0]
	if got, want := f.Imports, []string{"import math", "import pytest"}; !reflect.DeepEqual(got, want) {
		t.Errorf("imports %q, want %q", got, want)
	}
	if len(f.Functions) != 4 || !strings.HasPrefix(f.Functions[1], "@pytest.fixture\ndef local_value") ||
		!strings.HasSuffix(f.Functions[3], "> 0  # checked") {
		t.Errorf("functions %q", f.Functions)
	}
	var ids []string
	for _, x := range f.Tests {
		ids = append(ids, x.ID)
	}
	if want := []string{"sub/test_mod.py::test_plain", "sub/test_mod.py::TestThing::test_x"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("tests %q, want %q", ids, want)
	}
	plain := f.Tests[0]
	var names []string
	for _, x := range plain.Fixtures {
		names = append(names, x.Name+"@"+x.Scope)
	}
	// _chdir is autouse (visited first); structure resolves in the nearer
	// conftest (sub/), which needs no test_dir.
	want := []string{"_chdir@module", "structure@" + filepath.Join(dir, "sub", "conftest.py"), "local_value@module"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("fixtures %q, want %q", names, want)
	}
	if !reflect.DeepEqual(plain.Builtin, []string{"tmp_path", "monkeypatch"}) {
		t.Errorf("builtin fixtures %q", plain.Builtin)
	}
	for _, s := range []string{"import math\nimport pytest", "FACTOR = 2.0", "OTHER = FACTOR * 3", "def helper(x):", "def local_value(structure):", "def test_plain("} {
		if !strings.Contains(plain.UnitTest, s) {
			t.Errorf("unit test lacks %q:\n%s", s, plain.UnitTest)
		}
	}
	if strings.Contains(plain.UnitTest, "class TestThing") || strings.Contains(plain.UnitTest, "unused") {
		t.Errorf("unit test holds what it does not use:\n%s", plain.UnitTest)
	}
	if !strings.Contains(plain.FileReading, "import pytest\n") || !strings.Contains(plain.FileReading, `return "nearer"`) ||
		strings.Contains(plain.FileReading, "ROOT") {
		t.Errorf("file reading:\n%s", plain.FileReading)
	}

	m := f.Tests[1]
	if m.Class != "TestThing" || !reflect.DeepEqual(m.Bases, []string{"Base"}) || !strings.HasPrefix(m.Code, "@pytest.mark.slow\n    def test_x(self):") {
		t.Errorf("method %+v", m)
	}
	var setup []string
	for _, s := range m.SetUp {
		setup = append(setup, s.Name)
	}
	if want := []string{"Base.setUp", "Base (class attribute)", "TestThing.setUp"}; !reflect.DeepEqual(setup, want) {
		t.Errorf("set-up %q, want %q", setup, want)
	}
	wantUT := "import math\nimport pytest\n\n\n" + "@pytest.fixture(autouse=True)\ndef _chdir(tmp_path, monkeypatch):\n    monkeypatch.chdir(tmp_path)\n\n\n" +
		"class TestThing(Base):\n    unit = \"eV\"\n\n    def setUp(self):\n        self.base = 1\n\n    def setUp(self):\n        self.x = math.pi\n\n" +
		"    @pytest.mark.slow\n    def test_x(self):\n        assert self.x == pytest.approx(3.14159, abs=1e-4)\n"
	if m.UnitTest != wantUT {
		t.Errorf("method's unit test:\n%s\nwant:\n%s", m.UnitTest, wantUT)
	}
}

func TestSplitErrorNamesFile(t *testing.T) {
	py := needPython(t)
	dir := writeFiles(t, map[string]string{"test_bad.py": "def test_x(:\n"})
	_, err := SplitDir(dir, py)
	if err == nil || !strings.Contains(err.Error(), "test_bad.py") || !strings.Contains(err.Error(), "SyntaxError") {
		t.Fatalf("error %v, want one naming test_bad.py and the SyntaxError", err)
	}
	if _, err := SplitDir(t.TempDir(), py); err == nil || !strings.Contains(err.Error(), "no test file") {
		t.Fatalf("empty folder: %v", err)
	}
}

// TestSplitEqualsUpstreamCodeSegments: on MatTools' defects tests, every
// upstream global function has the same name and code in this split: the
// 55 test functions in their files, 10 of the 14 conftest fixtures in
// conftest.py and 4 (hd0, hd1, formation_energy_diagram, plot_fn) moved,
// code unchanged, into test_ccd.py and test_thermo.py in the data's later
// revision of the tests; every file's imports are equal.
func TestSplitEqualsUpstreamCodeSegments(t *testing.T) {
	py := needPython(t)
	root := mattoolstest.DataRoot(t, "to compare the splitter with MatTools' code_segments")
	c, err := CompareCodeSegments(root, "pymatgen_analysis_defects", py)
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != 11 || c.ImportsEqual != 11 {
		t.Errorf("files %d, imports equal in %d; want 11 and 11", c.Files, c.ImportsEqual)
	}
	if n := c.Count(SegmentEqual, true); n != 55 {
		t.Errorf("test functions equal: %d of 55", n)
	}
	got := map[string][]string{}
	for _, f := range c.Functions {
		if f.Outcome != SegmentEqual {
			got[f.Outcome] = append(got[f.Outcome], f.Name+":"+f.File+"->"+f.Here)
		}
	}
	want := map[string][]string{
		SegmentMoved: {"hd0:conftest.py->test_ccd.py", "hd1:conftest.py->test_ccd.py",
			"formation_energy_diagram:conftest.py->test_thermo.py", "plot_fn:conftest.py->test_thermo.py"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	if n := c.Count(SegmentEqual, false) + c.Count(SegmentMoved, false); n != 69 {
		t.Errorf("functions equal in code: %d of 69", n)
	}
}

// TestSplitDefectsTests: the data's defects tests hold the 55 test
// functions MatTools synthesised from, and pymatgen's own tests 2,897.
func TestSplitDefectsTests(t *testing.T) {
	py := needPython(t)
	root := mattoolstest.DataRoot(t, "to split the real unit tests")
	for _, c := range []struct {
		dir   string
		files int
		tests int
	}{{"src/tool_source_code/pymatgen-analysis-defects/tests", 10, 55}, {"src/tool_source_code/pymatgen/tests", 218, 2897}} {
		files, err := SplitDir(filepath.Join(root, c.dir), py)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range files {
			n += len(f.Tests)
		}
		if len(files) != c.files || n != c.tests {
			t.Errorf("%s: %d files, %d tests; want %d, %d", c.dir, len(files), n, c.files, c.tests)
		}
	}
}
