package sandbox

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHelperOpenAndHang is not a test: run by TestStartupSweepsStaleTaskFolders
// as a child process, it opens a local sandbox, writes a task file into its
// folder, prints the folder and waits to be killed with SIGKILL.
func TestHelperOpenAndHang(t *testing.T) {
	if os.Getenv("MATTOOLS_SWEEP_HELPER") != "1" {
		t.Skip("helper process of TestStartupSweepsStaleTaskFolders")
	}
	sb, err := Open(context.Background(), "local", Options{Slots: 1, AllowNoCgroup: true})
	if err != nil {
		os.Stdout.WriteString("ERR " + err.Error() + "\n")
		os.Exit(1)
	}
	base := sb.(*local).base
	os.MkdirAll(filepath.Join(base, "slot0-x"), 0o755)
	os.WriteFile(filepath.Join(base, "slot0-x", "main.py"), []byte("print(1)\n"), 0o644)
	os.Stdout.WriteString("BASE " + base + "\n")
	time.Sleep(time.Minute)
	os.Exit(2)
}

// TestStartupSweepsStaleTaskFolders: a runner killed with
// SIGKILL leaves its task folder; the next Open removes it, and removes a
// simulated leftover of a dead pid, but never the folder of a live run (an
// open Sandbox of this process, or a folder whose owner's lock is held).
func TestStartupSweepsStaleTaskFolders(t *testing.T) {
	InBothModes(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	tmp := os.TempDir()

	// 1. A real runner process killed with SIGKILL mid-run.
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOpenAndHang$", "-test.v")
	cmd.Env = append(os.Environ(), "MATTOOLS_SWEEP_HELPER=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var killed string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if b, ok := strings.CutPrefix(sc.Text(), "BASE "); ok {
			killed = b
			break
		}
		if strings.HasPrefix(sc.Text(), "ERR ") {
			t.Fatalf("helper: %s", sc.Text())
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if killed == "" || !strings.HasPrefix(filepath.Base(killed), basePrefix+strconv.Itoa(cmd.Process.Pid)+"-") {
		t.Fatalf("helper's folder %q: want %s%d-…", killed, basePrefix, cmd.Process.Pid)
	}
	if _, err := os.Stat(filepath.Join(killed, "slot0-x", "main.py")); err != nil {
		t.Fatalf("the killed runner's folder should be left behind: %v", err)
	}

	// 2. A leftover of a dead pid without its lock file (as after a reboot
	// emptied /run); the pid is that of a reaped child, so it is dead.
	dead := exec.Command("/bin/true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(dead.Process.Pid, 0) == nil {
		t.Skip("pid reused already")
	}
	noLock := filepath.Join(tmp, basePrefix+strconv.Itoa(dead.Process.Pid)+"-0000deadbeef")
	os.MkdirAll(filepath.Join(noLock, "slot1-y"), 0o755)

	// 3. Live folders: an open Sandbox of this process; a folder whose
	// owner lock is held (its recorded pid being dead does not matter);
	// a folder without a lock whose recorded pid (ours) is alive; and a
	// folder of an older name, which records no owner.
	live := openForTest(t)
	liveBase := live.base
	held := filepath.Join(tmp, basePrefix+strconv.Itoa(dead.Process.Pid)+"-00000000aaaa")
	heldLock := filepath.Join(live.locks0, "base-"+strings.TrimPrefix(filepath.Base(held), basePrefix)+".lock")
	os.Mkdir(held, 0o700)
	lf, err := os.OpenFile(heldLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { lf.Close(); os.Remove(heldLock); os.RemoveAll(held) }()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	midSetup := filepath.Join(tmp, basePrefix+strconv.Itoa(os.Getpid())+"-00000000bbbb")
	os.Mkdir(midSetup, 0o700)
	defer os.RemoveAll(midSetup)
	legacy := filepath.Join(tmp, basePrefix+"123456789")
	os.Mkdir(legacy, 0o700)
	defer os.RemoveAll(legacy)
	// A symlink named like a stale folder is never followed nor removed.
	target := t.TempDir()
	os.WriteFile(filepath.Join(target, "keep"), nil, 0o644)
	link := filepath.Join(tmp, basePrefix+strconv.Itoa(dead.Process.Pid)+"-00000000cccc")
	os.Symlink(target, link)
	defer os.Remove(link)

	// A new run opens its sandbox: the sweep runs.
	next := openForTest(t)
	for _, gone := range []string{killed, noLock, filepath.Join(live.locks0, "base-"+strings.TrimPrefix(filepath.Base(killed), basePrefix)+".lock")} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s survived the start-up sweep (err %v)", gone, err)
		}
	}
	for _, kept := range []string{liveBase, live.owner.Name(), held, heldLock, midSetup, legacy, link, filepath.Join(target, "keep"), next.base} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("the sweep removed %s, which is live or not a stale sandbox folder: %v", kept, err)
		}
	}
	// The live sandbox still works after the sweep.
	res, err := live.Run(context.Background(), Spec{Files: map[string][]byte{"main.py": []byte("print(6*7)")}, Argv: []string{"python3", "-I", "/sbx/main.py"}})
	if err != nil || strings.TrimSpace(string(res.Stdout)) != "42" {
		t.Errorf("live sandbox after the sweep: %v, %+v", err, res)
	}
	// Close removes the folder and its lock.
	live.Close()
	if _, err := os.Lstat(liveBase); !os.IsNotExist(err) {
		t.Errorf("Close left %s", liveBase)
	}
	if _, err := os.Lstat(live.owner.Name()); !os.IsNotExist(err) {
		t.Errorf("Close left %s", live.owner.Name())
	}
}

func openForTest(t *testing.T) *local {
	t.Helper()
	sb, err := Open(context.Background(), "local", Options{Slots: 1, AllowNoCgroup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb.(*local)
}
