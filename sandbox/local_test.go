package sandbox_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
	"github.com/mattools-leaderboard/leaderboard/sandbox/sandboxtest"
)

// openOrSkip opens a backend; when it is unavailable the test is skipped
// with the reason, except under CI (CI set), where it fails: CI installs
// everything the local backend needs (scripts/setup.sh).
func openOrSkip(t *testing.T, name string, o sandbox.Options) sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Open(context.Background(), name, o)
	if err != nil {
		if os.Getenv("CI") != "" || !errors.Is(err, sandbox.ErrUnavailable) {
			t.Fatalf("sandbox %s: %v", name, err)
		}
		t.Skipf("sandbox %s unavailable here: %v", name, err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// TestLocalConformance runs the hostile-code suite on the bubblewrap
// backend in its default mode, warm workers: every
// execution of the suite runs warm (its data folder is one of the
// sandbox's DataDirs).
func TestLocalConformance(t *testing.T) {
	sandbox.InBothModes(t)
	dir := dataDir(t)
	sb := openOrSkip(t, "local", sandbox.Options{Slots: 2, DataDirs: []string{dir}})
	sandboxtest.Run(t, sb, sandboxtest.Options{DataDir: dir, MeasuresCPU: true})
	if warm, cold := sandbox.Executions(sb); cold != 0 || warm < 12 {
		t.Errorf("the suite ran %d executions warm and %d cold; want every one warm", warm, cold)
	}
}

// TestLocalConformanceCold runs the same suite with a fresh sandbox per
// execution (Options.Cold, the reference mode).
func TestLocalConformanceCold(t *testing.T) {
	sandbox.InBothModes(t)
	dir := dataDir(t)
	sb := openOrSkip(t, "local", sandbox.Options{Slots: 2, Cold: true, DataDirs: []string{dir}})
	sandboxtest.Run(t, sb, sandboxtest.Options{DataDir: dir})
	if warm, cold := sandbox.Executions(sb); warm != 0 || cold < 12 {
		t.Errorf("the suite ran %d executions warm and %d cold; want every one cold", warm, cold)
	}
}

// TestAutoPicksLocal: with bubblewrap present and no Docker engine, auto selects local.
func TestAutoPicksLocal(t *testing.T) {
	sb := openOrSkip(t, sandbox.Auto, sandbox.Options{Slots: 1})
	if sb.Name() != "local" {
		t.Errorf("auto picked %q, want local", sb.Name())
	}
	if info := sb.Info(); info.Backend != "local" || !strings.HasPrefix(info.Version, "bubblewrap ") || info.TimeoutSeconds != 60 {
		t.Errorf("Info() = %+v; want local, bubblewrap version, 60 s", info)
	}
}

// TestUnreadablePythonFailsClearly: a Python environment under a 0700
// directory (like pyenv in /root) is refused at Open with a message naming it.
func TestUnreadablePythonFailsClearly(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the local backend runs only as root")
	}
	dir := t.TempDir() // 0700
	os.MkdirAll(dir+"/venv/bin", 0o755)
	os.WriteFile(dir+"/venv/bin/python3", []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(dir+"/venv/pyvenv.cfg", []byte("home = /usr/bin\n"), 0o644)
	os.Chmod(dir, 0o700)
	_, err := sandbox.Open(context.Background(), "local", sandbox.Options{Slots: 1, Python: dir + "/venv"})
	if err == nil || !strings.Contains(err.Error(), "not searchable by the sandbox uid") || !strings.Contains(err.Error(), dir) {
		t.Errorf("Open with an unreadable Python: err = %v; want a clear 'not searchable' error naming %s", err, dir)
	}
}

// TestUnknownBackend: a typo is an error listing the backends, never a fallback.
func TestUnknownBackend(t *testing.T) {
	_, err := sandbox.Open(context.Background(), "nsjail", sandbox.Options{})
	if err == nil || !strings.Contains(err.Error(), "docker, local") {
		t.Errorf("err = %v; want unknown backend listing docker, local", err)
	}
}

// TestFixedHashSeed: code that prints a set prints it in the same order in
// every sandbox, warm or cold (PYTHONHASHSEED=0 reaches the interpreter).
func TestFixedHashSeed(t *testing.T) {
	probe := []byte("import sys\nprint(sys.flags.hash_randomization, hash('pymatgen'), {'Ga', 'N', 'O', 'Si', 'Fe', 'Mn'})\n")
	var outs []string
	for _, cold := range []bool{false, true, false} {
		sb := openOrSkip(t, "local", sandbox.Options{Slots: 1, Cold: cold})
		res, err := sb.Run(context.Background(), sandbox.Spec{Files: map[string][]byte{"p.py": probe}, Argv: []string{"python3", "-I", "/sbx/p.py"}})
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("cold %v: %v %+v", cold, err, res)
		}
		outs = append(outs, string(res.Stdout))
		sb.Close()
	}
	if !strings.HasPrefix(outs[0], "0 ") || outs[1] != outs[0] || outs[2] != outs[0] {
		t.Errorf("warm, cold, warm printed %q; want the same text, hash randomization 0", outs)
	}
}
