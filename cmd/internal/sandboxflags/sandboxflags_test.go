package sandboxflags

import (
	"flag"
	"io"
	"os"
	"path/filepath"
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

// TestFindPythonOrder: $MATTOOLS_SANDBOX_PYTHON first; else /opt's
// environment when installed, else the user's when installed
// ($XDG_DATA_HOME, then $HOME/.local/share), else /opt's path.
func TestFindPythonOrder(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".local", "share", "mattools-sandbox")
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	optInstalled := false
	if _, err := os.Stat(filepath.Join(DefaultPython, "bin", "python3")); err == nil {
		optInstalled = true
	}
	if got := FindPython(env(map[string]string{PythonEnvVar: "/x/env", "HOME": home})); got != "/x/env" {
		t.Errorf("with $%s: %q", PythonEnvVar, got)
	}
	if got := FindPython(env(map[string]string{"HOME": home})); got != DefaultPython {
		t.Errorf("nothing in the user's prefix: %q, want %s", got, DefaultPython)
	}
	if err := os.MkdirAll(filepath.Join(user, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "bin", "python3"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	want := user
	if optInstalled {
		want = DefaultPython
	}
	if got := FindPython(env(map[string]string{"HOME": home})); got != want {
		t.Errorf("installed in the user's prefix (and in /opt: %v): %q, want %q", optInstalled, got, want)
	}
	xdg := t.TempDir()
	if got := UserPython(env(map[string]string{"HOME": home, "XDG_DATA_HOME": xdg})); got != filepath.Join(xdg, "mattools-sandbox") {
		t.Errorf("UserPython with $XDG_DATA_HOME: %q", got)
	}
}
