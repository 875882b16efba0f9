package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// dataDir makes a folder a slot uid can read, with one file.
func dataDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "warm-data-") // not t.TempDir(): its parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	if err := os.MkdirAll(dir+"/pkg/tests", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"input.txt": "hello-data", "pkg/tests/GaN.vasp": "GaN\n1.0\n"} {
		if err := os.WriteFile(dir+"/"+name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// warmCases are programs whose every observable result a warm execution
// must reproduce byte for byte: exit status and signal, stdout, stderr
// (tracebacks included), the side channel, what the process sees of its
// identity, files, limits and environment.
var warmCases = []struct {
	name, program string
	stdin         string
	files         []string // Spec.DataFiles; nil mounts the whole data folder
	lim           sandbox.Limits
}{
	{name: "streams-and-exit", program: `import os, sys
print("out"); print("err", file=sys.stderr); os.write(3, b'{"side": 1}')
sys.exit(3)`},
	{name: "uncaught-exception", program: `def f():
    raise ValueError("boom")
print("before")
f()`},
	{name: "exit-message", program: `import sys
sys.exit("a message")`},
	{name: "exit-none", program: `raise SystemExit`},
	{name: "signal-self", program: `import os, signal
print("bye", flush=True)
os.kill(os.getpid(), signal.SIGTERM)
print("not reached")`},
	{name: "threads-and-atexit", program: `import atexit, threading, time
atexit.register(lambda: print("atexit"))
def late():
    time.sleep(0.3)
    print("thread done", flush=True)
threading.Thread(target=late).start()
print("main done")`},
	{name: "stdin", stdin: "line one\nline two\n", program: `import sys
print(sys.stdin.read().upper())`},
	{name: "identity-and-view", files: []string{"input.txt"}, program: `import os, sys, resource
st = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
print(os.getuid(), os.getgid(), os.getpid(), os.getppid(), os.getcwd())
print(sorted(os.environ.items()))
print(sys.argv, __name__, __file__, sys.path, sys.flags.isolated)
print(sorted(p for p in os.listdir("/proc") if p.isdigit()))
print(sorted(os.listdir("/app")), sorted(os.listdir("/tmp")), sorted(os.listdir("/dev/shm")), sorted(os.listdir("/sbx")))
print(st["CapEff"].strip(), st["CapPrm"].strip(), st["CapBnd"].strip(), st["NoNewPrivs"].strip(), st["Seccomp"].strip())
print(os.stat("/proc/self/mem").st_uid == os.getuid(), os.uname().nodename)
for r in ("CPU", "FSIZE", "NOFILE", "CORE"):  # AS: warm adds what the preload maps (docs/sandbox.md)
    print(r, resource.getrlimit(getattr(resource, "RLIMIT_" + r)))
print(open("/app/tool_source_code/input.txt").read(), sorted(os.listdir("/app/tool_source_code")))
print(open("/etc/passwd").read().split(":")[0])`},
	{name: "whole-data-folder", program: `import os
print(sorted(os.listdir("/app/tool_source_code")), open("/app/tool_source_code/pkg/tests/GaN.vasp").read())`},
	{name: "private-copy-narrows", files: []string{"pkg/tests/GaN.vasp"}, program: `import os
print(sorted(os.listdir("/app/tool_source_code")), os.path.exists("/app/tool_source_code/input.txt"))`},
	{name: "read-only-places", program: `import errno
for p in ("/usr/x", "/x.txt", "/sbx/x", "/app/tool_source_code/x", "/etc/x"):
    try:
        open(p, "w")
        print(p, "writable")
    except OSError as e:
        print(p, errno.errorcode[e.errno])
open("/app/ok", "w").write("1"); open("/tmp/ok", "w").write("1"); print("app and tmp writable")`},
	{name: "memory-limit", lim: sandbox.Limits{AddressSpace: 512 << 20}, program: `try:
    b = bytearray(1 << 30)
    print("allocated")
except MemoryError:
    print("MemoryError")`},
	{name: "file-size-limit", lim: sandbox.Limits{FileSize: 1 << 20}, program: `try:
    with open("/tmp/big", "wb") as f:
        f.write(b"x" * (2 << 20))
    print("written")
except OSError as e:
    print("OSError", e.errno)`},
	{name: "output-cap", program: `import sys
sys.stdout.write("x" * (3 << 20)); sys.stderr.write("y" * (2 << 20))`},
	{name: "subprocess-and-pool", program: `import multiprocessing as mp, subprocess, sys
print(subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout.strip(), __name__, flush=True)
def sq(x):
    return x * x
if __name__ == "__main__":
    for method in ("fork", "spawn"):
        with mp.get_context(method).Pool(1) as p:
            print(method, p.map(sq, range(5)), flush=True)`},
	// An explicit hang the wall limit kills: it sleeps, so it never finishes
	// however fast the machine is, and the 8 s leave a loaded machine's cold
	// start time to print first.
	{name: "timeout", lim: sandbox.Limits{Wall: 8 * time.Second}, program: `import time
print("hanging", flush=True)
while True:
    time.sleep(1)`},
	{name: "tmpfs-sizes", lim: sandbox.Limits{TmpBytes: 8 << 20, WorkBytes: 8 << 20}, program: `for d in ("/tmp", "/app", "/dev/shm"):
    try:
        with open(d + "/big", "wb") as f:
            f.write(b"x" * (16 << 20))
        print(d, "16 MiB written")
    except OSError as e:
        print(d, "OSError", e.errno)`},
	{name: "process-group-signals", program: `import os, signal
print(os.getpid(), os.getpgrp(), os.getsid(0), flush=True)
signal.signal(signal.SIGTERM, lambda *a: print("got TERM", flush=True))
os.killpg(os.getpgrp(), signal.SIGTERM)
os.kill(1, signal.SIGINT)
os.kill(0, signal.SIGHUP)
print("not reached")`},
	{name: "unclosed-files-and-destructors", program: `class A:
    def __del__(self):
        print("destructor at exit")
a = A()
side = open(3, "w")
side.write('{"answer": 42}')
log = open("/tmp/log", "w")
log.write("unflushed")`},
	{name: "exit-out-of-range", program: `import sys
sys.exit(2 ** 100)`},
	{name: "keyboard-interrupt", program: `raise KeyboardInterrupt`},
	{name: "stdout-flush-fails", program: `import os, sys
fd = os.open("/dev/full", os.O_WRONLY)
os.dup2(fd, 1)
print("x" * 100)`},
	{name: "stdin-is-devnull", program: `import os, stat
st = os.fstat(0)
print(stat.S_ISCHR(st.st_mode), os.read(0, 10))`},
	{name: "process-limit", lim: sandbox.Limits{NProc: 12, PidsCgroup: 12}, program: `import os, signal, time
pids = []
while len(pids) < 100:
    try:
        pid = os.fork()
    except OSError as e:
        print("stopped by", type(e).__name__, e.errno)
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    pids.append(pid)
print("forked", len(pids))
for p in pids:
    os.kill(p, signal.SIGKILL)`},
	{name: "daemonized-grandchild", program: `import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
print("left a sleeper")`},
}

// TestWarmMatchesCold runs every warmCases program in a cold and in a warm
// sandbox and wants the same result, field by field; then checks that the
// warm one ran them all warm and left nothing running.
func TestWarmMatchesCold(t *testing.T) {
	sandbox.InBothModes(t)
	dir := dataDir(t)
	cold := openOrSkip(t, "local", sandbox.Options{Slots: 1, Cold: true, DataDirs: []string{dir}})
	warm := openOrSkip(t, "local", sandbox.Options{Slots: 1, DataDirs: []string{dir}})
	if w, _ := sandbox.Executions(cold); w != 0 {
		t.Fatalf("the cold sandbox ran %d executions warm", w)
	}
	_, coldBefore := sandbox.Executions(warm)
	for _, c := range warmCases {
		t.Run(c.name, func(t *testing.T) {
			spec := sandbox.Spec{Files: map[string][]byte{"main.py": []byte(c.program)}, Argv: []string{"python3", "-I", "/sbx/main.py", "arg1"},
				Stdin: []byte(c.stdin), DataDir: dir, DataFiles: c.files, Limits: c.lim}
			ctx := context.Background()
			want, err := cold.Run(ctx, spec)
			if err != nil {
				t.Fatalf("cold: %v", err)
			}
			got, err := warm.Run(ctx, spec)
			if err != nil {
				t.Fatalf("warm: %v", err)
			}
			norm := func(r *sandbox.Result, sb sandbox.Sandbox) string {
				uid := fmt.Sprint(sandbox.UIDs(sb)[0])
				return strings.ReplaceAll(fmt.Sprintf("exit %d signal %q timed out %v oom %v\nstdout (%d dropped) %q\nstderr (%d dropped) %q\nside %q",
					r.ExitCode, r.Signal, r.TimedOut, r.OOMKilled, r.StdoutDropped, r.Stdout, r.StderrDropped, r.Stderr, r.Side), uid, "<slot uid>")
			}
			if norm(got, warm) != norm(want, cold) {
				t.Errorf("warm differs from cold:\nwarm: %s\ncold: %s", norm(got, warm), norm(want, cold))
			}
			if c.name == "identity-and-view" && !strings.Contains(string(got.Stdout), "0000000000000000 0000000000000000 0000000000000000 1 2") {
				t.Errorf("the warm execution keeps capabilities or lacks no_new_privs/seccomp: %s", got.Stdout)
			}
			if left := sandbox.LeftBehind(warm); len(left) > 0 {
				t.Errorf("left running after the warm execution: %q", left)
			}
		})
	}
	if w, c := sandbox.Executions(warm); w < int64(len(warmCases)) || c != coldBefore {
		t.Errorf("the warm sandbox ran %d warm and %d cold executions; want all %d cases warm", w, c-coldBefore, len(warmCases))
	}
}

// TestWarmExecutionsCannotReachTheNext: a hostile execution writes where it
// can, kills every process it can signal, changes module state and fills
// the exchange folder's cover; the next execution in the same worker sees
// none of it, and the worker is the same one (not restarted).
func TestWarmExecutionsCannotReachTheNext(t *testing.T) {
	sandbox.InBothModes(t)
	dir := dataDir(t)
	sb := openOrSkip(t, "local", sandbox.Options{Slots: 1, DataDirs: []string{dir}})
	hostile := `import json, os, signal, sys
for p in ("/tmp/planted", "/app/planted", "/dev/shm/planted"):
    open(p, "w").write("x")
json.dumps = lambda *a, **k: "tampered"
sys.modules["os"].environ["PLANTED"] = "1"
for p in ("/x/planted", "/d/planted", "/sbx/planted"):
    try:
        open(p, "w")
        print("wrote", p)
    except OSError:
        pass
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
shm = libc.shmget(0x1234, 1 << 20, 0o1000 | 0o600)  # IPC_CREAT
print("shm", shm >= 0, libc.mq_open(b"/persist", os.O_CREAT | os.O_RDWR, 0o600, None) >= 0)
print(sorted(os.listdir("/x")), sorted(os.listdir("/d")), flush=True)
os.kill(-1, signal.SIGKILL)  # every process this one may signal
`
	check := `import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
ipc = [libc.shmget(0x1234, 0, 0) >= 0, libc.mq_open(b"/persist", os.O_RDONLY) >= 0]
print([p for p in ("/tmp/planted", "/app/planted", "/dev/shm/planted") if os.path.exists(p)], json.dumps({"a": 1}), "PLANTED" in os.environ, ipc)
`
	run := func(prog string) *sandbox.Result {
		res, err := sb.Run(context.Background(), sandbox.Spec{Files: map[string][]byte{"main.py": []byte(prog)},
			Argv: []string{"python3", "-I", "/sbx/main.py"}, DataDir: dir, DataFiles: []string{"input.txt"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := run(hostile)
	if strings.Contains(string(first.Stdout), "wrote") || !strings.Contains(string(first.Stdout), "[] []") || !strings.Contains(string(first.Stdout), "shm True True") {
		t.Errorf("the hostile execution wrote into, or saw into, the exchange or data folders: %q %q", first.Stdout, first.Stderr)
	}
	before := sandbox.LeftBehind(sb)
	res := run(check)
	if got := strings.TrimSpace(string(res.Stdout)); got != `[] {"a": 1} False [False, False]` {
		t.Errorf("the next execution saw the hostile one's traces: %q (stderr %q)", got, res.Stderr)
	}
	if w, c := sandbox.Executions(sb); c != 0 || w < 3 {
		t.Errorf("executions: %d warm, %d cold; want all warm", w, c)
	}
	if len(before) > 0 {
		t.Errorf("left running: %q", before)
	}

	// Found in review: what counts per uid, or lives in a shared network
	// namespace, must be freed within the execution, not when its pid 1's
	// exit tears its namespaces down after the result.
	for _, c := range []struct{ name, fill, check, want string }{
		{"message-queue quota", `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while libc.mq_open(b"/fill%d" % n, os.O_CREAT | os.O_RDWR, 0o600, None) >= 0:
    n += 1
print("created", n, os.strerror(ctypes.get_errno()))`, `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
print("mq_open", "ok" if libc.mq_open(b"/mine", os.O_CREAT | os.O_RDWR, 0o600, None) >= 0 else os.strerror(ctypes.get_errno()))`, "mq_open ok"},
		{"TCP TIME_WAIT ports", `import socket
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 40000))
srv.listen(64)
for i in range(8):
    c = socket.socket()
    c.bind(("127.0.0.1", 41000 + i))
    c.connect(("127.0.0.1", 40000))
    a, _ = srv.accept()
    c.close()  # the active close leaves the port in TIME_WAIT
    a.close()`, `import socket
busy = []
for i in range(8):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 41000 + i))
    except OSError:
        busy.append(i)
    s.close()
print("busy", busy)`, "busy []"},
	} {
		for round := range 3 { // the quota's release raced with the next execution's start
			run(c.fill)
			if got := strings.TrimSpace(string(run(c.check).Stdout)); got != c.want {
				t.Errorf("%s, round %d: the next execution saw %q, want %q", c.name, round, got, c.want)
			}
		}
	}
}

// TestWarmWorkerSurvivesItsExecutions: code that stops its own process
// group, or signals everything it can name, times out or ends as a cold run
// does; Run returns within the time limit and a grace period, and the next
// execution runs in the same worker.
func TestWarmWorkerSurvivesItsExecutions(t *testing.T) {
	sandbox.InBothModes(t)
	sb := openOrSkip(t, "local", sandbox.Options{Slots: 1})
	run := func(prog string, wall time.Duration) (*sandbox.Result, time.Duration) {
		t.Helper()
		start := time.Now()
		res, err := sb.Run(context.Background(), sandbox.Spec{Files: map[string][]byte{"main.py": []byte(prog)},
			Argv: []string{"python3", "-I", "/sbx/main.py"}, Limits: sandbox.Limits{Wall: wall}})
		if err != nil {
			t.Fatalf("%q: sandbox error: %v", prog, err)
		}
		return res, time.Since(start)
	}
	if res, took := run("import os, signal\nos.kill(0, signal.SIGSTOP)\nprint('resumed')", 2*time.Second); !res.TimedOut || took > 2*time.Second+30*time.Second {
		t.Errorf("SIGSTOP to its own group: timed out %v after %v; want a timeout within the limit and the grace period", res.TimedOut, took)
	}
	for _, prog := range []string{
		"import os, signal\nos.killpg(os.getpgrp(), signal.SIGTERM)",
		"import os, signal\nfor s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):\n    os.kill(1, s)\nprint('alive')",
	} {
		run(prog, 10*time.Second)
	}
	if res, _ := run("print('next')", 10*time.Second); strings.TrimSpace(string(res.Stdout)) != "next" {
		t.Errorf("the execution after them: %q %q", res.Stdout, res.Stderr)
	}
	if left := sandbox.LeftBehind(sb); len(left) > 0 {
		t.Errorf("left running: %q", left)
	}
}
