package systems

import (
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// FuzzExtractCode feeds arbitrary model answers to the answer extractor.
// Invariants: no panic; time linear in the answer (the
// patterns are RE2: a 1 MB answer must not take seconds); when it fails both
// results are ""; when it succeeds the code and name are stripped
// (Python str.strip), the name sits between <name> and </name> and the code
// between <code>…```python and ``` …</code> in the answer, and wrapping the
// answer in text without tags extracts the same.
func FuzzExtractCode(f *testing.F) {
	f.Add("<answer><code>```python\ndef f():\n    return {'a': 1}\n```</code><name>f</name></answer>")
	f.Add("Here it is:\n<code>\n```python\nimport math\n```\n</code>\n<name> g </name>")
	f.Add("<code>```python```</code><name></name>")
	f.Add("<name>x</name><code>```python\n```python\nx\n``` </code>")
	f.Fuzz(func(t *testing.T, response string) {
		start := time.Now()
		code, name, ok := ExtractCode(response)
		if d := time.Since(start); d > 10*time.Second { // a blow-up, not a slow machine
			t.Fatalf("ExtractCode took %v for %d bytes", d, len(response))
		}
		if !ok {
			if code != "" || name != "" {
				t.Fatalf("failed extraction returned %q, %q", code, name)
			}
			return
		}
		if pystr.Strip(code) != code || pystr.Strip(name) != name {
			t.Fatalf("not stripped: %q, %q", code, name)
		}
		if !strings.Contains(response, "<name>"+"") || !strings.Contains(response, name+"") ||
			!strings.Contains(response, code) || !strings.Contains(response, "```python") || !strings.Contains(response, "</code>") {
			t.Fatalf("extracted %q, %q not found in the answer", code, name)
		}
		i := strings.Index(response, "<name>")
		if j := strings.Index(response[i:], "</name>"); j < 0 || !strings.Contains(response[i:i+j], name) {
			t.Fatalf("name %q is not inside the first <name>…</name>", name)
		}
		c2, n2, ok2 := ExtractCode("prefix without tags\n" + response + "\nsuffix")
		if !ok2 || c2 != code || n2 != name {
			t.Fatalf("surrounding text changed the extraction: %q, %q, %v", c2, n2, ok2)
		}
	})
}
