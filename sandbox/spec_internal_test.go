package sandbox

import (
	"strings"
	"testing"
)

// TestSpecCheckRefusesEnvThatChangesPython: a Spec.Env entry that would
// change how the sandbox's Python starts or finds its programs (a fixed
// variable of baseEnv, LD_*, PYTHON*, MPL*) or is not NAME=value is
// refused, naming the entry; a plain variable (synthesis's
// PMG_TEST_FILES_DIR) is not.
func TestSpecCheckRefusesEnvThatChangesPython(t *testing.T) {
	argv := []string{"python3", "-I", "/sbx/run.py"}
	if err := (Spec{Argv: argv, Env: []string{"PMG_TEST_FILES_DIR=/app/tool_source_code/tests/files", "X="}}).check(); err != nil {
		t.Errorf("plain variables refused: %v", err)
	}
	for _, kv := range []string{"PYTHONPATH=/tmp/evil", "PYTHONHASHSEED=1", "PYTHONSTARTUP=/sbx/x.py", "LD_PRELOAD=/tmp/x.so",
		"PATH=/tmp", "HOME=/", "MPLBACKEND=TkAgg", "OMP_NUM_THREADS=8", "LC_ALL=C", "LANGUAGE=fr", "OPENBLAS_CORETYPE=Haswell", "USER=root", "NOEQUALS", "lower=1", "=x"} {
		err := (Spec{Argv: argv, Env: []string{"OK=1", kv}}).check()
		if err == nil || !strings.Contains(err.Error(), "Spec.Env[1]") {
			t.Errorf("Env %q: error %v; want one naming Spec.Env[1]", kv, err)
		}
	}
	if err := (Spec{}).check(); err == nil || !strings.Contains(err.Error(), "empty argv") {
		t.Errorf("empty argv: %v", err)
	}
}
