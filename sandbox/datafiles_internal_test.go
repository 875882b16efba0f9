package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopyDataFiles: the files are copied with their relative paths (and
// only they; one listed twice once); paths that climb out, absolute paths
// and symbolic links, of the file or of a folder on its way, are refused.
func TestCopyDataFiles(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "data")
	os.MkdirAll(filepath.Join(src, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(src, "a", "b", "x.vasp"), []byte("POSCAR"), 0o600)
	os.WriteFile(filepath.Join(src, "other.json"), []byte("{}"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(src, "link"))
	os.Symlink("/etc", filepath.Join(src, "etc"))
	n, err := copyDataFiles(src, []string{"a/b/x.vasp", "a/b/x.vasp", "./a/b/x.vasp"}, dst)
	if err != nil || n != 6 {
		t.Fatalf("copied %d bytes, err %v", n, err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "a", "b", "x.vasp")); err != nil || string(b) != "POSCAR" {
		t.Errorf("copy: %q, %v", b, err)
	}
	if fi, _ := os.Stat(filepath.Join(dst, "a", "b", "x.vasp")); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 (readable by the sandbox's uid)", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(dst, "other.json")); !os.IsNotExist(err) {
		t.Error("a file outside the list was copied")
	}
	// A folder link out of the data folder ("etc" → /etc) is not followed.
	for _, bad := range []string{"../x", "/etc/passwd", "a/../../x", "link", "missing.txt", "", "etc/passwd", "etc/hostname"} {
		if _, err := copyDataFiles(src, []string{bad}, filepath.Join(t.TempDir(), "d")); err == nil || !strings.Contains(err.Error(), "data file") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}
