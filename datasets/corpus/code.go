package corpus

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// CodeDir is the folder of retrieval source 1, relative to the data root's
// src/ folder (construct_doc.ipynb's base_path).
const CodeDir = "tool_source_code/pymatgen/src/pymatgen"

// CodeFiles is the number of .py files under CodeDir in the published data.
const CodeFiles = 301

// segmentScript parses each submitted text with ast and reports, per text,
// whether it parses and the 1-based first and last lines of its top-level
// FunctionDef, AsyncFunctionDef and ClassDef nodes, as langchain_community's
// PythonSegmenter uses them. Input (stdin): a JSON list of source texts.
// Output (stdout): a JSON list of {"valid": bool, "nodes": [[lineno,
// end_lineno], ...], "error": "..."}; "error" without "valid" is an
// exception other than SyntaxError, which LangChain does not catch.
const segmentScript = `
import ast, json, sys, warnings
warnings.simplefilter("ignore")
out = []
for code in json.load(sys.stdin):
    try:
        try:
            tree = ast.parse(code)
        except SyntaxError as e:
            out.append({"valid": False, "error": "SyntaxError: " + str(e)})
            continue
        nodes = [[n.lineno, n.end_lineno] for n in ast.iter_child_nodes(tree)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        out.append({"valid": True, "nodes": nodes})
    except Exception as e:
        out.append({"error": type(e).__name__ + ": " + str(e)})
json.dump(out, sys.stdout)
`

type segResult struct {
	Valid *bool    `json:"valid"`
	Nodes [][2]int `json:"nodes"`
	Error string   `json:"error"`
}

// document is a LangChain document before splitting.
type document struct {
	text        string
	path        string // relative to src/
	source      string // Chunk.Source
	name        string
	contentType string
	language    string
}

// inputFile is one read input file.
type inputFile struct {
	rel  string // relative to src/, slash-separated
	data []byte
}

// firstDefOrClass is construct_doc.ipynb's pattern
// r"^\s*(def|class)\s+([a-zA-Z_][a-zA-Z0-9_]*)" with re.MULTILINE, \s
// spelled out as Python's Unicode whitespace.
var firstDefOrClass = func() *regexp.Regexp {
	const ws = `[\t\n\v\f\r\x{1c}-\x{1f} \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`
	return regexp.MustCompile(`(?m)^` + ws + `*(def|class)` + ws + `+([a-zA-Z_][a-zA-Z0-9_]*)`)
}()

// BuildCode builds retrieval source 1 from the MatTools data root root:
// every regular file under root/src/tool_source_code/pymatgen/src/pymatgen/
// (recursively) whose name ends in ".py" and does not start with "."
// (GenericLoader glob "**/[!.]*", suffixes [".py"]; 301 files, 7,332,065
// bytes in the published data), in sorted order of their slash-separated
// paths, each decoded as UTF-8 with universal newlines (Path.read_text).
//
// Each file becomes LangChain documents as LanguageParser(language="python")
// with parser_threshold 0 makes them:
//   - a file with no lines (str.splitlines) stays one document, metadata
//     language "python", no content_type;
//   - a file that Python's ast.parse rejects with SyntaxError stays one
//     document with no language and no content_type (LangChain's fallback);
//   - otherwise each top-level def, async def and class becomes a
//     "functions_classes" document: lines lineno..end_lineno of the node,
//     joined by "\n" (decorators, which precede lineno, are not part of it),
//     and the rest of the file becomes one "simplified_code" document, in
//     which each such node's first line is prefixed "# Code for: " and its
//     other lines are removed (decorators stay);
//
// "functions_classes" documents get Name (first_function_or_class, see
// Chunk.Name). Each document is then split by
// RecursiveCharacterTextSplitter.from_language(PYTHON, chunk_size=1000,
// chunk_overlap=50): PythonSeparators, lengths in code points, separators
// kept at the start of the following piece, chunks stripped of Python
// whitespace, empty chunks dropped.
//
// Parsing runs Options.Python (DefaultPython) once, with -I. Errors name
// the path: a missing folder, an unreadable file, a file that is not UTF-8
// (LangChain's load fails too), a file whose parse raises something other
// than SyntaxError (e.g. a null byte in Python ≥3.12 is a SyntaxError, in
// 3.11 a ValueError), or the missing or failing interpreter.
func BuildCode(root string, o Options) (*Corpus, error) {
	files, err := readTree(root, CodeDir, nil, func(rel string, d fs.DirEntry) bool {
		name := d.Name()
		return !strings.HasPrefix(name, ".") && path.Ext(name) == ".py"
	})
	if err != nil {
		return nil, err
	}
	return cached(o, 1, files, func() (*Corpus, error) { return buildCode(files, o) })
}

func buildCode(files []inputFile, o Options) (*Corpus, error) {
	texts := make([]string, len(files))
	for i, f := range files {
		t, err := decodeText(f)
		if err != nil {
			return nil, err
		}
		texts[i] = t
	}
	segs, err := runSegmenter(o, files, texts)
	if err != nil {
		return nil, err
	}
	var docs []document
	for i, f := range files {
		src := "tool_source_code/pymatgen/src/pymatgen/" + strings.TrimPrefix(f.rel, CodeDir+"/")
		parts := strings.SplitN(src, "pymatgen", 3)
		base := document{path: f.rel, source: "pymatgen" + parts[len(parts)-1]}
		text, lines := texts[i], pystr.SplitLines(texts[i])
		seg := segs[i]
		switch {
		case len(lines) == 0:
			d := base
			d.text, d.language = text, "python"
			docs = append(docs, d)
		case seg.Valid == nil:
			return nil, fmt.Errorf("corpus: parsing %s: %s", filepath.Join("src", filepath.FromSlash(f.rel)), seg.Error)
		case !*seg.Valid:
			o.logf("corpus: %s: %s; kept as one plain document, as LangChain does", f.rel, seg.Error)
			d := base
			d.text = text
			docs = append(docs, d)
		default:
			docs = append(docs, segmentPython(base, lines, seg.Nodes)...)
		}
	}
	return finish(1, len(files), docs, splitter{PythonSeparators, ChunkSize, ChunkOverlap}), nil
}

// segmentPython is PythonSegmenter.extract_functions_classes and
// simplify_code on the lines of one file (Python slice semantics).
func segmentPython(base document, lines []string, nodes [][2]int) []document {
	clip := func(i int) int { return max(0, min(i, len(lines))) }
	var docs []document
	for _, n := range nodes {
		d := base
		d.text = strings.Join(lines[clip(n[0]-1):clip(n[1])], "\n")
		d.contentType, d.language = "functions_classes", "python"
		if m := firstDefOrClass.FindStringSubmatch(d.text); m != nil {
			d.name = m[1] + " " + m[2]
		}
		docs = append(docs, d)
	}
	simplified := append([]string(nil), lines...)
	for _, n := range nodes {
		if s := n[0] - 1; s >= 0 && s < len(simplified) {
			simplified[s] = "# Code for: " + simplified[s]
		}
	}
	for k := len(nodes) - 1; k >= 0; k-- {
		a, b := clip(nodes[k][0]), clip(nodes[k][1])
		if a < b {
			simplified = append(simplified[:a], simplified[b:]...)
		}
	}
	d := base
	d.text = strings.Join(simplified, "\n")
	d.contentType, d.language = "simplified_code", "python"
	return append(docs, d)
}

func runSegmenter(o Options, files []inputFile, texts []string) ([]segResult, error) {
	py := o.Python
	if py == "" {
		py = DefaultPython
	}
	var segs []segResult
	if err := RunParser("corpus", py, segmentScript, texts, &segs); err != nil {
		return nil, err
	}
	if len(segs) != len(files) {
		return nil, fmt.Errorf("corpus: the Python parser %s returned %d results for %d files", py, len(segs), len(files))
	}
	return segs, nil
}

// decodeText decodes a file as Python's text mode with encoding UTF-8 does.
func decodeText(f inputFile) (string, error) {
	if !utf8.Valid(f.data) {
		return "", fmt.Errorf("corpus: src/%s is not valid UTF-8", f.rel)
	}
	return pystr.UniversalNewlines(string(f.data)), nil
}

// readTree reads the regular files below root/src/dir that keep accepts,
// sorted by their slash-separated path relative to root/src, skipping the
// directories (below dir) for which skipDir, if not nil, returns true.
func readTree(root, dir string, skipDir func(name string) bool, keep func(rel string, d fs.DirEntry) bool) ([]inputFile, error) {
	src := filepath.Join(root, "src")
	top := filepath.Join(src, filepath.FromSlash(dir))
	st, err := os.Stat(top)
	if err != nil {
		return nil, fmt.Errorf("corpus: corpus folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("corpus: corpus folder %s is not a folder", top)
	}
	var rels []string
	err = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, rerr := filepath.Rel(src, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDir != nil && p != top && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !keep(rel, d) {
			return nil
		}
		fi, err := os.Stat(p) // follows symbolic links, as Path.is_file
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			rels = append(rels, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus: listing %s: %w", top, err)
	}
	sort.Strings(rels)
	files := make([]inputFile, len(rels))
	for i, rel := range rels {
		b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		files[i] = inputFile{rel, b}
	}
	return files, nil
}

// finish splits docs into the chunks of a corpus.
func finish(source, nfiles int, docs []document, sp splitter) *Corpus {
	c := &Corpus{Source: source, Files: nfiles, Documents: len(docs)}
	n := map[string]int{}
	for _, d := range docs {
		key := d.path
		if source == 1 {
			key = d.source
		}
		for _, t := range sp.SplitText(d.text) {
			c.Chunks = append(c.Chunks, Chunk{
				ID: key + "#" + strconv.Itoa(n[key]), Source: d.source, Name: d.name, Text: t,
				Path: d.path, ContentType: d.contentType, Language: d.language,
			})
			n[key]++
		}
	}
	c.ID = ComputeID(c.Chunks)
	return c
}
