package synth

import (
	"reflect"
	"testing"
)

func TestDataFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{"files/cif/Li2O.cif": "x", "test_files/GaN.vasp": "y"})
	for _, c := range []struct {
		text          string
		refs, missing []string
		unresolved    bool
	}{
		{"from pymatgen.util.testing import (\n    TEST_FILES_DIR,\n)\ns = f\"{TEST_FILES_DIR}/cif/Li2O.cif\"\nt = f'{TEST_FILES_DIR}/cif/none.cif'", []string{"files/cif/Li2O.cif", "files/cif/none.cif"}, []string{"files/cif/none.cif"}, false},
		{"p = f\"{TEST_FILES_DIR}/cif/{name}.cif\"", []string{"files/cif"}, nil, true},
		{"p = os.path.join(TEST_FILES_DIR, name)", nil, nil, true},
		{"s = Structure.from_file(test_dir / \"GaN.vasp\")\nc = test_dir / 'CHGCAR.Fe3O4.vasp'", []string{"test_files/GaN.vasp", "test_files/CHGCAR.Fe3O4.vasp"}, []string{"test_files/CHGCAR.Fe3O4.vasp"}, false},
		{"assert Composition('Fe2O3').weight > 0", nil, nil, false},
		{"from pymatgen.util.testing import VASP_IN_DIR\np = Poscar.from_file(f\"{VASP_IN_DIR}/POSCAR\")", []string{"files/io/vasp/inputs/POSCAR"}, []string{"files/io/vasp/inputs/POSCAR"}, false},
	} {
		refs, missing, unres := DataFiles(Test{UnitTest: c.text}, dir)
		if !reflect.DeepEqual(refs, c.refs) || !reflect.DeepEqual(missing, c.missing) || unres != c.unresolved {
			t.Errorf("%q: refs %q missing %q unresolved %v; want %q %q %v", c.text, refs, missing, unres, c.refs, c.missing, c.unresolved)
		}
	}
}
