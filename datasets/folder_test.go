package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadFolder: the committed folder benchmark loads in manifest order
// with its properties (2 + 2 + 1) and version; a manifest that lists a
// question twice, or a question folder that is missing, is refused naming
// the file.
func TestLoadFolder(t *testing.T) {
	b, m, err := LoadFolder("testdata/folder-benchmark")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range b.Questions {
		ids = append(ids, q.ID)
	}
	if m.Name != "toy-pymatgen" || b.Version != "0.1" || strings.Join(ids, ",") != "test_cubic_lattice,test_nacl_composition,test_iron_number" ||
		b.Properties() != 5 || b.Questions[0].Properties[0].Name != "volume" || !b.Questions[2].Executable() {
		t.Errorf("loaded %s %s: %v, %d properties", m.Name, b.Version, ids, b.Properties())
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FolderManifestFile), []byte(`{"name":"x","version":"1","questions":["a","a"]}`), 0o644)
	if _, _, err := LoadFolder(dir); err == nil || !strings.Contains(err.Error(), "questions[1]") {
		t.Errorf("a question twice: %v; want an error naming questions[1]", err)
	}
	os.WriteFile(filepath.Join(dir, FolderManifestFile), []byte(`{"name":"x","version":"1","questions":["a"]}`), 0o644)
	if _, _, err := LoadFolder(dir); err == nil || !strings.Contains(err.Error(), filepath.Join("question_segments", "x", "a")) {
		t.Errorf("a missing question: %v; want an error naming its folder", err)
	}
}
