package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestLocalRefusesWithoutCgroupsUnlessAllowed: on a machine without a
// writable memory and pids cgroup the local backend fails closed, naming the
// opt-in, and runs with rlimits only when it is given.
func TestLocalRefusesWithoutCgroupsUnlessAllowed(t *testing.T) {
	InBothModes(t)
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	defer func(f func() *cgroups) { probeCgroupsFunc = f }(probeCgroupsFunc)
	probeCgroupsFunc = func() *cgroups { return nil }
	_, err := Open(context.Background(), "local", Options{Slots: 1})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "AllowNoCgroup") {
		t.Fatalf("Open without cgroups = %v, want ErrUnavailable naming AllowNoCgroup", err)
	}
	sb, err := Open(context.Background(), "local", Options{Slots: 1, AllowNoCgroup: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if got := sb.Info().Limits["cgroup"]; got != "none (rlimits only)" {
		t.Errorf("Info cgroup = %q", got)
	}
}
