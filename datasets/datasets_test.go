package datasets

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dataRoot returns MATTOOLS_DATA or skips the test, naming the variable.
func dataRoot(t *testing.T) string {
	t.Helper()
	root := os.Getenv(EnvVar)
	if root == "" {
		t.Skipf("%s is not set: set it to a MatTools checkout (CI sets it) to run tests on the real benchmark", EnvVar)
	}
	return root
}

func TestManifest(t *testing.T) {
	m, err := manifest()
	if err != nil {
		t.Fatal(err)
	}
	// ref_sub_tasks_list of MatTools' result_analysis.py, in the published order (docs/mattools.md §2).
	refSubTasks := []int{10, 4, 1, 2, 18, 3, 4, 1, 1, 3, 1, 1, 1, 2, 3, 1, 2, 2, 2, 1, 1, 2, 1, 9, 1, 3, 1, 2, 1, 2, 11, 2, 4, 2, 2, 2, 1, 2, 4, 2, 1, 3, 2, 1, 3, 2, 3, 3, 2}
	if len(m) != NumQuestions {
		t.Fatalf("manifest has %d questions", len(m))
	}
	files := map[string]bool{}
	for i, e := range m {
		if e.Properties != refSubTasks[i] {
			t.Errorf("question %d %s: %d properties, ref_sub_tasks_list says %d", i, e.ID, e.Properties, refSubTasks[i])
		}
		for _, f := range e.DataFiles {
			files[f] = true
		}
	}
	// 38 distinct files are referenced (docs/mattools.md §1).
	if len(files) != 38 {
		t.Errorf("%d distinct data files, want 38", len(files))
	}
	order := Order()
	if order[0] != "test_vacancy" || order[1] != "test_parsing_and_grouping_NamedDefects" || order[48] != "test_wswq_slope" {
		t.Errorf("order starts %v … ends %s", order[:2], order[48])
	}
}

func TestLoadRealBenchmark(t *testing.T) {
	root := dataRoot(t)
	b, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Questions) != 49 || b.Properties() != 138 {
		t.Fatalf("%d questions, %d properties", len(b.Questions), b.Properties())
	}
	if b.Commit != PinnedCommit {
		t.Errorf("commit = %q, want %s", b.Commit, PinnedCommit)
	}
	q, ok := b.Question("test_vacancy")
	if !ok || q.Index != 0 || len(q.Properties) != 10 || !strings.Contains(q.UnitTest, "def test_vacancy(properties)") {
		t.Fatalf("test_vacancy = %+v", q)
	}
	if len(q.DataFiles) != 1 || !q.DataFiles[0].Present || q.DataFiles[0].Bytes != 227 {
		t.Errorf("test_vacancy data files = %+v, want GaN.vasp present with 227 bytes", q.DataFiles)
	}
	// properties.json order is kept (NamedDefects differs from its unit test's order, §1).
	pchip, _ := b.Question("test_pchip_eval")
	if p := pchip.Properties[0]; p.Name != "pchip_interpolation_integral" || p.Format != "np.allclose" || p.ValueText() != "8.227688936841835" {
		t.Errorf("pchip property = %+v", p)
	}
	// Which questions are executable depends on the data files the root
	// holds: the shared copy lacks 17 of the 38 files (28 questions / 93
	// properties executable, docs/mattools.md §1), an upstream checkout
	// has them all. The expectation comes from the committed manifest and
	// the files on disk.
	want := onDisk(t, root)
	var got diskCounts
	seen := map[string]bool{}
	for _, q := range b.Questions {
		if q.Executable() {
			got.exe++
			got.exeProps += len(q.Properties)
		}
		for _, f := range q.DataFiles {
			if seen[f.Path] {
				continue
			}
			seen[f.Path] = true
			if f.Present {
				got.present++
				got.presentBytes += f.Bytes
			} else {
				got.absent++
			}
		}
	}
	if got != want {
		t.Errorf("executable questions / properties, data files present / absent, bytes present: %+v; the files under %s/src give %+v", got, root, want)
	}
	if want.present+want.absent != 38 {
		t.Errorf("%d distinct data files, want the manifest's 38", want.present+want.absent)
	}
}

type diskCounts struct {
	exe, exeProps, present, absent int
	presentBytes                   int64
}

// onDisk counts, from the manifest and os.Stat of root/src/<file>, the
// executable questions (every data file a regular file) and their
// properties, and the distinct data files present (with their bytes) and
// absent.
func onDisk(t *testing.T, root string) diskCounts {
	t.Helper()
	var c diskCounts
	seen := map[string]bool{}
	for _, e := range Manifest() {
		ok := true
		for _, f := range e.DataFiles {
			st, err := os.Stat(filepath.Join(root, "src", filepath.FromSlash(f)))
			present := err == nil && st.Mode().IsRegular()
			ok = ok && present
			if seen[f] {
				continue
			}
			seen[f] = true
			if present {
				c.present++
				c.presentBytes += st.Size()
			} else {
				c.absent++
			}
		}
		if ok {
			c.exe++
			c.exeProps += e.Properties
		}
	}
	return c
}

// copyQuestions copies the question folders of the real root into a temp root.
func copyQuestions(t *testing.T) string {
	t.Helper()
	src := filepath.Join(dataRoot(t), QuestionsDir)
	root := t.TempDir()
	dst := filepath.Join(root, QuestionsDir)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestLoadFailsClearly(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, qdir string)
		want   string
	}{
		{"missing question folder", func(t *testing.T, qdir string) { os.RemoveAll(filepath.Join(qdir, "test_boltzmann")) },
			"question test_boltzmann: open"},
		{"extra question folder", func(t *testing.T, qdir string) {
			os.Mkdir(filepath.Join(qdir, "__pycache__"), 0o755) // ignored
			os.Mkdir(filepath.Join(qdir, "test_new"), 0o755)
		}, "test_new: question folder not in the benchmark manifest"},
		{"property dropped", func(t *testing.T, qdir string) {
			os.WriteFile(filepath.Join(qdir, "test_pchip_eval", "properties.json"), []byte(`{"properties": {}}`), 0o644)
		}, "test_pchip_eval/properties.json: properties: has 0 properties; the benchmark manifest says 1"},
		{"malformed properties", func(t *testing.T, qdir string) {
			os.WriteFile(filepath.Join(qdir, "test_vacancy", "properties.json"), []byte(`{"properties": [`), 0o644)
		}, "test_vacancy/properties.json: unexpected end of JSON input"},
		{"unit test renamed", func(t *testing.T, qdir string) {
			os.WriteFile(filepath.Join(qdir, "test_vacancy", "new_unit_test.py"), []byte("def other(properties):\n    return 'ok'\n"), 0o644)
		}, "test_vacancy/new_unit_test.py: does not define test_vacancy(properties)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := copyQuestions(t)
			tt.break_(t, filepath.Join(root, QuestionsDir))
			_, err := Load(root)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestLoadUnreadableRoot(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nowhere"))
	if err == nil || !strings.Contains(err.Error(), "reading the MatTools data root") || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load error = %v", err)
	}
}

func TestRootFromEnvExplainsHowToGetData(t *testing.T) {
	t.Setenv(EnvVar, "")
	_, err := RootFromEnv()
	if err == nil || !strings.Contains(err.Error(), "github.com/Grenzlinie/MatTools") || !strings.Contains(err.Error(), PinnedCommit) {
		t.Fatalf("RootFromEnv error = %v", err)
	}
}

func TestUpstreamCommitOfGitCheckouts(t *testing.T) {
	const sha = "44385630f2acf461512996468fc0b24f44ddcaaf"
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git", "refs", "heads"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".git", "refs", "heads", "main"), []byte(sha+"\n"), 0o644)
	if got := upstreamCommit(root); got != sha {
		t.Errorf("checkout: %q", got)
	}
	// A worktree: .git is a file pointing at a git folder whose refs live in the common folder.
	wt := t.TempDir()
	gd := filepath.Join(root, ".git", "worktrees", "wt")
	os.MkdirAll(gd, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gd+"\n"), 0o644)
	os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(gd, "commondir"), []byte("../..\n"), 0o644)
	if got := upstreamCommit(wt); got != sha {
		t.Errorf("worktree: %q", got)
	}
	// Packed refs, detached HEAD, nothing.
	os.Remove(filepath.Join(root, ".git", "refs", "heads", "main"))
	os.WriteFile(filepath.Join(root, ".git", "packed-refs"), []byte("# pack-refs\n"+sha+" refs/heads/main\n"), 0o644)
	if got := upstreamCommit(root); got != sha {
		t.Errorf("packed: %q", got)
	}
	os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte(sha+"\n"), 0o644)
	if got := upstreamCommit(root); got != sha {
		t.Errorf("detached: %q", got)
	}
	if got := upstreamCommit(t.TempDir()); got != "" {
		t.Errorf("no git: %q", got)
	}
}
