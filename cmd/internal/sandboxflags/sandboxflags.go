// Package sandboxflags registers the sandbox flags shared by the commands
// that execute tool-usage answers (-sandbox, -python, -slots, -cold,
// -timeout, -cpu, -sandbox-no-cgroup; docs/sandbox.md) and opens the
// scorer they describe.
package sandboxflags

import (
	"context"
	"flag"
	"os"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/runner/scoring"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// PythonEnvVar names the sandbox's Python environment when set; else
// DefaultPython (make setup installs it there).
const (
	PythonEnvVar  = "MATTOOLS_SANDBOX_PYTHON"
	DefaultPython = "/opt/mattools-sandbox"
)

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
	python := getenv(PythonEnvVar)
	if python == "" {
		python = DefaultPython
	}
	fs.StringVar(&s.Backend, "sandbox", sandbox.Auto, "sandbox backend: auto, local or docker")
	fs.BoolVar(&s.NoCgroup, "sandbox-no-cgroup", false, "let the local sandbox run with rlimits only when no memory and pids cgroup is writable")
	fs.BoolVar(&s.Cold, "cold", false, cold)
	fs.StringVar(&s.Python, "python", python, "the sandbox's Python environment (make setup; default $"+PythonEnvVar+" or "+DefaultPython+")")
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
