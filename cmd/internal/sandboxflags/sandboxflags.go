// Package sandboxflags registers the sandbox flags shared by the commands
// that execute tool-usage answers (-sandbox, -python, -slots, -cold,
// -timeout, -cpu, -sandbox-no-cgroup; docs/sandbox.md) and opens the
// scorer they describe.
package sandboxflags

import (
	"context"
	"flag"
	"os"
	"path/filepath"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// PythonEnvVar names the sandbox's Python environment when set; else
// FindPython searches DefaultPython (where make setup installs it as root),
// then the user's own prefix (UserPython: make sandbox-env as any user).
const (
	PythonEnvVar  = "MATTOOLS_SANDBOX_PYTHON"
	DefaultPython = "/opt/mattools-sandbox"
)

// UserPython is the sandbox's Python environment of a user without root
// ($XDG_DATA_HOME/mattools-sandbox, else $HOME/.local/share/mattools-sandbox;
// make sandbox-env installs it there when not run as root), "" when
// neither variable is set.
func UserPython(getenv cliflags.Getenv) string {
	if d := getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "mattools-sandbox")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "share", "mattools-sandbox")
	}
	return ""
}

// FindPython returns the default of the -python (-sandbox-python) flag, in
// this order (docs/sandbox.md, "Root and rootless"): $MATTOOLS_SANDBOX_PYTHON
// when set; DefaultPython when it holds an environment (bin/python3);
// UserPython when it holds one; else DefaultPython, whose absence the
// sandbox then reports with both ways to install it.
func FindPython(getenv cliflags.Getenv) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if p := getenv(PythonEnvVar); p != "" {
		return p
	}
	for _, p := range []string{DefaultPython, UserPython(getenv)} {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(p, "bin", "python3")); err == nil && !fi.IsDir() {
			return p
		}
	}
	return DefaultPython
}

// Sandbox is the sandbox a command executes code in.
type Sandbox struct {
	Backend  string // auto, local or docker
	NoCgroup bool   // let the local backend run with rlimits only
	Cold     bool   // a fresh interpreter per execution instead of warm workers
	Python   string // the sandbox's Python environment
	Slots    int    // concurrent sandboxes
	Limits   sandbox.Limits
}

// Register registers the sandbox's flags on fs, the limits (-timeout:
// wall clock, -cpu: CPU time, per execution) defaulting to limits and
// described with note (e.g. "the CPU-time limit decides"); cold says what
// -cold does for this command.
func (s *Sandbox) Register(fs *flag.FlagSet, getenv cliflags.Getenv, limits sandbox.Limits, note, cold string) {
	if getenv == nil {
		getenv = os.Getenv
	}
	python := FindPython(getenv)
	fs.StringVar(&s.Backend, "sandbox", sandbox.Auto, "sandbox backend: auto, local or docker")
	fs.BoolVar(&s.NoCgroup, "sandbox-no-cgroup", false, "let the local sandbox run with rlimits only when no memory and pids cgroup is writable")
	fs.BoolVar(&s.Cold, "cold", false, cold)
	fs.StringVar(&s.Python, "python", python, "the sandbox's Python environment (make sandbox-env; default $"+PythonEnvVar+", else "+DefaultPython+" or ~/.local/share/mattools-sandbox, the first installed)")
	fs.IntVar(&s.Slots, "slots", cliflags.AllocatedCPUs(getenv), "concurrent sandboxes (default $"+cliflags.SlurmCPUsVar+" in a Slurm task, else the CPUs this process may use)")
	fs.DurationVar(&s.Limits.Wall, "timeout", limits.Wall, "wall-clock limit per execution ("+note+")")
	fs.DurationVar(&s.Limits.CPU, "cpu", limits.CPU, "CPU-time limit per process ("+note+")")
}

// Open opens a scorer of the MatTools data at root in this sandbox
// (scoring.Open); close it to release the sandbox.
func (s *Sandbox) Open(ctx context.Context, root string) (*scoring.Scorer, error) {
	return scoring.Open(ctx, s.Backend, root, sandbox.Options{Slots: s.Slots, Python: s.Python, Limits: s.Limits,
		AllowNoCgroup: s.NoCgroup, Cold: s.Cold})
}
