package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func init() { register("local", openLocal) }

// The local backend: bubblewrap (bwrap) started as an unprivileged uid per
// concurrent slot, as measured in docs/sandbox.md#design.
//
// Process tree: runner (a child subreaper) → /bin/sh (root; joins the task's
// cgroups, then execs) → prlimit (sets the rlimits) → setpriv (becomes the
// slot uid, no new privileges, parent-death signal) → bwrap → the code, in
// new user, pid, net, ipc, uts and cgroup namespaces. The runner starts sh in
// its own process group; on timeout it kills the group, which takes bwrap and
// with it the whole pid namespace (--die-with-parent, --unshare-pid), then
// kills whatever is left in the task's cgroups and any process of the slot
// uid, and reaps orphans re-parented to it.
//
// Each slot owns a uid in [uidBase, uidBase+uidRange) for the life of the
// Sandbox, claimed with an flock under lockDir so that concurrent runners on
// one machine (e.g. `go test ./...` running packages in parallel) never share
// a uid: RLIMIT_NPROC counts per uid, and the clean-up kills by uid.
const (
	uidBase  = 60000
	uidRange = 1000
	lockDir  = "/run/mattools-sandbox"
)

// In rootless mode (rootless.go) there are no slot uids: every slot runs
// as the invoking user, each execution in user namespaces of its own, and
// the locks live in rootlessLockDir.

type local struct {
	opts      Options
	limits    Limits
	bwrap     string
	version   string
	rootless  bool   // not root: bubblewrap as the invoking user (rootless.go)
	locks0    string // the folder of the owner locks: lockDir, or rootlessLockDir's
	base      string // task directories live here (0755)
	slots     chan int
	uids      []int
	locks     []*os.File
	owner     *os.File  // the flock on base's owner lock (see makeBase)
	cg        *cgroups  // nil when no cgroup is usable
	workers   []*worker // warm workers by slot (nil: not started); each used only by its slot's holder
	workersMu sync.Mutex
	warmRuns  atomic.Int64 // executions run in warm workers
	coldRuns  atomic.Int64 // executions run in a fresh sandbox
	reapMu    sync.Mutex
	closeMu   sync.Once
}

func openLocal(ctx context.Context, o Options) (Sandbox, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: local backend needs Linux", ErrUnavailable)
	}
	bw, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("%w: bubblewrap not installed (run `make setup` as root, or ask an administrator for the bubblewrap package): %v", ErrUnavailable, err)
	}
	// Root: bubblewrap as a per-slot uid. Not root: bubblewrap as the
	// invoking user in user namespaces of its own (rootless.go), where the
	// machine allows them.
	rootless := os.Geteuid() != 0
	if rootless {
		if err := probeUserNamespaces(ctx, bw); err != nil {
			return nil, err
		}
	}
	readable := readableBySandbox
	if rootless {
		readable = readableByUser
	}
	for _, tool := range []string{"/usr/bin/prlimit", "/usr/bin/setpriv", "/bin/sh"} {
		if _, err := os.Stat(tool); err != nil {
			return nil, fmt.Errorf("%w: %s missing (util-linux)", ErrUnavailable, tool)
		}
	}
	out, err := exec.CommandContext(ctx, bw, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s --version: %v", ErrUnavailable, bw, err)
	}
	l := &local{opts: o, limits: o.Limits.merge(DefaultLimits), bwrap: bw, version: strings.TrimSpace(string(out)), rootless: rootless, locks0: lockDir}
	if o.Slots <= 0 {
		l.opts.Slots = runtime.NumCPU()
	}
	if o.Python != "" {
		if err := readable(filepath.Join(o.Python, "bin", "python3")); err != nil {
			return nil, fmt.Errorf("%w: the sandbox's Python environment %s: %v (install it with `make sandbox-env`: as root into /opt, "+
				"or as any user into a prefix of theirs, `make sandbox-env PREFIX=$HOME/.local/share/mattools-sandbox`)", ErrUnavailable, o.Python, err)
		}
		if err := readable(filepath.Join(o.Python, "pyvenv.cfg")); err != nil {
			return nil, fmt.Errorf("%w: the sandbox's Python environment %s: %v", ErrUnavailable, o.Python, err)
		}
		if err := outsideSandboxMounts(o.Python); err != nil {
			return nil, fmt.Errorf("%w: the sandbox's Python environment: %v", ErrUnavailable, err)
		}
	} else if err := readable("/usr/bin/python3"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	for _, d := range o.DataDirs {
		if err := readable(d); err != nil {
			return nil, fmt.Errorf("%w: data directory: %v", ErrUnavailable, err)
		}
	}
	if rootless {
		if l.locks0, err = rootlessLockDir(); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(lockDir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	sweepStaleBases(os.TempDir(), l.locks0)
	if l.base, l.owner, err = makeBase(os.TempDir(), l.locks0); err != nil {
		return nil, err
	}
	// As root the slot uids read the task folders through "other"; rootless,
	// executions run as the user, and the folder stays private (0700), in a
	// temporary directory that may itself be private.
	if !rootless {
		if err := os.Chmod(l.base, 0o755); err != nil {
			l.Close()
			return nil, err
		}
	}
	if err := readable(l.base); err != nil {
		l.Close()
		return nil, fmt.Errorf("%w: task folder: %v", ErrUnavailable, err)
	}
	if err := l.claimUIDs(); err != nil {
		l.Close()
		return nil, err
	}
	// Orphans of a sandbox (bwrap's pid-namespace init after a kill) are
	// re-parented to us and reaped in reapOrphans.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 36 /* PR_SET_CHILD_SUBREAPER */, 1, 0); e != 0 {
		l.Close()
		return nil, fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	l.cg = probeCgroupsFunc()
	if (l.cg == nil || l.cg.memory == "" || l.cg.pids == "") && !o.AllowNoCgroup {
		l.Close()
		where := "cgroup v1 as root"
		if rootless {
			where = "none of the runner's own cgroups is delegated to uid " + strconv.Itoa(os.Geteuid())
		}
		return nil, fmt.Errorf("%w: no writable memory and pids cgroup (%s): a task's total memory and process count "+
			"would be bounded by rlimits only; allow that explicitly (sandbox.Options.AllowNoCgroup, flag -sandbox-no-cgroup)", ErrUnavailable, where)
	}
	return l, nil
}

// claimUIDs locks one uid per slot; rootless, every slot is the user's own.
func (l *local) claimUIDs() error {
	if l.rootless {
		for range l.opts.Slots {
			l.uids = append(l.uids, os.Geteuid())
		}
	}
	for uid := uidBase; uid < uidBase+uidRange && len(l.uids) < l.opts.Slots; uid++ {
		f, err := os.OpenFile(filepath.Join(lockDir, "uid-"+strconv.Itoa(uid)+".lock"), os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			continue
		}
		// A uid just released by a crashed runner may still own processes.
		killUID(uid)
		l.uids = append(l.uids, uid)
		l.locks = append(l.locks, f)
	}
	if len(l.uids) < l.opts.Slots {
		return fmt.Errorf("%w: only %d of %d sandbox uids free in %d–%d", ErrUnavailable, len(l.uids), l.opts.Slots, uidBase, uidBase+uidRange-1)
	}
	l.workers = make([]*worker, len(l.uids))
	l.slots = make(chan int, len(l.uids))
	for i := range l.uids {
		l.slots <- i
	}
	return nil
}

func (l *local) Name() string { return "local" }

func (l *local) Info() Info {
	lim := limitsText(l.limits)
	if l.cg != nil {
		lim["cgroup"] = l.cg.describe(l.limits)
	} else {
		lim["cgroup"] = "none (rlimits only)"
	}
	if l.rootless {
		// Recorded only here: a record without "privilege" was made as root
		// (every record before rootless mode existed), so that the root
		// mode's record, and the environment ids of its verdicts, stay as
		// they were.
		lim["privilege"] = "rootless: the invoking user in user namespaces of its own per execution"
		lim["uids"] = "none: the invoking user's"
	} else {
		lim["uids"] = fmt.Sprintf("one per slot, from %d", uidBase)
	}
	if l.opts.Cold {
		lim["mode"] = "cold: a fresh interpreter per execution"
	} else {
		lim["mode"] = "warm: a forked child of a per-slot worker per execution"
		lim["preload"] = strings.Join(l.opts.Preload, " ")
	}
	return Info{Backend: "local", Version: l.version, TimeoutSeconds: l.limits.Wall.Seconds(), Limits: lim, Slots: len(l.uids)}
}

// Check runs a probe in the sandbox: the interpreter starts, sees itself as
// the slot uid, sees only the loopback interface and cannot write to /usr.
func (l *local) Check(ctx context.Context) error {
	probe := `import os, socket
ifs = sorted(name for _, name in socket.if_nameindex())
try:
    open("/usr/.probe", "w"); usr = "writable"
except OSError:
    usr = "ro"
print(os.getuid(), ",".join(ifs), usr, os.getcwd())
`
	res, err := l.Run(ctx, Spec{Files: map[string][]byte{"probe.py": []byte(probe)}, Argv: []string{"python3", "-I", "/sbx/probe.py"},
		Limits: Limits{Wall: 30 * time.Second}})
	if err != nil {
		return err
	}
	got := strings.Fields(string(res.Stdout))
	if res.ExitCode != 0 || len(got) != 4 {
		return fmt.Errorf("probe failed: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, tail(res.Stderr, 400))
	}
	if uid, _ := strconv.Atoi(got[0]); l.rootless && uid != os.Geteuid() {
		return fmt.Errorf("probe ran as uid %s, not the invoking user's %d", got[0], os.Geteuid())
	} else if !l.rootless && (uid < uidBase || uid >= uidBase+uidRange) {
		return fmt.Errorf("probe ran as uid %s, not a sandbox uid", got[0])
	}
	if got[1] != "lo" || got[2] != "ro" || got[3] != "/app" {
		return fmt.Errorf("probe: interfaces %s, /usr %s, cwd %s; want lo, ro, /app", got[1], got[2], got[3])
	}
	return nil
}

func (l *local) Close() error {
	l.closeMu.Do(func() {
		l.workersMu.Lock()
		for _, w := range l.workers {
			if w != nil {
				w.stop()
			}
		}
		l.workersMu.Unlock()
		l.killLeft()
		for _, f := range l.locks {
			f.Close()
		}
		if l.base != "" {
			os.RemoveAll(l.base)
		}
		if l.owner != nil {
			os.Remove(l.owner.Name())
			l.owner.Close()
		}
	})
	return nil
}

// Task folders of a runner killed with SIGKILL (which runs no Close) stay
// in the temporary directory; every Open sweeps them, as it sweeps stale
// cgroups (sweepStale).
//
// The rule: a base folder is named basePrefix<pid>-<random> (pid: the
// owner's), and its owner holds, for the life of the Sandbox, an exclusive
// flock on lockDir/base-<pid>-<random>.lock, created and locked BEFORE the
// folder. The kernel drops a flock when its holder dies, whatever kills it,
// so a folder whose lock is free has no live owner and is removed, even if
// its pid was reused by an unrelated process since. A folder whose lock
// file is absent (possible only after a reboot emptied /run, or when a
// sweeper removed a free lock in the instant between its creation and its
// flock, the lock coming before the folder) is removed only when the
// recorded pid is dead. A held lock (a live run) is never touched; nor is
// any folder not named so (older runners' mattools-sandbox-<random> record
// no owner), not a directory (a symlink), or not owned by our uid (the
// temporary directory is shared).
const basePrefix = "mattools-sandbox-"

// makeBase creates the owner lock, then the base folder, in dir.
func makeBase(dir, lockDir string) (base string, owner *os.File, err error) {
	for range 100 {
		var rnd [6]byte
		if _, err := io.ReadFull(randReader, rnd[:]); err != nil {
			return "", nil, err
		}
		id := fmt.Sprintf("%d-%x", os.Getpid(), rnd)
		f, err := os.OpenFile(filepath.Join(lockDir, "base-"+id+".lock"), os.O_CREATE|os.O_EXCL|os.O_RDWR|syscall.O_CLOEXEC, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			os.Remove(f.Name())
			return "", nil, fmt.Errorf("lock %s: %v", f.Name(), err)
		}
		base := filepath.Join(dir, basePrefix+id)
		if err := os.Mkdir(base, 0o700); err != nil {
			os.Remove(f.Name())
			f.Close()
			if errors.Is(err, os.ErrExist) {
				continue
			}
			return "", nil, err
		}
		return base, f, nil
	}
	return "", nil, errors.New("no free name for the sandbox's task folder")
}

var randReader = rand.Reader

// sweepStaleBases removes, in dir, the base folders of owners that are
// gone (see basePrefix for the rule), and free lock files without a folder.
func sweepStaleBases(dir, lockDir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		id, ok := strings.CutPrefix(e.Name(), basePrefix)
		pidText, rest, ok2 := strings.Cut(id, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || !ok2 || rest == "" || err != nil || pid <= 0 || e.Type()&os.ModeType != os.ModeDir {
			continue // not ours, an older name without an owner, or a symlink
		}
		path := filepath.Join(dir, e.Name())
		if fi, err := os.Lstat(path); err != nil || !fi.IsDir() || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Geteuid()) {
			continue
		}
		lock := filepath.Join(lockDir, "base-"+id+".lock")
		f, err := os.OpenFile(lock, os.O_RDWR|syscall.O_CLOEXEC, 0) // never create it
		switch {
		case errors.Is(err, os.ErrNotExist):
			if pidAlive(pid) {
				continue
			}
			os.RemoveAll(path)
		case err != nil:
			continue
		default:
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
				f.Close() // held: a live run
				continue
			}
			os.RemoveAll(path)
			os.Remove(lock)
			f.Close()
		}
	}
	// Free locks left without a folder (an owner killed between the two).
	locks, _ := filepath.Glob(filepath.Join(lockDir, "base-*.lock"))
	for _, lock := range locks {
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(lock), "base-"), ".lock")
		if _, err := os.Lstat(filepath.Join(dir, basePrefix+id)); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		f, err := os.OpenFile(lock, os.O_RDWR|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.Remove(lock)
		}
		f.Close()
	}
}

// pidAlive reports whether a process with this pid exists (EPERM: it
// exists, owned by another user).
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Run runs s in one of the slots: in the slot's warm worker when s is
// eligible (warmEligible), otherwise cold, in a sandbox of its own
// (runCold).
func (l *local) Run(ctx context.Context, s Spec) (*Result, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	var slot int
	select {
	case slot = <-l.slots:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { l.slots <- slot }()
	uid := l.uids[slot]
	lim := s.Limits.merge(l.limits)
	if !l.opts.Cold && warmEligible(s, lim, l.limits, l.opts.DataDirs) {
		l.warmRuns.Add(1)
		return l.runWarm(s, slot, lim, ctx.Done(), ctx.Err)
	}
	l.coldRuns.Add(1)
	return l.runCold(ctx, s, slot, uid, lim)
}

// runCold runs s in slot, whose uid is uid, in a sandbox of its own: a
// task folder (prepareColdTask), the task's cgroups, bubblewrap started by
// coldCmd and supervised by superviseCold, then nothing of the task left
// behind (reapCold) and its Result (coldResult). The task folder and
// cgroups are removed when it returns.
func (l *local) runCold(ctx context.Context, s Spec, slot, uid int, lim Limits) (*Result, error) {
	task, err := os.MkdirTemp(l.base, fmt.Sprintf("slot%d-", slot))
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(task)
	if err := prepareColdTask(task, &s, uid); err != nil {
		return nil, err
	}

	var cgFiles []string
	var cgTask *cgroupTask
	if l.cg != nil {
		name := fmt.Sprintf("mattools-sbx-%d-%d-%d", os.Getpid(), slot, taskSeq.Add(1))
		if cgTask, err = l.cg.create(name, lim); err != nil {
			return nil, fmt.Errorf("sandbox: cgroup: %w", err)
		}
		defer cgTask.remove()
		cgFiles = cgTask.procsFiles()
	}

	cmd, stdout, stderr := l.coldCmd(task, s, uid, lim, cgFiles)
	sideR, sideW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer sideR.Close()
	// fds 4 and 5: the seccomp layers (bwrapArgs' --add-seccomp-fd), read by
	// bubblewrap before it executes the code.
	filters, err := seccompFiles(task)
	if err != nil {
		sideW.Close()
		return nil, err
	}
	defer func() {
		for _, f := range filters {
			f.Close()
		}
	}()
	cmd.ExtraFiles = append([]*os.File{sideW}, filters...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 2 * time.Second
	side := &capWriter{max: lim.ResultBytes}
	sideDone := make(chan struct{})

	start := time.Now()
	o, err := superviseCold(ctx, cmd, lim.Wall, cgTask, sideW, func() { io.Copy(side, sideR); close(sideDone) })
	if err != nil {
		sideW.Close()
		return nil, fmt.Errorf("sandbox: starting bwrap: %w", err)
	}
	dur := time.Since(start)

	l.reapCold(cgTask, uid)
	select {
	case <-sideDone:
	case <-time.After(2 * time.Second):
		sideR.Close()
		<-sideDone
	}
	if o.ctxErr != nil {
		return nil, o.ctxErr
	}
	return coldResult(cmd, o, dur, stdout, stderr, side, cgTask, cgFiles)
}

// prepareColdTask fills a cold task's folder task: sbx/ with s's files,
// data/ with the task's private copy of s's data files (Spec.DataFiles;
// s.DataDir then names it), and the passwd and group files that name the
// slot's uid.
func prepareColdTask(task string, s *Spec, uid int) error {
	sbxDir := filepath.Join(task, "sbx")
	if err := os.Mkdir(sbxDir, 0o755); err != nil {
		return err
	}
	if err := os.Chmod(task, 0o755); err != nil {
		return err
	}
	if err := writeSpecFiles(sbxDir, s.Files); err != nil {
		return err
	}
	if s.DataFiles != nil && s.DataDir != "" {
		// The task's private copy of its data files (Spec.DataFiles).
		if _, err := copyDataFiles(s.DataDir, s.DataFiles, filepath.Join(task, "data")); err != nil {
			return err
		}
		s.DataDir = filepath.Join(task, "data")
	}
	passwd := fmt.Sprintf("sandbox:x:%d:%d:sandbox:/tmp:/bin/sh\n", uid, uid)
	group := fmt.Sprintf("sandbox:x:%d:\n", uid)
	if err := os.WriteFile(filepath.Join(task, "passwd"), []byte(passwd), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(task, "group"), []byte(group), 0o644)
}

// coldCmd is a cold task's command, not started: sh writes its pid into
// each of cgFiles (the task's cgroups, exit status 125 if it cannot), then
// executes coldLauncher's launcher, bubblewrap (bwrapArgs) and the code
// (coldCommand). Its stdout and stderr go to the two capWriters returned,
// each keeping at most lim's bytes; stdin is s.Stdin (none: /dev/null). It
// closes the descriptors inherited from the parent first
// (closeInheritedFDs).
func (l *local) coldCmd(task string, s Spec, uid int, lim Limits, cgFiles []string) (cmd *exec.Cmd, stdout, stderr *capWriter) {
	argv := []string{"-c", `n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"`, "sh", strconv.Itoa(len(cgFiles))}
	argv = append(argv, cgFiles...)
	argv = append(argv, l.coldLauncher(uid, lim)...)
	argv = append(argv, l.bwrapArgs(task, s, lim)...)
	argv = append(argv, "--")
	argv = append(argv, l.coldCommand(seededArgv(s.Argv), lim)...)

	closeInheritedFDs()
	cmd = exec.Command("/bin/sh", argv...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Dir = "/"
	stdout = &capWriter{max: lim.StdoutBytes}
	stderr = &capWriter{max: lim.StderrBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if len(s.Stdin) > 0 {
		cmd.Stdin = bytes.NewReader(s.Stdin)
	}
	return cmd, stdout, stderr
}

// coldOutcome is how a cold task's process ended: the error of its wait,
// whether the wall-clock limit killed it, and the context's error when the
// context ended first.
type coldOutcome struct {
	err      error
	timedOut bool
	ctxErr   error
}

// superviseCold starts cmd and waits until it ends, killing its process
// group and cgTask's processes at the wall-clock limit wall or when ctx
// ends, and its process group again once it has ended. Once cmd has
// started, it closes sideW (the side channel's write end, which cmd holds)
// and runs copySide in a goroutine. The error is that of the start (cmd
// did not start).
func superviseCold(ctx context.Context, cmd *exec.Cmd, wall time.Duration, cgTask *cgroupTask, sideW *os.File, copySide func()) (coldOutcome, error) {
	started := make(chan error, 1)
	done := make(chan coldOutcome, 1)
	go func() {
		// Pdeathsig fires when the forking OS thread exits (golang/go#27505):
		// keep this goroutine on its thread until the process is gone.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := startLauncher(cmd); err != nil {
			started <- err
			return
		}
		started <- nil
		sideW.Close()
		go copySide()
		wait := make(chan error, 1)
		go func() { wait <- waitLauncher(cmd) }()
		timer := time.NewTimer(wall)
		defer timer.Stop()
		var o coldOutcome
		select {
		case o.err = <-wait:
		case <-timer.C:
			o.timedOut = true
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cgTask.killAll()
			o.err = <-wait
		case <-ctx.Done():
			o.ctxErr = ctx.Err()
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cgTask.killAll()
			o.err = <-wait
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		done <- o
	}()
	if err := <-started; err != nil {
		return coldOutcome{}, err
	}
	return <-done, nil
}

// reapCold leaves nothing of a cold task behind: the task's cgroups, then
// every process of the slot uid (rootless: the task's pid namespace, which
// its bubblewrap's death ended).
func (l *local) reapCold(cgTask *cgroupTask, uid int) {
	cgTask.killAll()
	if l.rootless {
		l.reapRootless()
	} else {
		killUID(uid)
		l.reapOrphans(uid)
	}
}

// coldResult is the Result of a cold task whose command cmd ended as o
// after dur, with its stdout, stderr and side channel as captured and the
// OOM kills of cgTask. Its error says that the process state is unknown,
// that sh could not join the task's cgroups (cgFiles) or that bubblewrap
// failed: a failure of the sandbox, not of the code.
func coldResult(cmd *exec.Cmd, o coldOutcome, dur time.Duration, stdout, stderr, side *capWriter, cgTask *cgroupTask, cgFiles []string) (*Result, error) {
	res := &Result{TimedOut: o.timedOut, Duration: dur,
		Stdout: stdout.buf, Stderr: stderr.buf, StdoutDropped: stdout.dropped, StderrDropped: stderr.dropped,
		Side: side.buf, SideDropped: side.dropped}
	if res.Stdout == nil {
		res.Stdout = []byte{}
	}
	if res.Stderr == nil {
		res.Stderr = []byte{}
	}
	res.OOMKilled = cgTask.oomKilled()
	if ps := cmd.ProcessState; ps != nil {
		ws := ps.Sys().(syscall.WaitStatus)
		switch {
		case ws.Signaled():
			res.ExitCode, res.Signal = -1, signalName(ws.Signal())
		default:
			res.ExitCode = ws.ExitStatus()
			// bwrap reports a child killed by signal n as exit status 128+n.
			if res.ExitCode > 128 && res.ExitCode < 128+65 {
				res.Signal = signalName(syscall.Signal(res.ExitCode - 128))
			}
		}
	} else if o.err != nil {
		return nil, fmt.Errorf("sandbox: waiting for bwrap: %w", o.err)
	}
	if res.ExitCode == 125 && len(cgFiles) > 0 && bytes.Contains(res.Stderr, []byte("cgroup.procs")) {
		return nil, fmt.Errorf("sandbox: joining the task cgroup failed: %s", tail(res.Stderr, 300))
	}
	if bytes.HasPrefix(res.Stderr, []byte("bwrap: ")) && res.ExitCode == 1 {
		return nil, fmt.Errorf("sandbox: bubblewrap failed: %s", tail(res.Stderr, 300))
	}
	return res, nil
}

// coldLauncher is what starts a cold task's bubblewrap, after sh has
// joined the task's cgroups: prlimit with the task's rlimits, then, as
// root, setpriv to the slot's uid. Rootless there is no uid to change, and
// RLIMIT_NPROC is set inside the sandbox instead (coldCommand): the kernel
// counts a user namespace's processes against the limit of the process
// that created it too, and the invoking user's own processes would count
// against a limit set before bubblewrap.
func (l *local) coldLauncher(uid int, lim Limits) []string {
	cpu := int64((lim.CPU + time.Second - 1) / time.Second)
	a := []string{"/usr/bin/prlimit", "--as=" + strconv.FormatInt(lim.AddressSpace, 10)}
	if !l.rootless {
		a = append(a, "--nproc="+strconv.Itoa(lim.NProc))
	}
	a = append(a, "--fsize="+strconv.FormatInt(lim.FileSize, 10),
		fmt.Sprintf("--cpu=%d:%d", cpu, cpu+1),
		"--nofile="+strconv.Itoa(lim.NoFile),
		"--core=0", "--")
	if l.rootless {
		return append(a, l.bwrap)
	}
	return append(a, "/usr/bin/setpriv", "--reuid="+strconv.Itoa(uid), "--regid="+strconv.Itoa(uid), "--clear-groups",
		"--no-new-privs", "--pdeathsig=SIGKILL", "--", l.bwrap)
}

// coldCommand is what bubblewrap executes in a cold task: the Spec's argv,
// rootless behind prlimit setting RLIMIT_NPROC (it executes the argv in
// its own process). Counted in the task's own user namespace, that holds
// bubblewrap's init and the code; as root the slot uid's count holds
// bubblewrap too, hence one less here: the code has as many processes in
// both modes.
func (l *local) coldCommand(argv []string, lim Limits) []string {
	if !l.rootless {
		return argv
	}
	n := strconv.Itoa(max(1, lim.NProc-1))
	return append([]string{"/usr/bin/prlimit", "--nproc=" + n + ":" + n, "--"}, argv...)
}

// killLeft ends every process of the sandbox's slots (root: by slot uid;
// rootless: the orphaned inits of its pid namespaces) and reaps them.
func (l *local) killLeft() {
	if l.rootless {
		l.reapRootless()
		return
	}
	for _, uid := range l.uids {
		killUID(uid)
	}
	l.reapOrphans(l.uids...)
}

// bwrapArgs returns the flags of docs/sandbox.md#design-the-flags-and-default-limits for one task.
func (l *local) bwrapArgs(task string, s Spec, lim Limits) []string {
	a := []string{
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		"--disable-userns", "--die-with-parent", "--new-session", "--clearenv",
		"--add-seccomp-fd", "4", "--add-seccomp-fd", "5", // BaseDenied, then UntrustedDenied (seccomp.go)
	}
	a = append(a, l.systemBinds(task)...)
	a = append(a,
		"--ro-bind", filepath.Join(task, "sbx"), "/sbx",
		"--size", strconv.FormatInt(lim.TmpBytes, 10), "--tmpfs", "/tmp",
		"--size", strconv.FormatInt(lim.WorkBytes, 10), "--tmpfs", "/app")
	if s.DataDir != "" {
		a = append(a, "--ro-bind", s.DataDir, "/app/tool_source_code")
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev",
		// bwrap's /dev is an unsized tmpfs and /dev/shm a writable directory on it.
		"--size", strconv.FormatInt(lim.TmpBytes, 10), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
		"--remount-ro", "/", "--chdir", "/app")
	env := append(baseEnv(l.opts.Python), s.Env...)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	return a
}

// systemBinds are the read-only system view of every sandbox, cold or warm:
// /usr and its symlinks, the slot's passwd and group files (in dir), a few
// /etc files, and the Python environment when it lives outside /usr.
func (l *local) systemBinds(dir string) []string {
	a := []string{
		"--ro-bind", "/usr", "/usr",
		"--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
		"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
		"--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
		"--ro-bind", filepath.Join(dir, "passwd"), "/etc/passwd",
		"--ro-bind", filepath.Join(dir, "group"), "/etc/group",
		"--ro-bind-try", "/etc/matplotlibrc", "/etc/matplotlibrc",
		"--ro-bind-try", "/etc/localtime", "/etc/localtime",
	}
	if p := l.opts.Python; p != "" && !strings.HasPrefix(p, "/usr/") {
		a = append(a, "--ro-bind", p, p)
	}
	return a
}

// writeSpecFiles writes a Spec's Files into dir (the sandbox's /sbx); a
// name must be a plain file name.
func writeSpecFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		if name == "" || strings.ContainsAny(name, "/\x00") || name == "." || name == ".." {
			return fmt.Errorf("sandbox: bad file name %q", name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// reapOrphans waits for zombie children of this process that ran as one of
// uids: bwrap's pid-namespace init, re-parented to us (a child subreaper)
// when bwrap is killed. Children started by os/exec are never touched: they
// run as root until setpriv, and are waited for before this runs.
func (l *local) reapOrphans(uids ...int) {
	l.reapMu.Lock()
	defer l.reapMu.Unlock()
	want := map[int]bool{}
	for _, u := range uids {
		want[u] = true
	}
	me := os.Getpid()
	for _, p := range listProcs() {
		if p.ppid == me && p.state == 'Z' && want[p.uid] {
			var ws syscall.WaitStatus
			syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

type procInfo struct {
	pid, ppid, uid int
	state          byte
	comm           string // the executable's name (a zombie's cmdline is empty)
	cmdline        string
}

// listProcs reads /proc: pid, parent, real uid, state and argv of every process.
func listProcs() []procInfo {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procInfo
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		p := procInfo{pid: pid, uid: -1}
		for _, line := range strings.Split(string(status), "\n") {
			k, v, _ := strings.Cut(line, ":")
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			switch k {
			case "Name":
				p.comm = f[0]
			case "State":
				p.state = f[0][0]
			case "PPid":
				p.ppid, _ = strconv.Atoi(f[0])
			case "Uid":
				p.uid, _ = strconv.Atoi(f[0])
			}
		}
		if cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil {
			p.cmdline = strings.ReplaceAll(string(cl), "\x00", " ")
		}
		out = append(out, p)
	}
	return out
}

// killUID SIGKILLs every process whose real or effective uid is uid, until
// none is left (at most ~2 s): the slot uid is ours alone, so anything still
// running as it after a task is a leftover.
func killUID(uid int) {
	for i := 0; i < 100; i++ {
		left := 0
		for _, p := range listProcs() {
			if p.uid == uid && p.state != 'Z' {
				syscall.Kill(p.pid, syscall.SIGKILL)
				left++
			}
		}
		if left == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// UIDs returns the slot uids of a local sandbox (nil for other backends).
func UIDs(sb Sandbox) []int {
	if l, ok := sb.(*local); ok {
		return append([]int(nil), l.uids...)
	}
	return nil
}

// readableBySandbox reports whether a process with a uid and gid that own
// nothing (a slot uid, no groups) can reach and read path: every directory
// on the way must be searchable by "other", the target readable by "other".
func readableBySandbox(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	real, _ = filepath.Abs(real)
	parts := strings.Split(strings.TrimPrefix(real, "/"), "/")
	cur := "/"
	for i := 0; i <= len(parts); i++ {
		st, err := os.Stat(cur)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		m := st.Mode()
		last := i == len(parts)
		switch {
		case m.IsDir() && m&0o001 == 0:
			return fmt.Errorf("%s: directory %s is not searchable by the sandbox uid (mode %v); use a world-readable location such as /opt", path, cur, m.Perm())
		case last && m&0o004 == 0:
			return fmt.Errorf("%s: %s is not readable by the sandbox uid (mode %v)", path, cur, m.Perm())
		}
		if last {
			break
		}
		cur = filepath.Join(cur, parts[i])
	}
	return nil
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "killed"
	case syscall.SIGXCPU:
		return "cpu time limit exceeded"
	case syscall.SIGXFSZ:
		return "file size limit exceeded"
	case syscall.SIGSEGV:
		return "segmentation fault"
	case syscall.SIGTERM:
		return "terminated"
	case syscall.SIGABRT:
		return "aborted"
	}
	return s.String()
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// closeInheritedFDs marks every descriptor above stderr close-on-exec. Go opens
// its own files with O_CLOEXEC, but descriptors inherited from the runner's
// parent (a shell's `exec 7>file`, a CI agent's socket, make's jobserver) are
// not, and would otherwise reach the sandboxed code through sh, prlimit,
// setpriv and bwrap. ExtraFiles are dup2'd after this, so fd 3 still works.
func closeInheritedFDs() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// seccompFiles writes the two seccomp programs (SeccompPrograms) into the
// task folder and opens them for reading, in the order of bwrapArgs' fds 4
// and 5.
func seccompFiles(task string) ([]*os.File, error) {
	base, untrusted, err := SeccompPrograms()
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for i, prog := range [][]byte{base, untrusted} {
		path := filepath.Join(task, fmt.Sprintf("seccomp-%d.bpf", i))
		if err := os.WriteFile(path, prog, 0o600); err != nil {
			return nil, err
		}
		f, err := os.Open(path)
		if err != nil {
			for _, g := range files {
				g.Close()
			}
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}
