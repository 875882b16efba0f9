package submission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// FromRuns makes a submission of the runner's runs (results files of
// provenance "runner", e.g. run-benchmark's -out directory: rounds 1–3 of one
// configuration under each scoring protocol) and the author's metadata file,
// in the submissions root out, and returns its folder name and number of
// results files.
//
// The metadata file has the fields of MetadataFile; model, benchmark,
// system, retrieval_source, system_params and model_display_name may be
// left out and are taken from the runs, and date defaults to now's date.
// The fields it gives also select among the runs, so that a directory of
// several configurations can be narrowed to one; runs of more than one
// configuration after that are an error naming each.
//
// It writes the complete MetadataFile, then every run again with provenance
// "submitted" (the folder and the SHA-256 of the metadata file) and its run
// id in the submission's Namespace (results.MakeRunID); rows, verdicts and
// totals stay the runner's. The folder is built in a temporary directory
// under out, checked by Load, and renamed into place only when Load finds no
// problem (the error then lists them), so out never holds a partial or
// invalid folder; an existing folder is never replaced. The run records of
// runs are modified (provenance, run id).
func FromRuns(metaPath string, runs []*results.File, out string, now time.Time) (string, int, error) {
	m, err := readAuthorMetadata(metaPath)
	if err != nil {
		return "", 0, err
	}
	files, err := selectRuns(runs, &m, metaPath)
	if err != nil {
		return "", 0, err
	}
	for _, f := range files {
		if f.Run.Provenance.Kind != results.ProvenanceRunner {
			return "", 0, fmt.Errorf("%s: provenance.kind is %q; a submission is made from this project's runner's runs (\"runner\")", f.Path, f.Run.Provenance.Kind)
		}
	}
	if m.Date == "" {
		m.Date = now.Format(time.DateOnly)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Written by make-submission (results/submission.FromRuns) from %s and %d run-benchmark results files.\n", filepath.Base(metaPath), len(files))
	if err := toml.NewEncoder(&buf).Encode(m); err != nil {
		return "", 0, fmt.Errorf("%s: encoding the metadata: %w", metaPath, err)
	}
	folder := FolderName(m)
	if strings.ContainsAny(folder, `/\`) || folder == "." || folder == ".." {
		return "", 0, fmt.Errorf("%s: the folder name %q is not a single path element", metaPath, folder)
	}
	final := filepath.Join(out, folder)
	if _, err := os.Lstat(final); err == nil {
		return "", 0, fmt.Errorf("%s exists; make-submission never replaces a submission (remove it, or submit under another date)", final)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", 0, err
	}
	tmp, err := os.MkdirTemp(out, ".make-submission-")
	if err != nil {
		return "", 0, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, folder)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", 0, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, MetadataFile), buf.Bytes(), 0o644); err != nil {
		return "", 0, err
	}
	sum := sha256.Sum256(buf.Bytes())
	for _, f := range files {
		from := f.Path
		f.Run.FormatVersion = results.FormatVersion // rewritten in the current format, whatever version the runner's file has
		f.Run.Provenance = results.Provenance{Kind: results.ProvenanceSubmitted,
			Submission: &results.Submission{Folder: folder, MetadataSHA256: hex.EncodeToString(sum[:])}}
		f.Run.RunID = results.MakeRunID(&f.Run)
		if err := results.Write(filepath.Join(dir, f.Run.RunID+results.Extension), f); err != nil {
			return "", 0, fmt.Errorf("rewriting %s: %w", from, err)
		}
	}
	if _, ps := Load(dir, DefaultLimits); len(ps) > 0 {
		return "", 0, fmt.Errorf("the submission would be invalid (nothing written):\n%w", ps)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", 0, err
	}
	if err := os.Rename(dir, final); err != nil {
		return "", 0, err
	}
	return folder, len(files), nil
}

// readAuthorMetadata decodes the author's metadata, refusing unknown fields.
func readAuthorMetadata(path string) (Metadata, error) {
	var m Metadata
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	md, err := toml.Decode(string(data), &m)
	if err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		var names []string
		for _, k := range u {
			names = append(names, k.String())
		}
		return m, fmt.Errorf("%s: unknown field(s) %s (the fields are those of submission.toml, SUBMITTING.md §2)", path, strings.Join(names, ", "))
	}
	return m, nil
}

// selectRuns keeps the runs that agree with the fields m gives, requires
// them to be one configuration, and fills m's missing fields from it.
func selectRuns(files []*results.File, m *Metadata, metaPath string) ([]*results.File, error) {
	keep := func(r *results.Run) bool {
		return (m.Model == "" || r.Model == m.Model) && (m.Benchmark == "" || string(r.Benchmark) == m.Benchmark) &&
			(m.System == "" || string(r.System) == m.System) && (m.RetrievalSource == nil || r.RetrievalSource == *m.RetrievalSource) &&
			(m.SystemParams == nil || maps(r.SystemParams, m.SystemParams))
	}
	var kept []*results.File
	configs := map[string][]string{} // configuration → its runs' files
	for _, f := range files {
		if !keep(&f.Run) {
			continue
		}
		kept = append(kept, f)
		c := describeRun(&f.Run)
		configs[c] = append(configs[c], filepath.Base(f.Path))
	}
	switch {
	case len(kept) == 0:
		return nil, fmt.Errorf("%s: no run has the model, benchmark, system, retrieval source and system parameters it gives (the runs: %s)",
			metaPath, strings.Join(describeRuns(files), "; "))
	case len(configs) > 1:
		cs := sortedKeys(configs)
		return nil, fmt.Errorf("the runs are %d configurations: %s; a submission is one: give its model, system, retrieval_source "+
			"(and system_params) in %s, or name only its files", len(cs), strings.Join(cs, "; "), metaPath)
	}
	r := &kept[0].Run
	if m.Model == "" {
		m.Model = r.Model
	}
	if m.ModelDisplayName == "" {
		m.ModelDisplayName = r.ModelDisplayName
	}
	if m.Benchmark == "" {
		m.Benchmark = string(r.Benchmark)
	}
	if m.System == "" {
		m.System = string(r.System)
	}
	if m.RetrievalSource == nil {
		s := r.RetrievalSource
		m.RetrievalSource = &s
	}
	if m.SystemParams == nil && len(r.SystemParams) > 0 {
		m.SystemParams = map[string]string{}
		for k, v := range r.SystemParams {
			m.SystemParams[k] = v
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Run.RunID < kept[j].Run.RunID })
	return kept, nil
}

// describe names a run's configuration (without protocol and round).
func describeRun(r *results.Run) string {
	s := fmt.Sprintf("%s %s source %d model %s", r.Benchmark, r.System, r.RetrievalSource, r.Model)
	if len(r.SystemParams) > 0 {
		var kv []string
		for _, k := range sortedKeys(r.SystemParams) {
			kv = append(kv, k+"="+strconv.Quote(r.SystemParams[k]))
		}
		s += " params " + strings.Join(kv, ",")
	}
	if r.Variant != "" {
		s += " variant " + r.Variant
	}
	return s
}

func describeRuns(files []*results.File) []string {
	seen := map[string]bool{}
	for _, f := range files {
		seen[describeRun(&f.Run)] = true
	}
	return sortedKeys(seen)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
