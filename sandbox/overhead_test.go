package sandbox_test

import (
	"context"
	"os"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// BenchmarkPerTaskOverhead measures one sandboxed execution of a program
// that does nothing (/bin/true) and of Python's start-up (python3 -I -c
// pass), with the data folder mounted whole and with a task's private
// copy of one data file: the sandbox's own cost per task (bubblewrap, the
// slot uid, limits, cgroups, seccomp, the data copy). Run with
// `go test -run ^$ -bench PerTaskOverhead ./sandbox/` (root, the
// pinned Python environment installed).
func BenchmarkPerTaskOverhead(b *testing.B) {
	sb, err := sandbox.Open(context.Background(), "local", sandbox.Options{Slots: 1, Python: "/opt/mattools-sandbox"})
	if err != nil {
		b.Skipf("no local sandbox: %v", err)
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "overhead-data-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	os.WriteFile(dir+"/GaN.vasp", make([]byte, 64<<10), 0o644)
	for _, c := range []struct {
		name  string
		argv  []string
		files []string
	}{
		{"true/data-folder", []string{"/bin/true"}, nil},
		{"true/private-copy", []string{"/bin/true"}, []string{"GaN.vasp"}},
		{"python/data-folder", []string{"python3", "-I", "-c", "pass"}, nil},
		{"python/private-copy", []string{"python3", "-I", "-c", "pass"}, []string{"GaN.vasp"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := sb.Run(context.Background(), sandbox.Spec{Argv: c.argv, DataDir: dir, DataFiles: c.files})
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// BenchmarkWarmExecution measures one warm execution (a worker that has
// imported numpy and pymatgen.core, a script importing pymatgen.core with a
// private copy of one data file), in whichever privilege mode the
// benchmark runs (root, or rootless as any other uid: docs/sandbox.md,
// "Root and rootless"). Run with `go test -run ^$ -bench WarmExecution
// ./sandbox/` as root, and the test binary as another uid (setpriv), on the
// same machine.
func BenchmarkWarmExecution(b *testing.B) {
	sb, err := sandbox.Open(context.Background(), "local", sandbox.Options{Slots: 1, Python: "/opt/mattools-sandbox",
		Preload: []string{"numpy", "pymatgen.core"}, AllowNoCgroup: true})
	if err != nil {
		b.Skipf("no local sandbox: %v", err)
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "warm-bench-data-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	os.WriteFile(dir+"/GaN.vasp", make([]byte, 64<<10), 0o644)
	spec := sandbox.Spec{Files: map[string][]byte{"main.py": []byte("import pymatgen.core\nprint(len(open('tool_source_code/GaN.vasp', 'rb').read()))\n")},
		Argv: []string{"python3", "-I", "/sbx/main.py"}, DataDir: dir, DataFiles: []string{"GaN.vasp"}}
	b.Logf("privilege %s, cgroup %s", sandbox.Privilege(sb), sb.Info().Limits["cgroup"])
	for b.Loop() {
		res, err := sb.Run(context.Background(), spec)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
	}
	if warm, cold := sandbox.Executions(sb); cold != 0 || warm == 0 {
		b.Fatalf("%d warm, %d cold executions; want all warm", warm, cold)
	}
}
