// Package apicheck finds hallucinated APIs in generated code: names that the
// code imports from, or reads as attributes of, pymatgen (and its namespace
// package pymatgen.analysis.defects, i.e. pymatgen-analysis-defects) that do
// not exist in the pinned library versions. The check is static: the code is
// parsed with Python's ast module and never executed, and the names are
// looked up by importing the real library modules
// (scripts/api-check/check_api.py, run with the sandbox's Python, e.g.
// /opt/mattools-sandbox/bin/python).
//
// The site never runs Python: it reads the committed store names.json
// (embedded; cmd/check-api updates it), keyed by the code's SHA-256 (Key).
// It sits beside site/aggregate and imports no project package.
package apicheck

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Result is the check of one answer's code.
type Result struct {
	// Missing are the dotted names that do not exist, in the order the
	// code first uses them, e.g. "pymatgen.core.Specie" (each once).
	Missing []string `json:"missing"`
	// Checked counts the names looked up (imports, imported names and
	// attribute steps).
	Checked int `json:"checked"`
	// Error is why the code could not be checked ("syntax error: …"), ""
	// when it was.
	Error string `json:"error,omitempty"`
}

// Store is the committed file of results: the environment the names were
// resolved in, and one Result per code key.
type Store struct {
	About       string            `json:"about"`
	Environment map[string]string `json:"environment"` // python, pymatgen, pymatgen-analysis-defects versions
	Codes       map[string]Result `json:"codes"`       // by Key
}

// StorePath is the store's path relative to the repository root.
const StorePath = "site/apicheck/names.json"

// ScriptPath is the checker's path relative to the repository root.
const ScriptPath = "scripts/api-check/check_api.py"

//go:embed names.json
var committed []byte

// Committed returns the store committed with this package (a fresh copy).
// A store that does not parse is an error naming StorePath.
func Committed() (*Store, error) { return Parse(committed) }

// Parse reads a store; errors name StorePath.
func Parse(data []byte) (*Store, error) {
	var s Store
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", StorePath, err)
	}
	if s.Codes == nil {
		s.Codes = map[string]Result{}
	}
	return &s, nil
}

// Key returns the store key of code: the first 16 hex digits of its
// SHA-256 (UTF-8 bytes as stored in the results file).
func Key(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:8])
}

// Lookup returns the result for code; ok is false when code was never
// checked (or is empty: empty code imports nothing and is not stored).
func (s *Store) Lookup(code string) (r Result, ok bool) {
	if strings.TrimSpace(code) == "" {
		return Result{}, false
	}
	r, ok = s.Codes[Key(code)]
	return r, ok
}

// Marshal writes the store as JSON with one code per line, keys sorted, so
// that updates give small diffs.
func (s *Store) Marshal() []byte {
	var b bytes.Buffer
	about, _ := json.Marshal(s.About)
	env, _ := json.Marshal(s.Environment)
	fmt.Fprintf(&b, "{\n \"about\": %s,\n \"environment\": %s,\n \"codes\": {", about, env)
	keys := make([]string, 0, len(s.Codes))
	for k := range s.Codes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		r := s.Codes[k]
		if r.Missing == nil {
			r.Missing = []string{}
		}
		line, _ := json.Marshal(r)
		sep := ","
		if i == len(keys)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\n  %q: %s%s", k, line, sep)
	}
	b.WriteString("\n }\n}\n")
	return b.Bytes()
}

// Check runs the checker (ScriptPath under repo) with python (the sandbox's
// interpreter, whose site-packages hold the pinned pymatgen) on codes and
// returns one Result per Key of a non-empty code, and the environment the
// script reports. The codes are passed on stdin and only parsed. A failure
// of the interpreter is an error with its stderr.
func Check(ctx context.Context, python, repo string, codes []string) (map[string]Result, map[string]string, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	seen := map[string]bool{}
	for _, c := range codes {
		k := Key(c)
		if strings.TrimSpace(c) == "" || seen[k] {
			continue
		}
		seen[k] = true
		if err := enc.Encode(map[string]string{"id": k, "code": c}); err != nil {
			return nil, nil, err
		}
	}
	cmd := exec.CommandContext(ctx, python, "-I", filepath.Join(repo, ScriptPath))
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w\n%s", ScriptPath, err, stderr.String())
	}
	var out struct {
		Environment map[string]string `json:"environment"`
		Results     map[string]Result `json:"results"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, nil, fmt.Errorf("%s output: %w", ScriptPath, err)
	}
	return out.Results, out.Environment, nil
}
