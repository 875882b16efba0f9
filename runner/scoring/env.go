package scoring

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// Environment is where scored code ran, as every scored run records it
// (results.Environment Sandbox and Libraries).
type Environment struct {
	// Sandbox is the backend, its version, the wall-clock limit per
	// execution, the resource limits, and the SHA-256 of the lock file
	// (sandbox-env/requirements.lock) its Python environment was installed
	// from ("" when the environment carries no stamp).
	Sandbox results.Sandbox `json:"sandbox"`
	// Libraries maps "python" and the libraries generated code runs against
	// (pymatgen, pymatgen-analysis-defects, pydefect, numpy, …) to their
	// versions, read inside the sandbox; absent packages are left out.
	Libraries map[string]string `json:"libraries"`
}

// LockStamp is the file, in the sandbox's Python prefix (sys.prefix), that
// holds the SHA-256 (hex) of the lock file the environment was installed
// from: scripts/sandbox-env.sh writes it into the venv, sandbox-env/Dockerfile
// into the image.
const LockStamp = ".mattools-lock.sha256"

// probe reports, from inside the sandbox, the Python version, the library
// versions and the lock stamp.
const probe = `import importlib.metadata as m, json, os, platform, sys
libs = {"python": platform.python_version()}
for p in ("pymatgen", "pymatgen-analysis-defects", "pydefect", "numpy", "scipy", "matplotlib", "pandas", "monty", "spglib", "ase", "dscribe", "numba"):
    try:
        libs[p] = m.version(p)
    except m.PackageNotFoundError:
        pass
lock = ""
try:
    lock = open(os.path.join(sys.prefix, "` + LockStamp + `")).read().strip()
except OSError:
    pass
os.write(3, json.dumps({"libraries": libs, "lock": lock}).encode())
`

// Describe returns the environment of sb: its Info, and the Python, library
// versions and lock stamp read by running a probe in it. Errors are
// failures of the sandbox or an unreadable probe answer.
func Describe(ctx context.Context, sb sandbox.Sandbox) (Environment, error) {
	res, err := sb.Run(ctx, sandbox.Spec{Files: map[string][]byte{"env.py": []byte(probe)}, Argv: []string{"python3", "-I", "/sbx/env.py"}})
	if err != nil {
		return Environment{}, err
	}
	var got struct {
		Libraries map[string]string `json:"libraries"`
		Lock      string            `json:"lock"`
	}
	if err := json.Unmarshal(res.Side, &got); err != nil || got.Libraries == nil {
		return Environment{}, fmt.Errorf("reading the sandbox's library versions: %v (stderr %q)", err, tail(res.Stderr, 500))
	}
	info := sb.Info()
	return Environment{
		Sandbox: results.Sandbox{Backend: info.Backend, Version: info.Version, TimeoutSeconds: info.TimeoutSeconds,
			Limits: info.Limits, LockSHA256: got.Lock},
		Libraries: got.Libraries,
	}, nil
}

// DefaultLimits are the limits of tool-usage scoring where a caller sets
// none (each zero field of sandbox.Options.Limits that Open is given): a
// CPU-time limit of 240 s per process, five times the slowest reference
// solution's CPU time with ASE installed (test_ase_supercells, 47 s) and
// twenty times the slowest in the pinned environment (test_closest_sc_mat,
// 11.9 s, which took 77 s of wall time on a machine at load 20), so that a
// verdict does not depend on how loaded the machine is; and a wall-clock
// limit of 1,200 s as a safety net for code that waits rather than
// computes, five times the CPU limit. MatTools had neither. The
// measurements and the reasoning: docs/benchmark-audit.md ("Limits").
// Every scored run records both in environment.sandbox (timeout_seconds
// and limits.cpu).
var DefaultLimits = sandbox.Limits{CPU: 240 * time.Second, Wall: 1200 * time.Second}

// Open opens the sandbox backend ("auto", "local" or "docker"; see
// sandbox.Open: never an unsandboxed fallback) for scoring questions of the
// MatTools data at root, whose src/tool_source_code it must be able to
// read, and returns a Scorer with the sandbox's Environment. o gives the
// slots, the Python environment, the limits (zero CPU and Wall: those of
// DefaultLimits) and the mode (o.Cold: a fresh
// interpreter per execution; by default warm workers, which import Preload
// (what of it is installed) when o.Preload is nil); its DataDirs
// are set here. Close the Scorer to release the sandbox.
func Open(ctx context.Context, backend, root string, o sandbox.Options) (*Scorer, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	o.DataDirs = []string{filepath.Join(root, "src", "tool_source_code")}
	if o.Limits.CPU == 0 {
		o.Limits.CPU = DefaultLimits.CPU
	}
	if o.Limits.Wall == 0 {
		o.Limits.Wall = DefaultLimits.Wall
	}
	if o.Preload == nil && !o.Cold {
		o.Preload = Preload
	}
	sb, err := sandbox.Open(ctx, backend, o)
	if err != nil {
		return nil, err
	}
	env, err := Describe(ctx, sb)
	if err != nil {
		sb.Close()
		return nil, err
	}
	return &Scorer{Sandbox: sb, Root: root, Env: env}, nil
}

// Environment returns the environment recorded on runs scored by s (set by
// Open; the zero value for a Scorer built by hand).
func (s *Scorer) Environment() Environment { return s.Env }

// Close releases the scorer's sandbox.
func (s *Scorer) Close() error { return s.Sandbox.Close() }
