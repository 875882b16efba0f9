package scoring_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
)

// readLock returns the pinned lines (name==version) of a lock file of
// sandbox-env, in order, failing on a line that is not an exact pin.
func readLock(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pins []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, version, ok := strings.Cut(line, "==")
		if !ok || name == "" || version == "" || strings.ContainsAny(line, " <>;[@") {
			t.Errorf("%s:%d: %q is not an exact pin name==version", path, n, line)
		}
		pins = append(pins, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pins
}

// The tasks environment's lock is the pinned lock with additions only: every
// pinned line is there unchanged and in the same order, and what is added is
// ASE at MatTools' pin, dscribe at pymatgen-analysis-defects' "strict" pin and
// their dependencies (docs/sandbox.md, "Two environments").
func TestTasksLockAddsToThePinnedLockOnly(t *testing.T) {
	pinned := readLock(t, "../../sandbox-env/requirements.lock")
	tasks := readLock(t, "../../sandbox-env/requirements-tasks.lock")
	key := func(pin string) string { name, _, _ := strings.Cut(pin, "=="); return strings.ToLower(name) }
	in := map[string]string{}
	for _, p := range tasks {
		if prev, dup := in[key(p)]; dup {
			t.Errorf("requirements-tasks.lock pins %s twice (%s, %s)", key(p), prev, p)
		}
		in[key(p)] = p
	}
	// Order: the pinned lines appear in tasks in the same relative order.
	i := 0
	for _, p := range tasks {
		if i < len(pinned) && p == pinned[i] {
			i++
		}
	}
	if i != len(pinned) {
		t.Errorf("requirements-tasks.lock lacks or changes the pinned line %q (or reorders the pinned lines)", pinned[i])
	}
	for _, p := range pinned {
		if in[key(p)] != p {
			t.Errorf("requirements-tasks.lock has %q for the pinned %q", in[key(p)], p)
		}
	}
	var added []string
	old := map[string]bool{}
	for _, p := range pinned {
		old[p] = true
	}
	for _, p := range tasks {
		if !old[p] {
			added = append(added, p)
		}
	}
	want := "ase==3.23.0 dscribe==2.1.0 llvmlite==0.44.0 numba==0.61.0 pybind11==2.13.6 scikit-learn==1.6.1 sparse==0.15.5 threadpoolctl==3.6.0"
	if got := strings.Join(added, " "); got != want {
		t.Errorf("requirements-tasks.lock adds\n  %s\nwant\n  %s", got, want)
	}
}

// An installed tasks environment carries its lock's stamp, so that runs scored
// in it record a lock hash different from the pinned environment's.
func TestTasksEnvironmentInstalledStamp(t *testing.T) {
	prefix := "/opt/mattools-sandbox-tasks"
	stamp, err := os.ReadFile(filepath.Join(prefix, scoring.LockStamp))
	if err != nil {
		t.Skipf("the tasks environment is not installed at %s (make sandbox-env SANDBOX_ENV=tasks): %v", prefix, err)
	}
	lock, err := os.ReadFile("../../sandbox-env/requirements-tasks.lock")
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := os.ReadFile("../../sandbox-env/requirements.lock")
	if err != nil {
		t.Fatal(err)
	}
	sum, pinnedSum := sha256.Sum256(lock), sha256.Sum256(pinned)
	if got := strings.TrimSpace(string(stamp)); got != hex.EncodeToString(sum[:]) {
		t.Errorf("%s: stamp %s, want the SHA-256 of sandbox-env/requirements-tasks.lock %x (reinstall: make sandbox-env SANDBOX_ENV=tasks)", prefix, got, sum)
	}
	if sum == pinnedSum {
		t.Error("the two locks hash alike: runs in the two environments would record the same lock_sha256")
	}
}
