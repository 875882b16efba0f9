package pystr

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// reprCases are strings whose repr and JSON text are compared with
// Python's own: quotes of both kinds, backslashes, control characters,
// DEL, Latin-1 and other non-printable code points, separators, emoji.
var reprCases = []string{
	"", "plain", "it's", `say "hi"`, `both ' and "`, `back\slash`, "tab\tnew\nline\rret",
	"\x00\x01\x1f\x7f\x80\x9f", "\u00a0nbsp\u00ad", "caf\u00e9 \u00ff", "\u2028\u2029\u200b\ufeff",
	"\u3000ideo", "emoji \U0001F600", "\U000E0001 tag", "\b\f\v", "<script>&amp;</script>",
	"--------------\n\npymatgen/analysis/defects/core.py\n\ndef f():\n    return {'a': 1}--------------\n\n",
}

// TestReprAndJSONMatchPython compares Repr, ReprList and JSONString with
// Python's repr(str), str(list) and json.dumps(ensure_ascii=False) on the
// cases above, computed by the python3 on PATH (skipped without one).
func TestReprAndJSONMatchPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH to compare with")
	}
	in, _ := json.Marshal(reprCases)
	cmd := exec.Command(py, "-I", "-c", `import json, sys
cases = json.loads(sys.stdin.read())
print(json.dumps({"repr": [repr(s) for s in cases], "list": str(cases), "json": [json.dumps(s, ensure_ascii=False) for s in cases]}))`)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want struct {
		Repr []string
		List string
		JSON []string
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, s := range reprCases {
		if got := Repr(s); got != want.Repr[i] {
			t.Errorf("Repr(%q) = %s, Python %s", s, got, want.Repr[i])
		}
		if got := JSONString(s); got != want.JSON[i] {
			t.Errorf("JSONString(%q) = %s, Python %s", s, got, want.JSON[i])
		}
	}
	if got := ReprList(reprCases); got != want.List {
		t.Errorf("ReprList = %s\nPython     %s", got, want.List)
	}
	if got := ReprList(nil); got != "[]" {
		t.Errorf("ReprList(nil) = %s", got)
	}
}
