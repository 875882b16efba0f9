package systems

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// extractScript parses the upstream Python files with Python's ast module
// and prints the prompt texts; it never imports or runs upstream code.
//
//go:embed extract_prompts.py
var extractScript []byte

// UpstreamText says where one prompt text of the prompts layout
// (MATTOOLS_DATA/prompts) lives in an upstream MatTools checkout
// (docs/mattools.md §5).
type UpstreamText struct {
	Out  string // file in the prompts layout, e.g. "single_llm/answer_format.txt"
	File string // the upstream Python file, relative to the data root
	// Scope is "" for a module-level variable, else "Class.method" for a
	// local variable of that method.
	Scope string
	Name  string // the variable the text is assigned to
	// Occurrence picks the assignment to Name within a method, counting
	// from 0 in source order (format_chat_prompt assigns prompt twice). A
	// module-level variable must be assigned exactly once.
	Occurrence int
}

// The six upstream Python files that hold the prompt texts.
const (
	upQA       = "qa_benchmark/pymatgen-qa-generation/src/files/prompt.py"
	upSingle   = "src/pure_agent_test/build_agent.py"
	upRAG      = "src/RAG_agent_test/build_agent.py"
	upAgentic  = "src/agentic_RAG_test/prompt.py"
	upAgentic2 = "src/agentic_RAG_test/text_analysis_tool.py"
	upMTR      = "src/mtr_rag_test/prompts.py"
)

// UpstreamTexts lists every text of the prompts layout (24 files) with
// its upstream origin, in the layout's order.
var UpstreamTexts = []UpstreamText{
	{Out: "agentic_rag/chat_wrapper.txt", File: upAgentic2, Scope: "TextAnalysisTool.format_chat_prompt", Name: "prompt", Occurrence: 1},
	{Out: "agentic_rag/keywords.txt", File: upAgentic2, Scope: "TextAnalysisTool.keyword", Name: "prompt"},
	{Out: "agentic_rag/ner_system.txt", File: upAgentic2, Scope: "TextAnalysisTool.nerquery", Name: "instruction"},
	{Out: "agentic_rag/ner_user.txt", File: upAgentic2, Scope: "TextAnalysisTool.nerquery", Name: "query"},
	{Out: "agentic_rag/query_generation.txt", File: upAgentic, Name: "query_generation_prompt_str"},
	{Out: "agentic_rag/rag.txt", File: upAgentic, Name: "rag_prompt_str"},
	{Out: "agentic_rag/rag_final_answer.txt", File: upAgentic, Name: "rag_ar_prompt_str"},
	{Out: "agentic_rag/relevance_ranking.txt", File: upAgentic, Name: "relevance_ranking_instruction"},
	{Out: "agentic_rag/relevance_ranking_user.txt", File: upAgentic, Name: "relevance_ranking_guideline"},
	{Out: "llm_rag/system.txt", File: upRAG, Name: "SYSTEM_PROMPT"},
	{Out: "llm_rag/user_code_source1.txt", File: upRAG, Name: "USER_PROMPT"},
	{Out: "llm_rag/user_doc_source2.txt", File: upRAG, Name: "USER_PROMPT_DOC"},
	{Out: "llm_rag/user_llm_doc_sources3_4.txt", File: upRAG, Name: "USER_PROMPT_LLM_DOC"},
	{Out: "qa/qa_answer.txt", File: upQA, Name: "question_test_prompt"},
	{Out: "qa/qa_generation_from_code.txt", File: upQA, Name: "question_code_generation_prompt"},
	{Out: "qa/qa_generation_from_doc.txt", File: upQA, Name: "question_generation_prompt"},
	{Out: "self_reflection_rag/critical_feedback.txt", File: upMTR, Name: "CRITICAL_FEEDBACK_PROMPT"},
	{Out: "self_reflection_rag/critical_feedback_format_checker.txt", File: upMTR, Name: "CRITICAL_FEEDBACK_FORMART_CHECKER_PROMPT"},
	{Out: "self_reflection_rag/format_checker.txt", File: upMTR, Name: "FORMAT_CHECKER_PROMPT"},
	{Out: "self_reflection_rag/system.txt", File: upMTR, Name: "SYSTEM_PROMPT"},
	{Out: "self_reflection_rag/user_code_source1.txt", File: upMTR, Name: "USER_PROMPT"},
	{Out: "self_reflection_rag/user_doc_source2.txt", File: upMTR, Name: "USER_PROMPT_DOC"},
	{Out: "self_reflection_rag/user_llm_doc_sources3_4.txt", File: upMTR, Name: "USER_PROMPT_LLM_DOC"},
	{Out: "single_llm/answer_format.txt", File: upSingle, Name: "ANSWER_FORMAT"},
}

// DefaultPromptsCache is where extracted prompt texts are cached, relative
// to the working directory (the project root for make and go run).
const DefaultPromptsCache = "build/prompts"

// DefaultPythons are the interpreters ExtractPrompts tries, in order, when
// ExtractOptions.Python is empty: the sandbox's Python (make sandbox-env),
// then python3 on PATH.
var DefaultPythons = []string{"/opt/mattools-sandbox/bin/python", "python3"}

// ExtractOptions configure ExtractPrompts.
type ExtractOptions struct {
	// Python lists interpreters (paths or names on PATH); the first that
	// exists runs the extraction. Empty means DefaultPythons.
	Python []string
	// CacheDir holds one folder per set of inputs; "" means
	// DefaultPromptsCache.
	CacheDir string
}

// Extracted is the result of ExtractPrompts.
type Extracted struct {
	// Dir is a folder in the prompts layout holding every text of
	// UpstreamTexts: CacheDir/<key>, where key is the hex SHA-256 of the
	// extraction script, the UpstreamTexts table and the SHA-256 of each
	// upstream file.
	Dir string
	// Sources are the upstream files read (paths relative to the data
	// root) with their SHA-256, in the order of first use in UpstreamTexts.
	Sources []results.SourceFile
	// Cached is true when Dir existed already and nothing was run.
	Cached bool
}

// ExtractPrompts obtains the prompt texts of the prompts layout from the
// six upstream Python files under the data root (an upstream MatTools
// checkout, which has no prompts/ folder). It parses them with Python's ast
// module (the script extract_prompts.py, embedded; upstream code is never
// imported or executed) and writes the texts, byte for byte as the published
// prompts folder holds them, into a cache folder written atomically (a
// temporary folder renamed into place), so extraction runs once per set of
// inputs. A missing upstream file is an error naming it; so is a text
// the script cannot find (naming file, scope and variable).
func ExtractPrompts(ctx context.Context, root string, o ExtractOptions) (*Extracted, error) {
	if o.CacheDir == "" {
		o.CacheDir = DefaultPromptsCache
	}
	files := map[string][]byte{}
	ex := &Extracted{}
	for _, t := range UpstreamTexts {
		if _, ok := files[t.File]; ok {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(t.File)))
		if err != nil {
			return nil, fmt.Errorf("obtaining the prompt texts from the upstream sources (%s has no %s/ folder): %w", root, PromptsDir, err)
		}
		files[t.File] = data
		sum := sha256.Sum256(data)
		ex.Sources = append(ex.Sources, results.SourceFile{Path: t.File, SHA256: hex.EncodeToString(sum[:])})
	}
	table, err := json.Marshal(UpstreamTexts)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	h.Write(extractScript)
	h.Write([]byte{0})
	h.Write(table)
	for _, s := range ex.Sources {
		fmt.Fprintf(h, "\x00%s\x00%s", s.Path, s.SHA256)
	}
	ex.Dir = filepath.Join(o.CacheDir, hex.EncodeToString(h.Sum(nil)))
	if complete(ex.Dir) {
		ex.Cached = true
		return ex, nil
	}

	texts, err := runExtract(ctx, o.Python, files)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.CacheDir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(o.CacheDir, ".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	var list strings.Builder
	for _, s := range ex.Sources {
		fmt.Fprintf(&list, "%s  %s\n", s.SHA256, s.Path)
	}
	if err := os.WriteFile(filepath.Join(tmp, "SOURCES"), []byte(list.String()), 0o644); err != nil {
		return nil, err
	}
	for _, t := range UpstreamTexts {
		text, ok := texts[t.Out]
		if !ok {
			return nil, fmt.Errorf("prompt extraction: no text for %s (%s: %s)", t.Out, t.File, t.Name)
		}
		p := filepath.Join(tmp, filepath.FromSlash(t.Out))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, ex.Dir); err != nil {
		if !complete(ex.Dir) { // another process may have put the same texts there first
			return nil, fmt.Errorf("caching the extracted prompt texts: %w", err)
		}
	}
	return ex, nil
}

// complete reports whether dir holds every text of UpstreamTexts.
func complete(dir string) bool {
	for _, t := range UpstreamTexts {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(t.Out))); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// runExtract runs the embedded script on the given files (upstream path →
// bytes) with the first interpreter of pythons that exists.
func runExtract(ctx context.Context, pythons []string, files map[string][]byte) (map[string]string, error) {
	if len(pythons) == 0 {
		pythons = DefaultPythons
	}
	python := ""
	for _, p := range pythons {
		if lp, err := exec.LookPath(p); err == nil {
			python = lp
			break
		}
	}
	if python == "" {
		return nil, fmt.Errorf("prompt extraction needs a Python 3 interpreter: none of %s found (install the sandbox with `make setup` as root, or python3)", strings.Join(pythons, ", "))
	}
	req := struct {
		Files map[string]string `json:"files"`
		Texts []extractText     `json:"texts"`
	}{Files: map[string]string{}}
	for p, data := range files {
		req.Files[p] = base64.StdEncoding.EncodeToString(data)
	}
	for _, t := range UpstreamTexts {
		req.Texts = append(req.Texts, extractText{t.Out, t.File, t.Scope, t.Name, t.Occurrence})
	}
	in, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, python, "-I", "-c", string(extractScript))
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONIOENCODING=utf-8"}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) && msg != "" {
			return nil, fmt.Errorf("prompt extraction (%s): %s", python, msg)
		}
		return nil, fmt.Errorf("prompt extraction (%s): %w: %s", python, err, msg)
	}
	var texts map[string]string
	if err := json.Unmarshal(stdout.Bytes(), &texts); err != nil {
		return nil, fmt.Errorf("prompt extraction (%s): reading its output: %w", python, err)
	}
	return texts, nil
}

type extractText struct {
	Out        string `json:"out"`
	File       string `json:"file"`
	Scope      string `json:"scope"`
	Name       string `json:"name"`
	Occurrence int    `json:"occurrence"`
}

// ObtainPrompts returns the prompt texts for the data root: read from dir
// when dir is not "", else from root/prompts when that folder exists (this
// project's copy of the data), else extracted from the upstream Python
// sources under root by ExtractPrompts (an upstream checkout). In the last
// case Files records the upstream files the texts come from, with their
// SHA-256, instead of prompts/ files.
func ObtainPrompts(ctx context.Context, root, dir string, o ExtractOptions) (*Prompts, error) {
	if dir != "" {
		return LoadPrompts(dir)
	}
	dir = filepath.Join(root, PromptsDir)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return LoadPrompts(dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	ex, err := ExtractPrompts(ctx, root, o)
	if err != nil {
		return nil, err
	}
	p, err := LoadPrompts(ex.Dir)
	if err != nil {
		return nil, err
	}
	sha := map[string]string{}
	for _, s := range ex.Sources {
		sha[s.Path] = s.SHA256
	}
	origin := map[string]string{}
	for _, t := range UpstreamTexts {
		origin[PromptsDir+"/"+t.Out] = t.File
	}
	for i, f := range p.Files {
		up := origin[f.Path]
		p.Files[i] = results.SourceFile{Path: up, SHA256: sha[up]}
	}
	p.origins = map[string]results.SourceFile{}
	for _, t := range UpstreamTexts {
		p.origins[t.Out] = results.SourceFile{Path: t.File, SHA256: sha[t.File]}
	}
	return p, nil
}
