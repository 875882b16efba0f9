package release

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestMirrorTreeFollowsLinkedFolders: a data root whose src/ is a symbolic
// link (as a copy without prompts/ is built from links) is mirrored with
// real folders, so an older importer's filepath.WalkDir finds its files.
func TestMirrorTreeFollowsLinkedFolders(t *testing.T) {
	data := t.TempDir()
	for p, body := range map[string]string{"src/a/round1/m/generated.jsonl": "x\n", "qa_benchmark/q.json": "{}"} {
		if err := os.MkdirAll(filepath.Join(data, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	linked := t.TempDir()
	for _, name := range []string{"src", "qa_benchmark"} {
		if err := os.Symlink(filepath.Join(data, name), filepath.Join(linked, name)); err != nil {
			t.Fatal(err)
		}
	}
	mirror := filepath.Join(t.TempDir(), "m")
	if err := mirrorTree(linked, mirror); err != nil {
		t.Fatal(err)
	}
	var files []string
	err := filepath.WalkDir(mirror, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(mirror, p)
			files = append(files, filepath.ToSlash(rel)+"="+strings.TrimSpace(string(data)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if got := strings.Join(files, " "); got != "qa_benchmark/q.json={} src/a/round1/m/generated.jsonl=x" {
		t.Errorf("mirror holds %q", got)
	}
	if err := os.Symlink(linked, filepath.Join(data, "src", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := mirrorTree(linked, filepath.Join(t.TempDir(), "m")); err == nil || !strings.Contains(err.Error(), "link loop") {
		t.Errorf("a link loop: %v", err)
	}
}
