package systems

import (
	"regexp"

	"github.com/mattools-leaderboard/leaderboard/internal/pystr"
)

// The answer-format patterns of MatTools' extract_response
// (src/pure_agent_test/download_batch_results.py), with re.DOTALL and
// Python's \s:
//
//	<code>\s*```python\s*(.*?)```\s*</code>
//	<name>(.*?)</name>
//
// Go's leftmost-first submatch semantics pick the same match as Python's
// backtracking re.search for these patterns.
var (
	codePattern = regexp.MustCompile("(?s)<code>[" + pystr.Space + "]*```python[" + pystr.Space + "]*(.*?)```[" + pystr.Space + "]*</code>")
	namePattern = regexp.MustCompile(`(?s)<name>(.*?)</name>`)
)

// ExtractCode returns the generated function and its name from a model
// answer in the MatTools answer format, as extract_response does: the first
// match of each pattern above, each stripped (Python str.strip). If either
// is missing, ok is false and both are "" (MatTools' ["", ""]).
// docs/mattools.md §3.2, §5.
func ExtractCode(response string) (code, name string, ok bool) {
	c := codePattern.FindStringSubmatch(response)
	n := namePattern.FindStringSubmatch(response)
	if c == nil || n == nil {
		return "", "", false
	}
	return pystr.Strip(c[1]), pystr.Strip(n[1]), true
}
