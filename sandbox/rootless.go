package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The local backend's two privilege modes (docs/sandbox.md, "Root and
// rootless"), chosen by what the machine allows:
//
//   - root (the runner's effective uid is 0): bubblewrap is started as an
//     unprivileged uid per slot (setpriv), as it always was;
//   - rootless (any other uid, where unprivileged user namespaces work):
//     bubblewrap runs as the invoking user, each execution in user, pid,
//     mount, network, IPC and UTS namespaces of its own (a warm execution's
//     code unshares its own user namespace: zygote.py), per-uid limits
//     counted per execution by the kernel's per-user-namespace counters, and
//     every process of an execution ended with its pid namespace;
//   - neither: Open fails with ErrUnavailable and rootlessUnavailable's
//     message, which names the settings to check and the Docker backend.
const (
	PrivilegeRoot     = "root"
	PrivilegeRootless = "rootless"
)

// Privilege returns the privilege mode of a local sandbox (PrivilegeRoot or
// PrivilegeRootless), "" for other backends.
func Privilege(sb Sandbox) string {
	if l, ok := sb.(*local); ok {
		if l.rootless {
			return PrivilegeRootless
		}
		return PrivilegeRoot
	}
	return ""
}

// userNamespaceSettings are the kernel settings that decide whether an
// unprivileged process may create a user namespace, as /proc/sys paths and
// the sysctl names a user looks up. A test replaces procSys to read others.
var (
	procSys               = "/proc/sys"
	userNamespaceSettings = []struct{ path, name, blocks string }{
		// Debian's and Ubuntu's own patch; absent upstream.
		{"kernel/unprivileged_userns_clone", "kernel.unprivileged_userns_clone", "0"},
		// Upstream: 0 forbids creating any user namespace.
		{"user/max_user_namespaces", "user.max_user_namespaces", "0"},
		// Ubuntu 23.10 and later: AppArmor confines unprivileged user
		// namespaces unless a profile allows them (bubblewrap needs one).
		{"kernel/apparmor_restrict_unprivileged_userns", "kernel.apparmor_restrict_unprivileged_userns", "1"},
	}
)

// probeUserNamespaces starts bubblewrap in a user namespace of its own, as
// an execution would, and returns nil when it works, or the rootless
// mode's refusal naming what blocks it.
func probeUserNamespaces(ctx context.Context, bwrap string) error {
	cmd := exec.CommandContext(ctx, bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
		"--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
		"--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--", "/usr/bin/true")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	// bubblewrap's outer process may exit before its namespace's init has:
	// the init is re-parented to the nearest child subreaper, so the runner
	// becomes one first and reaps it after.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 36 /* PR_SET_CHILD_SUBREAPER */, 1, 0); e != 0 {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	out, err := cmd.CombinedOutput()
	reapRootlessOrphans()
	if err == nil {
		return nil
	}
	return rootlessUnavailable(strings.TrimSpace(string(out)), err)
}

// rootlessUnavailable is the error of a machine where the runner is not
// root and bubblewrap could not create a user namespace: bubblewrap's own
// message, each setting of userNamespaceSettings with its value here (those
// that forbid user namespaces marked), and what else works.
func rootlessUnavailable(bwrapOut string, err error) error {
	var settings []string
	for _, s := range userNamespaceSettings {
		data, rerr := os.ReadFile(filepath.Join(procSys, s.path))
		v := strings.TrimSpace(string(data))
		switch {
		case rerr != nil:
			settings = append(settings, s.name+" (absent here)")
		case v == s.blocks:
			settings = append(settings, s.name+" = "+v+" (forbids it)")
		default:
			settings = append(settings, s.name+" = "+v)
		}
	}
	if bwrapOut == "" {
		bwrapOut = err.Error()
	}
	return fmt.Errorf("%w: the local backend runs as uid %d, not root, and so needs unprivileged user namespaces, "+
		"which this machine does not allow (bubblewrap: %s). Check %s: an administrator enables them with "+
		"`sysctl kernel.unprivileged_userns_clone=1` (Debian kernels), `sysctl user.max_user_namespaces=15000`, "+
		"or, on Ubuntu 23.10 and later, an AppArmor profile for bwrap (or `sysctl kernel.apparmor_restrict_unprivileged_userns=0`); "+
		"otherwise run as root, or use the Docker backend (-sandbox docker) where a Docker engine is available",
		ErrUnavailable, os.Geteuid(), bwrapOut, strings.Join(settings, ", "))
}

// rootlessLockDir is where a rootless runner keeps its task folders' owner
// locks (lockDir's role as root): $XDG_RUNTIME_DIR/mattools-sandbox when the
// session has one, else mattools-sandbox-<uid> in the temporary directory;
// either must be a directory of the user's own, mode 0700, not a symbolic
// link (the temporary directory is shared).
func rootlessLockDir() (string, error) {
	dir := filepath.Join(os.TempDir(), "mattools-sandbox-"+strconv.Itoa(os.Geteuid()))
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		if fi, err := os.Stat(rt); err == nil && fi.IsDir() {
			dir = filepath.Join(rt, "mattools-sandbox")
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("%w: the sandbox's lock folder: %v", ErrUnavailable, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("%w: the sandbox's lock folder: %v", ErrUnavailable, err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || int(st.Uid) != os.Geteuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%w: the sandbox's lock folder %s must be a directory of uid %d with mode 0700 (it is %v, uid %d)",
			ErrUnavailable, dir, os.Geteuid(), fi.Mode(), st.Uid)
	}
	return dir, nil
}

// readableByUser reports whether this process can reach and read path
// (the rootless mode's counterpart of readableBySandbox: executions run as
// the invoking user).
func readableByUser(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := syscall.Access(real, 4 /* R_OK */); err != nil {
		return fmt.Errorf("%s: not readable by uid %d: %w", path, os.Geteuid(), err)
	}
	return nil
}

// sandboxMounts are the folders every sandbox mounts its own tmpfs, proc or
// task files on (bwrapArgs, startWorker): a host folder bound below one of
// them is hidden inside.
var sandboxMounts = []string{"/tmp", "/app", "/sbx", "/proc", "/dev", "/x", "/d"}

// outsideSandboxMounts returns an error when path (its real path) lies in
// one of sandboxMounts: a Python environment there would be hidden by the
// sandbox's own /tmp (a prefix under a temporary HOME, say), and the code
// would run under /usr/bin/python3 without the pinned libraries.
func outsideSandboxMounts(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	real, _ = filepath.Abs(real)
	for _, m := range sandboxMounts {
		if real == m || strings.HasPrefix(real, m+"/") {
			return fmt.Errorf("%s is under %s, which the sandbox mounts its own on: install it elsewhere (e.g. make sandbox-env PREFIX=$HOME/.local/share/mattools-sandbox with a home outside %s)", path, m, m)
		}
	}
	return nil
}

// userNamespace returns the user namespace of pid as /proc shows it
// ("user:[4026531837]"), "" when it cannot be read.
func userNamespace(pid int) string {
	ns, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/user")
	return ns
}

// sandboxProcs returns the live processes (zombies left out) that belong to
// sb's executions and workers: in root mode those of its slot uids; in
// rootless mode the descendants of this process that are in a user
// namespace other than its own (bubblewrap's sandboxes and everything they
// started: an execution's processes cannot leave its pid namespace, whose
// init descends from the runner, a child subreaper).
func (l *local) sandboxProcs() []procInfo {
	procs := listProcs()
	var out []procInfo
	if !l.rootless {
		uids := map[int]bool{}
		for _, u := range l.uids {
			uids[u] = true
		}
		for _, p := range procs {
			if uids[p.uid] && p.state != 'Z' {
				out = append(out, p)
			}
		}
		return out
	}
	me, mine := os.Getpid(), userNamespace(os.Getpid())
	parent := map[int]int{}
	for _, p := range procs {
		parent[p.pid] = p.ppid
	}
	descends := func(pid int) bool {
		for i := 0; i < 64 && pid > 1; i++ {
			pid = parent[pid]
			if pid == me {
				return true
			}
		}
		return false
	}
	for _, p := range procs {
		if p.state == 'Z' || p.uid != os.Geteuid() || !descends(p.pid) {
			continue
		}
		if ns := userNamespace(p.pid); ns != "" && ns != mine {
			out = append(out, p)
		}
	}
	return out
}

// launchers are the pids of the processes this runner started to launch a
// sandbox (sh, which becomes bubblewrap) and has not waited for yet, across
// every local sandbox of the process; launchMu orders their start against
// reapRootless, which must never reap one of them (os/exec waits for them).
var (
	launchMu  sync.Mutex
	launchers = map[int]bool{}
)

// startLauncher starts cmd and records it among the launchers (starts are
// serialised with each other and with reapRootless: a fork is fast).
func startLauncher(cmd *exec.Cmd) error {
	launchMu.Lock()
	defer launchMu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	launchers[cmd.Process.Pid] = true
	return nil
}

// waitLauncher waits for cmd, then forgets it.
func waitLauncher(cmd *exec.Cmd) error {
	err := cmd.Wait()
	launchMu.Lock()
	delete(launchers, cmd.Process.Pid)
	launchMu.Unlock()
	return err
}

// reapRootless ends what a rootless execution may have left: the init of a
// pid namespace whose bubblewrap was killed is re-parented to the runner (a
// child subreaper) and dies of its parent-death signal, taking its
// namespace with it; this kills (again) and reaps every child of the runner
// in a user namespace other than its own, until none is left (~2 s at
// most). The runner's own children (sh, prlimit, bubblewrap's outer
// process) are in its namespace and left to os/exec; a bubblewrap of the
// runner's namespace that is a zombie child of the runner but none of its
// launchers was another runner's, re-parented here when that runner died
// (e.g. a test's helper process), and is reaped too.
func (l *local) reapRootless() { reapRootlessOrphans() }

// reapRootlessOrphans is reapRootless for any caller (Open's probe, before
// there is a sandbox).
func reapRootlessOrphans() {
	launchMu.Lock()
	defer launchMu.Unlock()
	me, mine := os.Getpid(), userNamespace(os.Getpid())
	for range 100 {
		left := 0
		for _, p := range listProcs() {
			if p.ppid != me || p.uid != os.Geteuid() {
				continue
			}
			if ns := userNamespace(p.pid); ns == "" || ns == mine {
				if p.state == 'Z' && p.comm == "bwrap" && !launchers[p.pid] {
					var ws syscall.WaitStatus
					syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
				}
				continue
			}
			if p.state == 'Z' {
				var ws syscall.WaitStatus
				syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
				continue
			}
			syscall.Kill(p.pid, syscall.SIGKILL)
			left++
		}
		if left == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
