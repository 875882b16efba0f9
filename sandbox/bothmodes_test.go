package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// The same attacks in both privilege modes (docs/sandbox.md, "Root and
// rootless"). As root, TestSameChecksBothModes runs every check of
// bothModesChecks twice, in children of the test binary: once as root (the
// root mode) and once as an unprivileged uid (setpriv to nobody, 65534: the
// rootless mode), with a private temporary directory (mode 0700, as a
// cluster job's TMPDIR) and, where the runner's v1 cgroups allow it, memory,
// pids and cpu cgroups delegated to that uid (as a systemd user session
// delegates its own). Every check must end the same way in both, and pass.
// Run as any other uid, the checks run directly, in the rootless mode.

// bothModesHarness names the harness; bothModesEnv marks its children.
const (
	bothModesEnv    = sandbox.BothModesEnv
	unprivilegedUID = 65534
)

// bothModesChecks are the tests the harness runs in both modes: the
// hostile-code suite warm and cold (network, writes, secrets, seccomp and
// the keyring, private data, fork and memory bombs, loops, floods, orphans,
// signals, CPU time), warm against cold, one execution against the next, the
// worker against its executions, the runner's keyring, leftovers, the
// refusal without cgroups, and the sweep of a killed runner's folders.
var bothModesChecks = []string{
	"TestLocalConformance", "TestLocalConformanceCold", "TestWarmMatchesCold", "TestWarmExecutionsCannotReachTheNext",
	"TestWarmWorkerSurvivesItsExecutions", "TestRunnerKeyringSecretUnreadable", "TestLeftBehindSeesARunningExecution",
	"TestLocalRefusesWithoutCgroupsUnlessAllowed", "TestStartupSweepsStaleTaskFolders",
}

// outcomeLine is go test -v's line for a finished test or subtest.
var outcomeLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)

// runChecks runs the bothModesChecks in a child of the test binary bin,
// started by argv0 (the binary itself, or a wrapper that ends by executing
// it), with env; it returns each test's and subtest's outcome and the
// child's output.
func runChecks(t *testing.T, argv []string, env []string) (map[string]string, string) {
	t.Helper()
	args := append(argv[1:], "-test.run=^("+strings.Join(bothModesChecks, "|")+")$", "-test.v", "-test.count=1", "-test.timeout=9m")
	cmd := exec.Command(argv[0], args...)
	cmd.Env = env
	cmd.Dir = "/"
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if m := outcomeLine.FindStringSubmatch(sc.Text()); m != nil {
			got[m[2]] = m[1]
		}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("starting %v: %v", argv, err)
	}
	return got, out.String()
}

// delegateCgroups makes, under this process's v1 memory, pids and cpu
// cgroups, one cgroup each owned by uid (as an administrator or a session
// manager delegates a subtree) and returns the files a process writes its
// pid to, to join them; none where the hierarchies are not writable.
func delegateCgroups(t *testing.T, uid int) []string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var procs []string
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl != "memory" && ctl != "pids" && ctl != "cpu" {
				continue
			}
			dir := filepath.Join("/sys/fs/cgroup", ctl, parts[2], fmt.Sprintf("mattools-rootless-test-%d", os.Getpid()))
			if err := os.Mkdir(dir, 0o755); err != nil {
				continue
			}
			t.Cleanup(func() {
				for range 100 { // the child's processes are gone; its task cgroups were removed by its sandboxes
					if os.Remove(dir) == nil || errors.Is(os.Remove(dir), os.ErrNotExist) {
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
				t.Errorf("cgroup %s left behind", dir)
			})
			ents, _ := os.ReadDir(dir)
			os.Chown(dir, uid, uid)
			for _, e := range ents {
				os.Chown(filepath.Join(dir, e.Name()), uid, uid)
			}
			procs = append(procs, filepath.Join(dir, "cgroup.procs"))
		}
	}
	return procs
}

// TestSameChecksBothModes runs bothModesChecks as root and as uid 65534
// (rootless) and wants every check to pass in both, or to be skipped in
// both for the same reason (a check one mode does not apply to, as the
// cold suite's CPU time); a check that passes in one mode and not the
// other fails. The table of outcomes is logged.
func TestSameChecksBothModes(t *testing.T) {
	if os.Getenv(bothModesEnv) != "" {
		t.Skip("a child of the harness")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: the checks run directly, in the rootless mode")
	}
	for _, tool := range []string{"/usr/bin/setpriv", "bwrap"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s: %v", tool, err)
			}
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
	// The test binary where the unprivileged uid can execute it (go test's
	// own folder is 0700).
	binDir, err := os.MkdirTemp("", "sandbox-bothmodes-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(binDir)
	os.Chmod(binDir, 0o755)
	bin := filepath.Join(binDir, "sandbox.test")
	if err := copyFile(os.Args[0], bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// The unprivileged run's private temporary directory.
	tmp := filepath.Join(binDir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chown(tmp, unprivilegedUID, unprivilegedUID)
	base := []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	if ci := os.Getenv("CI"); ci != "" {
		base = append(base, "CI="+ci)
	}

	rootEnv := append(append([]string{}, base...), bothModesEnv+"=root", "HOME=/root", "TMPDIR="+os.TempDir())
	root, rootOut := runChecks(t, []string{bin}, rootEnv)

	cg := delegateCgroups(t, unprivilegedUID)
	u := strconv.Itoa(unprivilegedUID)
	wrapper := []string{"/bin/sh", "-c", `for f in $CGROUPS; do echo $$ > "$f" || exit 125; done; exec "$@"`, "sh",
		"/usr/bin/setpriv", "--reuid=" + u, "--regid=" + u, "--clear-groups", "--", bin}
	userEnv := append(append([]string{}, base...), bothModesEnv+"=rootless", "HOME="+tmp, "TMPDIR="+tmp, "CGROUPS="+strings.Join(cg, " "))
	rootless, rootlessOut := runChecks(t, wrapper, userEnv)

	names := map[string]bool{}
	for n := range root {
		names[n] = true
	}
	for n := range rootless {
		names[n] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var table strings.Builder
	fmt.Fprintf(&table, "%-70s %-5s %s\n", "check", "root", "rootless")
	for _, n := range sorted {
		fmt.Fprintf(&table, "%-70s %-5s %s\n", n, orNone(root[n]), orNone(rootless[n]))
		switch {
		case root[n] != rootless[n]:
			t.Errorf("%s: %s as root, %s rootless", n, orNone(root[n]), orNone(rootless[n]))
		case root[n] == "FAIL":
			t.Errorf("%s failed in both modes", n)
		}
	}
	for _, top := range bothModesChecks {
		if root[top] != "PASS" || rootless[top] != "PASS" {
			t.Errorf("%s: %s as root, %s rootless; want PASS in both", top, orNone(root[top]), orNone(rootless[top]))
		}
	}
	t.Logf("outcomes (%d checks; rootless: uid %s, private TMPDIR, %d delegated cgroup(s)):\n%s", len(sorted), u, len(cg), table.String())
	if t.Failed() {
		t.Logf("root run:\n%s", tailText(rootOut, 20000))
		t.Logf("rootless run:\n%s", tailText(rootlessOut, 20000))
	}
}

// TestLeftBehindSeesARunningExecution: LeftBehind, which the suites use to
// find what an execution left running, sees the processes of a running
// execution, cold and warm (a check of the check: in the rootless mode it
// finds them by user namespace, not by uid).
func TestLeftBehindSeesARunningExecution(t *testing.T) {
	sandbox.InBothModes(t)
	for _, cold := range []bool{true, false} {
		sb := openOrSkip(t, "local", sandbox.Options{Slots: 1, Cold: cold})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := sb.Run(ctx, sandbox.Spec{Files: map[string][]byte{"main.py": []byte("import time\ntime.sleep(600)")},
				Argv: []string{"python3", "-I", "/sbx/main.py"}})
			done <- err
		}()
		var left []string
		for deadline := time.Now().Add(2 * time.Minute); len(left) == 0 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			left = sandbox.LeftBehind(sb)
		}
		cancel()
		<-done
		if len(left) == 0 {
			t.Errorf("cold=%v: LeftBehind saw nothing while an execution slept", cold)
		}
		if after := sandbox.LeftBehind(sb); len(after) > 0 {
			t.Errorf("cold=%v: left after the cancelled execution: %q", cold, after)
		}
		t.Logf("cold=%v (%s): while running, LeftBehind saw %q", cold, sandbox.Privilege(sb), left)
		sb.Close()
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func tailText(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// refusalEnv marks the child of TestRootlessRefusalNamesTheSettings.
const refusalEnv = "MATTOOLS_SANDBOX_REFUSAL_CHILD"

// TestRootlessRefusalNamesTheSettings: where an unprivileged runner cannot
// create user namespaces, Open fails with ErrUnavailable naming the three
// settings and the Docker backend. As root the test binary is run as uid
// 65534 inside a bubblewrap sandbox made with --disable-userns, where
// creating a user namespace fails (ENOSPC) as with user.max_user_namespaces=0;
// the child opens the local backend there and prints the error.
func TestRootlessRefusalNamesTheSettings(t *testing.T) {
	if os.Getenv(refusalEnv) != "" {
		_, err := sandbox.Open(context.Background(), "local", sandbox.Options{Slots: 1})
		fmt.Printf("OPEN-ERROR %v\n", err)
		if !errors.Is(err, sandbox.ErrUnavailable) {
			t.Fatalf("Open = %v, want ErrUnavailable", err)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: runs the test binary as an unprivileged uid in a sandbox without user namespaces")
	}
	for _, tool := range []string{"/usr/bin/setpriv", "bwrap"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s: %v", tool, err)
			}
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
	dir, err := os.MkdirTemp("", "sandbox-refusal-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "sandbox.test")
	if err := copyFile(os.Args[0], bin, 0o755); err != nil {
		t.Fatal(err)
	}
	u := strconv.Itoa(unprivilegedUID)
	cmd := exec.Command("/usr/bin/setpriv", "--reuid="+u, "--regid="+u, "--clear-groups", "--",
		"bwrap", "--unshare-user", "--disable-userns", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--ro-bind", dir, dir, "--", bin, "-test.run=^TestRootlessRefusalNamesTheSettings$", "-test.v", "-test.count=1")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", refusalEnv + "=1"}
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	var msg string
	for _, line := range strings.Split(string(out), "\n") {
		if m, ok := strings.CutPrefix(line, "OPEN-ERROR "); ok {
			msg = m
		}
	}
	if err != nil || msg == "" {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	for _, want := range []string{"kernel.unprivileged_userns_clone", "user.max_user_namespaces", "kernel.apparmor_restrict_unprivileged_userns",
		"AppArmor", "Docker backend (-sandbox docker)", "uid " + u, "bwrap: "} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not name %q:\n%s", want, msg)
		}
	}
	t.Logf("the refusal an unprivileged user gets without user namespaces:\n%s", msg)
}
