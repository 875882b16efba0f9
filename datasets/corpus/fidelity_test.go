package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
)

// refChunk is one line of scripts/corpus-fidelity/chunk_reference.py's output.
type refChunk struct {
	Source   string            `json:"source"`
	Metadata map[string]string `json:"metadata"`
	Text     string            `json:"text"`
}

// TestFidelity compares BuildCode and BuildDocs chunk by chunk with the
// LangChain reference (scripts/corpus-fidelity/chunk_reference.py). It runs
// whenever the test venv exists (make setup and scripts/corpus-fidelity/run.sh
// make it; MATTOOLS_CORPUS_FIDELITY_VENV overrides its location, default
// <repo>/build/corpus-fidelity-venv), and fails without it under CI or
// MATTOOLS_CORPUS_FIDELITY=1.
// Any difference fails the test. It prints the agreement per source: the share of chunks (of the larger
// count) equal in text and metadata at the same position of the same file.
func TestFidelity(t *testing.T) {
	root := mattoolstest.DataRoot(t, "corpus fidelity")
	repo, _ := filepath.Abs("../..")
	venv := os.Getenv("MATTOOLS_CORPUS_FIDELITY_VENV")
	if venv == "" {
		venv = filepath.Join(repo, "build", "corpus-fidelity-venv")
	}
	py := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		// make setup builds the venv; CI (which runs make setup) and
		// MATTOOLS_CORPUS_FIDELITY=1 require it.
		if os.Getenv("MATTOOLS_CORPUS_FIDELITY") == "1" || os.Getenv("CI") != "" {
			t.Fatalf("no fidelity venv: %v (make setup, or scripts/corpus-fidelity/run.sh)", err)
		}
		t.Skipf("no fidelity venv (make setup builds it): %v", err)
	}
	script := filepath.Join(repo, "scripts", "corpus-fidelity", "chunk_reference.py")
	for _, src := range []string{"code", "docs"} {
		t.Run(src, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), src+".jsonl")
			cmd := exec.Command(py, "-W", "ignore", script, "--root", root, "--source", src, "--out", out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", script, err, b)
			} else {
				t.Logf("reference: %s", strings.TrimSpace(string(b)))
			}
			ref := readRef(t, out)
			var c *Corpus
			var err error
			if src == "code" {
				c, err = BuildCode(root, Options{})
			} else {
				c, err = BuildDocs(root, Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			agree, total, diffs := compareChunks(src, ref, c.Chunks)
			msg := fmt.Sprintf("fidelity %s: %d LangChain chunks, %d Go chunks, %d equal: agreement %.2f%%",
				src, len(ref), len(c.Chunks), agree, 100*float64(agree)/float64(total))
			t.Log(msg)
			fmt.Println(msg)
			for i, d := range diffs {
				if i == 20 {
					t.Errorf("... %d more differences", len(diffs)-20)
					break
				}
				t.Error(d)
			}
		})
	}
}

func readRef(t *testing.T, p string) []refChunk {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []refChunk
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var r refChunk
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// compareChunks groups both chunk lists by input file and compares them
// position by position; it returns the number of equal chunks, the larger
// of the two counts and a description of each difference.
func compareChunks(src string, ref []refChunk, got []Chunk) (agree, total int, diffs []string) {
	refBy := map[string][]refChunk{}
	var order []string
	for _, r := range ref {
		k := r.Metadata["source"]
		if src == "docs" && !strings.HasPrefix(k, "tool_source_code/") {
			k = "defects_doc/" + k
		}
		if _, ok := refBy[k]; !ok {
			order = append(order, k)
		}
		refBy[k] = append(refBy[k], r)
	}
	gotBy := map[string][]Chunk{}
	for _, c := range got {
		k := c.Path
		if src == "code" {
			k = c.Source
		}
		if _, ok := gotBy[k]; !ok {
			if _, ok := refBy[k]; !ok {
				order = append(order, k)
			}
		}
		gotBy[k] = append(gotBy[k], c)
	}
	total = max(len(ref), len(got))
	for _, k := range order {
		rs, gs := refBy[k], gotBy[k]
		if len(rs) != len(gs) {
			diffs = append(diffs, fmt.Sprintf("%s: %d LangChain chunks, %d Go chunks", k, len(rs), len(gs)))
		}
		for i := 0; i < min(len(rs), len(gs)); i++ {
			r, g := rs[i], gs[i]
			want := Chunk{Source: r.Source, Text: r.Text}
			have := Chunk{Source: g.Source, Text: g.Text}
			if src == "code" {
				want.Name, want.ContentType, want.Language = r.Metadata["first_function_or_class"], r.Metadata["content_type"], r.Metadata["language"]
				have.Name, have.ContentType, have.Language = g.Name, g.ContentType, g.Language
			}
			if want == have {
				agree++
				continue
			}
			diffs = append(diffs, fmt.Sprintf("%s: %s\n  LangChain %+q\n  Go        %+q", k, g.ID, abbreviate(want), abbreviate(have)))
		}
	}
	return agree, total, diffs
}

func abbreviate(c Chunk) string {
	t := c.Text
	if len(t) > 160 {
		t = t[:80] + " … " + t[len(t)-80:]
	}
	return fmt.Sprintf("source=%q name=%q type=%q lang=%q text=%q", c.Source, c.Name, c.ContentType, c.Language, t)
}
