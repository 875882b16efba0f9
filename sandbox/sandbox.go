// Package sandbox runs untrusted Python code (model output, submitted code)
// in isolation: no network, a read-only view of the benchmark data, size-capped
// writable /app and /tmp, resource limits, a wall-clock timeout that kills
// every process of the task, capped output and an empty environment. It owns
// the Sandbox interface and its backends, one file each: local.go
// (bubblewrap, the default) and docker.go (a Docker Engine through the moby
// client). By default the local backend runs eligible executions in warm
// workers (warm.go, zygote.py): per slot, a long-lived sandbox whose
// interpreter has imported Options.Preload clones each execution; Options.Cold
// keeps a fresh sandbox and interpreter per execution. As root the local
// backend runs each slot as a uid of its own; as any other user it runs
// rootless, in user namespaces of the execution's own (rootless.go). Scoring
// (runner/scoring) decides what runs; this package only runs it. See
// docs/sandbox.md for the two modes and the measured design.
//
// This is a leaf package: it imports no other package of the project.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Spec is one execution in a fresh sandbox.
type Spec struct {
	// Files are written into the directory /sbx, read-only inside the
	// sandbox; keys are plain file names (no "/"), values their content.
	Files map[string][]byte
	// Argv is the command run inside, e.g. {"python3", "-I", "/sbx/run.py"}.
	// A bare argv[0] is looked up in PATH, which starts with the sandbox's
	// Python environment (Options.Python).
	Argv []string
	// Env adds variables to the sandbox's otherwise fixed environment
	// (NAME=value). It never inherits anything from the runner's environment.
	Env []string
	// Stdin is the standard input; empty means /dev/null-like EOF.
	Stdin []byte
	// DataDir is a host directory mounted read-only at
	// /app/tool_source_code (MatTools' questions open relative paths such as
	// tool_source_code/pymatgen-analysis-defects/tests/test_files/GaN.vasp
	// from the working directory /app). "" mounts nothing.
	DataDir string
	// DataFiles, when non-nil, narrows DataDir to these files (slash-separated
	// paths relative to DataDir, e.g. "pymatgen-analysis-defects/tests/test_files/GaN.vasp"):
	// each is copied into a folder private to the task, which is mounted
	// read-only at /app/tool_source_code instead of DataDir, so the task sees
	// only its question's files and shares no inode with a concurrent task
	// (no flock or inotify channel between them). A path that is absolute,
	// climbs out with "..", or names no regular file is an error.
	DataFiles []string
	// Limits overrides the backend's defaults field by field (zero = default).
	Limits Limits
}

// Limits bounds one execution. Zero fields take the backend's defaults
// (DefaultLimits).
type Limits struct {
	Wall         time.Duration // wall-clock timeout; every process of the task is killed when it expires
	CPU          time.Duration // CPU time per process (RLIMIT_CPU soft; hard = soft + 1 s)
	AddressSpace int64         // bytes of virtual memory per process (RLIMIT_AS)
	FileSize     int64         // bytes, largest file a process may write (RLIMIT_FSIZE)
	TmpBytes     int64         // size of the /tmp tmpfs, bytes
	WorkBytes    int64         // size of the /app tmpfs (the working directory), bytes
	NProc        int           // processes and threads of the slot's uid (RLIMIT_NPROC)
	NoFile       int           // open files per process (RLIMIT_NOFILE)
	StdoutBytes  int           // bytes of stdout kept; the rest is counted in Result.StdoutDropped
	StderrBytes  int           // bytes of stderr kept
	ResultBytes  int           // bytes kept from the side channel (fd 3)
	MemoryCgroup int64         // bytes of memory for the whole task (cgroup); used only where a cgroup is available
	PidsCgroup   int           // processes for the whole task (cgroup)
	Memory       int64         // docker: container memory (and memory+swap) limit, bytes
	NanoCPUs     int64         // docker: CPU quota in units of 1e-9 CPUs
}

// DefaultLimits are the limits of docs/sandbox.md#design-the-flags-and-default-limits: 60 s wall clock (MatTools
// had none), 4 GiB address space per process, 64 processes, 64 MiB files,
// 256 MiB for /tmp and for /app, 1 MiB of each output stream.
var DefaultLimits = Limits{
	Wall:         60 * time.Second,
	AddressSpace: 4 << 30,
	FileSize:     64 << 20,
	TmpBytes:     256 << 20,
	WorkBytes:    256 << 20,
	NProc:        64,
	NoFile:       1024,
	StdoutBytes:  1 << 20,
	StderrBytes:  1 << 20,
	ResultBytes:  16 << 20,
	MemoryCgroup: 4 << 30,
	PidsCgroup:   64,
	Memory:       4 << 30,
	NanoCPUs:     1e9,
}

// merge returns l with its zero fields taken from d.
func (l Limits) merge(d Limits) Limits {
	pick64 := func(a, b int64) int64 {
		if a != 0 {
			return a
		}
		return b
	}
	pick := func(a, b int) int {
		if a != 0 {
			return a
		}
		return b
	}
	out := Limits{
		AddressSpace: pick64(l.AddressSpace, d.AddressSpace),
		FileSize:     pick64(l.FileSize, d.FileSize),
		TmpBytes:     pick64(l.TmpBytes, d.TmpBytes),
		WorkBytes:    pick64(l.WorkBytes, d.WorkBytes),
		NProc:        pick(l.NProc, d.NProc),
		NoFile:       pick(l.NoFile, d.NoFile),
		StdoutBytes:  pick(l.StdoutBytes, d.StdoutBytes),
		StderrBytes:  pick(l.StderrBytes, d.StderrBytes),
		ResultBytes:  pick(l.ResultBytes, d.ResultBytes),
		MemoryCgroup: pick64(l.MemoryCgroup, d.MemoryCgroup),
		PidsCgroup:   pick(l.PidsCgroup, d.PidsCgroup),
		Memory:       pick64(l.Memory, d.Memory),
		NanoCPUs:     pick64(l.NanoCPUs, d.NanoCPUs),
		Wall:         l.Wall,
		CPU:          l.CPU,
	}
	if out.Wall == 0 {
		out.Wall = d.Wall
	}
	if out.CPU == 0 {
		out.CPU = d.CPU
	}
	if out.CPU == 0 {
		out.CPU = out.Wall + 5*time.Second
	}
	return out
}

// Result is what one execution did. A timeout, a non-zero exit or a
// truncated output is reported here, not as an error.
type Result struct {
	ExitCode  int    // exit status; -1 when killed by a signal
	Signal    string // the signal that ended the process, e.g. "killed"; "" otherwise
	TimedOut  bool   // the wall-clock limit expired and the task was killed
	OOMKilled bool   // the task's memory cgroup (or container) hit its limit
	Duration  time.Duration
	// CPU is the user and system CPU time of the task's processes: every
	// process the execution's pid 1 reaped, as the local backend's warm
	// workers count it (getrusage of its children); 0 when unknown (cold
	// executions, whose bubblewrap does not pass its children's time on,
	// the docker backend, and an execution killed at its wall-clock limit).
	CPU time.Duration
	// Stdout and Stderr are the first Limits.StdoutBytes/StderrBytes bytes;
	// the Dropped counts are the bytes beyond them, read and discarded.
	Stdout, Stderr               []byte
	StdoutDropped, StderrDropped int64
	// Side is what the code wrote to the side channel: file descriptor 3 in
	// the sandbox (the docker backend maps it to a file), capped at
	// Limits.ResultBytes; SideDropped counts the bytes beyond.
	Side        []byte
	SideDropped int64
}

// Info describes a sandbox for the run record (results.Sandbox).
type Info struct {
	Backend        string            // "local" or "docker"
	Version        string            // e.g. "bubblewrap 0.8.0"
	TimeoutSeconds float64           // default wall-clock limit per execution
	Limits         map[string]string // the default limits, as text
	Slots          int               // executions that may run at once
}

// Sandbox runs Specs in isolation. Run may be called from Slots() goroutines
// at once; more calls wait for a free slot. Errors are failures of the
// sandbox itself (it could not start, or could not clean up); what the code
// did, including a timeout, is in Result.
type Sandbox interface {
	Name() string
	// Check runs a self-test (used by "auto" selection); it fails closed.
	Check(ctx context.Context) error
	Run(ctx context.Context, s Spec) (*Result, error)
	Info() Info
	// Close releases the slots and sweeps anything left (docker: containers
	// by label).
	Close() error
}

// Options configure a backend.
type Options struct {
	// Slots is the number of concurrent executions (default: number of CPUs).
	Slots int
	// Python is the prefix of the sandbox's Python environment (a venv made
	// by `make sandbox-env`, e.g. /opt/mattools-sandbox); as root it must be
	// world-readable (the slot uids read it), rootless readable by the user
	// (e.g. ~/.local/share/mattools-sandbox). "" means Debian's
	// /usr/bin/python3 (stdlib only).
	Python string
	// DataDirs are host directories the sandbox must be able to read
	// (checked at Open: as root the slot uid reads them through the "other"
	// bits; rootless the user reads them).
	DataDirs []string
	// Limits override DefaultLimits field by field.
	Limits Limits
	// AllowNoCgroup lets the local backend run with rlimits only when no
	// writable memory and pids cgroup exists. Without a memory cgroup a task's
	// total memory (tmpfs contents, kernel objects such as millions of
	// inodes, all its processes together) is unbounded, so by default the
	// local backend then refuses (ErrUnavailable).
	AllowNoCgroup bool
	// Cold runs every execution in a fresh interpreter (a new bubblewrap
	// sandbox per execution). By default the local backend runs eligible
	// executions in warm workers instead (warm.go): one long-lived sandbox
	// per slot whose interpreter has imported Preload and forks each
	// execution. The docker backend is always cold.
	Cold bool
	// Preload lists the modules a warm worker imports once (e.g.
	// scoring.Preload), in order; one not installed is skipped, one whose
	// import fails otherwise stops the worker from starting. What an
	// import prints is replayed to each execution that imports it (see
	// zygote.py). Empty: nothing beyond the standard library's start-up.
	Preload []string
	// Docker: the image (with the pinned Python stack) and the engine host
	// ("" = DOCKER_HOST or the default socket).
	Image      string
	DockerHost string
}

// ErrUnavailable is returned (wrapped, with the reason) by Open when a
// backend cannot work on this machine, e.g. no bubblewrap or no engine.
var ErrUnavailable = errors.New("sandbox backend unavailable")

type backend struct {
	open func(ctx context.Context, o Options) (Sandbox, error)
}

var backends = map[string]backend{}

// register adds a backend; it is called only from init and panics on a duplicate.
func register(name string, open func(ctx context.Context, o Options) (Sandbox, error)) {
	if _, dup := backends[name]; dup {
		panic("sandbox: backend registered twice: " + name)
	}
	backends[name] = backend{open: open}
}

// Names returns the registered backends, sorted.
func Names() []string {
	var names []string
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Auto is the selection that tries "local", then "docker".
const Auto = "auto"

// autoOrder is the order in which Auto tries the backends.
var autoOrder = []string{"local", "docker"}

// Open returns the named backend ("local", "docker") after its self-test,
// or, for "auto", the first of local and docker that opens and passes its
// self-test. It never falls back to running code outside a sandbox: when no
// backend works the error lists each backend's reason.
func Open(ctx context.Context, name string, o Options) (Sandbox, error) {
	if name == "" || name == Auto {
		var reasons []string
		for _, n := range autoOrder {
			sb, err := openChecked(ctx, n, o)
			if err == nil {
				return sb, nil
			}
			reasons = append(reasons, n+": "+err.Error())
		}
		return nil, fmt.Errorf("%w: no sandbox backend works here, refusing to run code unsandboxed (%s)",
			ErrUnavailable, strings.Join(reasons, "; "))
	}
	return openChecked(ctx, name, o)
}

func openChecked(ctx context.Context, name string, o Options) (Sandbox, error) {
	b, ok := backends[name]
	if !ok {
		return nil, fmt.Errorf("sandbox: unknown backend %q (known: auto, %s)", name, strings.Join(Names(), ", "))
	}
	sb, err := b.open(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := sb.Check(ctx); err != nil {
		sb.Close()
		return nil, fmt.Errorf("%s: self-test failed: %w", name, err)
	}
	return sb, nil
}

// capWriter keeps the first max bytes written to it and counts the rest.
type capWriter struct {
	max     int
	buf     []byte
	dropped int64
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - len(w.buf)
	if room > 0 {
		n := min(room, len(p))
		w.buf = append(w.buf, p[:n]...)
		w.dropped += int64(len(p) - n)
	} else {
		w.dropped += int64(len(p))
	}
	return len(p), nil
}

func limitsText(l Limits) map[string]string {
	return map[string]string{
		"wall":          l.Wall.String(),
		"cpu":           l.CPU.String(),
		"address_space": fmt.Sprint(l.AddressSpace),
		"file_size":     fmt.Sprint(l.FileSize),
		"tmp_bytes":     fmt.Sprint(l.TmpBytes),
		"work_bytes":    fmt.Sprint(l.WorkBytes),
		"nproc":         fmt.Sprint(l.NProc),
		"nofile":        fmt.Sprint(l.NoFile),
		"stdout_bytes":  fmt.Sprint(l.StdoutBytes),
		"stderr_bytes":  fmt.Sprint(l.StderrBytes),
	}
}

// seededArgv returns argv with Python's isolated mode "python3 -I …" run as
// "python3 -s -P …": -I is -E -s -P, and -E would make the interpreter ignore
// PYTHONHASHSEED (and every other PYTHON* variable of baseEnv). The
// sandbox's environment is baseEnv and Spec.Env only, never the caller's,
// so reading its variables isolates no less.
func seededArgv(argv []string) []string {
	if len(argv) >= 2 && argv[0] == "python3" && argv[1] == "-I" {
		return append([]string{"python3", "-s", "-P"}, argv[2:]...)
	}
	return argv
}

// check returns the error of a Spec no backend runs: an empty argv, or a
// Spec.Env entry that is not NAME=value (NAME of [A-Z_][A-Z0-9_]*) or whose
// name RefusedEnvName refuses.
func (s Spec) check() error {
	if len(s.Argv) == 0 {
		return errors.New("sandbox: empty argv")
	}
	for i, kv := range s.Env {
		name, _, ok := strings.Cut(kv, "=")
		switch {
		case !ok || !envName.MatchString(name):
			return fmt.Errorf("sandbox: Spec.Env[%d] %q is not NAME=value with NAME of [A-Z_][A-Z0-9_]*", i, kv)
		case RefusedEnvName(name):
			return fmt.Errorf("sandbox: Spec.Env[%d] sets %s, which the sandbox fixes or refuses (it would change how Python starts, finds its programs, decodes text or computes)", i, name)
		}
	}
	return nil
}

// envName is the form of a Spec.Env variable's name.
var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// refusedEnvPrefixes are the Spec.Env name prefixes the sandbox refuses:
// the dynamic loader's, Python's, matplotlib's, the locale's and the
// numeric libraries' (thread counts, code paths).
var refusedEnvPrefixes = []string{"LD_", "PYTHON", "MPL", "LC_", "OPENBLAS_", "OMP_", "MKL_", "NUMEXPR_"}

// RefusedEnvName reports whether Spec.Env may not set the variable name:
// a variable of the sandbox's fixed environment (PATH, HOME, LANG,
// PYTHONHASHSEED, …; FixedEnvNames), LANGUAGE, or a name starting with one
// of LD_, PYTHON, MPL, LC_, OPENBLAS_, OMP_, MKL_ or NUMEXPR_: each would
// change how the sandbox's Python starts, finds its programs and libraries,
// decodes text or computes. (A folder benchmark's env is refused by the
// same rule when its manifest is read, naming the file and field:
// datasets.ForbiddenEnvName, checked against this one by runner/scoring's
// tests.)
func RefusedEnvName(name string) bool {
	if name == "LANGUAGE" || slices.Contains(FixedEnvNames(), name) {
		return true
	}
	for _, p := range refusedEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// FixedEnvNames returns the names of the sandbox's fixed environment
// (baseEnv), in its order.
func FixedEnvNames() []string {
	var names []string
	for _, kv := range baseEnv("") {
		names = append(names, kv[:strings.IndexByte(kv, '=')])
	}
	return names
}

// baseEnv is the whole environment inside a sandbox (plus Spec.Env): single
// threaded numeric libraries, a headless matplotlib, no bytecode writes, and
// a fixed hash seed (PYTHONHASHSEED=0), so that code printing a set or
// iterating one prints the same text in every run (with random seeds two
// runs of the same answers stored different outputs; a verdict does not
// depend on it).
func baseEnv(pathPrefix string) []string {
	path := "/usr/bin:/bin"
	if pathPrefix != "" {
		path = pathPrefix + "/bin:" + path
	}
	return []string{
		"HOME=/tmp", "TMPDIR=/tmp", "PATH=" + path, "USER=sandbox", "LOGNAME=sandbox", "LANG=C.UTF-8",
		"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1", "NUMEXPR_NUM_THREADS=1",
		"MPLBACKEND=Agg", "MPLCONFIGDIR=/tmp", "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0",
	}
}

// copyDataFiles copies the files rels (Spec.DataFiles) from dir into dst,
// keeping their relative paths (folders 0755, files 0644; a path listed
// twice is copied once), and returns the bytes copied. Each file is opened
// through an os.Root of dir, so no symbolic link, in the file or in a
// folder on its way, can lead outside dir (the copy runs as root on the
// host; found in review: "pkg -> /etc" and "pkg/shadow"), and it must be a
// regular file.
func copyDataFiles(dir string, rels []string, dst string) (int64, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, fmt.Errorf("sandbox: data folder: %w", err)
	}
	defer root.Close()
	var n int64
	seen := map[string]bool{}
	for _, rel := range rels {
		clean := path.Clean(rel)
		if rel == "" || path.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, "../") || strings.ContainsRune(rel, 0) {
			return n, fmt.Errorf("sandbox: data file %q: want a path inside the data folder", rel)
		}
		if seen[clean] {
			continue
		}
		seen[clean] = true
		if fi, err := root.Lstat(clean); err != nil {
			return n, fmt.Errorf("sandbox: data file %q: %w", rel, err)
		} else if !fi.Mode().IsRegular() {
			return n, fmt.Errorf("sandbox: data file %q is not a regular file", rel)
		}
		in, err := root.Open(clean)
		if err != nil {
			return n, fmt.Errorf("sandbox: data file %q: %w", rel, err)
		}
		if fi, err := in.Stat(); err != nil || !fi.Mode().IsRegular() {
			in.Close()
			return n, fmt.Errorf("sandbox: data file %q is not a regular file", rel)
		}
		out := filepath.Join(dst, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			in.Close()
			return n, err
		}
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			in.Close()
			return n, err
		}
		w, err := io.Copy(f, in)
		in.Close()
		n += w
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
