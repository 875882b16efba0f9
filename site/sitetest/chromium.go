package sitetest

import (
	"os"
	"os/exec"
	"testing"
)

// ChromiumPath returns Debian's chromium for the browser tests; without it
// the test is skipped, except under CI (CI set), where scripts/setup.sh
// installs it and its absence fails the test.
func ChromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found under CI: scripts/setup.sh installs it (apt-get install chromium)")
	}
	t.Skip("chromium not found (apt-get install chromium)")
	return ""
}
