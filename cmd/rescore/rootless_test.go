package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results/published"
	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

// verdictSample is the sample of the single-LLM GPT-4o round-1 run that
// TestVerdictsEqualRootAndRootless re-executes in both privilege modes:
// correct, partial and not-runnable answers (in the committed store), 24
// question × protocol rows. All 4,872 rows: make compare-verdicts-rootless.
var verdictSample = []string{"test_vacancy", "test_boltzmann", "test_pchip_eval", "test_substitution", "test_supercells",
	"test_cluster_nodes", "test_lower_envelope", "test_get_Rad_coef", "test_kumagai", "test_wswq_slope",
	"test_closest_sc_mat", "test_ensure_stable_bulk"}

// verdictChildEnv carries the arguments of the rootless re-execution to the
// test binary run as an unprivileged uid.
const verdictChildEnv = "MATTOOLS_RESCORE_ROOTLESS_ARGS"

// TestVerdictsEqualRootAndRootless re-executes verdictSample of a real
// published run as root (the root mode, in this process) and as uid 65534
// (the test binary under setpriv: the rootless mode, with a private
// TMPDIR and no cgroup, rlimits only: -sandbox-no-cgroup), and wants every
// row (verdict, cause, runnable, properties passed) equal in both and equal
// to the committed store's, and the rootless store's environment to record
// the rootless mode.
func TestVerdictsEqualRootAndRootless(t *testing.T) {
	if args := os.Getenv(verdictChildEnv); args != "" {
		var argv []string
		if err := json.Unmarshal([]byte(args), &argv); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		if code := run(context.Background(), argv, io.Discard, &stderr); code != exitOK {
			t.Fatalf("rootless rescore: exit %d: %s", code, stderr.String())
		}
		return
	}
	root := mattoolstest.DataRoot(t, "to re-execute published answers as root and rootless")
	python := envOr("MATTOOLS_SANDBOX_PYTHON", "/opt/mattools-sandbox")
	if _, err := os.Stat(filepath.Join(python, "pyvenv.cfg")); err != nil && os.Getenv("CI") == "" {
		t.Skipf("the sandbox's Python environment is not installed (make setup): %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: re-executes as root and as an unprivileged uid")
	}
	if _, err := os.Stat("/usr/bin/setpriv"); err != nil {
		t.Fatal(err)
	}
	mini := miniRoot(t, root)
	dir, err := os.MkdirTemp("", "rescore-rootless-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "rescore.test")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(dir, "private") // the unprivileged uid's HOME, TMPDIR and store
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(private, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	args := []string{"-quiet", "-slots", "2", "-data", mini, "-all-published", "-python", python, "-questions", strings.Join(verdictSample, ",")}

	rootStore := filepath.Join(dir, "root.json")
	var stderr bytes.Buffer
	if code := run(context.Background(), append(args, "-store", rootStore), io.Discard, &stderr); code != exitOK {
		t.Fatalf("root rescore: exit %d: %s", code, stderr.String())
	}
	userStore := filepath.Join(private, "rootless.json")
	childArgs, _ := json.Marshal(append(args, "-store", userStore, "-sandbox-no-cgroup"))
	cmd := exec.Command("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		bin, "-test.run=^TestVerdictsEqualRootAndRootless$", "-test.v", "-test.count=1")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=" + private, "TMPDIR=" + private, verdictChildEnv + "=" + string(childArgs)}
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS: TestVerdictsEqualRootAndRootless") {
		t.Fatalf("the rootless re-execution: %v\n%s", err, out)
	}

	read := func(path string) (*published.ReexecutedRun, published.ReexecutionEnvironment) {
		st, err := published.ReadReexecuted(path)
		if err != nil {
			t.Fatal(err)
		}
		const id = "imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-original__r1"
		r := st.Runs[id]
		if r == nil {
			t.Fatalf("%s holds no run %s", path, id)
		}
		return r, st.Environments[r.Environment]
	}
	rootRun, rootEnv := read(rootStore)
	userRun, userEnv := read(userStore)
	committed, _ := read(filepath.Join("..", "..", "results", "published", published.ReexecutedFile))
	rows := func(r *published.ReexecutedRun) map[string]string {
		m := map[string]string{}
		for _, v := range r.Rows {
			m[v.QuestionID+" "+v.Protocol] = fmt.Sprintf("%s %q runnable=%v properties=%d", v.Verdict, v.Cause, v.Runnable, v.PropertiesPassed)
		}
		return m
	}
	asRoot, rootless, want := rows(rootRun), rows(userRun), rows(committed)
	if len(asRoot) != 2*len(verdictSample) || len(rootless) != len(asRoot) {
		t.Fatalf("rows: %d as root, %d rootless; want %d each", len(asRoot), len(rootless), 2*len(verdictSample))
	}
	equal := 0
	for k, v := range asRoot {
		switch {
		case rootless[k] != v:
			t.Errorf("%s: %s as root, %s rootless", k, v, rootless[k])
		case want[k] != v:
			t.Errorf("%s: %s in both modes, %s in the committed store", k, v, want[k])
		default:
			equal++
		}
	}
	if got := userEnv.Sandbox.Limits["privilege"]; !strings.HasPrefix(got, sandbox.PrivilegeRootless) {
		t.Errorf("the rootless store's sandbox record: privilege %q, want rootless", got)
	}
	if _, ok := rootEnv.Sandbox.Limits["privilege"]; ok {
		t.Errorf("the root store's sandbox record names a privilege (%q): the root mode's record must stay as it was", rootEnv.Sandbox.Limits["privilege"])
	}
	t.Logf("%d of %d question × protocol rows equal as root, rootless and in the committed store", equal, len(asRoot))
}

func copyExecutable(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}
