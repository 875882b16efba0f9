package scoring_test

import (
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// TestFolderEnvRuleIsTheSandboxs: a folder benchmark's env is refused when
// its manifest is read (datasets.ForbiddenEnvName) exactly where the
// sandbox would refuse the execution (sandbox.RefusedEnvName), so that no
// manifest passes the loader only to fail every question after the model
// has answered, and none is refused that the sandbox would run. Names: the
// sandbox's fixed environment, each refused prefix with a suffix, and
// variables a benchmark may set.
func TestFolderEnvRuleIsTheSandboxs(t *testing.T) {
	names := append(sandbox.FixedEnvNames(), "LANGUAGE", "LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONSTARTUP",
		"MPLBACKEND", "LC_ALL", "LC_CTYPE", "OPENBLAS_CORETYPE", "OMP_PROC_BIND", "MKL_CBWR", "NUMEXPR_MAX_THREADS",
		"PMG_TEST_FILES_DIR", "PMG_VASP_PSP_DIR", "LANGX", "HOMEDIR", "MY_PYTHON", "A")
	refused := 0
	for _, name := range names {
		d, s := datasets.ForbiddenEnvName(name), sandbox.RefusedEnvName(name)
		if d != s {
			t.Errorf("%s: refused by the folder loader %v, by the sandbox %v", name, d, s)
		}
		if s {
			refused++
		}
	}
	if want := len(sandbox.FixedEnvNames()) + 12; refused != want {
		t.Errorf("%d of %d names refused; want %d (the fixed environment and the 12 refused forms)", refused, len(names), want)
	}
}
