// Package sandboxtest is the conformance and hostile-code suite that every
// sandbox backend must pass: results and exit codes come back,
// loopback on the host is unreachable and only "lo" exists, nothing outside
// /app and /tmp is writable, neither root's home nor the runner's environment
// is visible, and fork bombs, memory bombs, infinite loops, output floods,
// setsid'd grandchildren and processes ignoring SIGTERM are all contained,
// with no process left behind (checked in /proc).
//
// The programs need only Python's standard library.
package sandboxtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// Options tune the suite for a backend.
type Options struct {
	// DataDir is a host directory to mount read-only at /app/tool_source_code;
	// "" makes one with a single file.
	DataDir string
	// MeasuresCPU says that the backend reports Result.CPU (the local
	// backend's warm workers); the CPU-time check is skipped otherwise.
	MeasuresCPU bool
}

// Run runs every check against sb, each as a subtest.
func Run(t *testing.T, sb sandbox.Sandbox, o Options) {
	if o.DataDir == "" {
		// Not t.TempDir(): its parent is 0700, unreadable by a sandbox uid.
		dir, err := os.MkdirTemp("", "sandboxtest-data-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		o.DataDir = dir
		if err := os.WriteFile(o.DataDir+"/input.txt", []byte("hello-data"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(o.DataDir, 0o755)
	}
	s := &suite{sb: sb, o: o, marker: "mattools-hostile-" + nonce()}
	tests := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"ResultExitCodeAndStreams", s.resultRoundTrip},
		{"LoopbackRefusedOnlyLo", s.network},
		{"WritesOutsideAppAndTmpRefused", s.writes},
		{"SecretsAndRootHomeInvisible", s.secrets},
		{"KeyringsAndKernelSurfaceDenied", s.seccomp},
		{"DataFilesPrivatePerTask", s.privateData},
		{"ForkBomb", s.forkBomb},
		{"ForkingMemoryBomb", s.memoryBomb},
		{"InfiniteLoop", s.infiniteLoop},
		{"StdoutFlood100MB", s.flood},
		{"SetsidSleepingGrandchild", s.setsidGrandchild},
		{"SIGTERMIgnored", s.sigtermIgnored},
		{"CPUTimeOfEveryProcess", s.cpuTime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t)
			s.nothingLeft(t)
		})
	}
	t.Run("HealthyAfterwards", func(t *testing.T) {
		res := s.run(t, "print('still fine')", sandbox.Limits{Wall: 30 * time.Second})
		if res.ExitCode != 0 || strings.TrimSpace(string(res.Stdout)) != "still fine" {
			t.Fatalf("after the hostile programs: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
		}
	})
}

type suite struct {
	sb     sandbox.Sandbox
	o      Options
	marker string
}

func nonce() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// run executes a Python program (with the suite's marker in a comment, so it
// appears in the sandbox's /sbx but not in argv) and returns its result.
func (s *suite) run(t *testing.T, program string, lim sandbox.Limits, args ...string) *sandbox.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := s.sb.Run(ctx, sandbox.Spec{
		Files:   map[string][]byte{"main.py": []byte(program)},
		Argv:    append([]string{"python3", "-I", "/sbx/main.py", s.marker}, args...),
		DataDir: s.o.DataDir,
		Limits:  lim,
	})
	if err != nil {
		t.Fatalf("sandbox error: %v", err)
	}
	return res
}

// nothingLeft fails if any process on the host still carries the marker
// (every hostile program passes it in argv, and so do their children that
// re-exec Python with it), or, for the local backend, runs as a slot uid
// and is not one of its warm workers' own processes (sandbox.LeftBehind; a
// warm execution's code keeps the worker's command line, so the marker
// check sees only what it re-executes).
func (s *suite) nothingLeft(t *testing.T) {
	t.Helper()
	var left []string
	deadline := time.Now().Add(3 * time.Second)
	for {
		left = left[:0]
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err != nil || !bytes.Contains(cl, []byte(s.marker)) {
				continue
			}
			st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			if i := bytes.LastIndexByte(st, ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
				continue // a zombie holds no resources; reaping is checked below
			}
			left = append(left, e.Name()+" "+string(bytes.ReplaceAll(cl, []byte{0}, []byte{' '})))
		}
		// Every process of the local backend's slot uids but its warm
		// workers' own (bubblewrap, its init, the zygote): what a task left.
		left = append(left, sandbox.LeftBehind(s.sb)...)
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("processes left behind after the task: %q", left)
	}
	if z := zombieChildren(); len(z) > 0 {
		t.Errorf("unreaped zombie children of the runner: %v", z)
	}
}

// zombieChildren lists zombies whose parent is this process.
func zombieChildren() []string {
	me := strconv.Itoa(os.Getpid())
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(st[i+1:]))
		if len(f) > 1 && f[0] == "Z" && f[1] == me {
			// pid (executable name), as /proc/<pid>/stat gives it
			out = append(out, e.Name()+" "+string(st[bytes.IndexByte(st, '('):i+1]))
		}
	}
	return out
}

func (s *suite) resultRoundTrip(t *testing.T) {
	res := s.run(t, `import os, sys
print("hi")
sys.stderr.write("warn\n")
os.write(3, b'{"answer": "' + open("tool_source_code/input.txt").read().strip().encode() + b'"}')
sys.exit(3)
`, sandbox.Limits{Wall: 30 * time.Second})
	if res.ExitCode != 3 || string(res.Stdout) != "hi\n" || string(res.Stderr) != "warn\n" || string(res.Side) != `{"answer": "hello-data"}` {
		t.Errorf("got exit %d, stdout %q, stderr %q, side %q; want 3, \"hi\\n\", \"warn\\n\", the data file's text", res.ExitCode, res.Stdout, res.Stderr, res.Side)
	}
	if res.TimedOut {
		t.Error("TimedOut set for a program that exited")
	}
}

func (s *suite) network(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted int
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted++
			mu.Unlock()
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	res := s.run(t, fmt.Sprintf(`import socket
try:
    socket.create_connection(("127.0.0.1", %d), timeout=3)
    print("connect: OK")
except OSError as e:
    print("connect:", type(e).__name__)
print("interfaces:", ",".join(sorted(n for _, n in socket.if_nameindex())))
`, port), sandbox.Limits{Wall: 30 * time.Second})
	out := string(res.Stdout)
	if !strings.Contains(out, "connect: ConnectionRefusedError") && !strings.Contains(out, "connect: OSError") {
		t.Errorf("connecting to the host's 127.0.0.1:%d from the sandbox: %q; want refused", port, out)
	}
	if !strings.Contains(out, "interfaces: lo\n") {
		t.Errorf("interfaces inside the sandbox: %q; want only lo", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if accepted != 0 {
		t.Errorf("the host listener accepted %d connections from the sandbox", accepted)
	}
}

func (s *suite) writes(t *testing.T) {
	res := s.run(t, `import os
for p in ["/etc/pwned", "/usr/pwned", "/pwned", "/sbx/pwned", "/app/tool_source_code/pwned", "/proc/sys/kernel/pwned", "/app/ok.txt", "/tmp/ok.txt"]:
    try:
        with open(p, "w") as f:
            f.write("x")
        print(p, "OK")
    except OSError as e:
        print(p, "refused", e.errno)
`, sandbox.Limits{Wall: 30 * time.Second})
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 {
			got[f[0]] = f[1]
		}
	}
	for _, p := range []string{"/etc/pwned", "/usr/pwned", "/pwned", "/sbx/pwned", "/app/tool_source_code/pwned", "/proc/sys/kernel/pwned"} {
		if got[p] != "refused" {
			t.Errorf("write %s: %q; want refused (stdout %q, stderr %q)", p, got[p], res.Stdout, res.Stderr)
		}
	}
	for _, p := range []string{"/app/ok.txt", "/tmp/ok.txt"} {
		if got[p] != "OK" {
			t.Errorf("write %s: %q; want OK", p, got[p])
		}
	}
	if _, err := os.Stat(s.o.DataDir + "/pwned"); err == nil {
		t.Error("a file appeared in the host's data directory")
	}
}

func (s *suite) secrets(t *testing.T) {
	secret := "sk-test-" + nonce()
	t.Setenv("OPENAI_API_KEY", secret)
	os.WriteFile("/root/.mattools-sandbox-secret-probe", []byte(secret), 0o600)
	defer os.Remove("/root/.mattools-sandbox-secret-probe")
	// The runner's own scratch: its temporary directory (in the rootless
	// mode the user's, readable by the user the code runs as), which holds
	// the sandbox's task folders.
	scratch, err := os.CreateTemp("", "mattools-secret-probe-")
	if err != nil {
		t.Fatal(err)
	}
	scratch.WriteString(secret)
	scratch.Close()
	defer os.Remove(scratch.Name())
	res := s.run(t, `import os, glob, sys
try:
    print("SCRATCH", open(sys.argv[2]).read())
except OSError as e:
    print("SCRATCH refused", type(e).__name__)
try:
    print("TMPDIR", os.listdir(os.path.dirname(sys.argv[2])))
except OSError as e:
    print("TMPDIR refused", type(e).__name__)
print("ENV", dict(os.environ))
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            print("PROCENV", pid, open(f"/proc/{pid}/environ", "rb").read())
        except OSError as e:
            print("PROCENV", pid, "refused")
try:
    print("ROOT", os.listdir("/root"))
    print("SECRET", open("/root/.mattools-sandbox-secret-probe").read())
except OSError as e:
    print("ROOT refused", type(e).__name__)
`, sandbox.Limits{Wall: 30 * time.Second}, scratch.Name())
	if res.ExitCode != 0 {
		t.Fatalf("probe failed: %q", res.Stderr)
	}
	all := string(res.Stdout) + string(res.Stderr)
	if !strings.Contains(all, "SCRATCH refused") {
		t.Errorf("a file in the runner's temporary directory is readable from the sandbox: %q", all)
	}
	if strings.Contains(all, secret) {
		t.Errorf("the runner's API key is visible in the sandbox: %q", all)
	}
	if strings.Contains(all, "OPENAI_API_KEY") {
		t.Errorf("the runner's environment leaks into the sandbox: %q", all)
	}
	if !strings.Contains(all, "ROOT refused") {
		t.Errorf("root's home is readable from the sandbox: %q", all)
	}
}

// seccomp: the kernel keyrings (not namespaced: a session keyring
// inherited from the runner would hand its secrets to the code, and a key
// added here would outlive the task), tracing, eBPF, perf, userfaultfd and
// io_uring fail with EPERM, mount and namespace calls too, and clone3 with
// ENOSYS (seccomp.go's two layers); the calls are made by number, as
// hostile code would, bypassing libc. Only the local backend installs
// these filters (Docker keeps its default profile, which denies them too);
// the check is skipped for backends whose Info says otherwise.
func (s *suite) seccomp(t *testing.T) {
	if s.sb.Info().Backend != "local" {
		t.Skip("the seccomp layers are the local backend's (Docker applies its default profile)")
	}
	calls := []struct {
		name string
		nr   uintptr
		args string
		want syscall.Errno
	}{
		{"keyctl(GET_KEYRING_ID, session)", syscall.SYS_KEYCTL, "0, -3, 0", syscall.EPERM},
		{"keyctl(READ, session)", syscall.SYS_KEYCTL, "11, -3, 0, 0", syscall.EPERM},
		{"add_key(user, session)", syscall.SYS_ADD_KEY, `b"user", b"mattools-probe", b"x", 1, -3`, syscall.EPERM},
		{"request_key(user)", syscall.SYS_REQUEST_KEY, `b"user", b"mattools-probe", None, 0`, syscall.EPERM},
		{"ptrace(TRACEME)", syscall.SYS_PTRACE, "0, 0, 0, 0", syscall.EPERM},
		{"bpf", 321, "0, 0, 0", syscall.EPERM},
		{"perf_event_open", syscall.SYS_PERF_EVENT_OPEN, "0, 0, -1, -1, 0", syscall.EPERM},
		{"userfaultfd", 323, "0", syscall.EPERM},
		{"io_uring_setup", 425, "1, 0", syscall.EPERM},
		{"unshare(NEWNS)", syscall.SYS_UNSHARE, "0x20000", syscall.EPERM},
		{"mount", syscall.SYS_MOUNT, `b"none", b"/tmp", b"tmpfs", 0, None`, syscall.EPERM},
		{"clone3", 435, "0, 0", syscall.ENOSYS},
		{"socket(AF_VSOCK)", syscall.SYS_SOCKET, "40, 1, 0", syscall.EPERM},
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("the syscall numbers of this check are x86-64's")
	}
	var prog strings.Builder
	prog.WriteString("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall.restype = ctypes.c_long\n")
	for _, c := range calls {
		fmt.Fprintf(&prog, "ctypes.set_errno(0)\nr = libc.syscall(%d, %s)\nprint(%q, r, ctypes.get_errno())\n", c.nr, c.args, c.name)
	}
	prog.WriteString("import os\nprint('still running', os.getpid() > 0)\n")
	res := s.run(t, prog.String(), sandbox.Limits{Wall: 30 * time.Second})
	out := string(res.Stdout)
	if res.ExitCode != 0 || !strings.Contains(out, "still running True") {
		t.Fatalf("probe failed: exit %d, stdout %q, stderr %q", res.ExitCode, out, res.Stderr)
	}
	for _, c := range calls {
		want := fmt.Sprintf("%s -1 %d\n", c.name, int(c.want))
		if !strings.Contains(out, want) {
			line := ""
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, c.name+" ") {
					line = l
				}
			}
			t.Errorf("%s: got %q, want return -1 with errno %d (%v)", c.name, line, int(c.want), c.want)
		}
	}
}

// privateData: two tasks at once, each given the data file input.txt
// (Spec.DataFiles). The first holds an exclusive flock on it and reads it
// in a loop; the second, a moment later, takes the same lock without
// waiting and watches the file with inotify: it gets the lock and sees no
// event, because each task has its own copy (no shared inode). With the
// whole data folder mounted (DataDir alone), the same pair shows the
// channel: the lock is refused (EAGAIN) and the reads are seen.
func (s *suite) privateData(t *testing.T) {
	if s.sb.Info().Slots < 2 {
		t.Skip("needs two slots")
	}
	holder := `import fcntl, time
f = open("/app/tool_source_code/input.txt")
fcntl.flock(f, fcntl.LOCK_EX)
print("locked", flush=True)
end = time.time() + 4
while time.time() < end:
    open("/app/tool_source_code/input.txt").read()
    time.sleep(0.05)
`
	watcher := `import ctypes, fcntl, os, select, struct, time
time.sleep(1.5)
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK)
wd = libc.inotify_add_watch(fd, b"/app/tool_source_code/input.txt", 0x20 | 0x01)  # IN_OPEN | IN_ACCESS
f = open("/app/tool_source_code/input.txt")
try:
    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("lock free")
except BlockingIOError:
    print("lock held by another task")
f.close()
os.read(fd, 4096) if select.select([fd], [], [], 0)[0] else None  # our own open and read
events = 0
end = time.time() + 1.5
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        events += len(os.read(fd, 65536)) // 16
print("events", events)
`
	pair := func(files []string) string {
		var wg sync.WaitGroup
		var out string
		wg.Add(2)
		for i, prog := range []string{holder, watcher} {
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				res, err := s.sb.Run(ctx, sandbox.Spec{Files: map[string][]byte{"main.py": []byte(prog)},
					Argv: []string{"python3", "-I", "/sbx/main.py", s.marker}, DataDir: s.o.DataDir, DataFiles: files,
					Limits: sandbox.Limits{Wall: 30 * time.Second}})
				if err != nil {
					t.Errorf("sandbox error: %v", err)
					return
				}
				if i == 1 {
					out = string(res.Stdout) + string(res.Stderr)
				}
			}()
		}
		wg.Wait()
		return out
	}
	if out := pair([]string{"input.txt"}); !strings.Contains(out, "lock free") || !strings.Contains(out, "events 0\n") {
		t.Errorf("with private copies, the second task sees the first: %q", out)
	}
	if out := pair(nil); !strings.Contains(out, "lock held by another task") || strings.Contains(out, "events 0\n") {
		t.Logf("with the shared data folder the channel did not show (timing?): %q", out)
	}
}

func (s *suite) forkBomb(t *testing.T) {
	res := s.run(t, `import os, time
n = 0
while True:
    try:
        os.fork()
        n += 1
    except OSError:
        time.sleep(0.01)
`, sandbox.Limits{Wall: 3 * time.Second})
	if !res.TimedOut {
		t.Errorf("fork bomb: TimedOut false (exit %d, stderr %q)", res.ExitCode, res.Stderr)
	}
}

func memAvailable() int64 {
	data, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func (s *suite) memoryBomb(t *testing.T) {
	before := memAvailable()
	low := before
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				if m := memAvailable(); m < low {
					low = m
				}
			}
		}
	}()
	// Every process grabs memory in 64 MiB steps, touching it, and forks.
	res := s.run(t, `import os, time
hog = []
while True:
    try:
        hog.append(bytearray(64 << 20))
    except MemoryError:
        pass
    try:
        os.fork()
    except OSError:
        time.sleep(0.01)
`, sandbox.Limits{Wall: 4 * time.Second, AddressSpace: 512 << 20, NProc: 16, MemoryCgroup: 1 << 30, PidsCgroup: 16})
	close(stop)
	wg.Wait()
	drop := before - low
	t.Logf("forking memory bomb: timed out %v, OOM kill %v, exit %d; host MemAvailable fell by at most %d MiB", res.TimedOut, res.OOMKilled, res.ExitCode, drop>>20)
	// Bounded by the limits: 16 processes × 512 MiB without a cgroup, 1 GiB with one.
	if drop > 9<<30 {
		t.Errorf("host MemAvailable fell by %d MiB during the memory bomb", drop>>20)
	}
}

func (s *suite) infiniteLoop(t *testing.T) {
	res := s.run(t, "while True:\n    pass\n", sandbox.Limits{Wall: 2 * time.Second})
	if !res.TimedOut || res.Signal != "killed" {
		t.Errorf("infinite loop: TimedOut %v, signal %q; want a timeout and a kill", res.TimedOut, res.Signal)
	}
	if res.Duration > 10*time.Second {
		t.Errorf("a 2 s limit took %v to enforce", res.Duration)
	}
}

func (s *suite) flood(t *testing.T) {
	const total = 100 << 20
	res := s.run(t, `import sys
chunk = b"x" * (1 << 20)
for _ in range(100):
    sys.stdout.buffer.write(chunk)
sys.stdout.flush()
`, sandbox.Limits{Wall: 60 * time.Second, StdoutBytes: 64 << 10})
	if res.ExitCode != 0 {
		t.Fatalf("flood: exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
	if len(res.Stdout) != 64<<10 || int64(len(res.Stdout))+res.StdoutDropped != total {
		t.Errorf("flood: kept %d bytes, dropped %d; want %d kept and %d in all", len(res.Stdout), res.StdoutDropped, 64<<10, total)
	}
}

func (s *suite) setsidGrandchild(t *testing.T) {
	// The grandchild re-execs Python with the marker in argv so /proc shows it.
	res := s.run(t, `import os, subprocess, sys
subprocess.Popen(["setsid", sys.executable, "-c", "import time; time.sleep(4242)", sys.argv[1]],
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(4243)", sys.argv[1]])
    os._exit(0)
print("started")
`, sandbox.Limits{Wall: 20 * time.Second})
	if !strings.Contains(string(res.Stdout), "started") {
		t.Errorf("setsid program: stdout %q, stderr %q", res.Stdout, res.Stderr)
	}
}

func (s *suite) sigtermIgnored(t *testing.T) {
	res := s.run(t, `import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(4244)", sys.argv[1]])
print("ignoring SIGTERM", flush=True)
while True:
    time.sleep(1)
`, sandbox.Limits{Wall: 2 * time.Second})
	if !res.TimedOut {
		t.Errorf("SIGTERM-ignoring process: TimedOut false, exit %d", res.ExitCode)
	}
}

// cpuTime: Result.CPU counts the CPU time of the task's processes, its
// children's included, and not the time it sleeps. The program measures
// its own and its reaped child's CPU time (getrusage) and reports it; the
// sandbox's count must be at least that, whatever the machine's speed, and
// below the wall time of a task that mostly sleeps (Options.MeasuresCPU).
func (s *suite) cpuTime(t *testing.T) {
	if !s.o.MeasuresCPU {
		t.Skip("this backend does not measure CPU time (Result.CPU is 0)")
	}
	res := s.run(t, `import os, resource, subprocess, sys, time
subprocess.run([sys.executable, "-c", "x = 0\nfor i in range(3_000_000): x += i"], check=True)
x = 0
for i in range(1_000_000):
    x += i
time.sleep(1)
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
os.write(3, repr(me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime).encode())
`, sandbox.Limits{Wall: 2 * time.Minute})
	measured, err := strconv.ParseFloat(string(res.Side), 64)
	if res.ExitCode != 0 || err != nil {
		t.Fatalf("exit %d, side %q, stderr %q", res.ExitCode, res.Side, res.Stderr)
	}
	if got := res.CPU.Seconds(); got < measured || got <= 0 {
		t.Errorf("Result.CPU = %.3f s; the program itself measured %.3f s of CPU time for it and its child", got, measured)
	}
	if res.CPU >= res.Duration {
		t.Errorf("Result.CPU = %v for a task that slept 1 s of its %v (one process at a time)", res.CPU, res.Duration)
	}
}
