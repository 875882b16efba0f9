package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroups is the local backend's optional per-task memory and pids cgroup.
// On these machines cgroup v2 has no usable controllers and v1 memory and
// pids work as root (docs/sandbox.md#design-limits-and-cleanup); so this uses v1, under the runner's own
// v1 cgroups, and is skipped (rlimits only) where it cannot be written.
type cgroups struct {
	memory string // parent directory in the memory hierarchy, "" if unusable
	pids   string // parent directory in the pids hierarchy, "" if unusable
	cpu    string // parent directory in the cpu hierarchy, "" if unusable
	memsw  bool   // memory.memsw.limit_in_bytes exists (swap accounting)
}

// taskSeq numbers task cgroups within the process (mattools-sbx-<pid>-<slot>-<n>):
// one counter for every sandbox, so that two sandboxes' names never meet (a
// warm execution's cgroups are removed after its Run returns).
var taskSeq atomic.Int64

type cgroupTask struct {
	dirs []string
	mem  string // the memory cgroup among dirs ("" none)
	pids string // the pids cgroup among dirs ("" none)
}

// probeCgroups finds writable v1 memory and pids hierarchies for the runner
// and checks that a child cgroup can be made there; nil when neither works.
// probeCgroupsFunc is probeCgroups; tests replace it to simulate a machine
// without usable cgroups.
var probeCgroupsFunc = probeCgroups

func probeCgroups() *cgroups {
	own := ownV1Cgroups()
	cg := &cgroups{}
	for _, ctl := range []string{"memory", "pids", "cpu"} {
		rel, ok := own[ctl]
		if !ok {
			continue
		}
		parent := filepath.Join("/sys/fs/cgroup", ctl, rel)
		probe := filepath.Join(parent, fmt.Sprintf("mattools-sbx-probe-%d", os.Getpid()))
		if err := os.Mkdir(probe, 0o755); err != nil {
			continue
		}
		file, value := "pids.max", "64"
		switch ctl {
		case "memory":
			file, value = "memory.limit_in_bytes", "67108864"
		case "cpu":
			file, value = "cpu.cfs_quota_us", "100000"
		}
		err := os.WriteFile(filepath.Join(probe, file), []byte(value), 0o644)
		if ctl == "memory" {
			if _, e := os.Stat(filepath.Join(probe, "memory.memsw.limit_in_bytes")); e == nil {
				cg.memsw = true
			}
		}
		os.Remove(probe)
		if err != nil {
			continue
		}
		sweepStale(parent)
		switch ctl {
		case "memory":
			cg.memory = parent
		case "pids":
			cg.pids = parent
		default:
			cg.cpu = parent
		}
	}
	if cg.memory == "" && cg.pids == "" && cg.cpu == "" {
		return nil
	}
	return cg
}

// ownV1Cgroups maps v1 controller names to this process's cgroup path.
func ownV1Cgroups() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 || parts[1] == "" {
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			out[ctl] = parts[2]
		}
	}
	return out
}

// sweepStale removes task cgroups left by runners that no longer exist.
func sweepStale(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "mattools-sbx-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || syscall.Kill(pid, 0) == nil {
			continue
		}
		t := &cgroupTask{dirs: []string{filepath.Join(parent, e.Name())}}
		t.killAll()
		t.remove()
	}
}

func (c *cgroups) describe(l Limits) string {
	var parts []string
	if c.memory != "" {
		parts = append(parts, fmt.Sprintf("v1 memory %d bytes", l.MemoryCgroup))
	}
	if c.pids != "" {
		parts = append(parts, fmt.Sprintf("v1 pids %d", l.PidsCgroup))
	}
	return strings.Join(parts, ", ")
}

// create makes the task's cgroups with their limits.
func (c *cgroups) create(name string, l Limits) (*cgroupTask, error) {
	t := &cgroupTask{}
	if c.memory != "" {
		d := filepath.Join(c.memory, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
		t.dirs = append(t.dirs, d)
		t.mem = d
		lim := []byte(strconv.FormatInt(l.MemoryCgroup, 10))
		if err := os.WriteFile(filepath.Join(d, "memory.limit_in_bytes"), lim, 0o644); err != nil {
			t.remove()
			return nil, err
		}
		if c.memsw {
			// Equal limits: no swap beyond the memory limit.
			if err := os.WriteFile(filepath.Join(d, "memory.memsw.limit_in_bytes"), lim, 0o644); err != nil {
				t.remove()
				return nil, err
			}
		}
	}
	if c.pids != "" {
		d := filepath.Join(c.pids, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.remove()
			return nil, err
		}
		t.dirs = append(t.dirs, d)
		t.pids = d
		if err := os.WriteFile(filepath.Join(d, "pids.max"), []byte(strconv.Itoa(l.PidsCgroup)), 0o644); err != nil {
			t.remove()
			return nil, err
		}
	}
	if c.cpu != "" {
		// One CPU per task: a task's processes cannot starve a concurrent slot
		// (each setsid'd process would otherwise get its own autogroup share).
		d := filepath.Join(c.cpu, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.remove()
			return nil, err
		}
		t.dirs = append(t.dirs, d)
		os.WriteFile(filepath.Join(d, "cpu.cfs_period_us"), []byte("100000"), 0o644)
		if err := os.WriteFile(filepath.Join(d, "cpu.cfs_quota_us"), []byte("100000"), 0o644); err != nil {
			t.remove()
			return nil, err
		}
	}
	return t, nil
}

// setLimits sets the memory and pids limits of a warm execution's cgroups,
// made with the backend's limits def, to lim's. The pids limit is one less
// than the smaller of a cold task's two process limits (its pids cgroup and
// RLIMIT_NPROC, each of which counts bubblewrap, its init and the code): a
// warm task's cgroup holds the execution's pid 1 (G) and the code, so the
// code may have exactly as many processes as in a cold run. Safe on a nil
// task.
func (t *cgroupTask) setLimits(lim, def Limits) error {
	if t == nil {
		return nil
	}
	if t.mem != "" && lim.MemoryCgroup != def.MemoryCgroup {
		v := []byte(strconv.FormatInt(lim.MemoryCgroup, 10))
		// memsw may not be below the memory limit: it is written last when
		// lowering, first when raising.
		files := []string{"memory.limit_in_bytes", "memory.memsw.limit_in_bytes"}
		if lim.MemoryCgroup > def.MemoryCgroup {
			files[0], files[1] = files[1], files[0]
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(t.mem, f), v, 0o644); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
	}
	if t.pids != "" {
		n := max(1, min(lim.PidsCgroup, lim.NProc)-1)
		if err := os.WriteFile(filepath.Join(t.pids, "pids.max"), []byte(strconv.Itoa(n)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (t *cgroupTask) procsFiles() []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, d := range t.dirs {
		out = append(out, filepath.Join(d, "cgroup.procs"))
	}
	return out
}

// killAll SIGKILLs every process in the task's cgroups until they are empty
// (at most ~2 s). Safe on a nil task.
func (t *cgroupTask) killAll() {
	if t == nil {
		return
	}
	for i := 0; i < 100; i++ {
		left := 0
		for _, d := range t.dirs {
			data, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
					left++
				}
			}
		}
		if left == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// oomKilled reports whether the memory cgroup's OOM killer fired.
func (t *cgroupTask) oomKilled() bool {
	if t == nil || t.mem == "" {
		return false
	}
	data, _ := os.ReadFile(filepath.Join(t.mem, "memory.oom_control"))
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n > 0
		}
	}
	return false
}

// remove deletes the task's cgroups (they must be empty) and reports
// whether they are all gone (after ~1 s of retries). Safe on nil.
func (t *cgroupTask) remove() bool {
	if t == nil {
		return true
	}
	all := true
	for _, d := range t.dirs {
		gone := false
		for i := 0; i < 50; i++ {
			if err := os.Remove(d); err == nil || os.IsNotExist(err) {
				gone = true
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		all = all && gone
	}
	return all
}
