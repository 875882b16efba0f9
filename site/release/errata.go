package release

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/internal/atomicfile"
)

// An erratum is a correction of the statistics, made after some releases
// were cut, that changes numbers those releases show: it is never applied
// silently. Its description is in site/releases/errata.json (ErrataFile); the
// numbers it changes in a release, each with the value frozen at the cut and
// the value shown now, in site/releases/<version>.errata.csv (one line per
// cell and field). CheckNumbers accepts a difference from the numbers
// manifest only when an erratum of that release records exactly it, and the
// release's pages list the errata with how many numbers each changed.

// ErrataFile lists the errata, relative to the repository root.
const ErrataFile = "site/releases/errata.json"

// ErrataSuffix is the file name suffix of a release's errata under
// ManifestDir.
const ErrataSuffix = ".errata.csv"

// Erratum describes one correction.
type Erratum struct {
	ID     string `json:"id"`     // e.g. "one-round-statistics"
	Date   string `json:"date"`   // YYYY-MM-DD of the correcting commit
	Commit string `json:"commit"` // the commit of this project that made the correction
	Text   string `json:"text"`   // what changed and why, for readers
}

// Correction is one number an erratum changes in a release.
type Correction struct {
	Erratum       string // Erratum.ID ("" while unrecorded)
	Key           NumberKey
	Field         string
	Frozen, Shown string
}

type correctionKey struct {
	Key   NumberKey
	Field string
}

func compareCorrections(a, b correctionKey) int {
	if d := compareKeys(a.Key, b.Key); d != 0 {
		return d
	}
	return strings.Compare(a.Field, b.Field)
}

var (
	erratumIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	dateRE      = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	commitRE    = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// ReadErrataList reads ErrataFile under repoRoot (absent: none). An entry
// without a valid id, date, full commit or text, or an id given twice, is an
// error naming the file and the entry.
func ReadErrataList(repoRoot string) ([]Erratum, error) {
	path := filepath.Join(repoRoot, ErrataFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Errata []Erratum `json:"errata"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for i, e := range doc.Errata {
		switch {
		case !erratumIDRE.MatchString(e.ID):
			return nil, fmt.Errorf("%s: erratum %d: id %q: want lower-case letters, digits and hyphens", path, i+1, e.ID)
		case seen[e.ID]:
			return nil, fmt.Errorf("%s: erratum %d: id %q given twice", path, i+1, e.ID)
		case !dateRE.MatchString(e.Date):
			return nil, fmt.Errorf("%s: erratum %s: date %q: want YYYY-MM-DD", path, e.ID, e.Date)
		case !commitRE.MatchString(e.Commit):
			return nil, fmt.Errorf("%s: erratum %s: commit %q: want the full 40-hex commit", path, e.ID, e.Commit)
		case strings.TrimSpace(e.Text) == "":
			return nil, fmt.Errorf("%s: erratum %s: empty text", path, e.ID)
		}
		seen[e.ID] = true
	}
	return doc.Errata, nil
}

var errataHeader = []string{"erratum", "table", "configuration", "scoring_protocol", "metric", "field", "frozen", "shown"}

// ErrataPath returns the path of release version's errata under repoRoot.
func ErrataPath(repoRoot, version string) string {
	return filepath.Join(repoRoot, ManifestDir, version+ErrataSuffix)
}

// ReadErrata reads release version's errata (absent: none); every erratum
// named must be in ErrataFile, and a cell and field appear once. Errors name
// the file and line.
func ReadErrata(repoRoot, version string) (map[correctionKey]Correction, error) {
	path := ErrataPath(repoRoot, version)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[correctionKey]Correction{}, nil
	}
	if err != nil {
		return nil, err
	}
	list, err := ReadErrataList(repoRoot)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, e := range list {
		known[e.ID] = true
	}
	r := csv.NewReader(bytes.NewReader(b))
	header, err := r.Read()
	if err != nil || !slices.Equal(header, errataHeader) {
		return nil, fmt.Errorf("%s: line 1: header %q, want %q (%v)", path, header, errataHeader, err)
	}
	out := map[correctionKey]Correction{}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		c := Correction{Erratum: rec[0], Key: NumberKey{Table: rec[1], Configuration: rec[2], Protocol: rec[3], Metric: rec[4]}, Field: rec[5], Frozen: rec[6], Shown: rec[7]}
		if !known[c.Erratum] {
			return nil, fmt.Errorf("%s: line %d: erratum %q is not described in %s", path, line, c.Erratum, ErrataFile)
		}
		ck := correctionKey{c.Key, c.Field}
		if _, dup := out[ck]; dup {
			return nil, fmt.Errorf("%s: line %d: %s field %s corrected twice", path, line, c.Key, c.Field)
		}
		out[ck] = c
	}
}

// RecordErrata adds to release version's errata the differences a check
// found (NumbersCheck.Differences), as erratum id, which ErrataFile must
// describe; the file is rewritten sorted. It returns how many it added. A
// number an erratum already corrects, or a number no longer shown, is an
// error naming it.
func RecordErrata(repoRoot, version, id string, diffs []Correction) (int, error) {
	have, err := ReadErrata(repoRoot, version)
	if err != nil {
		return 0, err
	}
	if err := CheckErratumID(repoRoot, id); err != nil {
		return 0, err
	}
	for _, d := range diffs {
		ck := correctionKey{d.Key, d.Field}
		if prev, ok := have[ck]; ok {
			return 0, fmt.Errorf("release %s: %s field %s: erratum %s already corrects it (frozen %s → %s); a second correction of one number needs its own review: edit %s by hand",
				version, d.Key, d.Field, prev.Erratum, prev.Frozen, prev.Shown, ErrataPath(repoRoot, version))
		}
		if d.Shown == "absent" {
			return 0, fmt.Errorf("release %s: %s field %s is no longer shown: an erratum corrects a number, it does not remove it", version, d.Key, d.Field)
		}
		d.Erratum = id
		have[ck] = d
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(errataHeader)
	for _, ck := range slices.SortedFunc(maps.Keys(have), compareCorrections) {
		c := have[ck]
		w.Write([]string{c.Erratum, c.Key.Table, c.Key.Configuration, c.Key.Protocol, c.Key.Metric, c.Field, c.Frozen, c.Shown})
	}
	w.Flush()
	return len(diffs), atomicfile.WriteFile(ErrataPath(repoRoot, version), buf.Bytes(), 0o644)
}

// CheckErratumID reports whether ErrataFile under repoRoot describes id.
func CheckErratumID(repoRoot, id string) error {
	list, err := ReadErrataList(repoRoot)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(list, func(e Erratum) bool { return e.ID == id }) {
		return fmt.Errorf("erratum %q is not described in %s: add its id, date, commit and text there first", id, ErrataFile)
	}
	return nil
}

// ErrataOf returns the errata that change numbers of release version, in
// ErrataFile's order, with how many numbers each changes there.
func ErrataOf(repoRoot, version string) ([]Erratum, map[string]int, error) {
	cs, err := ReadErrata(repoRoot, version)
	if err != nil || len(cs) == 0 {
		return nil, nil, err
	}
	n := map[string]int{}
	for _, c := range cs {
		n[c.Erratum]++
	}
	list, err := ReadErrataList(repoRoot)
	if err != nil {
		return nil, nil, err
	}
	var out []Erratum
	for _, e := range list {
		if n[e.ID] > 0 {
			out = append(out, e)
		}
	}
	return out, n, nil
}
