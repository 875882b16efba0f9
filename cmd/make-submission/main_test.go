package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The conversion itself, from a real runner run to a submission that
// validate-submission -reexecute accepts, is tested in
// cmd/validate-submission (TestRunnerRunBecomesASubmission); these are the
// command's usage and input errors.
func TestUsageAndInputErrors(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "author.toml")
	os.WriteFile(meta, []byte("organization = \"x\"\nfavourite_colour = \"blue\"\n"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, exitUsage, "usage: make-submission -metadata"},
		{[]string{"-metadata", meta}, exitUsage, "usage: make-submission -metadata"},
		{[]string{"-metadata", meta, empty}, exitInvalid, empty + ": no results files (*.parquet); give run-benchmark's -out directory"},
		{[]string{"-metadata", meta, filepath.Join(dir, "absent")}, exitInvalid, "absent: no such file or directory"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr, time.Now)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the failed runs left %d entries in %s", len(entries), dir)
	}
}
