package sandbox

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Warm workers: the local backend's default mode. Each slot keeps
// one long-lived sandbox (bubblewrap, the slot's uid, the base seccomp
// layer, no network) running zygote.py, which has imported Options.Preload
// once and clones a fresh execution per Run; see zygote.py for the process
// tree of an execution and why a hostile execution cannot change what the
// next one sees. An execution's pid 1 (G) is cloned and placed in its
// cgroups while the previous execution runs (a spare), and it exits after
// the execution's result is known, so that neither is on the execution's
// path. An execution keeps the isolation of a cold one:
//   - its own empty /tmp, /app and /dev/shm (tmpfs of the Limits' sizes), its
//     own read-only /sbx and private copy of its data files (Spec.DataFiles),
//     a fresh /proc of its own pid namespace (it sees no other process);
//   - the same rlimits (set by the execution's pid 1 before it forks the
//     code; RLIMIT_NPROC see warmExtraProcs), the memory and pids cgroups
//     (cgroup v1: a forked process cannot move itself, so the runner places
//     the execution's pid 1, learnt from SCM_CREDENTIALS on the execution's
//     socket, before it sends the request);
//   - both seccomp layers: the base layer from bubblewrap on the whole
//     worker, the untrusted layer installed by the code's process itself,
//     after its set-up, with every capability dropped and no_new_privs;
//   - the wall-clock limit: on expiry the runner SIGKILLs the execution's
//     pid 1, which takes its whole pid namespace, and its cgroups; when the
//     code ends first, its pid 1 kills and reaps whatever it left running
//     before it reports the status.
//
// A Spec runs warm when its Argv is {"python3", "-I", "/sbx/<file>", args...},
// it adds no Env, it narrows its data to DataFiles, mounts none or mounts a
// folder inside one of Options.DataDirs, and its
// limits do not exceed the worker's (the backend's defaults); anything else
// runs cold, as before.

//go:embed zygote.py
var zygoteSource []byte

// warmExtraProcs is how many more processes of the slot's uid a warm
// execution may run beside the code than a cold one (both modes have
// bubblewrap and its init): the zygote, the execution's pid 1 (G), the next
// execution's G and code process (the spare, cloned while this one runs)
// and the previous execution's G (exiting while this one starts). RLIMIT_NPROC counts per
// uid, so a warm execution's limit is NProc plus these: never fewer
// processes for the code than in a cold run; with cgroups (the default as
// root) the pids cgroup, one less than a cold task's (G is in it, bubblewrap
// and its init are not), makes it exactly as many (docs/sandbox.md).
const warmExtraProcs = 5

// worker is one slot's warm sandbox.
type worker struct {
	l      *local
	slot   int
	uid    int
	dir    string // host folder: z/ (the zygote's /sbx), x/ (exchange, /x inside)
	cmd    *exec.Cmd
	ctl    *net.UnixConn // SOCK_SEQPACKET to the zygote (its fd 3)
	keep   map[int]bool  // host pids of the worker itself (bubblewrap, its init, the zygote)
	stderr *lockedCap    // the worker's own output (bubblewrap, the zygote)
	exited chan struct{}
	ready  warmReady
	seq    int
	broken bool // the zygote stopped answering: replace the worker after this execution

	// next is the spare being prepared for the next execution (nil when
	// none is); see prepare.
	next chan *spare
	// mu guards pending (the executions whose G the zygote has not yet
	// reported reaped, by id), spares (the host pids of prepared Gs not yet
	// taken) and gone (the control socket's reader has ended).
	mu      sync.Mutex
	pending map[string]chan reaped
	spares  map[int]bool
	gone    bool
	// cleanups counts the finished executions whose G is still exiting: its
	// reap, then the removal of its cgroups, happen after Run returned.
	cleanups sync.WaitGroup
	// leftover holds task cgroups whose removal failed (a G that took long
	// to exit); each Run and stop retry them. Guarded by mu.
	leftover []*cgroupTask
	// preparing counts the spare preparations under way (LeftBehind waits
	// for them: a G being cloned is not yet among spares).
	preparing sync.WaitGroup
}

// lockedCap is a capWriter that several goroutines may read while the
// worker's output is copied into it.
type lockedCap struct {
	mu sync.Mutex
	c  capWriter
}

func (l *lockedCap) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c.Write(p)
}

// tail returns the last n bytes written, as text.
func (l *lockedCap) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return tail(l.c.buf, n)
}

// reaped is the zygote's report of an execution's G: its exit status (H's,
// as bubblewrap reports its child) or the signal that killed it.
type reaped struct {
	ID     string `json:"id"`
	Reaped bool   `json:"reaped"`
	Exit   *int   `json:"exit"`
	Signal *int   `json:"signal"`
	Error  string `json:"error"`
}

// spare is an execution's pid 1 (G), cloned by the zygote and placed in its
// cgroups before the execution is asked for, waiting for its request on
// xconn, with the code's process (H) it forked once placed, waiting for G.
type spare struct {
	id    string
	xconn *net.UnixConn
	lines *bufio.Reader // G's status lines on xconn
	pid1  int           // host pid of G
	cg    *cgroupTask
	done  chan reaped // the zygote's report; closed without one when the worker is gone
	err   error       // preparation failed (wraps errWorker)
}

type warmReady struct {
	Ready        bool              `json:"ready"`
	PreloadVM    int64             `json:"preload_vm"`   // bytes of address space the preload added
	Printed      map[string]string `json:"printed"`      // module → what its import printed (replayed)
	Unattributed string            `json:"unattributed"` // printed outside any module's code
	Error        string            `json:"error"`
	Tasks        int               `json:"tasks"`
}

// warmDataSource returns where a worker sees dir, a folder inside one of
// the sandbox's Options.DataDirs (bound read-only at /d/<i> in every
// worker), or "" when it is inside none of them.
func warmDataSource(dir string, dataDirs []string) string {
	for i, d := range dataDirs {
		rel, err := filepath.Rel(d, dir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel) {
			return filepath.Join("/d", strconv.Itoa(i), rel)
		}
	}
	return ""
}

// warmEligible reports whether s can run in a warm worker whose limits are
// wl (see the package comment above).
func warmEligible(s Spec, lim, wl Limits, dataDirs []string) bool {
	if s.DataDir != "" && s.DataFiles == nil && warmDataSource(s.DataDir, dataDirs) == "" {
		return false
	}
	if len(s.Argv) < 3 || s.Argv[0] != "python3" || s.Argv[1] != "-I" || !strings.HasPrefix(s.Argv[2], "/sbx/") ||
		strings.Contains(s.Argv[2][len("/sbx/"):], "/") || len(s.Env) > 0 {
		return false
	}
	return lim.AddressSpace <= wl.AddressSpace && lim.FileSize <= wl.FileSize && lim.NoFile <= wl.NoFile && lim.NProc <= wl.NProc
}

// startWorker launches slot's warm sandbox and waits until its zygote has
// imported the preload list. It fails when the zygote reports that its
// imports printed anything or failed (a warm execution would then differ
// from a cold one), or when it cannot start. Its steps: the worker's folder
// (writeWorkerDir), the control socket, bubblewrap's arguments (workerArgv)
// and seccomp layers (workerFilters), the start (launch), the zygote's
// start-up message (awaitReady), then the worker's own processes.
func (l *local) startWorker(slot int) (*worker, error) {
	uid := l.uids[slot]
	w := &worker{l: l, slot: slot, uid: uid, exited: make(chan struct{}), stderr: &lockedCap{c: capWriter{max: 64 << 10}}}
	var err error
	if w.dir, err = os.MkdirTemp(l.base, fmt.Sprintf("warm%d-", slot)); err != nil {
		return nil, err
	}
	fail := func(err error) (*worker, error) {
		w.stop()
		return nil, err
	}
	if err := l.writeWorkerDir(w.dir, uid); err != nil {
		return fail(err)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "warm-ctl"), os.NewFile(uintptr(fds[1]), "warm-ctl-zygote")
	defer theirs.Close()
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return fail(err)
	}
	w.ctl = c.(*net.UnixConn)

	argv := l.workerArgv(w.dir, uid, l.limits)
	var filters []*os.File
	defer func() {
		for _, f := range filters {
			f.Close()
		}
	}()
	if filters, err = l.workerFilters(w.dir); err != nil {
		return fail(err)
	}
	if err := w.launch(argv, theirs, filters); err != nil {
		return fail(fmt.Errorf("sandbox: starting the warm worker: %w", err))
	}
	theirs.Close()
	if err := w.awaitReady(); err != nil {
		return fail(err)
	}
	// The worker's own processes: sh (now bubblewrap), bubblewrap's pid-1
	// init, the zygote.
	w.keep = map[int]bool{w.cmd.Process.Pid: true}
	for range 3 {
		for _, p := range listProcs() {
			if w.keep[p.ppid] && p.uid == uid {
				w.keep[p.pid] = true
			}
		}
	}
	w.pending, w.spares = map[string]chan reaped{}, map[int]bool{}
	w.ctl.SetReadDeadline(time.Time{})
	go w.dispatch()
	w.startSpare(l)
	return w, nil
}

// writeWorkerDir fills a worker's host folder dir: z/ (the zygote's /sbx:
// zygote.py, the preload list, the untrusted code's seccomp program, the
// passwd and group files that name uid, and rootless the userns marker)
// and x/ (the exchange folder, /x inside), each readable by others.
func (l *local) writeWorkerDir(dir string, uid int) error {
	for _, d := range []string{dir, filepath.Join(dir, "z"), filepath.Join(dir, "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(d, 0o755); err != nil {
			return err
		}
	}
	_, untrusted, err := SeccompPrograms()
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"zygote.py":             zygoteSource,
		"preload.txt":           []byte(strings.Join(l.opts.Preload, "\n")),
		"seccomp-untrusted.bpf": untrusted,
		"passwd":                fmt.Appendf(nil, "sandbox:x:%d:%d:sandbox:/tmp:/bin/sh\n", uid, uid),
		"group":                 fmt.Appendf(nil, "sandbox:x:%d:\n", uid),
	}
	if l.rootless {
		// Each execution's code unshares a user namespace of its own
		// (zygote.py, own_user_namespace).
		files["userns"] = []byte("per execution\n")
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, "z", name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// workerArgv is sh's argv for the worker in host folder dir: the launcher
// (workerLauncher, with uid and the worker's limits lim), then bubblewrap
// with the worker's namespaces, capabilities, seccomp fds 4 and 5, binds
// and environment, running the zygote.
func (l *local) workerArgv(dir string, uid int, lim Limits) []string {
	argv := []string{"-c", `exec "$@"`, "sh"}
	argv = append(argv, l.workerLauncher(uid, lim)...)
	argv = append(argv,
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		// No --disable-userns (see WorkerProgram, fd 5, which takes its place).
		"--die-with-parent", "--new-session", "--clearenv",
		// CAP_SYS_ADMIN in the worker's own user namespace only: each
		// execution's pid 1 needs it for its mounts and namespaces; the
		// code's process drops it (and every other) before it runs code.
		"--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP", // CAP_SETPCAP: to empty the code's bounding set
		"--cap-add", "CAP_NET_ADMIN", // to bring up the loopback interface of each execution's network namespace
		"--add-seccomp-fd", "4", "--add-seccomp-fd", "5", // BaseDenied, WorkerProgram; each execution's code installs UntrustedDenied
	)
	argv = append(argv, l.systemBinds(filepath.Join(dir, "z"))...)
	for i, d := range l.opts.DataDirs {
		argv = append(argv, "--ro-bind", d, "/d/"+strconv.Itoa(i))
	}
	argv = append(argv,
		"--ro-bind", filepath.Join(dir, "z"), "/sbx",
		"--ro-bind", filepath.Join(dir, "x"), "/x",
		"--dir", "/d",
		"--size", strconv.FormatInt(lim.TmpBytes, 10), "--tmpfs", "/tmp",
		"--size", strconv.FormatInt(lim.WorkBytes, 10), "--tmpfs", "/app",
		"--proc", "/proc", "--dev", "/dev",
		"--size", strconv.FormatInt(lim.TmpBytes, 10), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
		"--remount-ro", "/", "--chdir", "/app")
	for _, kv := range baseEnv(l.opts.Python) {
		k, v, _ := strings.Cut(kv, "=")
		argv = append(argv, "--setenv", k, v)
	}
	argv = append(argv, "--")
	return append(argv, seededArgv([]string{"python3", "-I", "/sbx/zygote.py"})...)
}

// workerFilters writes the worker's two seccomp layers (BaseDenied, then
// WorkerProgram or, rootless, RootlessWorkerProgram) into dir and opens
// them, for fds 4 and 5. The caller closes the files it returns, also
// those opened before an error.
func (l *local) workerFilters(dir string) ([]*os.File, error) {
	base, _, err := SeccompPrograms()
	if err != nil {
		return nil, err
	}
	workerProg, err := WorkerProgram()
	if l.rootless {
		workerProg, err = RootlessWorkerProgram()
	}
	if err != nil {
		return nil, err
	}
	var filters []*os.File
	for i, prog := range [][]byte{base, workerProg} {
		path := filepath.Join(dir, fmt.Sprintf("seccomp-%d.bpf", i))
		if err := os.WriteFile(path, prog, 0o600); err != nil {
			return filters, err
		}
		f, err := os.Open(path)
		if err != nil {
			return filters, err
		}
		filters = append(filters, f)
	}
	return filters, nil
}

// launch starts the worker's command, sh with argv, its fd 3 the zygote's
// end of the control socket (ctl) and fds 4 and 5 the seccomp filters,
// from a goroutine that holds its OS thread for the worker's life and
// closes w.exited when the worker has ended. It closes the descriptors
// inherited from the parent first (closeInheritedFDs). The error is that
// of the start.
func (w *worker) launch(argv []string, ctl *os.File, filters []*os.File) error {
	closeInheritedFDs()
	w.cmd = exec.Command("/bin/sh", argv...)
	w.cmd.Env = []string{"PATH=/usr/bin:/bin"}
	w.cmd.Dir = "/"
	w.cmd.Stdout, w.cmd.Stderr = w.stderr, w.stderr
	w.cmd.ExtraFiles = append([]*os.File{ctl}, filters...) // fds 3 (control), 4 and 5 (seccomp)
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	w.cmd.WaitDelay = 2 * time.Second
	started := make(chan error, 1)
	go func() {
		// Pdeathsig fires when the forking OS thread exits (golang/go#27505):
		// this goroutine holds its thread for the worker's life.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := startLauncher(w.cmd); err != nil {
			started <- err
			close(w.exited)
			return
		}
		started <- nil
		waitLauncher(w.cmd)
		close(w.exited)
	}()
	return <-started
}

// awaitReady reads the zygote's start-up message (5 minutes at most) into
// w.ready. It fails when there is none, when the zygote could not import
// its preload list, when the imports printed anything outside any module's
// code, or when the zygote has more than one thread.
func (w *worker) awaitReady() error {
	buf := make([]byte, 1<<20)
	w.ctl.SetReadDeadline(time.Now().Add(5 * time.Minute))
	n, err := w.ctl.Read(buf)
	if err != nil {
		return fmt.Errorf("sandbox: the warm worker did not start: %v (its output: %q)", err, w.stderr.tail(2000))
	}
	if err := json.Unmarshal(buf[:n], &w.ready); err != nil || !w.ready.Ready {
		return fmt.Errorf("sandbox: the warm worker's start-up message %q: %v", buf[:n], err)
	}
	switch {
	case w.ready.Error != "":
		return fmt.Errorf("sandbox: the warm worker could not import its preload list: %s", w.ready.Error)
	case w.ready.Unattributed != "":
		return fmt.Errorf("sandbox: importing the warm worker's preload list printed %q outside any module's code, "+
			"which a warm execution could not replay where a cold one prints it", tail([]byte(w.ready.Unattributed), 500))
	case w.ready.Tasks != 1:
		return fmt.Errorf("sandbox: the warm worker has %d threads after its imports; it must fork from one", w.ready.Tasks)
	}
	return nil
}

// workerLauncher is what starts a warm worker's bubblewrap: prlimit with
// the worker's rlimits (no address-space or CPU limit: each execution's pid
// 1 sets the execution's), then, as root, setpriv to the slot's uid. As
// root RLIMIT_NPROC counts the slot uid's processes (warmExtraProcs);
// rootless the invoking user's limit stays, each execution's code setting
// its own in its own user namespace (warmNProc).
func (l *local) workerLauncher(uid int, lim Limits) []string {
	a := []string{"/usr/bin/prlimit", "--as=unlimited"}
	if !l.rootless {
		a = append(a, "--nproc="+strconv.Itoa(lim.NProc+warmExtraProcs))
	}
	a = append(a, "--fsize="+strconv.FormatInt(lim.FileSize, 10),
		"--cpu=unlimited",
		"--nofile="+strconv.Itoa(lim.NoFile),
		"--core=0", "--")
	if l.rootless {
		return append(a, l.bwrap)
	}
	return append(a, "/usr/bin/setpriv", "--reuid="+strconv.Itoa(uid), "--regid="+strconv.Itoa(uid), "--clear-groups",
		"--no-new-privs", "--pdeathsig=SIGKILL", "--", l.bwrap)
}

// warmNProc is a warm execution's RLIMIT_NPROC. As root: NProc plus
// warmExtraProcs, counted per slot uid. Rootless: counted in the code's own
// user namespace, which holds the code's processes only (its pid 1 is
// outside it), NProc-2, the processes a cold task's code may have
// (coldCommand: NProc-1 in a namespace that also holds bubblewrap's init).
func (l *local) warmNProc(lim Limits) int64 {
	if l.rootless {
		return int64(max(1, lim.NProc-2))
	}
	return int64(lim.NProc + warmExtraProcs)
}

// dispatch reads the zygote's reports and hands each to the execution it
// names, until the control socket ends; then every execution still waiting
// for one is told that the worker is gone.
func (w *worker) dispatch() {
	buf := make([]byte, 4096)
	for {
		n, err := w.ctl.Read(buf)
		var r reaped
		if err == nil {
			err = json.Unmarshal(buf[:n], &r)
		}
		if err != nil {
			break
		}
		w.mu.Lock()
		ch := w.pending[r.ID]
		delete(w.pending, r.ID)
		w.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	w.mu.Lock()
	w.gone = true
	for id, ch := range w.pending {
		close(ch)
		delete(w.pending, id)
	}
	w.mu.Unlock()
}

// keepForRemoval remembers a task's cgroups that could not be removed yet.
func (w *worker) keepForRemoval(t *cgroupTask) {
	w.mu.Lock()
	w.leftover = append(w.leftover, t)
	w.mu.Unlock()
}

// retryRemovals kills what is left in the remembered cgroups and removes
// them; those that still cannot be removed stay remembered.
func (w *worker) retryRemovals() {
	w.mu.Lock()
	ts := w.leftover
	w.leftover = nil
	w.mu.Unlock()
	for _, t := range ts {
		t.killAll()
		if !t.remove() {
			w.keepForRemoval(t)
		}
	}
}

// startSpare starts preparing the next execution's G in the background.
func (w *worker) startSpare(l *local) {
	w.next = make(chan *spare, 1)
	w.preparing.Add(1)
	go func(next chan *spare) {
		defer w.preparing.Done()
		next <- w.prepare(l)
	}(w.next)
}

// takeSpare returns the prepared G for the next execution, preparing one
// now when the background preparation failed (e.g. the previous execution
// held every process the slot's uid may have while the zygote cloned).
func (w *worker) takeSpare(l *local) *spare {
	w.retryRemovals()
	var sp *spare
	if w.next != nil {
		sp = <-w.next
		w.next = nil
	}
	if sp == nil || sp.err != nil {
		if sp != nil {
			sp.discard()
		}
		sp = w.prepare(l)
	}
	w.mu.Lock()
	delete(w.spares, sp.pid1)
	w.mu.Unlock()
	return sp
}

// prepare asks the zygote for a G, learns its host pid from SCM_CREDENTIALS
// and places it in a new task cgroup with the backend's limits (cgroup v1: a
// process cannot move itself; Run adjusts the limits to its Spec's).
func (w *worker) prepare(l *local) *spare {
	w.seq++
	sp := &spare{id: strconv.Itoa(w.seq), done: make(chan reaped, 1)}
	fail := func(err error) *spare {
		sp.discard()
		sp.err = fmt.Errorf("%w: %v (worker output %q)", errWorker, err, w.stderr.tail(500))
		return sp
	}
	if l.cg != nil {
		name := fmt.Sprintf("mattools-sbx-%d-%d-%d", os.Getpid(), w.slot, taskSeq.Add(1))
		var err error
		if sp.cg, err = l.cg.create(name, l.limits); err != nil {
			sp.err = fmt.Errorf("sandbox: cgroup: %w", err)
			return sp
		}
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "warm-exec"), os.NewFile(uintptr(fds[1]), "warm-exec-zygote")
	defer theirs.Close()
	if err := syscall.SetsockoptInt(fds[0], syscall.SOL_SOCKET, syscall.SO_PASSCRED, 1); err != nil {
		mine.Close()
		return fail(err)
	}
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return fail(err)
	}
	sp.xconn = c.(*net.UnixConn)
	sp.lines = bufio.NewReader(sp.xconn)
	w.mu.Lock()
	if w.gone {
		w.mu.Unlock()
		return fail(errors.New("the zygote is gone"))
	}
	w.pending[sp.id] = sp.done
	w.mu.Unlock()
	msg, _ := json.Marshal(map[string]string{"id": sp.id})
	w.ctl.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, _, err := w.ctl.WriteMsgUnix(msg, syscall.UnixRights(int(theirs.Fd())), nil); err != nil {
		return fail(fmt.Errorf("asking for an execution: %v", err))
	}
	theirs.Close()
	oob := make([]byte, syscall.CmsgSpace(syscall.SizeofUcred))
	one := make([]byte, 1)
	sp.xconn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, oobn, _, _, err := sp.xconn.ReadMsgUnix(one, oob)
	if err != nil {
		return fail(fmt.Errorf("no credentials from the execution: %v", err))
	}
	if sp.pid1, err = credentialPid(oob[:oobn]); err != nil {
		return fail(err)
	}
	for _, f := range sp.cg.procsFiles() {
		if err := os.WriteFile(f, []byte(strconv.Itoa(sp.pid1)), 0o644); err != nil {
			return fail(fmt.Errorf("placing the execution in its cgroup %s: %v", f, err))
		}
	}
	// Placed: G forks the code's process (H), which waits for the request,
	// and says so ("h").
	sp.xconn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := sp.xconn.Write([]byte("p")); err != nil {
		return fail(fmt.Errorf("starting the execution: %v", err))
	}
	if b, err := sp.lines.ReadByte(); err != nil || b != 'h' {
		return fail(fmt.Errorf("the execution did not start its code's process: %q, %v", b, err))
	}
	w.mu.Lock()
	w.spares[sp.pid1] = true
	w.mu.Unlock()
	return sp
}

// discard ends a spare that will not run: its G exits when its socket
// closes (it is killed too), and its cgroups go once it has.
func (sp *spare) discard() {
	if sp.xconn != nil {
		sp.xconn.Close()
	}
	if sp.pid1 > 1 {
		syscall.Kill(sp.pid1, syscall.SIGKILL)
	}
	if sp.cg != nil {
		sp.cg.killAll()
		sp.cg.remove()
	}
}

// alive reports whether the worker's process still runs.
func (w *worker) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// stop kills the worker and everything of its uid, and removes its folder.
func (w *worker) stop() {
	if w.ctl != nil {
		w.ctl.Close()
	}
	if w.cmd != nil && w.cmd.Process != nil {
		syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		<-w.exited
	}
	if w.l.rootless {
		w.l.reapRootless()
	} else {
		killUID(w.uid)
	}
	if w.next != nil {
		(<-w.next).discard()
		w.next = nil
	}
	w.cleanups.Wait()
	if w.dir != "" {
		os.RemoveAll(w.dir)
	}
}

// warmRequest is what the zygote reads for one execution.
type warmRequest struct {
	ID        string              `json:"id"`
	Dir       string              `json:"dir"`  // /x/<id>: sbx/, data/ and exec.json (argv and environment, read by pid 1)
	Data      string              `json:"data"` // the folder to mount at /app/tool_source_code ("" none)
	TmpBytes  int64               `json:"tmp_bytes"`
	WorkBytes int64               `json:"work_bytes"`
	Rlimits   map[string][2]int64 `json:"rlimits"`
}

// reapGrace is how long the runner waits, after killing an execution's pid
// 1, for the zygote to report it reaped.
const reapGrace = 5 * time.Second

// errWorker marks a failure of the worker itself (not of the code): the
// worker is stopped and the next Run of its slot starts a new one.
var errWorker = errors.New("warm worker failed")

// runWarm runs s in slot's worker (started on first use) and returns what
// a cold Run would.
func (l *local) runWarm(s Spec, slot int, lim Limits, ctxDone <-chan struct{}, ctxErr func() error) (*Result, error) {
	l.workersMu.Lock()
	w := l.workers[slot]
	l.workersMu.Unlock()
	if w != nil && !w.alive() {
		l.setWorker(slot, nil)
		w.stop()
		w = nil
	}
	if w == nil {
		var err error
		if w, err = l.startWorker(slot); err != nil {
			return nil, err
		}
		l.setWorker(slot, w)
	}
	res, started, err := w.run(l, s, lim, ctxDone, ctxErr)
	if w.broken && err == nil {
		l.setWorker(slot, nil)
		w.stop()
	}
	if errors.Is(err, errWorker) {
		l.setWorker(slot, nil)
		w.stop()
		if !started {
			// The worker failed before the code ran (e.g. a previous
			// execution stopped it with a signal sent before it ended): a
			// new worker runs the execution, once.
			if w, err = l.startWorker(slot); err != nil {
				return nil, err
			}
			l.setWorker(slot, w)
			res, _, err = w.run(l, s, lim, ctxDone, ctxErr)
			if errors.Is(err, errWorker) {
				l.setWorker(slot, nil)
				w.stop()
			}
		}
	}
	return res, err
}

func (l *local) setWorker(slot int, w *worker) {
	l.workersMu.Lock()
	l.workers[slot] = w
	l.workersMu.Unlock()
}

// Executions returns how many executions sb ran in warm workers and how
// many in a fresh sandbox each (both 0 for backends other than local).
func Executions(sb Sandbox) (warm, cold int64) {
	if l, ok := sb.(*local); ok {
		return l.warmRuns.Load(), l.coldRuns.Load()
	}
	return 0, 0
}

// LeftBehind returns the live processes of sb's slot uids that are not its
// warm workers' own (bubblewrap, its init, the zygote), as "pid argv" lines:
// what an execution left running. Nil for other backends (their tests look
// for their own markers).
func LeftBehind(sb Sandbox) []string {
	l, ok := sb.(*local)
	if !ok {
		return nil
	}
	keep, spares := map[int]bool{}, map[int]bool{}
	l.workersMu.Lock()
	for _, w := range l.workers {
		if w != nil {
			w.cleanups.Wait()  // the last execution's G may still be exiting
			w.preparing.Wait() // and the next one's being cloned
			for pid := range w.keep {
				keep[pid] = true
			}
			w.mu.Lock()
			for pid := range w.spares {
				spares[pid] = true
			}
			w.mu.Unlock()
		}
	}
	l.workersMu.Unlock()
	var out []string
	for _, p := range l.sandboxProcs() {
		// A spare is G and the code's process it forked (H), waiting.
		if !keep[p.pid] && !spares[p.pid] && !spares[p.ppid] {
			out = append(out, strconv.Itoa(p.pid)+" "+p.cmdline)
		}
	}
	return out
}

func (w *worker) run(l *local, s Spec, lim Limits, ctxDone <-chan struct{}, ctxErr func() error) (_ *Result, started bool, _ error) {
	sp := w.takeSpare(l)
	if sp.err != nil {
		return nil, started, sp.err
	}
	id, pid1, cgTask := sp.id, sp.pid1, sp.cg
	// Until the code runs, a failure ends the spare here; after it, the
	// execution's end does (below).
	ended := false
	defer func() {
		if !ended {
			sp.discard()
		}
	}()
	xdir := filepath.Join(w.dir, "x", id)
	defer func() {
		if !ended {
			os.RemoveAll(xdir)
		}
	}()
	msg, err := w.stage(l, s, lim, id, xdir)
	if err != nil {
		return nil, started, err
	}
	if err := cgTask.setLimits(lim, l.limits); err != nil {
		return nil, started, fmt.Errorf("sandbox: cgroup: %w", err)
	}

	// The execution's descriptors: stdin, stdout, stderr and the side
	// channel (fd 3 of the code).
	var closeLater []*os.File
	defer func() {
		for _, f := range closeLater {
			f.Close()
		}
	}()
	fds, err := openExecFDs(len(s.Stdin) > 0, &closeLater)
	if err != nil {
		return nil, started, err
	}
	stdinR, stdinW, outR, outW, errR, errW, sideR, sideW := fds.stdinR, fds.stdinW, fds.outR, fds.outW, fds.errR, fds.errW, fds.sideR, fds.sideW

	rights := syscall.UnixRights(int(stdinR.Fd()), int(outW.Fd()), int(errW.Fd()), int(sideW.Fd()))
	sp.xconn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, _, err := sp.xconn.WriteMsgUnix(msg, rights, nil); err != nil {
		return nil, started, fmt.Errorf("%w: sending the request: %v", errWorker, err)
	}
	for _, f := range []*os.File{stdinR, outW, errW, sideW} {
		f.Close()
	}
	if stdinW != nil {
		go func() {
			stdinW.Write(s.Stdin)
			stdinW.Close()
		}()
	}
	stdout := &capWriter{max: lim.StdoutBytes}
	stderr := &capWriter{max: lim.StderrBytes}
	side := &capWriter{max: lim.ResultBytes}
	copied := make(chan struct{}, 3)
	for _, c := range []struct {
		dst *capWriter
		src *os.File
	}{{stdout, outR}, {stderr, errR}, {side, sideR}} {
		go func() { io.Copy(c.dst, c.src); copied <- struct{}{} }()
	}
	start := time.Now()

	// The set-up: G says when the code runs, or why it could not.
	sp.xconn.SetReadDeadline(time.Now().Add(30 * time.Second))
	st, err := sp.readStatus()
	switch {
	case err != nil:
		return nil, started, fmt.Errorf("%w: the execution's set-up: %v (worker output %q)", errWorker, err, w.stderr.tail(500))
	case st.SetupError != "":
		return nil, started, fmt.Errorf("%w: %s", errWorker, st.SetupError)
	case !st.Running:
		return nil, started, fmt.Errorf("%w: the execution's set-up: unexpected %+v", errWorker, st)
	}
	started = true
	// The next execution's G is cloned and placed while this one runs.
	w.startSpare(l)

	// The outcome: G reports H's status once everything of the execution
	// has ended (it kills and reaps the rest first); when G itself is killed
	// (the time limit, the memory cgroup) the zygote's report gives the
	// signal.
	o := w.await(sp, lim.Wall, ctxDone, ctxErr)
	dur := time.Since(start)
	ended = true
	if o.exit != nil {
		// G is exiting, its namespace already empty: its reap, the removal
		// of its cgroups and of the exchange folder need not hold up the
		// result.
		w.cleanups.Add(1)
		go w.cleanUpLater(sp, pid1, cgTask, xdir)
	} else {
		defer os.RemoveAll(xdir)
		sp.xconn.Close()
		cgTask.killAll()
		defer cgTask.remove()
		if !o.gotReport && !o.timedOut && o.cancelled == nil {
			return nil, started, fmt.Errorf("%w: the zygote did not report execution %s (worker output %q)", errWorker, id, w.stderr.tail(500))
		}
	}
	awaitCopies(copied, outR, errR, sideR)
	if o.cancelled != nil {
		return nil, started, o.cancelled
	}

	res, err := warmResult(id, o, dur, stdout, stderr, side, cgTask.oomKilled())
	return res, started, err
}

// execFDs are an execution's descriptors: the code's stdin, stdout, stderr
// and side channel (fd 3 of the code), each as the pair of the ends the
// code reads or writes (stdinR, outW, errW, sideW, sent to the zygote) and
// those the runner writes or reads (stdinW, nil without stdin; outR, errR,
// sideR).
type execFDs struct {
	stdinR, stdinW, outR, outW, errR, errW, sideR, sideW *os.File
}

// openExecFDs opens an execution's descriptors: stdin the Spec's bytes
// through a pipe (withStdin), or /dev/null as a cold run has; stdout,
// stderr and the side channel pipes. Every file it opens, also before an
// error, is appended to *closeLater for the caller to close.
func openExecFDs(withStdin bool, closeLater *[]*os.File) (execFDs, error) {
	var fds execFDs
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			*closeLater = append(*closeLater, r, w)
		}
		return
	}
	var err error
	if withStdin {
		if fds.stdinR, fds.stdinW, err = pipe(); err != nil {
			return fds, err
		}
	} else {
		if fds.stdinR, err = os.Open(os.DevNull); err != nil {
			return fds, err
		}
		*closeLater = append(*closeLater, fds.stdinR)
	}
	if fds.outR, fds.outW, err = pipe(); err != nil {
		return fds, err
	}
	if fds.errR, fds.errW, err = pipe(); err != nil {
		return fds, err
	}
	fds.sideR, fds.sideW, err = pipe()
	return fds, err
}

// cleanUpLater ends an execution whose G is exiting, after its Run
// returned: it waits for the zygote's report of G's reap (reapGrace at
// most, then kills G), closes the exchange socket, kills what is left in
// the execution's cgroups and removes them (or keeps them for a later
// removal, keepForRemoval), then removes the exchange folder xdir. It
// marks one of w.cleanups done.
func (w *worker) cleanUpLater(sp *spare, pid1 int, cgTask *cgroupTask, xdir string) {
	defer w.cleanups.Done()
	select {
	case <-sp.done:
	case <-time.After(reapGrace):
		syscall.Kill(pid1, syscall.SIGKILL)
	}
	sp.xconn.Close()
	cgTask.killAll()
	if !cgTask.remove() {
		w.keepForRemoval(cgTask)
	}
	os.RemoveAll(xdir)
}

// awaitCopies waits for the three copies of an execution's stdout, stderr
// and side channel to end (a receive on copied each), closing the three
// read ends when one has not ended within 2 seconds.
func awaitCopies(copied <-chan struct{}, outR, errR, sideR *os.File) {
	for range 3 {
		select {
		case <-copied:
		case <-time.After(2 * time.Second):
			outR.Close()
			errR.Close()
			sideR.Close()
		}
	}
}

// warmStatus is a status line of G, the execution's pid 1.
type warmStatus struct {
	Running    bool   `json:"running"`
	SetupError string `json:"setup_error"`
	Exit       *int   `json:"exit"`
	// CPUSeconds is the user and system CPU time of every process of
	// the execution (G's reaped children), seconds.
	CPUSeconds float64 `json:"cpu_seconds"`
}

// readStatus reads G's next status line.
func (sp *spare) readStatus() (warmStatus, error) {
	var st warmStatus
	line, err := sp.lines.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &st)
	}
	return st, err
}

// outcome is how a running execution ended.
type outcome struct {
	exit      *int          // G's report of H's exit status; nil: G was killed or is gone
	cpuTime   time.Duration // the CPU time of all its processes, when exit is set
	r         reaped        // the zygote's report of G's end, when gotReport
	gotReport bool
	timedOut  bool  // killed at the wall-clock limit
	cancelled error // the context's error, when it was cancelled first
}

// await waits for the running execution of sp to end, killing it at the
// wall-clock limit wall or when ctxDone closes; a worker that does not
// report is marked broken.
func (w *worker) await(sp *spare, wall time.Duration, ctxDone <-chan struct{}, ctxErr func() error) outcome {
	var o outcome
	// G's last status line; its Exit is nil when G ended without one.
	exited := make(chan warmStatus, 1)
	go func() {
		sp.xconn.SetReadDeadline(time.Time{})
		st, err := sp.readStatus()
		if err != nil {
			st = warmStatus{}
		}
		exited <- st
	}()
	timer := time.NewTimer(wall)
	defer timer.Stop()
	// After a kill the zygote reaps G at once; if it does not report within
	// reapGrace (it was stopped, or is gone), the worker is replaced and the
	// execution's result stands.
	// The zygote's report of G's end; a closed channel: the worker is gone.
	report := func(rr reaped, ok bool) {
		o.r, o.gotReport = rr, ok
		if !ok {
			w.broken = true
		}
	}
	waitReaped := func() {
		select {
		case rr, ok := <-sp.done:
			report(rr, ok)
		case <-time.After(reapGrace):
			w.broken = true
		}
	}
	kill := func() {
		syscall.Kill(sp.pid1, syscall.SIGKILL)
		sp.cg.killAll()
		waitReaped()
	}
	select {
	case st := <-exited:
		o.exit = st.Exit
		if o.exit != nil {
			o.cpuTime = time.Duration(st.CPUSeconds * float64(time.Second))
		} else {
			// G ended without a status: it was killed, or the worker is gone.
			select {
			case <-timer.C:
				o.timedOut = true
				kill()
			case <-ctxDone:
				o.cancelled = ctxErr()
				kill()
			case rr, ok := <-sp.done:
				report(rr, ok)
			}
		}
	case <-timer.C:
		o.timedOut = true
		kill()
	case <-ctxDone:
		o.cancelled = ctxErr()
		kill()
	}
	return o
}

// warmResult is execution id's Result as a cold run reports it: its
// captured output, and its status from G (exit, with the CPU time of all
// its processes) or from the zygote's reap (a signal), as o gives them.
func warmResult(id string, o outcome, dur time.Duration, stdout, stderr, side *capWriter, oom bool) (*Result, error) {
	r := o.r
	res := &Result{TimedOut: o.timedOut, Duration: dur,
		Stdout: stdout.buf, Stderr: stderr.buf, StdoutDropped: stdout.dropped, StderrDropped: stderr.dropped,
		Side: side.buf, SideDropped: side.dropped, OOMKilled: oom}
	if res.Stdout == nil {
		res.Stdout = []byte{}
	}
	if res.Stderr == nil {
		res.Stderr = []byte{}
	}
	if o.exit != nil {
		r.Exit = o.exit
		res.CPU = o.cpuTime
	}
	switch {
	case o.timedOut:
		// As a cold task's process group killed at the time limit.
		res.ExitCode, res.Signal = -1, signalName(syscall.SIGKILL)
	case r.Signal != nil && *r.Signal == int(syscall.SIGKILL):
		// Killed (the time limit, the memory cgroup, a hard limit): as a
		// cold task's process group killed by a signal.
		res.ExitCode, res.Signal = -1, signalName(syscall.SIGKILL)
	case r.Signal != nil:
		res.ExitCode, res.Signal = 128+*r.Signal, signalName(syscall.Signal(*r.Signal))
	case r.Exit != nil:
		res.ExitCode = *r.Exit
		// As bubblewrap reports a child killed by signal n (see Run).
		if res.ExitCode > 128 && res.ExitCode < 128+65 {
			res.Signal = signalName(syscall.Signal(res.ExitCode - 128))
		}
	default:
		return nil, fmt.Errorf("%w: execution %s: no status", errWorker, id)
	}
	return res, nil
}

// stage writes execution id's exchange folder xdir (the Spec's files in
// sbx/, its data files or the path of its read-only data, exec.json with
// argv and environment) and returns the request the zygote is sent.
func (w *worker) stage(l *local, s Spec, lim Limits, id, xdir string) ([]byte, error) {
	sbx := filepath.Join(xdir, "sbx")
	if err := os.MkdirAll(sbx, 0o755); err != nil {
		return nil, err
	}
	os.Chmod(xdir, 0o755)
	if err := writeSpecFiles(sbx, s.Files); err != nil {
		return nil, err
	}
	data := ""
	switch {
	case s.DataDir != "" && s.DataFiles != nil:
		if _, err := copyDataFiles(s.DataDir, s.DataFiles, filepath.Join(xdir, "data")); err != nil {
			return nil, err
		}
		data = "/x/" + id + "/data"
	case s.DataDir != "":
		data = warmDataSource(s.DataDir, l.opts.DataDirs)
	}
	// The execution's argv and environment go to a file its pid 1 reads, not
	// into the request, so the zygote never holds them (bubblewrap's --chdir
	// sets PWD, hence PWD=/app).
	ex, err := json.Marshal(map[string][]string{"argv": s.Argv[2:], "env": append(baseEnv(l.opts.Python), "PWD=/app")})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(xdir, "exec.json"), ex, 0o644); err != nil {
		return nil, err
	}
	cpu := int64((lim.CPU + time.Second - 1) / time.Second)
	// The address space: the execution inherits the preload's mappings
	// (~0.5 GB), which a cold interpreter maps only for what it imports; the
	// limit is raised by them, so that the code has at least a cold run's.
	as := lim.AddressSpace + w.ready.PreloadVM
	req := warmRequest{ID: id, Dir: "/x/" + id, Data: data, TmpBytes: lim.TmpBytes, WorkBytes: lim.WorkBytes,
		Rlimits: map[string][2]int64{
			"cpu": {cpu, cpu + 1}, "as": {as, as}, "fsize": {lim.FileSize, lim.FileSize},
			"nofile": {int64(lim.NoFile), int64(lim.NoFile)}, "nproc": {l.warmNProc(lim), l.warmNProc(lim)},
			"core": {0, 0},
		}}
	return json.Marshal(req)
}

// credentialPid returns the pid of an SCM_CREDENTIALS message, as the kernel
// translated it into the runner's pid namespace.
func credentialPid(oob []byte) (int, error) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, fmt.Errorf("execution credentials: %v", err)
	}
	for _, m := range msgs {
		if cred, err := syscall.ParseUnixCredentials(&m); err == nil && cred.Pid > 1 {
			return int(cred.Pid), nil
		}
	}
	return 0, errors.New("execution credentials: no SCM_CREDENTIALS with a pid")
}
