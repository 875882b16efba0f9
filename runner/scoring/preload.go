package scoring

// Preload is what the sandbox's warm workers import once, before they fork
// each execution (sandbox.Options.Preload): every module that at
// least 1 % of the 4,263 published tool-usage answers, a unit test, or the
// parse and verify harnesses name in an import statement and whose import
// takes at least 20 ms in a fresh interpreter of the pinned environment, as
// scripts/warm-preload/measure.py measured it (python -X importtime; its
// table is in docs/sandbox.md#a-warm-worker). The heaviest take 3–5 s each
// (pymatgen.analysis.defects.thermo, .utils, .generators, pymatgen.io.vasp),
// mostly shared: together they import in about 6 s, once per worker.
//
// Two of them print when imported, as they do in a cold interpreter:
// pymatgen.analysis.defects.recombination logs "Numba not installed…", and
// matplotlib's font list (through pymatgen.analysis.defects.thermo) makes
// fontconfig print "Fontconfig error: Cannot load default config file". The
// worker records that text and replays it on stderr when an execution first
// imports a module that depends on the printing one, so stderr stays as a
// cold run's.
var Preload = []string{
	"numpy",
	"pandas",
	"matplotlib",
	"monty.serialization",
	"pymatgen.core",
	"pymatgen.core.periodic_table",
	"pymatgen.entries.computed_entries",
	"pymatgen.io.vasp",
	"pymatgen.io.vasp.outputs",
	"pymatgen.analysis.structure_matcher",
	"pymatgen.analysis.phase_diagram",
	"pymatgen.analysis.defects.core",
	"pymatgen.analysis.defects.utils",
	"pymatgen.analysis.defects.supercells",
	"pymatgen.analysis.defects.finder",
	"pymatgen.analysis.defects.generators",
	"pymatgen.analysis.defects.recombination",
	"pymatgen.analysis.defects.ccd",
	"pymatgen.analysis.defects.corrections.freysoldt",
	"pymatgen.analysis.defects.corrections.kumagai",
	"pymatgen.analysis.defects.thermo",
	"pymatgen.analysis.defects.plotting.optics",
	"pymatgen.analysis.defects.plotting.thermo",
}
