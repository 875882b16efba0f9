package lightragcheck

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// TestTiktokenAgrees writes the rank file with WriteTiktokenCache, loads it with the venv's tiktoken
// (TIKTOKEN_CACHE_DIR, downloads disabled) and checks that tiktoken.encoding_for_model("gpt-4o-mini"), the
// encoder LightRAG 1.3.3 uses, gives the same ids as github.com/tiktoken-go/tokenizer for a few strings:
// ASCII, code with indentation and braces, runs of spaces and newlines, digits, non-Latin scripts, emoji,
// the special-token text (encoded as ordinary text by both), and a file of the defects package when the
// MatTools data is present. It skips without the venv (scripts/setup.sh makes it) and fails then when CI
// is set.
func TestTiktokenAgrees(t *testing.T) {
	py := Python()
	if py == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("no %s (scripts/setup.sh makes it)", DefaultVenv)
		}
		t.Skipf("no %s (scripts/setup.sh makes it)", DefaultVenv)
	}
	dir := t.TempDir()
	if _, err := WriteTiktokenCache(dir); err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"",
		"Hello, world!",
		"def get_freysoldt_correction(q, dielectric, defect_locpot, bulk_locpot, lattice=None):\n    \"\"\"Docstring.\"\"\"\n\treturn {'a': 1}\n",
		"    \n\n\n   x  =  1\r\n\r\n",
		"1234567890 3.14159 1e-10 0x1F",
		"Ünïcödé façade naïve — “quotes” ‘single’ …",
		"中文字符和日本語のテキスト、한국어 텍스트",
		"Здравствуй, мир! Γειά σου Κόσμε! مرحبا بالعالم",
		"emoji 🧪⚛️👩‍🔬 and ZWJ sequences",
		"<|endoftext|> <|endofprompt|> are plain text here",
		"I'm you're they'LL it'S we've CAN'T",
		strings.Repeat("a", 3000),
	}
	if root := os.Getenv("MATTOOLS_DATA"); root != "" {
		p := filepath.Join(root, "src/tool_source_code/pymatgen/src/pymatgen/analysis/defects/core.py")
		if b, err := os.ReadFile(p); err == nil {
			texts = append(texts, string(b))
		}
	}
	in, _ := json.Marshal(texts)
	script := `
import json, os, sys
import tiktoken, tiktoken.load
def no_download(url):
    raise RuntimeError("download attempted: " + url)
tiktoken.load.read_file = no_download
enc = tiktoken.encoding_for_model("gpt-4o-mini")
assert enc.name == "o200k_base", enc.name
texts = json.load(sys.stdin)
json.dump([enc.encode(t, disallowed_special=()) for t in texts], sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Env = append(os.Environ(), "TIKTOKEN_CACHE_DIR="+dir)
	cmd.Stdin = strings.NewReader(string(in))
	outb, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("python: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var want [][]uint
	if err := json.Unmarshal(outb, &want); err != nil {
		t.Fatal(err)
	}
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, s := range texts {
		got, _, err := c.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			got = []uint{}
		}
		if !slices.Equal(got, want[i]) {
			t.Errorf("text %d (%.40q): Go %d ids, tiktoken %d ids; first Go %v, tiktoken %v", i, s, len(got), len(want[i]),
				got[:min(8, len(got))], want[i][:min(8, len(want[i]))])
		}
		total += len(got)
	}
	t.Logf("%d texts, %d tokens: equal ids", len(texts), total)
}
