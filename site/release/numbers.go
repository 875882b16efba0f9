package release

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
)

// A release is frozen in numbers, not in bytes: every edition is rendered by
// the running code (its look follows the templates), and the values and ranks
// of every leaderboard table it shows are checked against the release's
// numbers manifest, site/releases/<version>.numbers.csv. For v1.0-v1.3 the
// manifests were taken from the pages their own generator commits build (which
// match their <version>.sha256 byte manifests; cmd/build-site -freeze-numbers),
// never from the renderer that is checked against them.
//
// The numbers of an edition are read from the tables' CSV downloads, which
// every edition since v1.0 ships: the table CSV (content.TableCSVHeader: one
// line per computed cell) and, from v1.1 on, the ranked table CSV
// (content.RankedCSVHeader: the rank and rank band too). A cell is keyed by
// its table id, configuration key, scoring protocol column (ranked tables)
// and metric; its numbers are the fields below that its CSV has.

// NumbersSuffix is the file name suffix of a release's numbers manifest
// under ManifestDir.
const NumbersSuffix = ".numbers.csv"

// numberFields are the CSV columns that hold a cell's numbers (percent with
// 4 decimals, counts, ranks), by the name they have in the manifest; the
// table CSV and the ranked CSV name some of them differently.
var numberFields = map[string]string{
	"n": "n", "mean_percent": "mean", "mean": "mean", "pop_std_percent": "pop_std", "pop_std": "pop_std",
	"sample_std_percent": "sample_std", "round_counts": "round_counts", "round_totals": "round_totals",
	"round_percents": "round_percents", "rank": "rank", "rank_best": "rank_best", "rank_worst": "rank_worst",
	"tied_with_leader": "tied_with_leader", "ci95_lo": "ci95_lo", "ci95_hi": "ci95_hi",
	"passed": "passed", "total": "total", "full_rank": "full_rank",
	// Not a number: whether the row is an unranked reference row (an
	// LLM-RAG row shown beside the advanced systems), which CheckNumbers
	// lets a frozen table gain.
	"reference": "reference",
}

// NumberKey names one cell of one leaderboard table.
type NumberKey struct {
	Table         string // the table's id (CSV column table)
	Configuration string // the configuration key (aggregate.Key.String)
	Protocol      string // the scoring protocol of a ranked table's column; "" in a table CSV
	Metric        string // e.g. task_success_rate
}

func (k NumberKey) String() string {
	col := k.Metric
	if k.Protocol != "" {
		col = k.Protocol + " " + k.Metric
	}
	return fmt.Sprintf("table %s, row %s, column %s", k.Table, k.Configuration, col)
}

// Numbers maps each cell of an edition's tables to its numbers (field →
// value as the CSV writes it).
type Numbers map[NumberKey]map[string]string

// ReadEditionNumbers reads the numbers of every leaderboard table under dir
// (an edition's pages): every *.csv whose header has the columns table,
// configuration, metric and mean (or mean_percent). A cell shown by two CSVs (a table downloaded
// from two pages) must have the same numbers in both, else the error names
// both files and the cell.
func ReadEditionNumbers(dir string) (Numbers, error) {
	out := Numbers{}
	from := map[NumberKey]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".csv") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		return readTableNumbers(filepath.ToSlash(rel), b, out, from)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func readTableNumbers(name string, b []byte, out Numbers, from map[NumberKey]string) error {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil // an empty or non-CSV file: no table
	}
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	ti, ok1 := col["table"]
	ci, ok2 := col["configuration"]
	mi, ok3 := col["metric"]
	_, mean := col["mean"]
	_, meanPercent := col["mean_percent"]
	if !ok1 || !ok2 || !ok3 || !(mean || meanPercent) {
		return nil // another download (results index, matrices, errata, …)
	}
	pi, hasProtocol := col["scoring_protocol"]
	_, hasRank := col["rank"]
	ranked := hasProtocol && hasRank // a ranked CSV: one line per row and protocol column
	seen := map[NumberKey]int{}      // this file's keys → line
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(rec) != len(header) {
			return fmt.Errorf("%s: line %d has %d fields, its header %d", name, line, len(rec), len(header))
		}
		k := NumberKey{Table: rec[ti], Configuration: rec[ci], Metric: rec[mi]}
		if ranked {
			k.Protocol = rec[pi]
		}
		vals := map[string]string{}
		for h, i := range col {
			if f, ok := numberFields[h]; ok {
				vals[f] = rec[i]
			}
		}
		if l, dup := seen[k]; dup {
			return fmt.Errorf("%s lines %d and %d: %s appears twice", name, l, line, k)
		}
		seen[k] = line
		if prev, ok := out[k]; ok {
			if !equalNumbers(prev, vals) {
				return fmt.Errorf("%s line %d and %s: %s: different numbers (%s; %s)", name, line, from[k], k, formatNumbers(vals), formatNumbers(prev))
			}
			for f, v := range vals { // the union of the fields both CSVs give
				prev[f] = v
			}
			continue
		}
		out[k], from[k] = vals, fmt.Sprintf("%s line %d", name, line)
	}
}

func equalNumbers(a, b map[string]string) bool {
	for f, v := range a {
		if w, ok := b[f]; ok && w != v {
			return false
		}
	}
	return true
}

func formatNumbers(v map[string]string) string {
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(v)) {
		parts = append(parts, f+"="+v[f])
	}
	return strings.Join(parts, " ")
}

// numbersKeyColumns are the manifest's first columns; a column per field
// follows (the union of the fields its cells have, sorted), with Absent
// where a cell has no such field.
var numbersKeyColumns = []string{"table", "configuration", "scoring_protocol", "metric"}

// Absent marks, in a numbers manifest, a field its cell's CSV did not have
// (e.g. rank in a table CSV); an empty value is a field that was empty.
const Absent = "NA"

// MarshalNumbers writes numbers as the manifest's CSV: one line per cell,
// sorted, a column per field, so that the file is stable and its diffs are
// readable.
func MarshalNumbers(ns Numbers) []byte {
	fields := map[string]bool{}
	for _, vals := range ns {
		for f := range vals {
			fields[f] = true
		}
	}
	cols := slices.Sorted(maps.Keys(fields))
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(append(slices.Clone(numbersKeyColumns), cols...))
	for _, k := range slices.SortedFunc(maps.Keys(ns), compareKeys) {
		rec := []string{k.Table, k.Configuration, k.Protocol, k.Metric}
		for _, f := range cols {
			v, ok := ns[k][f]
			if !ok {
				v = Absent
			}
			rec = append(rec, v)
		}
		w.Write(rec)
	}
	w.Flush()
	return buf.Bytes()
}

// ReadNumbers reads a numbers manifest written by MarshalNumbers; errors
// name the file and line.
func ReadNumbers(path string) (Numbers, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(b))
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(header) <= len(numbersKeyColumns) || !slices.Equal(header[:len(numbersKeyColumns)], numbersKeyColumns) {
		return nil, fmt.Errorf("%s: line 1: header %q, want %q and a column per field", path, header, numbersKeyColumns)
	}
	fields := header[len(numbersKeyColumns):]
	ns := Numbers{}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return ns, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		k := NumberKey{Table: rec[0], Configuration: rec[1], Protocol: rec[2], Metric: rec[3]}
		if k.Table == "" || k.Configuration == "" || k.Metric == "" {
			return nil, fmt.Errorf("%s: line %d: empty table, configuration or metric", path, line)
		}
		if _, dup := ns[k]; dup {
			return nil, fmt.Errorf("%s: line %d: %s appears twice", path, line, k)
		}
		vals := map[string]string{}
		for i, f := range fields {
			if v := rec[len(numbersKeyColumns)+i]; v != Absent {
				vals[f] = v
			}
		}
		ns[k] = vals
	}
}

// NumbersPath returns the path of a release's numbers manifest under
// repoRoot.
func NumbersPath(repoRoot, version string) string {
	return filepath.Join(repoRoot, ManifestDir, version+NumbersSuffix)
}

// WriteNumbers writes the numbers of the edition under dir as release
// version's manifest (atomically) and returns how many cells it holds.
func WriteNumbers(repoRoot, version, dir string) (int, error) {
	ns, err := ReadEditionNumbers(dir)
	if err != nil {
		return 0, fmt.Errorf("release %s: %w", version, err)
	}
	if len(ns) == 0 {
		return 0, fmt.Errorf("release %s: no table CSV under %s", version, dir)
	}
	return len(ns), atomicfile.WriteFile(NumbersPath(repoRoot, version), MarshalNumbers(ns), 0o644)
}

// ErrNoNumbers is returned by CheckNumbers for a release without a numbers
// manifest.
var ErrNoNumbers = errors.New("no numbers manifest")

// NumbersCheck is what CheckNumbers found.
type NumbersCheck struct {
	// Extra counts the cells shown that the manifest does not hold: of
	// tables it does not hold (a table the running code adds), and the
	// unranked rows a table it holds may gain (the benchmark audit's rows,
	// configurations "audit:…", of the audit runs the release lists, and
	// reference rows copied from another table).
	Extra int
	// Corrected counts the numbers shown as a recorded erratum corrects
	// them (ReadErrata), by erratum id.
	Corrected map[string]int
	// Differences are the numbers that differ from the manifest with no
	// erratum recording the change (what RecordErrata writes).
	Differences []Correction
}

// CheckNumbers checks that the edition under dir shows every number of
// release version's manifest with the same value, or with the value an
// erratum of the release records (site/releases/<version>.errata.csv): a
// cell that is missing, a field that differs otherwise, a cell a frozen
// table has gained (but for the unranked rows NumbersCheck.Extra names),
// and an erratum that no longer matches what is shown are errors naming the release, table, row
// (configuration), column (protocol, metric) and field with both values; the
// first ten are listed and the rest counted. The returned check holds the
// differences too, for RecordErrata.
func CheckNumbers(repoRoot, version, dir string) (*NumbersCheck, error) {
	got, err := ReadEditionNumbers(dir)
	if err != nil {
		return nil, fmt.Errorf("release %s: %w", version, err)
	}
	return CheckEditionNumbers(repoRoot, version, got)
}

// CheckEditionNumbers is CheckNumbers of an edition's numbers already read
// (ReadEditionNumbers of its pages).
func CheckEditionNumbers(repoRoot, version string, got Numbers) (*NumbersCheck, error) {
	want, err := ReadNumbers(NumbersPath(repoRoot, version))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("release %s: %w (%s): cut it with build-site -cut-release, or freeze an old one with -freeze-numbers", version, ErrNoNumbers, NumbersPath(repoRoot, version))
	}
	if err != nil {
		return nil, err
	}
	errata, err := ReadErrata(repoRoot, version)
	if err != nil {
		return nil, err
	}
	chk := &NumbersCheck{Corrected: map[string]int{}}
	var bad []string
	used := map[correctionKey]bool{}
	for _, k := range slices.SortedFunc(maps.Keys(want), compareKeys) {
		g, ok := got[k]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: frozen, not shown", k))
			continue
		}
		for _, f := range slices.Sorted(maps.Keys(want[k])) {
			gv, ok := g[f]
			if !ok {
				gv = "absent"
			}
			if gv == want[k][f] {
				continue
			}
			ck := correctionKey{k, f}
			if c, ok := errata[ck]; ok && c.Frozen == want[k][f] && c.Shown == gv {
				used[ck] = true
				chk.Corrected[c.Erratum]++
				continue
			}
			chk.Differences = append(chk.Differences, Correction{Key: k, Field: f, Frozen: want[k][f], Shown: gv})
			bad = append(bad, fmt.Sprintf("%s, field %s: frozen %s, shown %s", k, f, want[k][f], gv))
		}
	}
	for _, ck := range slices.SortedFunc(maps.Keys(errata), compareCorrections) {
		if !used[ck] {
			c := errata[ck]
			bad = append(bad, fmt.Sprintf("erratum %s of %s, field %s: records frozen %s → %s, but the pages show no such change", c.Erratum, ck.Key, ck.Field, c.Frozen, c.Shown))
		}
	}
	frozenTables := map[string]bool{}
	for k := range want {
		frozenTables[k.Table] = true
	}
	for _, k := range slices.SortedFunc(maps.Keys(got), compareKeys) {
		if _, ok := want[k]; ok {
			continue
		}
		if frozenTables[k.Table] && !strings.HasPrefix(k.Configuration, "audit:") && got[k]["reference"] != "true" {
			bad = append(bad, fmt.Sprintf("%s: shown, not frozen (a row or column a frozen table has gained)", k))
			continue
		}
		chk.Extra++
	}
	if n := len(bad); n > 0 {
		more := ""
		if n > 10 {
			more = fmt.Sprintf("\n  … and %d more", n-10)
			bad = bad[:10]
		}
		return chk, fmt.Errorf("release %s: %d numbers differ from its manifest %s (a correction to an old release needs an erratum: docs/site.md):\n  %s%s", version, n, NumbersPath(repoRoot, version),
			strings.Join(bad, "\n  "), more)
	}
	return chk, nil
}

func compareKeys(a, b NumberKey) int {
	for _, c := range [][2]string{{a.Table, b.Table}, {a.Configuration, b.Configuration}, {a.Protocol, b.Protocol}, {a.Metric, b.Metric}} {
		if d := strings.Compare(c[0], c[1]); d != 0 {
			return d
		}
	}
	return 0
}
