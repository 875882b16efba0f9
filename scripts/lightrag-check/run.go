// Package lightragcheck is the reference side of the LightRAG comparison: it runs the real lightrag-hku
// 1.3.3 (drive.py, in the venv of requirements.txt) against the project's fake OpenAI-compatible server
// (llm/llmtest) answering with runner/graphrag/graphragtest.Responder, so that the Go
// re-implementation (runner/graphrag) can be driven by the same server and its chunks, graph, vectors,
// contexts and answers compared with LightRAG's.
//
//   - Run runs drive.py; Options builds its arguments.
//   - WriteTiktokenCache writes o200k_base's rank file where tiktoken looks for it (LightRAG's tokenizer;
//     nothing is downloaded).
//
// See README.md in this directory.
package lightragcheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// DefaultVenv is the venv scripts/setup.sh installs requirements.txt into, relative to the repository root.
const DefaultVenv = "build/lightrag-check-venv"

// Dir returns this directory (scripts/lightrag-check) as an absolute path, found from this source file's
// location: valid while the program runs from a build of this module's source tree (go run, go test).
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "scripts/lightrag-check"
	}
	return filepath.Dir(file)
}

// RepoRoot returns the repository root (two levels above Dir).
func RepoRoot() string { return filepath.Dir(filepath.Dir(Dir())) }

// Python returns the venv's python (under RepoRoot) or "" if it is not installed.
func Python() string {
	p := filepath.Join(RepoRoot(), DefaultVenv, "bin", "python")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Options are drive.py's arguments (see drive.py --help).
type Options struct {
	BaseURL        string   // the fake's URL, e.g. llmtest.Server.URL ("http://127.0.0.1:PORT/v1")
	LLMModel       string   // chat model name sent to the server
	EmbeddingModel string   // embedding model name sent to the server
	EmbeddingDim   int      // the server's embedding dimension
	Corpus         string   // directory of text files, one document each
	Suffixes       []string // only files ending so (none: every file)
	Questions      string   // JSON file: a list of strings or of {"question", "id"}
	Modes          []string // of naive, local, global, hybrid, mix (none: all five)
	WorkingDir     string   // LightRAG's working dir; must be absent or empty
	Out            string   // the JSON file to write
	TiktokenCache  string   // dir holding o200k_base's rank file (WriteTiktokenCache)
	CharTokenizer  bool     // one token per character instead of o200k_base
	NoAnswers      bool     // only the only_need_context calls
	Verbose        bool     // LightRAG's INFO log on stderr
}

// Args returns drive.py's command-line arguments for o.
func (o Options) Args() []string {
	a := []string{"--base-url", o.BaseURL, "--llm-model", o.LLMModel, "--embedding-model", o.EmbeddingModel,
		"--embedding-dim", strconv.Itoa(o.EmbeddingDim), "--corpus", o.Corpus, "--questions", o.Questions,
		"--working-dir", o.WorkingDir, "--out", o.Out}
	for _, s := range o.Suffixes {
		a = append(a, "--suffix", s)
	}
	if len(o.Modes) > 0 {
		a = append(a, "--modes", strings.Join(o.Modes, ","))
	}
	if o.TiktokenCache != "" {
		a = append(a, "--tiktoken-cache", o.TiktokenCache)
	}
	if o.CharTokenizer {
		a = append(a, "--char-tokenizer")
	}
	if o.NoAnswers {
		a = append(a, "--no-answers")
	}
	if o.Verbose {
		a = append(a, "--verbose")
	}
	return a
}

// Run runs `python drive.py args...` (drive.py of Dir) with PYTHONHASHSEED=0 and waits for it. Its stdout
// and stderr go to the caller's stderr as they come; on failure the error ends with the last 40 lines of
// stderr. Cancelling ctx kills the process.
func Run(ctx context.Context, python string, args []string) error {
	cmd := exec.CommandContext(ctx, python, append([]string{filepath.Join(Dir(), "drive.py")}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONHASHSEED=0", "PYTHONUNBUFFERED=1")
	var tail bytes.Buffer
	cmd.Stdout = os.Stderr
	cmd.Stderr = &tee{w: os.Stderr, keep: &tail}
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimRight(tail.String(), "\n"), "\n")
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		return fmt.Errorf("drive.py: %w\n%s", err, strings.Join(lines, "\n"))
	}
	return nil
}

// tee writes to w and keeps the last 64 KiB in keep.
type tee struct {
	w    interface{ Write([]byte) (int, error) }
	keep *bytes.Buffer
}

func (t *tee) Write(p []byte) (int, error) {
	t.keep.Write(p)
	if t.keep.Len() > 64<<10 {
		b := t.keep.Bytes()
		rest := append([]byte(nil), b[len(b)-32<<10:]...)
		t.keep.Reset()
		t.keep.Write(rest)
	}
	return t.w.Write(p)
}
