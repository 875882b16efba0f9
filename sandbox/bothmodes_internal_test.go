package sandbox

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// BothModesEnv marks the children of TestSameChecksBothModes (bothmodes_test.go)
// with the mode they run in.
const BothModesEnv = "MATTOOLS_SANDBOX_MODE_CHILD"

// InBothModes skips t as root when TestSameChecksBothModes runs in this
// test process (its name matches -test.run): the harness runs t in a child
// as root and in a child as an unprivileged uid instead. Run alone (go test
// -run TestWarmMatchesCold), or as another uid, t runs here.
func InBothModes(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(BothModesEnv) != "" {
		return
	}
	pattern := ""
	if f := flag.Lookup("test.run"); f != nil {
		pattern, _, _ = strings.Cut(f.Value.String(), "/")
	}
	if re, err := regexp.Compile(pattern); err == nil && re.MatchString("TestSameChecksBothModes") {
		t.Skip("run as root and as an unprivileged uid by TestSameChecksBothModes")
	}
}

// TestRootlessUnavailableMarksWhatForbids: each setting is reported with its
// value, those that forbid user namespaces marked, an absent one said absent
// (a /proc/sys of files written here).
func TestRootlessUnavailableMarksWhatForbids(t *testing.T) {
	dir := t.TempDir()
	defer func(p string) { procSys = p }(procSys)
	procSys = dir
	for path, v := range map[string]string{"kernel/unprivileged_userns_clone": "0\n", "user/max_user_namespaces": "0\n"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755)
		os.WriteFile(filepath.Join(dir, path), []byte(v), 0o644)
	}
	err := rootlessUnavailable("bwrap: No permissions to create new namespace", errors.New("exit status 1"))
	for _, want := range []string{"kernel.unprivileged_userns_clone = 0 (forbids it)", "user.max_user_namespaces = 0 (forbids it)",
		"kernel.apparmor_restrict_unprivileged_userns (absent here)", "bwrap: No permissions to create new namespace", "-sandbox docker"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q missing from %v", want, err)
		}
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("%v is not ErrUnavailable", err)
	}
}

// TestPythonUnderASandboxMountRefused: a Python environment below /tmp (a
// prefix in a temporary HOME) would be hidden by the sandbox's own /tmp; it
// is refused, naming the folder. One under /opt or a home is accepted.
func TestPythonUnderASandboxMountRefused(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "venv-under-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := outsideSandboxMounts(dir); err == nil || !strings.Contains(err.Error(), "is under /tmp") {
		t.Errorf("a prefix under /tmp: %v; want refused", err)
	}
	if err := outsideSandboxMounts("/usr"); err != nil {
		t.Errorf("/usr: %v", err)
	}
}
