package cliflags

import (
	"flag"
	"io"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

func TestDataDefaultsToTheEnvironmentAndParses(t *testing.T) {
	getenv := func(k string) string {
		if k == datasets.EnvVar {
			return "/srv/mattools"
		}
		return ""
	}
	for _, tc := range []struct {
		args []string
		want string
	}{{nil, "/srv/mattools"}, {[]string{"-data", "/elsewhere"}, "/elsewhere"}} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		data := Data(fs, getenv, ", for the question pages")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		if *data != tc.want {
			t.Errorf("args %q: -data = %q, want %q", tc.args, *data, tc.want)
		}
		if u := fs.Lookup("data").Usage; u != "the MatTools data root, for the question pages (default $"+datasets.EnvVar+")" {
			t.Errorf("usage %q", u)
		}
	}
}
