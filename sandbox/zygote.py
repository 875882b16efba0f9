"""The warm worker of the local sandbox backend (warm.go; issue 16).

One per sandbox slot, started by bubblewrap like any task (base seccomp layer,
no network, the slot's uid, read-only /usr), as `python3 -I /sbx/zygote.py`.
It imports the modules named in /sbx/preload.txt once and then, for each
request of the runner on its control socket (fd 3), clones a fresh
execution's pid 1, ahead of the execution (a spare: the runner asks for the
next one while the current execution runs). It never runs untrusted code
itself: a request carries only an id and the execution's socket; the
execution's folder, data path and limits come to G on that socket (its argv
and environment are in the folder's exec.json, read by G), and its files are
written by the runner. Each execution is two processes:

  G   cloned from the zygote (clone_execution) as pid 1 of new pid, mount,
      IPC and UTS namespaces; a session and process group of its own
      (setsid), SIGINT back to its default (so, as init, it ignores every
      signal the code can send it): sends its credentials on the execution's
      socket (the runner learns G's host pid from SCM_CREDENTIALS and places
      it in the task's cgroups), and once told it is placed mounts a fresh
      /proc and forks H; then waits for its request and descriptors, reads
      exec.json, mounts a fresh /tmp, /app and /dev/shm, binds the
      execution's /sbx and its data (a private copy, or a folder of /d)
      read-only, covers /x and /d with empty tmpfs, hands H what to run, its
      rlimits and descriptors, says "running", reaps every process until H
      ends, kills and reaps whatever H left running, sends H's status (128 +
      n for a signal n, as bubblewrap reports it) and exits with it.
  H   pid 2, as a cold task's code under bubblewrap's init (so signals and
      orphans behave as there): drops every capability (bounding set
      included), sets no_new_privs, installs the untrusted seccomp layer
      (/sbx/seccomp-untrusted.bpf of the zygote: mount and namespace calls
      denied), becomes dumpable again, waits for G's go (spare_code), takes
      its descriptors and sets its rlimits, reseeds numpy's global generator, and
      runs the script as `python3 -I script args` would (run_script): a fresh
      __main__ module, sys.argv and sys.orig_argv, SystemExit's exit status,
      an uncaught exception through sys.excepthook (its traceback from the
      script's frame on), then what interpreter shutdown does that a program
      can observe.

A hostile execution cannot change what the next one sees: module state is
copied on clone and the zygote's own memory is never written by an
execution; /tmp, /app, /dev/shm and /proc are fresh mounts in a mount
namespace, and SysV and POSIX IPC objects live in an IPC namespace, that die
with G; the exchange folder holds only the current execution's files and is
covered before untrusted code runs; the zygote is outside the execution's pid
namespace, session and process group, so no signal reaches it. Found in
review and tested (warm_test.go): a shared process group let the code stop or
kill the zygote, a shared IPC namespace kept shm segments (and their memory)
from one execution to the next.
"""
import ctypes
import json
import os
import resource
import signal
import socket
import struct
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWUSER = 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
PR_SET_DUMPABLE, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, PR_CAPBSET_DROP = 4, 47, 4, 24
SYS_CAPSET = 126  # x86_64; checked at start-up (other architectures: see check_arch)

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
libc.unshare.argtypes = [ctypes.c_int]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]


def check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")


def mount(src, target, fstype, flags, data=None):
    check(libc.mount(src and src.encode(), target.encode(), fstype and fstype.encode(), flags,
                     data and data.encode()), f"mount {target}")


def die(msg):
    try:
        os.write(2, (msg + "\n").encode())
    finally:
        os._exit(127)


def check_arch():
    if os.uname().machine != "x86_64":
        die("zygote: capset's system call number is known for x86_64 only")


def vm_size():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


# --- start-up: preload, then say ready --------------------------------------
VM_BEFORE = vm_size()
ctl = socket.socket(fileno=3)  # SOCK_SEQPACKET, from the runner
ctl.set_inheritable(False)
check_arch()
with open("/sbx/seccomp-untrusted.bpf", "rb") as f:
    UNTRUSTED = f.read()
# Rootless mode (sandbox/rootless.go): each execution's code runs in a user
# namespace of its own (own_user_namespace).
OWN_USERNS = os.path.exists("/sbx/userns")

# The preload's output is recorded per module and replayed (replay_import):
# a cold interpreter prints it when the code imports the module (e.g. the
# "Numba not installed" logging warning of pymatgen.analysis.defects.
# recombination, the "Fontconfig error" of matplotlib's font list), a fork
# of the zygote would not. Output is attributed to the module whose own
# code was running when it appeared; the import statements executed while
# preloading give each module's dependencies, so that importing any module
# that (transitively) imported a printing one replays its text, once per
# execution, on stderr.
import builtins  # noqa: E402
import importlib  # noqa: E402

out_r, out_w = os.pipe()
saved = os.dup(1), os.dup(2)
os.dup2(out_w, 1)
os.dup2(out_w, 2)
os.close(out_w)
os.set_blocking(out_r, False)


def drain():
    sys.stdout.flush()
    sys.stderr.flush()
    chunks = []
    while True:
        try:
            b = os.read(out_r, 1 << 16)
        except BlockingIOError:
            break
        if not b:
            break
        chunks.append(b)
    return b"".join(chunks).decode("utf-8", "replace")


real_import = builtins.__import__
edges = {}  # importer -> modules its import statements name
printed = {}  # module -> what it printed while its own code ran
stack = []


def resolve(name, globals_, level):
    if level == 0:
        return name
    try:
        pkg = (globals_ or {}).get("__package__") or ""
        return importlib.util.resolve_name("." * level + name, pkg)
    except Exception:  # noqa: BLE001
        return name


def tracking_import(name, globals=None, locals=None, fromlist=(), level=0):
    full = resolve(name, globals, level)
    importer = stack[-1] if stack else "<preload>"
    first = full not in sys.modules
    if first:
        text = drain()
        if text:
            printed[importer] = printed.get(importer, "") + text
        stack.append(full)
    try:
        return real_import(name, globals, locals, fromlist, level)
    finally:
        if first:
            stack.pop()
            text = drain()
            if text:
                printed[full] = printed.get(full, "") + text
        deps = edges.setdefault((globals or {}).get("__name__") or importer, set())
        deps.add(full)
        for f in fromlist or ():
            if isinstance(f, str) and full + "." + f in sys.modules:
                deps.add(full + "." + f)


import importlib.util  # noqa: E402

preload_error = ""
preloaded = []
builtins.__import__ = tracking_import
try:
    for name in open("/sbx/preload.txt", encoding="utf-8").read().split():
        try:
            tracking_import(name)
            preloaded.append(name)
        except ModuleNotFoundError:
            pass  # not installed here: an execution that imports it fails as a cold one does
        except BaseException as e:  # noqa: BLE001 - reported; the runner refuses to start
            preload_error += f"{name}: {type(e).__name__}: {e}\n"
finally:
    builtins.__import__ = real_import
leftover = drain()
if leftover:
    printed["<preload>"] = printed.get("<preload>", "") + leftover
os.dup2(saved[0], 1)
os.dup2(saved[1], 2)
os.close(saved[0])
os.close(saved[1])
os.close(out_r)

# triggers[m]: the printing modules whose text an import of m replays.
rev = {}
for importer, deps in edges.items():
    for d in deps:
        rev.setdefault(d, set()).add(importer)
for m in list(sys.modules):
    parts = m.split(".")
    for i in range(1, len(parts)):
        rev.setdefault(".".join(parts[:i]), set()).add(m)  # importing m runs its packages
unattributed = printed.pop("<preload>", "")
load_order = {m: i for i, m in enumerate(sys.modules)}
triggers = {}
for p in sorted(printed, key=lambda m: load_order.get(m, 1 << 30)):
    seen, todo = set(), [p]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        triggers.setdefault(m, []).append(p)
        todo.extend(rev.get(m, ()))

# Loaded now so that an execution finds it warm, without running it.
import gc  # noqa: E402
import importlib.machinery  # noqa: E402
import resource  # noqa: E402,F401 - set_rlimits, in every execution
import types  # noqa: E402
import threading  # noqa: E402
import atexit  # noqa: E402
import traceback  # noqa: E402

libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # no /proc/<pid>/mem of the zygote for its uid
# Every object the preload made goes to the collector's permanent
# generation: an execution's collections (its own, and the one at its exit)
# then neither walk nor write the zygote's ~10^6 objects, which cost ~250 ms
# and copied their pages on write in every execution.
gc.collect()
gc.freeze()
ctl.send(json.dumps({"ready": True, "preload_vm": max(0, vm_size() - VM_BEFORE), "printed": printed, "unattributed": unattributed, "error": preload_error, "preloaded": preloaded,
                     "threads": threading.active_count(), "tasks": len(os.listdir("/proc/self/task"))}).encode())


def set_rlimits(lim):
    import resource
    for key, res in (("cpu", resource.RLIMIT_CPU), ("as", resource.RLIMIT_AS), ("fsize", resource.RLIMIT_FSIZE),
                     ("nofile", resource.RLIMIT_NOFILE), ("nproc", resource.RLIMIT_NPROC), ("core", resource.RLIMIT_CORE)):
        if key in lim:
            soft, hard = lim[key]
            resource.setrlimit(res, (soft, hard))


def own_user_namespace():
    """Rootless mode: H moves into a user namespace of its own, its uid and
    gid mapped to themselves (as bubblewrap maps a cold task's), setgroups
    denied (as bubblewrap does unprivileged). The kernel then counts the
    code's processes, message queues, pending signals and locked memory in
    this namespace (RLIMIT_NPROC set later by set_rlimits counts the
    execution's own processes only), not with the worker's and the other
    executions' of the same user. Its capabilities there cover only this
    namespace, and drop_privileges drops them all next."""
    uid, gid = os.getuid(), os.getgid()
    # Dumpable (as the code's process becomes in drop_privileges anyway), so
    # that its /proc/self files are its own uid's, which it may write.
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    check(libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open("/proc/self/" + name, "w") as f:
            f.write(text)


def drop_privileges():
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    last = int(open("/proc/sys/kernel/cap_last_cap").read())
    for cap in range(last + 1):  # the bounding set too (CAP_SETPCAP, kept for this, goes last)
        check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"dropping capability {cap} from the bounding set")
    # capset(version 3, this thread) with every set empty.
    hdr = struct.pack("Ii", 0x20080522, 0)
    data = bytes(24)
    hdr_buf = ctypes.create_string_buffer(hdr, len(hdr))
    data_buf = ctypes.create_string_buffer(data, len(data))
    check(libc.syscall(SYS_CAPSET, hdr_buf, data_buf), "capset")
    status = open("/proc/self/status").read()
    for line in status.splitlines():
        if line.startswith(("CapEff:", "CapPrm:", "CapInh:", "CapAmb:", "CapBnd:")) and int(line.split()[1], 16) != 0:
            die("zygote: capabilities left after dropping: " + line)
    # The untrusted seccomp layer: struct sock_fprog {unsigned short len; struct sock_filter *filter}.
    n = len(UNTRUSTED) // 8
    buf = ctypes.create_string_buffer(UNTRUSTED, len(UNTRUSTED))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = SockFprog(n, ctypes.cast(buf, ctypes.c_void_p))
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0), "seccomp")
    # Dumpable again, as a cold process is: its /proc/self files are its own
    # uid's (the zygote made itself non-dumpable; capabilities are gone now).
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)


replayed = set()


def replay_import(name, globals=None, locals=None, fromlist=(), level=0):
    """The execution's __import__ when the preload printed: the real import,
    then, the first time a module whose import printed (or depends on one
    that did) is imported, that text on stderr."""
    mod = real_import(name, globals, locals, fromlist, level)
    full = resolve(name, globals, level)
    for m in (full, *(full + "." + f for f in (fromlist or ()) if isinstance(f, str))):
        for p in triggers.get(m, ()):
            if p not in replayed:
                replayed.add(p)
                try:
                    sys.stderr.write(printed[p])
                    sys.stderr.flush()
                except BaseException:  # noqa: BLE001
                    pass
    return mod


def exit_status(code):
    """The exit status `python3 script` gives SystemExit(code): None 0, an int
    as C's exit() takes it (255 outside a C long), anything else printed to
    stderr and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        if not -(1 << 63) <= code < (1 << 63):
            return 255
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except BaseException:  # noqa: BLE001
        pass
    return 1


def spare_code(hg):
    """H before its request: pid 2 of the spare's namespace, forked by G
    once G is in the execution's cgroups. It drops its privileges now (see
    drop_privileges), then waits on hg for G's go: what to run, the
    execution's rlimits and its descriptors (stdin, stdout, stderr, side
    channel as fd 3), which it takes and then runs the script. Never
    returns."""
    try:
        if OWN_USERNS:
            own_user_namespace()
        drop_privileges()
        msg, fds, _flags, _addr = socket.recv_fds(hg, 1 << 20, 4)
        if not msg or len(fds) != 4:
            os._exit(0)  # G gave up (its execution's set-up failed, or the spare was discarded)
        go = json.loads(msg)
        for i, fd in enumerate(fds):
            os.dup2(fd, i)
        os.set_inheritable(3, True)
        hg.detach()
        os.closerange(4, 1 << 16)
        set_rlimits(go["rlimits"])
    except BaseException as e:  # noqa: BLE001
        die(f"sandbox: warm execution set-up failed: {type(e).__name__}: {e}")
    run_script(go["ex"])


def run_script(ex):
    """H: the untrusted part, as `python3 -I script args...` runs it: the
    script as a fresh __main__ module, an uncaught exception through
    sys.excepthook with the traceback from the script's frame on, then what
    interpreter shutdown does that a program can observe: non-daemon threads
    joined, atexit handlers, the __main__ namespace cleared and collected (so
    that destructors run and unclosed files are flushed), stdout and stderr
    flushed (status 120 when that fails). Never returns."""
    script = ex["argv"][0]
    try:
        os.chdir("/app")
        os.environ.clear()
        os.environ.update(dict(kv.split("=", 1) for kv in ex["env"]))
        np = sys.modules.get("numpy")
        if np is not None:
            np.random.seed()  # a cold interpreter seeds it from the OS at import; a fork would repeat the zygote's
        sys.argv = list(ex["argv"])
        sys.orig_argv = ["python3", "-I", *ex["argv"]]
        source = open(script, "rb").read()
        main = types.ModuleType("__main__")
        main.__file__ = script
        main.__cached__ = None
        main.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
        main.__builtins__ = builtins
        sys.modules["__main__"] = main
    except BaseException as e:  # noqa: BLE001
        die(f"sandbox: warm execution set-up failed: {type(e).__name__}: {e}")
    if printed:
        builtins.__import__ = replay_import
    code = 0
    interrupted = False
    try:
        exec(compile(source, script, "exec", dont_inherit=True), main.__dict__)
    except SystemExit as e:
        code = exit_status(e.code)
    except BaseException as e:  # noqa: BLE001 - as the interpreter reports an uncaught exception
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next  # this file's frames: a cold run has none
        if tb is not None:
            e.__traceback__ = tb  # the default hook prints the exception's own traceback
        try:
            sys.excepthook(type(e), e, e.__traceback__)
        except BaseException:  # noqa: BLE001
            pass
        code = 1
        interrupted = isinstance(e, KeyboardInterrupt)
        del e, tb
    for step in (threading._shutdown, atexit._run_exitfuncs):
        try:
            step()
        except SystemExit as e:
            code = exit_status(e.code)
        except BaseException:  # noqa: BLE001 - the interpreter reports these and goes on
            pass
    try:
        main.__dict__.clear()
        gc.collect()
    except BaseException:  # noqa: BLE001
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException as e:  # noqa: BLE001 - reported as the interpreter does, status 120
            if stream is sys.stdout:
                code = 120
                try:
                    sys.stderr.write(f"Exception ignored in: {stream!r}\n" + "".join(traceback.format_exception_only(type(e), e)))
                    sys.stderr.flush()
                except BaseException:  # noqa: BLE001
                    pass
    if interrupted:
        # An uncaught KeyboardInterrupt ends a cold interpreter by SIGINT.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code)


def execution(xsock):
    """G: the execution's pid 1, in its own pid, mount, IPC and UTS
    namespaces (see clone_execution), cloned ahead of its request as the
    worker's spare. Never returns."""
    try:
        setup_and_reap(xsock)
    finally:
        os._exit(125)  # only on a failure of this file: setup_and_reap ends with os._exit


libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up():
    """Brings up the loopback interface of G's network namespace (the kernel
    gives it 127.0.0.1/8 and ::1), as bubblewrap's --unshare-net does for a
    cold task: an execution's sockets, TCP TIME_WAIT states and abstract unix
    sockets die with its namespace instead of reaching the next execution."""
    import fcntl
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifr = fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sh22x", b"lo", 0))
        flags = struct.unpack("16sh", ifr[:18])[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", flags | IFF_UP))


def purge_namespaces():
    """Frees, before the status goes out, what the execution's namespaces
    still hold once its processes are gone, so that it is freed within the
    execution as in a cold run rather than when G's exit tears the
    namespaces down, after the result: its POSIX message queues and SysV
    objects (their per-uid quotas, RLIMIT_MSGQUEUE and locked shm, would
    stay charged while the next execution starts; found in review) and its
    tmpfs (the teardown of millions of files takes seconds of kernel time)."""
    try:
        mount("mqueue", "/x", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        for name in os.listdir("/x"):
            os.unlink("/x/" + name)
        libc.umount2(b"/x", 0)
    except OSError:
        pass
    for kind in ("shm", "msg", "sem"):
        try:
            lines = open("/proc/sysvipc/" + kind).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            ipcid = int(line.split()[1])
            if kind == "shm":
                libc.shmctl(ipcid, 0, None)  # IPC_RMID
            elif kind == "msg":
                libc.msgctl(ipcid, 0, None)
            else:
                libc.semctl(ipcid, 0, 0)
    for m in (b"/app/tool_source_code", b"/app", b"/tmp", b"/dev/shm"):
        libc.umount2(m, 0)


def send_line(xs, obj):
    xs.sendall(json.dumps(obj).encode() + b"\n")


def setup_and_reap(xsock):
    # A session and process group of its own: the code's kill(0, …) and
    # killpg(getpgrp(), …) reach only the execution, never the zygote, and it
    # sees getpgrp() == getsid(0) == 1 as under bubblewrap's --new-session.
    os.setsid()
    # As a namespace's init, G ignores every signal the code may send it whose
    # action is the default; Python's SIGINT handler would make it the one
    # exception.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    xs = socket.socket(fileno=xsock)
    creds = struct.pack("3i", os.getpid(), os.getuid(), os.getgid())
    xs.sendmsg([b"c"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, creds)])
    # The runner places G in the execution's cgroups, then says "p"; only then
    # is H forked, so that it is in them too. Anything else: the runner gave
    # up on this spare.
    try:
        placed = xs.recv(1)
    except OSError:
        placed = b""
    if placed != b"p":
        os._exit(0)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    loopback_up()
    # H is forked now, while the worker's previous execution runs, and waits
    # for its request on gh/hg with every privilege already dropped.
    gh, hg = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    h = os.fork()
    if h == 0:
        keep = hg.fileno()
        os.closerange(3, keep)  # the runner's socket (xs) and G's end
        os.closerange(keep + 1, 1 << 16)
        xs.detach()
        gh.detach()
        spare_code(hg)
    hg.close()
    xs.sendall(b"h")  # H exists (a failed fork ends G: the runner sees the socket close)
    # The request (limits, folder) and the execution's descriptors (stdin,
    # stdout, stderr, side channel) come when a Run takes this spare.
    try:
        msg, fds, _flags, _addr = socket.recv_fds(xs, 1 << 20, 4)
    except OSError:
        msg, fds = b"", []
    if not msg or len(fds) != 4:
        os.kill(h, signal.SIGKILL)
        os._exit(0)
    try:
        req = json.loads(msg)
        d = req["dir"]
        # argv and environment: from the exchange folder, so that the zygote
        # never holds an execution's own data.
        with open(d + "/exec.json", encoding="utf-8") as f:
            ex = json.load(f)
        mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={req['tmp_bytes']},mode=1777")
        mount("tmpfs", "/app", "tmpfs", MS_NOSUID | MS_NODEV, f"size={req['work_bytes']},mode=0755")
        mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"size={req['tmp_bytes']},mode=1777")
        if req.get("data"):
            os.mkdir("/app/tool_source_code", 0o755)
            mount(req["data"], "/app/tool_source_code", None, MS_BIND | MS_REC)
            mount(None, "/app/tool_source_code", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        mount(d + "/sbx", "/sbx", None, MS_BIND)
        mount(None, "/sbx", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        # The exchange folder and the data folders (/d): an empty read-only
        # tmpfs covers each, which the code, without capabilities and with
        # mount calls denied, cannot remove.
        mount("tmpfs", "/x", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4096,mode=0555")
        mount("tmpfs", "/d", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4096,mode=0555")
        # H's go: what to run, its limits, its descriptors.
        socket.send_fds(gh, [json.dumps({"ex": ex, "rlimits": req["rlimits"]}).encode()], fds)
    except BaseException as e:  # noqa: BLE001
        os.kill(h, signal.SIGKILL)
        msg = f"sandbox: warm execution set-up failed: {type(e).__name__}: {e}"
        try:
            send_line(xs, {"setup_error": msg})
        except BaseException:  # noqa: BLE001
            pass
        os._exit(0)
    for fd in fds:
        os.close(fd)
    gh.close()
    send_line(xs, {"running": True})  # the runner's sign that the code runs
    status = 0
    while True:  # G reaps every process of its namespace until H ends
        try:
            pid, st = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == h:
            status = st
            break
    # Whatever H left running is killed and reaped before the status goes
    # out: kill(-1) from a pid namespace's init reaches every other process
    # of the namespace (a fork racing with it fails, the kernel refusing to
    # fork a process with a fatal signal pending). G's own exit, which ends
    # the namespace, then only tears down what is already empty, while the
    # runner goes on.
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
    purge_namespaces()
    # H's status, as bubblewrap reports its child: 128 + n for a signal n.
    code = 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    # The CPU time (user + system) of every process G reaped: the code's,
    # its children's included.
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        send_line(xs, {"exit": code, "cpu_seconds": ru.ru_utime + ru.ru_stime})
    except BaseException:  # noqa: BLE001
        pass
    os._exit(code)


# clone(2) with CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS,
# used as fork: the child is pid 1 of a new pid namespace in new mount, IPC
# (SysV and POSIX IPC objects die with the execution) and UTS namespaces,
# and the zygote's own
# namespaces stay as they are. os.fork cannot do that, and unshare before a
# fork would need a setns back to the zygote's pid namespace, which the
# nested user namespace bubblewrap makes forbids; an intermediate process
# would cost a second fork of the zygote's whole memory (~14 ms here). The
# interpreter's fork protocol is kept: PyOS_BeforeFork, the system call,
# then PyOS_AfterFork_Child or PyOS_AfterFork_Parent (os.register_at_fork
# hooks included, e.g. random's reseed), all with the GIL held.
SYS_CLONE = 56  # x86_64
pyapi = ctypes.PyDLL(None, use_errno=True)
pyapi.syscall.restype = ctypes.c_long
pyapi.syscall.argtypes = [ctypes.c_long, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ulong]


def clone_execution():
    pyapi.PyOS_BeforeFork()
    pid = pyapi.syscall(SYS_CLONE, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | signal.SIGCHLD,
                        None, None, None, 0)
    if pid == 0:
        pyapi.PyOS_AfterFork_Child()
        return 0
    err = ctypes.get_errno()
    pyapi.PyOS_AfterFork_Parent()
    if pid < 0:
        raise OSError(err, f"clone: {os.strerror(err)}")
    return pid


# The zygote's loop: a request {"id"} with one descriptor (the execution's
# socket) clones that execution's G, which waits there as a spare; each G's
# end (a pidfd becomes readable) is reported as {"id", "reaped", "exit" or
# "signal"}. The runner asks for the next spare while the current execution
# runs, so that the clone and the cgroup placement are not on its path.
import select  # noqa: E402

spares = {}  # pidfd -> (id, pid) of every G not yet reaped
while True:
    try:
        ready, _, _ = select.select([ctl.fileno(), *spares], [], [])
    except InterruptedError:
        continue
    for fd in ready:
        if fd != ctl.fileno():
            rid, g = spares.pop(fd)
            os.close(fd)
            _, status = os.waitpid(g, 0)
            res = {"id": rid, "reaped": True}
            if os.WIFSIGNALED(status):  # G itself was killed (the time limit, the memory cgroup)
                res["signal"] = os.WTERMSIG(status)
            else:  # H's status: 128 + n when a signal n ended it, as bubblewrap reports
                res["exit"] = os.WEXITSTATUS(status)
            ctl.send(json.dumps(res).encode())
            continue
        try:
            msg, fds, _flags, _addr = socket.recv_fds(ctl, 1 << 16, 2)
        except OSError:
            os._exit(0)
        if not msg:
            os._exit(0)  # the runner closed the control socket
        req = json.loads(msg)
        if len(fds) != 1:
            for f in fds:
                os.close(f)
            ctl.send(json.dumps({"id": req.get("id"), "error": f"want 1 descriptor, got {len(fds)}"}).encode())
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            g = clone_execution()
        except OSError as e:
            os.close(fds[0])
            ctl.send(json.dumps({"id": req.get("id"), "error": str(e)}).encode())
            continue
        if g == 0:
            ctl.close()
            for f in spares:  # the other executions' pidfds
                os.close(f)
            execution(fds[0])
        os.close(fds[0])
        spares[os.pidfd_open(g)] = (req["id"], g)
