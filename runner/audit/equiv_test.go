package audit

import (
	"testing"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// TestClassifyStatedFormats reads the format phrases of real property
// lines of question.txt (quoted from the published questions) as the
// equivalent-form judgments take them (docs/benchmark-audit.md).
func TestClassifyStatedFormats(t *testing.T) {
	for _, c := range []struct {
		desc                         string
		phrase, outer, inner, scalar string
		keys, order, tolerance       bool
	}{
		{desc: "Changes in the number of elements due to the vacancy defect. Format: dict.", phrase: "dict", outer: "dict"},
		{desc: "Possible charge states for the vacancy defect. Format: list.", phrase: "list", outer: "list"},
		{desc: "Names of antisite defects generated from the given structure, indicating the swapping of atomic positions between different species. The format is a list of strings.",
			phrase: "a list of strings", outer: "list", inner: "str"},
		{desc: "The lower envelope of a set of lines, representing the minimal boundary formed by the lines in a 2D space. The format is a list of tuples.",
			phrase: "a list of tuples", outer: "list", inner: "tuple"},
		{desc: "List of fractional coordinates corresponding to local extrema. The format should be a list of fractional coordinates.",
			phrase: "a list of fractional coordinates", outer: "list"},
		{desc: "This property means the set of competing phases at specific chemical potential limits in a formation energy diagram. The format is a dictionary where keys are strings representing chemical potential limits and values are sets of competing phase names.",
			phrase: "a dictionary where keys are strings representing chemical potential limits and values are sets of competing phase names", outer: "dict", keys: true},
		{desc: "Oxidation state of the interstitial defect site in the variable inter. (int)", phrase: "int", scalar: "int"},
		{desc: "The average charge density within a spherical region of a crystal structure, calculated using charge density data from a CHGCAR file. The result should be a float value.",
			phrase: "a float value", scalar: "float"},
		{desc: "The slope of the WSWQ data when the distortion values are positive, indicating a change in the material's electronic structure. The format is a numpy array.",
			phrase: "a numpy array", outer: "ndarray"},
		{desc: "The shape of the supercell transformation matrix through using `get_sc_fromstruct' method. The format is a tuple.", phrase: "a tuple", outer: "tuple"},
		{desc: "Ensures that the x-coordinates of the formation energy diagram remain consistent across different chemical potential limits. The reference x-coordinates is [0.0, 0.4230302543993645, 4.302142813614765, 5.0] (uses np.allclose to compare). The x-coordinates at each chemical potential limit point should be equal to the reference. The answer format is bool.",
			phrase: "bool", scalar: "bool", tolerance: true},
		{desc: "Cluster nodes that are too close together using hiercharcal clustering. Format: a list of lists of floats.", phrase: "a list of lists of floats", outer: "list", inner: "list"},
		{desc: "The name of the adsorbate, typically indicating the element and its role as an adsorbate. Format: `str`.", phrase: "str", scalar: "str"},
	} {
		got := classify("p", 3, c.desc)
		if got.Phrase != c.phrase || got.Outer != c.outer || got.Inner != c.inner || got.Scalar != c.scalar ||
			got.KeysNamed != c.keys || got.OrderStated != c.order || got.ToleranceStated != c.tolerance || got.Line != 3 {
			t.Errorf("%q:\n got %+v", c.desc, got)
		}
	}
}

// TestStatedFormatsFindTheLines: each property's line is found by its
// name in backquotes at the start of a list item, with its line number.
func TestStatedFormatsFindTheLines(t *testing.T) {
	q := &datasets.Question{Text: "Calculate:\n    - `a`: A count. Format: int.\n    - `b`: Uses `a`. (list)\nNothing about `c`.\n",
		Properties: []datasets.Property{{Name: "a"}, {Name: "b"}, {Name: "c"}}}
	st := statedFormats(q)
	if st["a"].Line != 2 || st["a"].Scalar != "int" || st["b"].Line != 3 || st["b"].Outer != "list" {
		t.Errorf("stated %+v", st)
	}
	if _, ok := st["c"]; ok {
		t.Errorf("c has no line, yet %+v", st["c"])
	}
}

func TestParseProbeLines(t *testing.T) {
	m, err := parseEquivalents([]byte("noise\n" + equivMarker + `{"p": "string keys {'Ga': -1}"}` + "\n{'p': 1}\n"))
	if err != nil || m["p"] != "string keys {'Ga': -1}" {
		t.Errorf("%v %v", m, err)
	}
	if _, err := parseEquivalents([]byte("{'p': 1}\n")); err == nil {
		t.Error("no marker line: no error")
	}
	ta, err := parseTextAudit([]byte(questionTextMarker + `{"code_blocks": 2, "code_blocks_run": 1, "findings": [{"line": 11, "kind": "misspelt-name", "detail": "result"}]}` + "\n"))
	if err != nil || ta.Blocks != 2 || len(ta.Findings) != 1 || ta.Findings[0].Line != 11 || !questionDefectKinds[ta.Findings[0].Kind] {
		t.Errorf("%+v %v", ta, err)
	}
}
