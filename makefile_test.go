package leaderboard_test

import (
	"os"
	"os/exec"
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

// TestMakeHelpColumnsAlign: `make help` starts every target's text in one
// column, however long the longest target name.
func TestMakeHelpColumnsAlign(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	out, err := exec.Command("make", "--no-print-directory", "-s", "help").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	col := -1
	for _, line := range lines {
		f := strings.Fields(line) // "make", target, text…
		if len(f) < 3 || f[0] != "make" {
			t.Fatalf("make help line %q is not \"  make TARGET  TEXT\"", line)
		}
		at := strings.Index(line, " "+f[1]+" ") + 1 + len(f[1])
		at += len(line[at:]) - len(strings.TrimLeft(line[at:], " "))
		if col >= 0 && at != col {
			t.Errorf("make help: %q starts its text at column %d, the line before at %d", line, at, col)
		}
		col = at
	}
	if len(lines) < 10 {
		t.Errorf("make help printed %d lines", len(lines))
	}
}
