// Command retrieval-quality prints, per tool-usage question, whether BM25
// retrieval of sources 1 (code) and 2 (official docs) finds, in its top k
// (default 5) for the whole question as the query (as LLM-RAG queries),
// a chunk of a module the question's original unit test imports, and the
// hit@k per source. A figure of retrieval quality, not a threshold.
//
//	retrieval-quality [-data DIR] [-k 5] [-v]
//
// The question's original test is the function of the same name (the
// question id, e.g. test_vacancy) in the upstream unit tests
// (src/tool_source_code/pymatgen-analysis-defects/tests/**/*.py); the modules
// it imports are the pymatgen modules named by that file's static imports
// ("from M import …" and "import M", function-level ones included). A
// retrieved chunk is a hit when:
//
//   - source 1: its file is such a module (pymatgen/core/structure.py is
//     pymatgen.core.structure; a package's __init__.py is the package);
//   - source 2: its page documents such a module: a Sphinx page
//     pymatgen.core.html documents pymatgen.core and its submodules; a
//     defects_doc summary pymatgen_analysis_defects_core.txt documents
//     pymatgen.analysis.defects.core. The top-level "pymatgen" page and
//     api_overview.txt name no module.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
	"github.com/mattools-leaderboard/leaderboard/runner/retrieval"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// TestsDir holds the upstream unit tests the questions came from, relative
// to the data root.
const TestsDir = "src/tool_source_code/pymatgen-analysis-defects/tests"

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("retrieval-quality", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := cliflags.Data(fs, nil, "")
	k := fs.Int("k", 5, "documents retrieved per question")
	cache := fs.String("cache", "build/corpus", "corpus cache folder")
	verbose := fs.Bool("v", false, "also print the imported modules and the retrieved chunks")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *k < 1 {
		return 2
	}
	if *data == "" {
		_, err := datasets.RootFromEnv()
		fmt.Fprintln(stderr, "retrieval-quality:", err)
		return 2
	}
	rep, err := measure(*data, *k, *cache)
	if err != nil {
		fmt.Fprintln(stderr, "retrieval-quality:", err)
		return 1
	}
	rep.write(stdout, *verbose)
	return 0
}

// report is the hit table: per question, the modules its test imports and,
// per source, the top-k chunk ids and whether one is a hit.
type report struct {
	k         int
	questions []questionHits
	corpora   map[int]*corpus.Corpus
}

type questionHits struct {
	id, testFile string
	modules      []string
	chunks       map[int][]string
	hit          map[int]bool
}

// HitRates returns, per source, the questions with a hit and those with an
// original test whose imports name a pymatgen module (the denominator).
func (r *report) HitRates() (hits, questions map[int]int) {
	hits, questions = map[int]int{}, map[int]int{}
	for _, q := range r.questions {
		if len(q.modules) == 0 {
			continue
		}
		for _, src := range []int{1, 2} {
			questions[src]++
			if q.hit[src] {
				hits[src]++
			}
		}
	}
	return hits, questions
}

func measure(root string, k int, cache string) (*report, error) {
	bench, err := datasets.Load(root)
	if err != nil {
		return nil, err
	}
	tests, err := testImports(filepath.Join(root, TestsDir))
	if err != nil {
		return nil, err
	}
	rep := &report{k: k, corpora: map[int]*corpus.Corpus{}}
	retrievers := map[int]retrieval.Retriever{}
	for _, src := range []int{1, 2} {
		build := corpus.BuildCode
		if src == 2 {
			build = corpus.BuildDocs
		}
		c, err := build(root, corpus.Options{CacheDir: cache})
		if err != nil {
			return nil, err
		}
		rep.corpora[src] = c
		if retrievers[src], err = retrieval.NewBM25(context.Background(), c, retrieval.BM25Options{}); err != nil {
			return nil, err
		}
	}
	for _, q := range bench.Questions {
		t := tests[q.ID]
		qh := questionHits{id: q.ID, testFile: t.file, modules: t.modules, chunks: map[int][]string{}, hit: map[int]bool{}}
		for _, src := range []int{1, 2} {
			hits, err := retrievers[src].Search(context.Background(), strings.TrimSpace(q.Text), k)
			if err != nil {
				return nil, err
			}
			for _, h := range hits {
				qh.chunks[src] = append(qh.chunks[src], h.ChunkID)
				if m := chunkModule(src, h.ChunkID); m != "" && documents(m, t.modules) {
					qh.hit[src] = true
				}
			}
		}
		rep.questions = append(rep.questions, qh)
	}
	return rep, nil
}

// documents reports whether the module (or package page) m covers one of
// the imported modules: equal, or m a package of it.
func documents(m string, imported []string) bool {
	for _, i := range imported {
		if i == m || strings.HasPrefix(i, m+".") {
			return true
		}
	}
	return false
}

// chunkModule returns the module a chunk of source src is about (see the
// package doc), "" when none.
func chunkModule(src int, chunkID string) string {
	file, _, _ := strings.Cut(chunkID, "#")
	base := path.Base(file)
	switch {
	case src == 1 && strings.HasSuffix(file, ".py"):
		i := strings.Index(file, "pymatgen/")
		if i < 0 {
			return ""
		}
		mod := strings.TrimSuffix(strings.TrimSuffix(file[i:], ".py"), "/__init__")
		return strings.ReplaceAll(mod, "/", ".")
	case src == 2 && strings.HasSuffix(base, ".html"):
		if m := strings.TrimSuffix(base, ".html"); strings.HasPrefix(m, "pymatgen.") {
			return m
		}
	case src == 2 && strings.HasSuffix(base, ".txt"):
		if m := strings.TrimSuffix(base, ".txt"); strings.HasPrefix(m, "pymatgen_") {
			return strings.ReplaceAll(m, "_", ".")
		}
	}
	return ""
}

type testInfo struct {
	file    string
	modules []string
}

var (
	defRE    = regexp.MustCompile(`(?m)^\s*def (test_\w+)\s*\(`)
	fromRE   = regexp.MustCompile(`(?m)^\s*from\s+(pymatgen[\w.]*)\s+import\b`)
	importRE = regexp.MustCompile(`(?m)^\s*import\s+(pymatgen[\w.]*)`)
)

// testImports maps each test function of the tests folder to its file and
// the pymatgen modules the file imports (sorted).
func testImports(dir string) (map[string]testInfo, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no unit tests (*.py)", dir)
	}
	out := map[string]testInfo{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		set := map[string]bool{}
		for _, re := range []*regexp.Regexp{fromRE, importRE} {
			for _, m := range re.FindAllStringSubmatch(string(data), -1) {
				set[m[1]] = true
			}
		}
		var mods []string
		for m := range set {
			mods = append(mods, m)
		}
		sort.Strings(mods)
		for _, m := range defRE.FindAllStringSubmatch(string(data), -1) {
			rel, _ := filepath.Rel(dir, f)
			out[m[1]] = testInfo{file: filepath.ToSlash(rel), modules: mods}
		}
	}
	return out, nil
}

func (r *report) write(w io.Writer, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "question\ttest file\tmodules\tsource 1 hit@%d\tsource 2 hit@%d\n", r.k, r.k)
	mark := map[bool]string{true: "yes", false: "no"}
	for _, q := range r.questions {
		s1, s2 := mark[q.hit[1]], mark[q.hit[2]]
		if len(q.modules) == 0 {
			s1, s2 = "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", q.id, orDash(q.testFile), len(q.modules), s1, s2)
		if verbose {
			fmt.Fprintf(tw, "\t\t%s\t%s\t%s\n", strings.Join(q.modules, " "), strings.Join(q.chunks[1], " "), strings.Join(q.chunks[2], " "))
		}
	}
	tw.Flush()
	hits, n := r.HitRates()
	for _, src := range []int{1, 2} {
		c := r.corpora[src]
		fmt.Fprintf(w, "source %d (%d chunks, corpus %s): hit@%d = %d/%d = %.1f %%\n", src, len(c.Chunks), c.ID[:15], r.k, hits[src], n[src],
			100*float64(hits[src])/float64(max(1, n[src])))
	}
	fmt.Fprintf(w, "(BM25, the whole question as the query; questions whose original test imports no pymatgen module are left out: %d)\n",
		len(r.questions)-n[1])
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
