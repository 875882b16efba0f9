package scoring

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// TestVerifyRefusesCraftedPickles: the verification sandbox loads the parsed
// dicts with a restricted unpickler, so a pickle that would call os.system
// (or getattr on anything but an Element member) is refused and its payload
// never runs; the question is then a verification crash, not a pass.
func TestVerifyRefusesCraftedPickles(t *testing.T) {
	python := os.Getenv("MATTOOLS_SANDBOX_PYTHON")
	if python == "" {
		python = "/opt/mattools-sandbox"
	}
	sb, err := sandbox.Open(context.Background(), "auto", sandbox.Options{Slots: 1, Python: python})
	if err != nil {
		if os.Getenv("CI") == "" && errors.Is(err, sandbox.ErrUnavailable) {
			t.Skipf("no sandbox with the pinned Python environment: %v", err)
		}
		t.Fatal(err)
	}
	defer sb.Close()
	const test = "def test_x(properties):\n    return 'ok'\n"
	for name, pkl := range map[string]string{
		"os.system":          "cos\nsystem\n(S'echo PWNED'\ntR.",
		"getattr on a class": "cbuiltins\ngetattr\n(cbuiltins\nset\nS'__init__'\ntR.",
	} {
		t.Run(name, func(t *testing.T) {
			res, err := sb.Run(context.Background(), sandbox.Spec{
				Files: map[string][]byte{"verify.py": harnessFile("verify.py"), "unit_test.py": []byte(test), "name.txt": []byte("test_x"),
					"v1.pickle": []byte(pkl), "strict.pickle": []byte(pkl)},
				Argv: []string{"python3", "-I", "/sbx/verify.py"},
			})
			if err != nil {
				t.Fatal(err)
			}
			var v verified
			if err := json.Unmarshal(res.Side, &v); err != nil {
				t.Fatalf("side channel %q: %v (stderr %s)", res.Side, err, res.Stderr)
			}
			if v.V1 == nil || v.V1.Decision != "error" || !strings.Contains(v.V1.Text, "refused") || strings.Contains(v.V1.Text, "PWNED") {
				t.Errorf("v1: %+v; want an error decision mentioning the refusal, no payload output", v.V1)
			}
			if v.Strict == nil || !strings.Contains(v.Strict.Crash, "refused") {
				t.Errorf("strict: %+v; want a crash mentioning the refusal", v.Strict)
			}
			if strings.Contains(string(res.Stdout)+string(res.Stderr), "PWNED") {
				t.Error("the pickle's payload ran")
			}
		})
	}
}
