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
