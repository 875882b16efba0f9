package synth

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mattools-leaderboard/leaderboard/sandbox"
)

//go:embed check_b.py
var checkBScript string

//go:embed pytest_standin.py
var pytestStandin string

// PymatgenTestFiles is where pymatgen's tests/files of the data root
// appear in the sandbox (PMG_TEST_FILES_DIR, which sets
// pymatgen.util.testing.TEST_FILES_DIR).
const PymatgenTestFiles = "/app/tool_source_code/pymatgen/tests/files"

// ExecInput is what check (b) runs of one triplet.
type ExecInput struct {
	// UnitTest is the verification code (MatTools' new_unit_test), whose
	// function is the first top-level def; Properties the property names.
	UnitTest   string
	Properties []string
	// Reference is the reference solution ("" for none: not run); its
	// function is the last top-level def (LastFunctionName), called with
	// no argument.
	Reference string
	// Test is the test the triplet came from (its Name "" for none: not
	// run); it runs as FileReading + UnitTest, fixtures resolved by name
	// under a pytest stand-in (pytest_standin.py: fixture, approx, raises,
	// warns, mark, skip; the sandbox's environment has no pytest).
	Test Test
}

// StepOutcome is one part of check (b).
type StepOutcome struct {
	// Status is "ok" or "crash" (the verification or the reference
	// raised), or, for the test, "passed", "failed", "error", "skipped";
	// "" when the part did not run.
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Failed are the properties some error string of the verification
	// names (it starts with the name, or holds "name:" or "name ").
	Failed []string `json:"failed"`
	Errors []string `json:"errors"`
}

// ExecResult is check (b) of one triplet.
type ExecResult struct {
	// None is the verification given a dict of None for every property;
	// Reference the verification of the reference's dict; Test the test
	// function itself.
	None, Reference, Test StepOutcome
	// Problems are the reasons it fails check (b): a property that None
	// passes, one the reference fails, a crash, the test failing or
	// raising (a test skipped for missing data or packages is not one).
	Problems []string
	// Sandbox is the execution's failure to produce a result (a timeout,
	// no output), "" when it did.
	Sandbox string
}

// CheckExecution runs check (b) on each input in sb (one fresh execution
// per input, at most sb.Info().Slots at a time), with root's
// src/tool_source_code mounted at /app/tool_source_code and /app the
// working directory, as MatTools ran its questions. Untrusted code (the
// model's verification, reference and the test) runs only there.
func CheckExecution(ctx context.Context, sb sandbox.Sandbox, root string, in []ExecInput, wall time.Duration) ([]ExecResult, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	dataDir := filepath.Join(abs, "src", "tool_source_code")
	out := make([]ExecResult, len(in))
	slots := sb.Info().Slots
	if slots < 1 {
		slots = 1
	}
	sem := make(chan struct{}, slots)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for i := range in {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			r, err := checkOne(ctx, sb, dataDir, in[i], wall)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			out[i] = r
		}(i)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func checkOne(ctx context.Context, sb sandbox.Sandbox, dataDir string, in ExecInput, wall time.Duration) (ExecResult, error) {
	var r ExecResult
	spec := map[string]any{"unit_test": in.UnitTest, "unit_test_name": FunctionName(in.UnitTest), "properties": in.Properties}
	if in.Reference != "" {
		spec["reference"], spec["reference_name"] = in.Reference, LastFunctionName(in.Reference)
	}
	if in.Test.Name != "" {
		spec["test_module"] = HoistFuture(in.Test.FileReading + "\n\n" + in.Test.UnitTest)
		spec["test_name"], spec["test_class"] = in.Test.Name, in.Test.Class
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return r, err
	}
	res, err := sb.Run(ctx, sandbox.Spec{
		Files: map[string][]byte{"check_b.py": []byte(checkBScript), "pytest.py": []byte(pytestStandin), "triplet.json": b},
		Argv:  []string{"python3", "-I", "/sbx/check_b.py"},
		// pymatgen's tests read TEST_FILES_DIR, which pymatgen takes from
		// this setting: the data root's copy of tests/files.
		Env:     []string{"PMG_TEST_FILES_DIR=" + PymatgenTestFiles},
		DataDir: dataDir,
		Limits:  sandbox.Limits{Wall: wall},
	})
	if err != nil {
		return r, fmt.Errorf("synth: sandbox: %w", err)
	}
	var got struct {
		None, Reference, Test StepOutcome
	}
	if res.TimedOut {
		r.Sandbox = fmt.Sprintf("timed out after %s", wall)
	} else if err := json.Unmarshal(res.Side, &got); err != nil {
		r.Sandbox = fmt.Sprintf("no result (exit %d): %s", res.ExitCode, tail(res.Stderr, 300))
	}
	if r.Sandbox != "" {
		r.Problems = []string{"check (b) did not finish: " + r.Sandbox}
		return r, nil
	}
	r.None, r.Reference, r.Test = got.None, got.Reference, got.Test
	switch r.None.Status {
	case "crash":
		r.Problems = append(r.Problems, "the verification crashes given None for every property: "+oneLine(r.None.Detail))
	case "ok":
		failed := map[string]bool{}
		for _, p := range r.None.Failed {
			failed[p] = true
		}
		for _, p := range in.Properties {
			if !failed[p] {
				r.Problems = append(r.Problems, fmt.Sprintf("the verification passes property %s given None", p))
			}
		}
	}
	if in.Reference != "" {
		switch r.Reference.Status {
		case "crash":
			r.Problems = append(r.Problems, "the reference solution or its verification crashes: "+oneLine(r.Reference.Detail))
		case "ok":
			for _, p := range r.Reference.Failed {
				r.Problems = append(r.Problems, fmt.Sprintf("the reference solution fails property %s", p))
			}
		}
	}
	if in.Test.Name != "" && r.Test.Status != "passed" && r.Test.Status != "skipped" {
		r.Problems = append(r.Problems, fmt.Sprintf("the test itself %s: %s", r.Test.Status, strings.Join(strings.Fields(r.Test.Detail), " ")))
	}
	return r, nil
}

// HoistFuture moves the "from __future__ import …" lines of code (joined
// from several files' texts) to its top, where Python requires them.
func HoistFuture(code string) string {
	var fut, rest []string
	for _, l := range strings.SplitAfter(code, "\n") {
		if strings.HasPrefix(l, "from __future__ import ") {
			fut = append(fut, strings.TrimSuffix(l, "\n")+"\n")
		} else {
			rest = append(rest, l)
		}
	}
	return strings.Join(fut, "") + strings.Join(rest, "")
}

func tail(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return oneLine(s)
}
