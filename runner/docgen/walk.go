// Package docgen writes LLM documentation of pymatgen's code objects, the
// text of retrieval sources 3 and 4 (docs/mattools.md §5), with any
// OpenAI-compatible model, as upstream did with RepoAgent and
// Gemini-2.0-Flash: Walk lists the objects (every class, function, method
// and nested function, with its code, parent, and the names it calls and is
// called by), Generate asks the model for one markdown document per object
// with the prompt of prompt.txt (PromptSHA256 identifies it), through a
// resumable journal, and writes the documents in upstream's JSON schema
// (corpus.WriteLLMDocs), so that corpus.LoadLLMDocs reads upstream's files
// and these alike.
package docgen

import (
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

// CodeDir is the folder of the pymatgen source relative to the MatTools
// data root; code_source_file values ("pymatgen/…") are relative to it.
const CodeDir = "src/tool_source_code/pymatgen/src"

// DefaultPython is the interpreter Walk runs (with -I) when none is given:
// the benchmark sandbox's Python 3.11.
const DefaultPython = "/opt/mattools-sandbox/bin/python3"

// MaxCallCandidates bounds call resolution: a called simple name defined
// by more objects than this (outside the caller's file) is left unresolved.
const MaxCallCandidates = 3

//go:embed walk.py
var walkScript string

// Object is one documented code object.
type Object struct {
	// ID is unique among the objects of one Walk and stable across walks of
	// the same files: File "#" Qualname, and "#" plus the 1-based rank for
	// the second and later objects of the same qualified name in a file
	// (e.g. a property's getter and setter), e.g.
	// "pymatgen/analysis/defects/core.py#Defect.get_charge_states".
	ID string
	// File is the file, "pymatgen/" and the path below the package folder
	// (upstream's code_source_file).
	File string
	// Kind is type(node).__name__: "ClassDef", "FunctionDef" or "AsyncFunctionDef".
	Kind string
	// Name is the simple name; Qualname it prefixed with the names of the
	// enclosing classes and functions, dot-separated; Parent the name of
	// the innermost enclosing class or function, "" at module level.
	Name, Qualname, Parent string
	// StartLine and EndLine are the 1-based first (the def or class line;
	// decorators precede it) and last lines, inclusive.
	StartLine, EndLine int
	// NameColumn is the 0-based offset of Name in the first line (-1 if absent).
	NameColumn int
	// HaveReturn is RepoAgent's test: "return" occurs in Code.
	HaveReturn bool
	// Code is lines StartLine..EndLine with their line ends.
	Code string
	// Calls are the IDs of the objects this one calls, CalledBy those of
	// the objects calling it, sorted (see Walk for the resolution).
	Calls, CalledBy []string
}

type walkObject struct {
	Kind       string   `json:"kind"`
	Name       string   `json:"name"`
	Qualname   string   `json:"qualname"`
	Parent     string   `json:"parent"`
	Lineno     int      `json:"lineno"`
	EndLineno  int      `json:"end_lineno"`
	NameColumn int      `json:"name_column"`
	HaveReturn bool     `json:"have_return"`
	Code       string   `json:"code"`
	Calls      []string `json:"calls"`
}

type walkResult struct {
	Error   string       `json:"error"`
	Objects []walkObject `json:"objects"`
}

// Walk lists the code objects of the .py files (names not starting with
// ".") under root/CodeDir/under, recursively, files in sorted path order
// and, within a file, objects in ast.walk order (breadth-first), as
// RepoAgent's get_functions_and_classes lists them: every ClassDef,
// FunctionDef and AsyncFunctionDef node, nested ones included (7,192 in
// the published pymatgen source, the number of items with questions in
// upstream's QA CSVs). under is slash-separated and starts with
// "pymatgen" ("" means "pymatgen", the whole package), e.g.
// "pymatgen/analysis/defects".
//
// The files are parsed (never imported or run) by the embedded walk.py
// under python (DefaultPython if ""), run once as "python -I -c script".
// Calls are static and approximate: the simple names called in an object's
// own body (f() and x.f() both give "f"; nested objects' bodies excluded)
// are resolved against the Names of the walked objects: to the objects of
// that name in the caller's own file if there are any, else to all the
// objects of that name if there are at most MaxCallCandidates, else not at
// all; an object never calls itself. Names from outside the walked files
// (builtins, numpy, …) resolve to nothing. CalledBy is the reverse
// relation.
//
// Errors name the file: a missing folder, a file that does not parse, or
// the missing or failing interpreter.
func Walk(root, under, python string) ([]Object, error) {
	if under == "" {
		under = "pymatgen"
	}
	under = strings.Trim(path.Clean(filepath.ToSlash(under)), "/")
	if under != "pymatgen" && !strings.HasPrefix(under, "pymatgen/") {
		return nil, fmt.Errorf("docgen: folder %q is not pymatgen or below it", under)
	}
	base := filepath.Join(root, filepath.FromSlash(CodeDir))
	top := filepath.Join(base, filepath.FromSlash(under))
	if st, err := os.Stat(top); err != nil {
		return nil, fmt.Errorf("docgen: code folder: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("docgen: code folder %s is not a folder", top)
	}
	var rels []string
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") || path.Ext(d.Name()) != ".py" {
			return nil
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("docgen: listing %s: %w", top, err)
	}
	sort.Strings(rels)
	if len(rels) == 0 {
		return nil, fmt.Errorf("docgen: no .py file under %s", top)
	}
	abs := make([]string, len(rels))
	for i, r := range rels {
		abs[i] = filepath.Join(base, filepath.FromSlash(r))
	}
	res, err := runWalk(python, abs)
	if err != nil {
		return nil, err
	}
	var objs []Object
	for i, r := range res {
		if r.Error != "" {
			return nil, fmt.Errorf("docgen: parsing %s: %s", abs[i], r.Error)
		}
		seen := map[string]int{}
		for _, w := range r.Objects {
			id := rels[i] + "#" + w.Qualname
			if seen[w.Qualname]++; seen[w.Qualname] > 1 {
				id += "#" + strconv.Itoa(seen[w.Qualname])
			}
			objs = append(objs, Object{
				ID: id, File: rels[i], Kind: w.Kind, Name: w.Name, Qualname: w.Qualname, Parent: w.Parent,
				StartLine: w.Lineno, EndLine: w.EndLineno, NameColumn: w.NameColumn, HaveReturn: w.HaveReturn,
				Code: w.Code, Calls: w.Calls, // simple names until resolved below
			})
		}
	}
	resolveCalls(objs)
	return objs, nil
}

func resolveCalls(objs []Object) {
	byName := map[string][]int{}
	for i, o := range objs {
		byName[o.Name] = append(byName[o.Name], i)
	}
	callers := make([]map[int]bool, len(objs))
	for i := range objs {
		names := objs[i].Calls
		set := map[int]bool{}
		for _, n := range names {
			cands := byName[n]
			var local []int
			for _, j := range cands {
				if objs[j].File == objs[i].File {
					local = append(local, j)
				}
			}
			switch {
			case len(local) > 0:
				cands = local
			case len(cands) > MaxCallCandidates:
				cands = nil
			}
			for _, j := range cands {
				if j != i {
					set[j] = true
				}
			}
		}
		objs[i].Calls = nil
		for j := range set {
			objs[i].Calls = append(objs[i].Calls, objs[j].ID)
			if callers[j] == nil {
				callers[j] = map[int]bool{}
			}
			callers[j][i] = true
		}
		sort.Strings(objs[i].Calls)
	}
	for j := range objs {
		for i := range callers[j] {
			objs[j].CalledBy = append(objs[j].CalledBy, objs[i].ID)
		}
		sort.Strings(objs[j].CalledBy)
	}
}

func runWalk(python string, files []string) ([]walkResult, error) {
	if python == "" {
		python = DefaultPython
	}
	var res []walkResult
	if err := corpus.RunParser("docgen", python, walkScript, files, &res); err != nil {
		return nil, err
	}
	if len(res) != len(files) {
		return nil, fmt.Errorf("docgen: the Python parser %s returned %d results for %d files", python, len(res), len(files))
	}
	return res, nil
}
