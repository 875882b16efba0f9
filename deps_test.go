package leaderboard_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/mattools-leaderboard/leaderboard/"

// allowed lists, for each package of the project, the project packages its
// non-test code may import (style.md §5.1). Leaves import none. A package
// not listed here may import nothing of the project until it is added.
var allowed = map[string][]string{
	"datasets":              []string{},
	"results":               []string{},
	"results/stats":         []string{},
	"internal/version":      []string{},
	"internal/mattoolstest": []string{"datasets"},
	"results/published":     []string{"results", "datasets", "internal/version"},
	"cmd/import-mattools":   []string{"results", "results/published", "datasets"},
	// issue 4: the sandbox is a leaf; scoring runs code only through it.
	"runner/sandbox":             []string{},
	"runner/sandbox/sandboxtest": []string{"runner/sandbox"},
	"runner/scoring":             []string{"runner/sandbox", "datasets", "results"},
	"cmd/rescore":                []string{"results", "datasets", "runner/sandbox", "runner/scoring", "internal/version"},
}

// TestDependencyGraph fails on any import between project packages that
// the picture above does not allow; runner and site, in particular, never
// import each other: the results files are their only contract.
func TestDependencyGraph(t *testing.T) {
	fset := token.NewFileSet()
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || d.Name() == "tools" || d.Name() == "build") && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if dep, ok := strings.CutPrefix(path, module); ok {
				imports[pkg][dep] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		ok := map[string]bool{}
		list, known := allowed[pkg]
		if !known && pkg != "." {
			t.Errorf("package %s is not in the dependency picture (deps_test.go): add it", pkg)
			continue
		}
		for _, a := range list {
			ok[a] = true
		}
		for dep := range imports[pkg] {
			if !ok[dep] {
				t.Errorf("%s imports %s, which the dependency picture does not allow", pkg, dep)
			}
		}
	}
}
