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
// non-test code may import. Leaves import none. A package
// not listed here may import nothing of the project until it is added.
var allowed = map[string][]string{
	"datasets":            []string{},
	"datasets/qaaudit":    []string{"datasets"},
	"cmd/audit-qa":        []string{"datasets", "datasets/qaaudit", "results"},
	"results":             []string{"internal/atomicfile"},
	"results/stats":       []string{},
	"internal/version":    []string{},
	"internal/words":      []string{},
	"internal/flock":      []string{},
	"internal/jsonl":      []string{"internal/flock"},
	"internal/atomicfile": []string{},
	"internal/workpool":   []string{},
	// The commands\' flag helpers (-data; the sandbox\'s flags and the scorer they
	// open), under cmd/internal: only commands may import them.
	"cmd/internal/cliflags":     []string{"datasets"},
	"cmd/internal/sandboxflags": []string{"cmd/internal/cliflags", "sandbox", "runner/scoring"},
	"internal/mattoolstest":     []string{"datasets"},
	"results/check":             []string{"results", "datasets"},
	"results/published":         []string{"results", "datasets", "datasets/qaaudit"},
	"results/submission":        []string{"results", "results/check"},
	"cmd/import-mattools":       []string{"results", "results/published", "datasets", "cmd/internal/cliflags"},

	// The runner: plan → configurations × rounds → runs. Systems get their
	// LLM client from the runner; scoring never calls an LLM.
	"runner": []string{"datasets", "datasets/corpus", "datasets/qaaudit", "results", "internal/flock", "internal/words", "runner/graphrag", "runner/journal", "llm", "runner/plan", "runner/retrieval", "runner/scoring", "runner/systems"},
	// The resumable journal, its shards and the re-execution commands'
	// outcome journals: no model client, system or retrieval, so that
	// rescore and validate-submission build without them.
	"runner/journal":   []string{"datasets", "results", "internal/flock", "internal/version", "runner/scoring"},
	"runner/plan":      []string{"datasets", "results"}, // datasets: the folder benchmarks it registers
	"runner/systems":   []string{"datasets", "results", "runner/graphrag", "internal/pystr", "llm", "runner/plan", "runner/retrieval"},
	"runner/retrieval": []string{"datasets/corpus", "internal/pystr", "llm", "internal/atomicfile"},
	"runner/graphrag":  []string{"results", "internal/jsonl", "internal/pystr", "llm"},
	"datasets/corpus":  []string{"internal/pystr", "internal/atomicfile"},
	"runner/scoring":   []string{"datasets", "results", "internal/pystr", "sandbox", "internal/workpool"},
	// The OpenAI-compatible model client, a leaf on its own floor: the runner,
	// synthesis and the audit use it, and it imports nothing of the runner.
	"llm":                   []string{},
	"llm/llmtest":           []string{},
	"llm/replay":            []string{},
	"internal/pystr":        []string{},
	"cmd/run-benchmark":     []string{"datasets", "results", "internal/version", "runner", "runner/plan", "runner/scoring", "sandbox", "runner/systems", "cmd/internal/cliflags", "cmd/internal/sandboxflags"}, // sandboxflags: FindPython
	"cmd/replay-llm":        []string{"datasets", "llm/replay", "cmd/internal/cliflags"},
	"cmd/retrieval-quality": []string{"datasets", "datasets/corpus", "runner/retrieval", "cmd/internal/cliflags"},

	// The site: results files → aggregate → plots, content → hugo.
	"site/paperonly": []string{"results"},
	"site/aggregate": []string{"internal/words", "results", "results/stats"},
	"site/plots":     []string{"results", "site/aggregate", "site/paperonly"},
	"site/content":   []string{"datasets", "datasets/qaaudit", "internal/words", "results", "results/stats", "results/submission", "site/aggregate", "site/apicheck", "site/paperonly", "site/plots"},
	// The static hallucinated-API check's committed store (a leaf) and its updater.
	"site/apicheck":  []string{},
	"cmd/check-api":  []string{"internal/words", "results", "site/apicheck"},
	"site/hugo":      []string{},
	"site/sitecheck": []string{},
	"cmd/check-site": []string{"site/sitecheck"},
	"site/sitetest":  []string{"datasets", "results", "results/submission"}, // test inputs, submissions among them
	"site":           []string{"datasets", "internal/words", "results", "results/check", "results/submission", "site/aggregate", "site/content", "site/hugo", "site/paperonly", "site/plots", "site/release"},
	// Releases: the list, the numbers manifests and errata (written
	// atomically), the byte manifests and the rebuild from a generator
	// commit they were frozen from; it never makes pages.
	"site/release":   []string{"datasets", "internal/atomicfile", "results"},
	"cmd/build-site": []string{"datasets", "results", "site", "site/release", "cmd/internal/cliflags"},

	// A test fixture, imported only by the end-to-end tests (e2e/): runner
	// runs of a fake model (results files, the contract), scored in the
	// sandbox, for the site built from them. The site's own code and tests
	// never import it, so site/ needs neither the runner nor the sandbox.
	"e2e/fakerunner": []string{"datasets", "runner", "runner/docgen", "runner/graphrag/graphragtest", "llm", "llm/llmtest", "runner/plan", "sandbox", "runner/scoring"},
	// LightRAG's model as a test double (tests and the LightRAG comparison only).
	"runner/graphrag/graphragtest": []string{"llm/llmtest"},
	// The LightRAG 1.3.3 reference check: a test-only driver of the real package through the fake server.
	"scripts/lightrag-check":       []string{},
	"scripts/lightrag-check/o200k": []string{"scripts/lightrag-check"},
	"scripts/lightrag-check/smoke": []string{"runner/graphrag/graphragtest", "llm/llmtest", "scripts/lightrag-check"},

	// The sandbox is a leaf on its own floor (the runner's scoring, synthesis
	// and the audit use it); scoring runs code only through it.
	"sandbox":             []string{},
	"sandbox/sandboxtest": []string{"sandbox"},
	// The benchmark audit: references, controls and probes scored through
	// scoring (sandbox: the limits it records); no model client, no run loop.
	"runner/audit": []string{"datasets", "internal/version", "results", "sandbox", "runner/scoring"},
	// Its command: the flags, the sandbox's among them, and a folder
	// benchmark's registration.
	// runner/plan: RegisterFolder (-benchmark-folder).
	"cmd/audit":   []string{"datasets", "runner/audit", "runner/plan", "sandbox", "cmd/internal/cliflags", "cmd/internal/sandboxflags"},
	"cmd/rescore": []string{"results/published", "results", "datasets", "runner/plan", "runner/journal", "sandbox", "runner/scoring", "internal/version", "internal/words", "cmd/internal/cliflags", "cmd/internal/sandboxflags", "internal/atomicfile"}, // runner/plan: RegisterFolder (-benchmark-folder)

	// Submissions by pull request: the validator re-executes
	// submitted code through scoring and the sandbox.
	// Both take -shard i/n and merge the shards' outcome journals through runner.
	"cmd/make-submission":     []string{"results", "results/submission"},
	"cmd/validate-submission": []string{"datasets", "internal/version", "internal/words", "results", "results/submission", "runner/journal", "sandbox", "runner/scoring", "cmd/internal/cliflags", "cmd/internal/sandboxflags", "runner/plan"}, // runner/plan: RegisterFolder (-benchmark-folder)

	// LLM-written documentation: the generator of sources 3/4's text.
	"runner/docgen": []string{"datasets/corpus", "internal/jsonl", "llm", "internal/workpool"},
	"cmd/gen-docs":  []string{"runner/docgen", "llm", "datasets/corpus", "datasets", "internal/version", "cmd/internal/cliflags", "internal/atomicfile"},

	// make test's reporter of `go test -json`.
	// Task synthesis from unit tests (MatTools' pipeline): splitter, triplet generation, checks.
	"synth":          []string{"datasets/corpus", "internal/jsonl", "llm", "sandbox", "internal/atomicfile", "internal/workpool"},
	"cmd/synthesize": []string{"datasets", "datasets/corpus", "internal/version", "runner/docgen", "llm", "sandbox", "synth", "synth/qasynth", "cmd/internal/cliflags"},
	// QA synthesis from LLM documentation (MatTools' two QA prompts), the QA audit as its filters.
	"synth/qasynth":   []string{"datasets", "datasets/corpus", "datasets/qaaudit", "internal/jsonl", "internal/pystr", "llm", "internal/atomicfile", "internal/workpool"},
	"synth/synthtest": []string{"llm/llmtest", "synth"}, // a scripted model, imported only by tests

	"scripts/testreport": []string{},
	// Counts of built-in names outside the registrations (parses any checkout; imports nothing).
	"scripts/extension-counts": []string{},
	// The shards' merge, the runner benchmark's programs, the Kubernetes manifests' module.
	"cmd/merge": []string{"datasets", "runner", "runner/plan", "runner/systems", "cmd/internal/cliflags", "cmd/internal/sandboxflags"}, // sandboxflags: FindPython
	// Slurm job arrays of run-benchmark, rescore and validate-submission
	// (docs/cluster.md): the plan for its models, the runner for a task's
	// journaled questions (status), atomicfile for its record; the tests
	// build the programs it submits and read their results files.
	"cmd/slurm":                       []string{"runner", "runner/plan", "cmd/internal/cliflags", "internal/atomicfile", "results", "internal/mattoolstest"},
	"scripts/runner-bench/fakeserver": []string{"llm/llmtest"},
	"scripts/runner-bench/genqa":      []string{"results"},
	"scripts/site-scale/gen":          []string{"results", "results/check"},
	"scripts/site-scale/loadagg":      []string{"results", "results/check", "site", "site/aggregate"},
	"scripts/runner-bench/minimal":    []string{},
	"deploy/kubernetes":               []string{},
	"deploy/kubernetes/render":        []string{},
	"scripts/shards-local/compare":    []string{"results"},
	// The warm-worker benchmark (cold vs warm vs the compute bound).
	"scripts/warm-bench": []string{"datasets", "results", "results/published", "sandbox", "runner/scoring"},
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

// noModelClient are the commands that only re-execute stored code, and
// the packages none of them may reach, directly or through another
// project package: they score in the sandbox and never call a model.
var noModelClient = map[string][]string{
	"cmd/rescore":             {"runner", "llm", "runner/systems", "runner/graphrag", "runner/retrieval"},
	"cmd/validate-submission": {"runner", "llm", "runner/systems", "runner/graphrag", "runner/retrieval"},
}

// TestReexecutionNeedsNoModelClient follows the picture's allowed imports
// from each re-execution command: none of them may reach the runner's
// model client, systems, GraphRAG or retrieval.
func TestReexecutionNeedsNoModelClient(t *testing.T) {
	for cmd, banned := range noModelClient {
		seen := map[string]bool{}
		var walk func(pkg, path string)
		walk = func(pkg, path string) {
			if seen[pkg] {
				return
			}
			seen[pkg] = true
			for _, b := range banned {
				if pkg == b {
					t.Errorf("%s reaches %s (%s)", cmd, b, path)
				}
			}
			for _, dep := range allowed[pkg] {
				walk(dep, path+" → "+dep)
			}
		}
		walk(cmd, cmd)
	}
}
