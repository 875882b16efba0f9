package release

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRejects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"bad version", `{"releases":[{"version":"1.0","date":"2026-12-01"}]}`, "version: want v<major>.<minor>"},
		{"twice", `{"releases":[{"version":"v1.0","date":"2026-12-01"},{"version":"v1.0","date":"2026-12-02"}]}`, "listed twice"},
		{"bad date", `{"releases":[{"version":"v1.0","date":"1 Dec 2026"}]}`, "date:"},
		{"out of order", `{"releases":[{"version":"v1.0","date":"2026-12-02"},{"version":"v1.1","date":"2026-12-01"}]}`, "is before the previous release"},
		{"duplicate run", `{"releases":[{"version":"v1.0","date":"2026-12-01","runs":["a","a"]}]}`, `runs: "a" listed twice`},
		{"unknown field", `{"releases":[{"version":"v1.0","date":"2026-12-01","run":["a"]}]}`, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), File) {
				t.Errorf("error = %v, want %q naming %s", err, tt.want, File)
			}
		})
	}
	data, err := os.ReadFile(filepath.Join("../..", File))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(data); err != nil {
		t.Errorf("the committed %s: %v", File, err)
	}
}

// TestUnavailableGeneratorCommitIsNamed: a release whose generator commit is
// not in the clone (a shallow clone) cannot be rebuilt; the error says so.
func TestUnavailableGeneratorCommitIsNamed(t *testing.T) {
	if err := exec.Command("git", "-C", "../..", "rev-parse", "HEAD").Run(); err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	const missing = "0123456789abcdef0123456789abcdef01234567"
	err := CommitAvailable(context.Background(), "../..", missing)
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "is not in the clone") {
		t.Errorf("error = %v, want one naming %s as not in the clone", err, missing)
	}
	head, _ := exec.Command("git", "-C", "../..", "rev-parse", "HEAD").Output()
	if err := CommitAvailable(context.Background(), "../..", strings.TrimSpace(string(head))); err != nil {
		t.Errorf("HEAD: %v", err)
	}
}
