package sandboxflags

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

func TestRegisterDefaultsAndParses(t *testing.T) {
	getenv := func(k string) string {
		if k == PythonEnvVar {
			return "/opt/other-env"
		}
		return ""
	}
	limits := sandbox.Limits{Wall: 5 * time.Minute, CPU: 2 * time.Minute}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var s Sandbox
	s.Register(fs, getenv, limits, "the CPU-time limit decides", "a fresh interpreter per execution")
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if s.Python != "/opt/other-env" || s.Backend != sandbox.Auto || s.Limits != limits || s.Cold || s.NoCgroup || s.Slots < 1 {
		t.Fatalf("defaults: %+v", s)
	}
	if err := fs.Parse([]string{"-sandbox", "local", "-cpu", "90s", "-timeout", "3m", "-slots", "3", "-cold", "-sandbox-no-cgroup"}); err != nil {
		t.Fatal(err)
	}
	want := Sandbox{Backend: "local", NoCgroup: true, Cold: true, Python: "/opt/other-env", Slots: 3,
		Limits: sandbox.Limits{Wall: 3 * time.Minute, CPU: 90 * time.Second}}
	if s != want {
		t.Fatalf("parsed %+v, want %+v", s, want)
	}
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	var d Sandbox
	d.Register(fs, func(string) string { return "" }, limits, "", "")
	if d.Python != DefaultPython {
		t.Errorf("python without $%s = %q, want %q", PythonEnvVar, d.Python, DefaultPython)
	}
}
