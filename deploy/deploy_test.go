// Package deploy_test runs, from make test, the tests of the deployment
// modules under deploy/ (each a Go module of its own, so that the project's
// go.mod does not take their dependencies): deploy/kubernetes decodes the
// Kubernetes manifests with the k8s.io/api types and checks the Indexed
// Job's index-to-shard wiring.
package deploy_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestKubernetesManifests(t *testing.T) {
	goBin, err := exec.LookPath("go") // go test puts its own toolchain first on PATH
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	// Generous: the first run downloads and builds k8s.io/api (about 20 s);
	// scripts/setup.sh does that before make test.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if deadline, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-5*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, goBin, "test", "-count=1", "./...")
	cmd.Dir = "kubernetes"
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test ./... in deploy/kubernetes: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ok  \tgithub.com/mattools-leaderboard/leaderboard/deploy/kubernetes") {
		t.Fatalf("go test in deploy/kubernetes ran no test:\n%s", out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
