// Package cliflags registers the command-line flags that several of this
// project's commands share, so that they are named, defaulted and described
// alike: the MatTools data root (-data). The sandbox's flags are in
// cmd/internal/sandboxflags, so that commands that execute nothing do not
// link the sandbox.
package cliflags

import (
	"flag"
	"os"

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
