// Package cliflags registers the command-line flags that several of this
// project's commands share, so that they are named, defaulted and described
// alike: the MatTools data root (-data). The sandbox's flags are in
// cmd/internal/sandboxflags, so that commands that execute nothing do not
// link the sandbox.
package cliflags

import (
	"flag"
	"os"
	"runtime"
	"strconv"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// Getenv is os.Getenv; a command's tests may read another environment.
type Getenv func(string) string

// DataVar registers -data into p: the MatTools data root, by default
// $MATTOOLS_DATA (datasets.EnvVar) as getenv (nil: os.Getenv) reads it;
// what, unless "", says what the command reads it for (", for -reexecute").
func DataVar(fs *flag.FlagSet, p *string, getenv Getenv, what string) {
	if getenv == nil {
		getenv = os.Getenv
	}
	fs.StringVar(p, "data", getenv(datasets.EnvVar), "the MatTools data root"+what+" (default $"+datasets.EnvVar+")")
}

// Data registers -data as DataVar does and returns where its value is
// stored.
func Data(fs *flag.FlagSet, getenv Getenv, what string) *string {
	p := new(string)
	DataVar(fs, p, getenv, what)
	return p
}

// SlurmCPUsVar is the variable in which Slurm gives a task its CPUs
// (sbatch --cpus-per-task).
const SlurmCPUsVar = "SLURM_CPUS_PER_TASK"

// AllocatedCPUs returns the CPUs this process may use, the default of the
// sandbox's slots (executions at once): $SLURM_CPUS_PER_TASK inside a Slurm
// task that was given CPUs, else runtime.NumCPU, which on Linux counts the
// CPUs of the process's affinity mask (taskset, a scheduler's binding), not
// the machine's. A value that is not a positive integer is ignored.
func AllocatedCPUs(getenv Getenv) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	if n, err := strconv.Atoi(getenv(SlurmCPUsVar)); err == nil && n > 0 {
		return n
	}
	return runtime.NumCPU()
}
