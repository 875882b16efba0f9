package leaderboard_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestMakefileTargetsHaveHelp: every target of the Makefile carries the
// "## " comment `make help` prints, so the list cannot drift.
func TestMakefileTargetsHaveHelp(t *testing.T) {
	data, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`^([a-zA-Z_-]+):([^=]|$)`)
	n := 0
	for i, line := range strings.Split(string(data), "\n") {
		m := rule.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		if _, help, ok := strings.Cut(line, " ## "); !ok || strings.TrimSpace(help) == "" {
			t.Errorf("Makefile:%d: target %s has no \"## text\" for make help", i+1, m[1])
		}
	}
	if n < 10 {
		t.Errorf("found %d targets in the Makefile; the rule pattern no longer matches its targets", n)
	}
}
