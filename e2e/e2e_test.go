// Package e2e_test holds the end-to-end tests that run the real runner,
// scoring in the sandbox (bubblewrap), and build the site from what it
// wrote: they need the sandbox and MATTOOLS_DATA, so they live outside
// site/, whose own tests need neither.
package e2e_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/e2e/fakerunner"
	"github.com/mattools-leaderboard/leaderboard/internal/mattoolstest"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/published"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fakerunner.Cleanup()
	os.Exit(code)
}

// repoRoot is the repository's root (this package is e2e/).
func repoRoot(t testing.TB) string {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// realData imports the published MatTools results under MATTOOLS_DATA (the
// test is skipped when it is unset) into a temporary results folder.
func realData(t *testing.T) (root, resultsDir string, files []*results.File) {
	t.Helper()
	root = mattoolstest.DataRoot(t, "to build the site from the published results and the runner's")
	imp, err := published.Read(root, published.Options{})
	if err != nil {
		t.Fatal(err)
	}
	resultsDir = t.TempDir()
	for _, f := range imp.Files {
		if err := results.Write(filepath.Join(resultsDir, f.Run.RunID+results.Extension), f); err != nil {
			t.Fatal(err)
		}
	}
	if files, err = results.ReadDir(resultsDir); err != nil {
		t.Fatal(err)
	}
	return root, resultsDir, files
}
