package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// FolderManifestFile is the manifest of a benchmark loaded from a folder:
// DIR/benchmark.json, as synth.WriteLayout writes it (docs/synthesis.md §5).
const FolderManifestFile = "benchmark.json"

// FolderManifest is the part of a folder benchmark's benchmark.json this
// package reads; other keys (synth's model, prompts, excluded tests) are
// ignored.
type FolderManifest struct {
	// Name is the benchmark's name (the runs' benchmark, [a-z0-9-]+) and
	// the folder under DIR/src/question_segments/ holding its questions.
	Name string `json:"name"`
	// Version is the runs' benchmark_version, e.g. "0.1".
	Version string `json:"version"`
	// Title and Description, optional, name the benchmark on the site;
	// an absent title is the name.
	Title       string `json:"title"`
	Description string `json:"description"`
	// Questions are the question folders in evaluation order.
	Questions []string `json:"questions"`
	// DataDir, when set, says the questions read files of the data root
	// the runner is given (MATTOOLS_DATA), relative to it; only
	// FolderDataDir, the folder the sandbox mounts read-only at
	// /app/tool_source_code, is supported. Env is what the sandbox's
	// environment gains for them (NAME=value, e.g.
	// PMG_TEST_FILES_DIR=/app/tool_source_code/pymatgen/tests/files,
	// which pymatgen's own tests read their files from). synth.WriteLayout
	// writes both.
	DataDir string   `json:"data_dir"`
	Env     []string `json:"env"`
	// Modules are Python modules the verifications import that the
	// sandbox's pinned environment lacks, provided by the folder: module
	// name → file relative to DIR (e.g. "pytest": "support/pytest.py",
	// synth's stand-in, which synth.WriteLayout writes). LoadFolder puts
	// before each new_unit_test.py a prelude that registers them
	// (sys.modules) without touching the sandbox's environment; a
	// verification starting with a __future__ import cannot have one.
	Modules map[string]string `json:"modules"`
}

// moduleName is a Python module name a folder benchmark may provide.
var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedModule are the names of the scoring harness's own files in /sbx
// (runner/scoring/harness), which a module may not replace.
var reservedModule = map[string]bool{"run": true, "function": true, "verify": true, "parse": true, "unit_test": true}

// FolderDataDir is the one data_dir a folder benchmark may give: the data
// root's folder the sandbox mounts at /app/tool_source_code.
const FolderDataDir = "src/tool_source_code"

// envName is what a folder benchmark's env may set: upper-case names,
// none that would change how the sandbox finds its programs or Python.
var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// ForbiddenEnvName reports whether a folder benchmark's env may not set the
// variable name: the sandbox's fixed environment (PATH, HOME, TMPDIR, USER,
// LOGNAME, LANG, the numeric libraries' thread counts, …), LANGUAGE, and
// the prefixes LD_, PYTHON, MPL, LC_, OPENBLAS_, OMP_, MKL_ and NUMEXPR_.
// It is the sandbox's own rule (sandbox.RefusedEnvName), which refuses such
// an execution; repeated here, since the data floor imports no sandbox, so
// that a manifest fails when it is read, naming the file and field, not
// question by question once the model has answered. runner/scoring's
// TestFolderEnvRuleIsTheSandboxs checks that the two agree.
func ForbiddenEnvName(name string) bool {
	switch name {
	case "PATH", "HOME", "TMPDIR", "USER", "LOGNAME", "LANG", "LANGUAGE":
		return true
	}
	for _, p := range []string{"LD_", "PYTHON", "MPL", "LC_", "OPENBLAS_", "OMP_", "MKL_", "NUMEXPR_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

var folderName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ReadFolderManifest reads and checks dir's benchmark.json: a name
// ([a-z0-9-]+), a version and at least one question, no question twice.
// Errors name the file and field.
func ReadFolderManifest(dir string) (*FolderManifest, error) {
	path := filepath.Join(dir, FolderManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m FolderManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &FormatError{File: path, Err: err}
	}
	var errs []error
	if !folderName.MatchString(m.Name) {
		errs = append(errs, &FormatError{File: path, Field: "name", Err: fmt.Errorf("is %q; want lower-case letters, digits and single hyphens", m.Name)})
	}
	if m.Version == "" {
		errs = append(errs, &FormatError{File: path, Field: "version", Err: errors.New("required field missing")})
	}
	if len(m.Questions) == 0 {
		errs = append(errs, &FormatError{File: path, Field: "questions", Err: errors.New("lists no question")})
	}
	if m.DataDir != "" && filepath.ToSlash(filepath.Clean(m.DataDir)) != FolderDataDir {
		errs = append(errs, &FormatError{File: path, Field: "data_dir", Err: fmt.Errorf("is %q; only %q (mounted read-only at /app/tool_source_code) is supported", m.DataDir, FolderDataDir)})
	}
	for i, kv := range m.Env {
		name, _, ok := strings.Cut(kv, "=")
		switch {
		case !ok || !envName.MatchString(name):
			errs = append(errs, &FormatError{File: path, Field: fmt.Sprintf("env[%d]", i), Err: fmt.Errorf("%q is not NAME=value with an upper-case NAME", kv)})
		case ForbiddenEnvName(name):
			errs = append(errs, &FormatError{File: path, Field: fmt.Sprintf("env[%d]", i), Err: fmt.Errorf("%s may not be set: the sandbox fixes it", name)})
		}
	}
	for _, name := range sortedKeys(m.Modules) {
		rel := m.Modules[name]
		clean := filepath.ToSlash(filepath.Clean(rel))
		switch {
		case !moduleName.MatchString(name):
			errs = append(errs, &FormatError{File: path, Field: "modules", Err: fmt.Errorf("%q is not a Python module name", name)})
		case reservedModule[name]:
			errs = append(errs, &FormatError{File: path, Field: "modules", Err: fmt.Errorf("%q is the name of a file of the scoring harness", name)})
		case rel == "" || filepath.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, "../") || !strings.HasSuffix(clean, ".py"):
			errs = append(errs, &FormatError{File: path, Field: "modules." + name, Err: fmt.Errorf("%q is not a .py file inside the folder", rel)})
		}
	}
	seen := map[string]bool{}
	for i, q := range m.Questions {
		if q == "" || q != filepath.Base(q) || q == "." || q == ".." || seen[q] {
			errs = append(errs, &FormatError{File: path, Field: fmt.Sprintf("questions[%d]", i), Err: fmt.Errorf("%q is not a new folder name", q)})
		}
		seen[q] = true
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &m, nil
}

// LoadFolder reads a benchmark laid out as MatTools' tool usage under dir:
// the manifest DIR/benchmark.json and, for each of its questions in order,
// DIR/src/question_segments/<name>/<question>/ with question.txt,
// properties.json and new_unit_test.py (which defines <question>(properties)).
// Its questions read no data file unless the manifest gives data_dir: then
// they may read any file of the data root's src/tool_source_code
// (Question.WholeDataDir), with the manifest's env (Question.Env). The
// benchmark's Version is the manifest's and its Root is dir. Errors name
// the file.
func LoadFolder(dir string) (*Benchmark, *FolderManifest, error) {
	m, err := ReadFolderManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	prelude, modules, err := modulesPrelude(dir, m.Modules)
	if err != nil {
		return nil, nil, err
	}
	qdir := filepath.Join(dir, "src", "question_segments", m.Name)
	b := &Benchmark{Root: dir, Version: m.Version}
	for i, id := range m.Questions {
		q, err := loadQuestion(dir, qdir, ManifestEntry{Index: i, ID: id, Properties: -1})
		if err != nil {
			return nil, nil, err
		}
		if prelude != "" {
			if strings.HasPrefix(strings.TrimSpace(q.UnitTest), "from __future__") {
				return nil, nil, &FormatError{File: filepath.Join(qdir, id, "new_unit_test.py"), Err: errors.New("starts with a __future__ import: the benchmark's modules cannot be registered before it")}
			}
			q.UnitTest = prelude + q.UnitTest
			q.Modules = modules
		}
		if len(q.Properties) == 0 {
			return nil, nil, &FormatError{File: filepath.Join(qdir, id, "properties.json"), Field: "properties", Err: errors.New("has no property")}
		}
		q.WholeDataDir, q.Env = m.DataDir != "", append([]string(nil), m.Env...)
		b.Questions = append(b.Questions, *q)
	}
	return b, m, nil
}

// modulesPrelude returns the Python lines that register a folder
// benchmark's modules (FolderManifest.Modules) in sys.modules, each
// executed from its file's text under its name, in name order, leaving no
// other name defined ("" when there are none), and the modules as files by
// name ("pytest.py"). Errors name the file.
func modulesPrelude(dir string, modules map[string]string) (string, map[string][]byte, error) {
	if len(modules) == 0 {
		return "", nil, nil
	}
	files := map[string][]byte{}
	var b strings.Builder
	b.WriteString("# The benchmark folder's modules (benchmark.json \"modules\"), registered before the verification's own imports.\n")
	b.WriteString("def _folder_module(name, source):\n    import sys, types\n    m = types.ModuleType(name)\n" +
		"    exec(compile(source, '<benchmark module ' + name + '>', 'exec'), m.__dict__)\n    sys.modules.setdefault(name, m)\n")
	for _, name := range sortedKeys(modules) {
		path := filepath.Join(dir, filepath.FromSlash(modules[name]))
		src, err := os.ReadFile(path)
		if err != nil {
			return "", nil, &FormatError{File: filepath.Join(dir, FolderManifestFile), Field: "modules." + name, Err: err}
		}
		lit, err := json.Marshal(string(src)) // a JSON string is a Python string literal
		if err != nil {
			return "", nil, &FormatError{File: path, Err: err}
		}
		fmt.Fprintf(&b, "_folder_module(%q, %s)\n", name, lit)
		files[name+".py"] = src
	}
	b.WriteString("del _folder_module\n")
	return b.String(), files, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
