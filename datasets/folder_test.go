package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadFolder: the committed folder benchmark loads in manifest order
// with its properties (2 + 2 + 1) and version; a manifest that lists a
// question twice, or a question folder that is missing, is refused naming
// the file.
func TestLoadFolder(t *testing.T) {
	b, m, err := LoadFolder("testdata/folder-benchmark")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range b.Questions {
		ids = append(ids, q.ID)
	}
	if m.Name != "toy-pymatgen" || b.Version != "0.1" || strings.Join(ids, ",") != "test_cubic_lattice,test_nacl_composition,test_iron_number" ||
		b.Properties() != 5 || b.Questions[0].Properties[0].Name != "volume" || !b.Questions[2].Executable() {
		t.Errorf("loaded %s %s: %v, %d properties", m.Name, b.Version, ids, b.Properties())
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FolderManifestFile), []byte(`{"name":"x","version":"1","questions":["a","a"]}`), 0o644)
	if _, _, err := LoadFolder(dir); err == nil || !strings.Contains(err.Error(), "questions[1]") {
		t.Errorf("a question twice: %v; want an error naming questions[1]", err)
	}
	os.WriteFile(filepath.Join(dir, FolderManifestFile), []byte(`{"name":"x","version":"1","questions":["a"]}`), 0o644)
	if _, _, err := LoadFolder(dir); err == nil || !strings.Contains(err.Error(), filepath.Join("question_segments", "x", "a")) {
		t.Errorf("a missing question: %v; want an error naming its folder", err)
	}
}

// TestLoadFolderWithDataDir: a manifest that gives data_dir and env makes
// questions that read the whole data folder with that environment; a
// data_dir other than src/tool_source_code, or an env entry that is not
// NAME=value or sets what the sandbox fixes, is refused naming the field.
func TestLoadFolderWithDataDir(t *testing.T) {
	b, m, err := LoadFolder("testdata/folder-benchmark-data")
	if err != nil {
		t.Fatal(err)
	}
	q := b.Questions[0]
	if m.DataDir != FolderDataDir || !q.WholeDataDir || len(q.Env) != 1 || q.Env[0] != "PMG_TEST_FILES_DIR=/app/tool_source_code/pymatgen/tests/files" || b.Properties() != 2 {
		t.Errorf("loaded %+v: whole data dir %v, env %v, %d properties", m, q.WholeDataDir, q.Env, b.Properties())
	}
	if plain, _, _ := LoadFolder("testdata/folder-benchmark"); plain.Questions[0].WholeDataDir || plain.Questions[0].Env != nil {
		t.Errorf("a manifest without data_dir: whole data dir %v, env %v", plain.Questions[0].WholeDataDir, plain.Questions[0].Env)
	}
	for _, c := range []struct{ extra, want string }{
		{`"data_dir": "src"`, `data_dir: is "src"; only "src/tool_source_code"`},
		{`"env": ["NOEQUALS"]`, `env[0]: "NOEQUALS" is not NAME=value`},
		{`"env": ["A=1", "PYTHONPATH=/app"]`, "env[1]: PYTHONPATH may not be set"},
		{`"env": ["LD_PRELOAD=/x.so"]`, "env[0]: LD_PRELOAD may not be set"},
		{`"env": ["PATH=/tmp"]`, "env[0]: PATH may not be set"},
		{`"env": ["OMP_NUM_THREADS=4"]`, "env[0]: OMP_NUM_THREADS may not be set"},
		{`"env": ["LC_ALL=C"]`, "env[0]: LC_ALL may not be set"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, FolderManifestFile), []byte(`{"name":"x","version":"1","questions":["a"],`+c.extra+`}`), 0o644)
		if _, err := ReadFolderManifest(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.extra, err, c.want)
		}
	}
}

// TestLoadFolderWithModules: the manifest's modules are registered by a
// prelude before the verification (each file's text as a Python string
// literal); a bad name or a path outside the folder is refused naming the
// field, a missing file naming it.
func TestLoadFolderWithModules(t *testing.T) {
	b, m, err := LoadFolder("testdata/folder-benchmark-modules")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile("testdata/folder-benchmark-modules/support/pytest.py")
	orig, _ := os.ReadFile("testdata/folder-benchmark-modules/src/question_segments/toy-modules/test_silicon_mass/new_unit_test.py")
	lit, _ := json.Marshal(string(src))
	u := b.Questions[0].UnitTest
	if m.Modules["pytest"] != "support/pytest.py" || !strings.HasSuffix(u, "del _folder_module\n"+string(orig)) ||
		!strings.Contains(u, `_folder_module("pytest", `+string(lit)+")\n") {
		t.Errorf("unit test with the modules' prelude:\n%s", u)
	}
	for _, c := range []struct{ extra, want string }{
		{`"modules": {"py-test": "support/pytest.py"}`, `modules: "py-test" is not a Python module name`},
		{`"modules": {"pytest": "../pytest.py"}`, `modules.pytest: "../pytest.py" is not a .py file inside the folder`},
		{`"modules": {"pytest": "/etc/passwd.py"}`, `modules.pytest: "/etc/passwd.py" is not a .py file inside the folder`},
		{`"modules": {"pytest": "support/pytest.txt"}`, `is not a .py file inside the folder`},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, FolderManifestFile), []byte(`{"name":"x","version":"1","questions":["a"],`+c.extra+`}`), 0o644)
		if _, err := ReadFolderManifest(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.extra, err, c.want)
		}
	}
	dir := t.TempDir()
	os.CopyFS(dir, os.DirFS("testdata/folder-benchmark-modules"))
	os.Remove(filepath.Join(dir, "support", "pytest.py"))
	if _, _, err := LoadFolder(dir); err == nil || !strings.Contains(err.Error(), "modules.pytest") || !strings.Contains(err.Error(), "pytest.py") {
		t.Errorf("a missing module file: %v", err)
	}
}
