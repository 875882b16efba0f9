// Command extension-counts measures how far the project's extension points
// are from "one registration per benchmark, system and protocol": how often
// code outside the registrations and tests names a built-in system,
// MatTools' tool-usage benchmark or a built-in scoring protocol, and how many
// files and functions are too long to read at once.
//
// It reads the Go files of a checkout (any commit: it parses, it does not
// build), so the same counts can be taken before and after a refactor:
//
//	go run ./scripts/extension-counts                   # this checkout
//	git worktree add /tmp/before 3c6f515
//	go run ./scripts/extension-counts -root /tmp/before # an older commit
//
// What is counted (non-test .go files only; generated and vendored files
// are skipped, and so are the registration files listed in registrations;
// names in test-support packages, which only tests import, are counted on a
// line of their own):
//
//   - system constants: identifiers SystemSingleLLM, SystemLLMRAG,
//     SystemAgenticRAG, SystemGraphRAG, SystemSelfReflectionRAG (results/vocab.go)
//   - BenchmarkToolUsage: the identifier of MatTools' tool-usage benchmark
//   - protocol constants: ProtocolMatToolsOriginal, ProtocolMatToolsV1,
//     ProtocolMatToolsV1Strict, ProtocolQAV1, counted outside results/
//   - files over 800 lines, functions (and methods) over 150 lines, by their
//     source lines from "func" to the closing brace
//
// Output: one line per measure with its count and the number of files it
// occurs in; -v lists every occurrence.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// registrations are the files where naming a built-in is the point: the
// vocabulary and the registries. Paths are slash-separated, relative to the
// root; a trailing "/" names a folder. Files absent at a commit are skipped.
var registrations = []string{
	"results/vocab.go",
	"results/benchmarks.go",
	"results/protocols.go",
	"results/registered.go",
	"runner/systems/",               // each system's own package
	"runner/scoring/protocol_v1.go", // each scoring protocol's behaviour
	"runner/scoring/protocol_v1strict.go",
	"runner/scoring/protocol_qa.go",
	"datasets/loaders.go",
	"benchmarks/",
	// MatTools' published results, imported as the paper names them: its
	// systems, its tool-usage benchmark and its protocols are the data.
	"results/published/",
}

// testSupport are packages only tests import (fixtures, fakes): their
// occurrences are reported on a line of their own, not in the measures.
var testSupport = []string{
	"site/sitetest/",
	"llm/llmtest/",
	"sandbox/sandboxtest/",
	"internal/mattoolstest/",
	"e2e/",
}

var (
	systemIdents   = set("SystemSingleLLM", "SystemLLMRAG", "SystemAgenticRAG", "SystemGraphRAG", "SystemSelfReflectionRAG")
	benchIdents    = set("BenchmarkToolUsage")
	protocolIdents = set("ProtocolMatToolsOriginal", "ProtocolMatToolsV1", "ProtocolMatToolsV1Strict", "ProtocolQAV1")
)

const (
	longFile = 800
	longFunc = 150
)

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

type measure struct {
	name  string
	hits  []string // "file:line name"
	files map[string]bool
}

func (m *measure) add(file string, line int, what string) {
	m.hits = append(m.hits, fmt.Sprintf("%s:%d %s", file, line, what))
	if m.files == nil {
		m.files = map[string]bool{}
	}
	m.files[file] = true
}

func registration(rel string) bool { return under(rel, registrations) }

func under(rel string, list []string) bool {
	for _, r := range list {
		if strings.HasSuffix(r, "/") && strings.HasPrefix(rel, r) || rel == r {
			return true
		}
	}
	return false
}

func main() {
	root := flag.String("root", ".", "checkout to count")
	verbose := flag.Bool("v", false, "list every occurrence")
	flag.Parse()
	if err := run(*root, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "extension-counts:", err)
		os.Exit(1)
	}
}

func run(root string, verbose bool) error {
	systems := &measure{name: "system constants"}
	bench := &measure{name: "BenchmarkToolUsage"}
	protocols := &measure{name: "protocol constants (outside results/)"}
	files := &measure{name: fmt.Sprintf("non-test files over %d lines", longFile)}
	funcs := &measure{name: fmt.Sprintf("functions over %d lines (outside tests)", longFunc)}
	support := &measure{name: "names in test-support packages (not above)"}
	var nFiles, nLines int
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (strings.HasPrefix(base, ".") || base == "vendor" || base == "node_modules" || base == "testdata" || base == "public" || base == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
		if ast.IsGenerated(f) {
			return nil
		}
		nFiles++
		lines := fset.File(f.Pos()).LineCount()
		nLines += lines
		if lines > longFile {
			files.add(rel, lines, "lines")
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
			if n := end - start + 1; n > longFunc {
				funcs.add(rel, start, fmt.Sprintf("%s (%d lines)", funcName(fd), n))
			}
		}
		if registration(rel) {
			return nil
		}
		inResults := strings.HasPrefix(rel, "results/")
		inSupport := under(rel, testSupport)
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			line := fset.Position(id.Pos()).Line
			switch {
			case inSupport && (systemIdents[id.Name] || benchIdents[id.Name] || protocolIdents[id.Name]):
				support.add(rel, line, id.Name)
			case systemIdents[id.Name]:
				systems.add(rel, line, id.Name)
			case benchIdents[id.Name]:
				bench.add(rel, line, id.Name)
			case protocolIdents[id.Name] && !inResults:
				protocols.add(rel, line, id.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("root %s: %d non-test Go files, %d lines\n", root, nFiles, nLines)
	for _, m := range []*measure{systems, bench, protocols, files, funcs, support} {
		fmt.Printf("%-45s %4d in %3d files\n", m.name, len(m.hits), len(m.files))
		if verbose {
			sort.Strings(m.hits)
			for _, h := range m.hits {
				fmt.Println("   ", h)
			}
		}
	}
	return nil
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if ix, ok := t.(*ast.IndexListExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return path.Base(fd.Name.Name)
}
