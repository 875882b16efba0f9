// Package submission reads and checks a submission: results files that
// their authors generated and scored themselves and submit by pull request
// as one folder of the submissions root (SUBMITTING.md):
//
//	submissions/<date>_<org>_<model>_<system>/
//	    submission.toml          the metadata (Metadata)
//	    <run_id>.parquet …       the runs, results format v2 or later (results/FORMAT.md)
//	    README.md                optional
//
// Load checks everything that needs no sandbox: the layout and size caps,
// the metadata and its agreement with the folder name and the run records,
// each file's format (results.Validate: totals recomputed from the rows,
// unknown fields), question ids and property counts against the benchmark
// manifest, complete rounds of one configuration, run ids in the
// submission's namespace and no credentials anywhere. Re-executing the
// generated code is cmd/validate-submission's -reexecute (the runner's
// sandbox); its verdicts, recorded by the project outside the submission
// folder (LoadVerified), are what the site calls "verified": a submission
// without them is "self-reported".
package submission

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/check"
)

// MetadataFile is the name of a submission's metadata file.
const MetadataFile = "submission.toml"

// ReadmeFile is the one other file a submission folder may hold.
const ReadmeFile = "README.md"

// VerifiedGenerator is the environment.generator of verified records: the
// project's command that re-executes submitted code and records the
// verdicts (cmd/validate-submission -record).
const VerifiedGenerator = "validate-submission"

// Rounds is how many rounds a tool-usage submission has per scoring
// protocol: rounds 1 to 3, as the paper's error bars.
const Rounds = 3

// Metadata is a submission's submission.toml. Every field is required except
// ModelDisplayName, SystemParams and Notes.
type Metadata struct {
	// Organization submits the results; its slug is the folder's <org>.
	Organization string `toml:"organization"`
	// Model is the provider's model id (= run.model of every run); its slug
	// is the folder's <model>.
	Model            string `toml:"model"`
	ModelDisplayName string `toml:"model_display_name"`
	// Provider serves or publishes the model.
	Provider string `toml:"provider"`
	// Benchmark, System, RetrievalSource and SystemParams equal the run
	// records' fields of the same names; System is the folder's <system>.
	Benchmark       string            `toml:"benchmark"`
	System          string            `toml:"system"`
	RetrievalSource *int              `toml:"retrieval_source"`
	SystemParams    map[string]string `toml:"system_params"`
	Authors         []string          `toml:"authors"`
	Contact         string            `toml:"contact"`
	// Link is where the system or the results are described (http or https).
	Link string `toml:"link"`
	// Date is the submission date, YYYY-MM-DD: the folder's <date>.
	Date string `toml:"date"`
	// ModelReleaseDate is YYYY-MM-DD or "unknown".
	ModelReleaseDate string `toml:"model_release_date"`
	OpenModel        *bool  `toml:"open_model"`
	OpenSystem       *bool  `toml:"open_system"`
	// OutputsLicense is the licence of the submitted outputs (e.g. an SPDX id).
	OutputsLicense string `toml:"outputs_license"`
	Notes          string `toml:"notes"`
}

// Submission is a loaded submission folder.
type Submission struct {
	Dir            string // the folder on disk
	Folder         string // its name: the submission's id (provenance.submission.folder)
	Metadata       Metadata
	MetadataSHA256 string
	// Files are the runs, sorted by run id; FileSHA256 maps a run id to its
	// file's SHA-256 (hex).
	Files      []*results.File
	FileSHA256 map[string]string
}

// Limits are the size caps of a submission.
type Limits struct {
	MaxFileBytes     int64 // one results file
	MaxTotalBytes    int64 // the whole folder
	MaxFiles         int   // results files
	MaxMetadataBytes int64 // submission.toml and README.md, each
	// MaxDecodedBytes caps the decompressed size of one results file's
	// columns (from its Parquet footer, checked before decoding).
	MaxDecodedBytes int64
	// MaxCodeBytes caps one question's generated code.
	MaxCodeBytes int
}

// DefaultLimits: a tool-usage run of 49 questions is 0.1–2 MB; a QA run of
// the whole code set is about 10 MB.
var DefaultLimits = Limits{MaxFileBytes: 32 << 20, MaxTotalBytes: 128 << 20, MaxFiles: 24, MaxMetadataBytes: 64 << 10,
	MaxDecodedBytes: 64 << 20, MaxCodeBytes: 256 << 10}

// Problem is one reason a submission is invalid, located by file, 1-based
// row (0: the file as a whole or its metadata) and field.
type Problem struct {
	File  string
	Row   int
	Field string
	Msg   string
}

func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Row > 0 {
		fmt.Fprintf(&b, ":row %d", p.Row)
	}
	if p.Field != "" {
		b.WriteString(": " + p.Field)
	}
	b.WriteString(": " + p.Msg)
	return b.String()
}

// Problems is a list of problems; as an error it prints one per line.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

var (
	folderRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})_([a-z0-9][a-z0-9.-]*)_([a-z0-9][a-z0-9.-]*)_([a-z0-9][a-z0-9.-]*)$`)
	slugRE   = regexp.MustCompile(`[^a-z0-9.]+`)
)

// Slug is the folder form of an organization or model name: lowercase,
// runs of characters other than [a-z0-9.] replaced by "-", trimmed of "-"
// ("Qwen/Qwen2.5-7B" → "qwen-qwen2.5-7b").
func Slug(s string) string {
	return strings.Trim(slugRE.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// FolderName is the folder a submission of m must be in:
// <date>_<org>_<model>_<system>.
func FolderName(m Metadata) string {
	return m.Date + "_" + Slug(m.Organization) + "_" + Slug(m.Model) + "_" + m.System
}

// Namespace is the prefix of every run id of the submission in folder.
func Namespace(folder string) string {
	return string(results.ProvenanceSubmitted) + "__" + folder + "__"
}

// Load reads and checks the submission in dir. It returns the submission
// (nil when not even its files could be listed) and every problem found;
// the submission is valid when there are none.
func Load(dir string, lim Limits) (*Submission, Problems) {
	s := &Submission{Dir: dir, Folder: filepath.Base(filepath.Clean(dir)), FileSHA256: map[string]string{}}
	var ps Problems
	add := func(file string, row int, field, format string, a ...any) {
		ps = append(ps, Problem{File: file, Row: row, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		add(dir, 0, "", "%v", err)
		return nil, ps
	}
	if !folderRE.MatchString(s.Folder) {
		add(dir, 0, "folder", "%q is not <date>_<org>_<model>_<system> (YYYY-MM-DD, then lowercase [a-z0-9.-] parts joined by \"_\")", s.Folder)
	}

	// Layout and size caps, before anything is parsed.
	var parquets []string
	var total int64
	meta := filepath.Join(dir, MetadataFile)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		info, err := os.Lstat(p)
		if err != nil {
			add(p, 0, "", "%v", err)
			continue
		}
		name := e.Name()
		switch {
		case !info.Mode().IsRegular():
			add(p, 0, "", "not a regular file (%s): a submission folder holds only %s, results files (*%s) and %s",
				info.Mode().Type(), MetadataFile, results.Extension, ReadmeFile)
			continue
		case strings.Contains(strings.ToLower(name), "verified"):
			add(p, 0, "", "a verification record inside the submission: \"verified\" comes only from the project's re-execution "+
				"(validate-submission -reexecute -record), committed under verified/ by maintainers, never by the submitter")
			continue
		case name == MetadataFile || name == ReadmeFile:
			if info.Size() > lim.MaxMetadataBytes {
				add(p, 0, "size", "%d bytes exceeds the cap of %d bytes", info.Size(), lim.MaxMetadataBytes)
			}
		case strings.HasSuffix(name, results.Extension) && !strings.HasPrefix(name, "."):
			if info.Size() > lim.MaxFileBytes {
				add(p, 0, "size", "%d bytes exceeds the cap of %d bytes per results file", info.Size(), lim.MaxFileBytes)
				total += info.Size()
				continue
			}
			parquets = append(parquets, p)
		default:
			add(p, 0, "", "unexpected file: a submission folder holds only %s, results files (*%s) and %s", MetadataFile, results.Extension, ReadmeFile)
			continue
		}
		total += info.Size()
	}
	if total > lim.MaxTotalBytes {
		add(dir, 0, "size", "%d bytes in all exceeds the cap of %d bytes per submission", total, lim.MaxTotalBytes)
	}
	if len(parquets) > lim.MaxFiles {
		add(dir, 0, "files", "%d results files exceed the cap of %d", len(parquets), lim.MaxFiles)
		parquets = parquets[:lim.MaxFiles]
	}
	if len(parquets) == 0 {
		add(dir, 0, "files", "no results files (*%s)", results.Extension)
	}

	// Metadata.
	data, err := os.ReadFile(meta)
	switch {
	case errors.Is(err, os.ErrNotExist):
		add(meta, 0, "", "missing: every submission has a %s (SUBMITTING.md)", MetadataFile)
	case err != nil:
		add(meta, 0, "", "%v", err)
	case int64(len(data)) <= lim.MaxMetadataBytes:
		sum := sha256.Sum256(data)
		s.MetadataSHA256 = hex.EncodeToString(sum[:])
		ps = append(ps, s.readMetadata(meta, data)...)
	}
	if readme := filepath.Join(dir, ReadmeFile); fileExists(readme) {
		if b, err := os.ReadFile(readme); err == nil && int64(len(b)) <= lim.MaxMetadataBytes {
			if k := FindCredential(string(b)); k != "" {
				add(readme, 0, "", "holds a credential (%s): remove it, and revoke it", k)
			}
		}
	}

	// Results files.
	for _, p := range parquets {
		data, err := os.ReadFile(p)
		if err != nil {
			add(p, 0, "", "%v", err)
			continue
		}
		if fps := checkFooter(p, lim); len(fps) > 0 {
			ps = append(ps, fps...)
			continue
		}
		f, err := results.Read(p)
		if err != nil {
			ps = append(ps, problemsOf(p, err)...)
			continue
		}
		for i, q := range f.Questions {
			if len(q.Code) > lim.MaxCodeBytes {
				add(p, i+1, "code", "%d bytes, over the cap of %d bytes per question", len(q.Code), lim.MaxCodeBytes)
			}
		}
		sum := sha256.Sum256(data)
		if _, dup := s.FileSHA256[f.Run.RunID]; dup {
			add(p, 0, "run_id", "%s: a second file with this run id", f.Run.RunID)
			continue
		}
		s.FileSHA256[f.Run.RunID] = hex.EncodeToString(sum[:])
		if err := check.AgainstManifest(f); err != nil {
			ps = append(ps, problemsOf(p, err)...)
		}
		ps = append(ps, s.checkRun(p, f)...)
		s.Files = append(s.Files, f)
	}
	sort.Slice(s.Files, func(i, j int) bool { return s.Files[i].Run.RunID < s.Files[j].Run.RunID })
	ps = append(ps, s.checkRounds()...)
	return s, ps
}

// readMetadata decodes submission.toml into s.Metadata and checks it.
func (s *Submission) readMetadata(path string, data []byte) Problems {
	var ps Problems
	add := func(field, format string, a ...any) {
		ps = append(ps, Problem{File: path, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	md, err := toml.Decode(string(data), &s.Metadata)
	if err != nil {
		add("", "%v", err)
		return ps
	}
	for _, k := range md.Undecoded() {
		add(k.String(), "unknown field (the fields are listed in SUBMITTING.md)")
	}
	m := s.Metadata
	for _, f := range []struct{ name, v string }{{"organization", m.Organization}, {"model", m.Model}, {"provider", m.Provider},
		{"benchmark", m.Benchmark}, {"system", m.System}, {"contact", m.Contact}, {"link", m.Link}, {"date", m.Date},
		{"model_release_date", m.ModelReleaseDate}, {"outputs_license", m.OutputsLicense}} {
		if strings.TrimSpace(f.v) == "" {
			add(f.name, "required field missing")
		}
	}
	if m.RetrievalSource == nil {
		add("retrieval_source", "required field missing")
	}
	if m.OpenModel == nil {
		add("open_model", "required field missing (true or false)")
	}
	if m.OpenSystem == nil {
		add("open_system", "required field missing (true or false)")
	}
	if len(m.Authors) == 0 {
		add("authors", "required field missing: at least one author")
	}
	if _, ok := results.LookupBenchmark(results.Benchmark(m.Benchmark)); m.Benchmark != "" && !ok {
		names := results.BenchmarkNames()
		want := make([]string, len(names))
		for i, n := range names {
			want[i] = string(n)
		}
		add("benchmark", "unknown value %q; want %s or %s", m.Benchmark, strings.Join(want[:len(want)-1], ", "), want[len(want)-1])
	}
	if u, err := url.Parse(m.Link); m.Link != "" && (err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil) {
		add("link", "%q is not an http(s) URL without credentials", m.Link)
	}
	if _, err := time.Parse(time.DateOnly, m.Date); m.Date != "" && err != nil {
		add("date", "%q is not a date YYYY-MM-DD", m.Date)
	}
	if _, err := time.Parse(time.DateOnly, m.ModelReleaseDate); m.ModelReleaseDate != "" && m.ModelReleaseDate != "unknown" && err != nil {
		add("model_release_date", "%q is not a date YYYY-MM-DD (or \"unknown\")", m.ModelReleaseDate)
	}
	if k := FindCredential(string(data)); k != "" {
		add("", "holds a credential (%s): remove it, and revoke it", k)
	}
	if m.Date != "" && m.Organization != "" && m.Model != "" && m.System != "" && FolderName(m) != s.Folder {
		add("", "the folder is %q but the metadata (date, organization, model, system) says %q", s.Folder, FolderName(m))
	}
	return ps
}

// checkRun checks one run against the submission: provenance, namespace,
// metadata agreement, protocol, outcomes and credentials.
func (s *Submission) checkRun(path string, f *results.File) Problems {
	var ps Problems
	add := func(row int, field, format string, a ...any) {
		ps = append(ps, Problem{File: path, Row: row, Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	r := &f.Run
	switch {
	case r.Provenance.Kind == results.ProvenanceRescored:
		add(0, "provenance.kind", "rescored: a verification record inside the submission; \"verified\" comes only from the project's "+
			"re-execution (validate-submission -reexecute -record), committed under verified/ by maintainers, never by the submitter")
		return ps
	case r.Provenance.Kind != results.ProvenanceSubmitted:
		add(0, "provenance.kind", "is %q; a submission's runs are \"submitted\"", r.Provenance.Kind)
		return ps
	}
	if sub := r.Provenance.Submission; sub != nil {
		if sub.Folder != s.Folder {
			add(0, "provenance.submission.folder", "is %q; the file is in submission %q", sub.Folder, s.Folder)
		}
		if s.MetadataSHA256 != "" && sub.MetadataSHA256 != s.MetadataSHA256 {
			add(0, "provenance.submission.metadata_sha256", "is %s; %s hashes to %s (write the results files after the metadata)",
				sub.MetadataSHA256, MetadataFile, s.MetadataSHA256)
		}
	}
	if ns := Namespace(s.Folder); !strings.HasPrefix(r.RunID, ns) {
		add(0, "run_id", "%q is outside the submission's namespace: it must start with %q", r.RunID, ns)
	}
	m := s.Metadata
	agree := func(field, run, meta string) {
		if meta != "" && run != meta {
			add(0, field, "is %q; %s says %q", run, MetadataFile, meta)
		}
	}
	agree("benchmark", string(r.Benchmark), m.Benchmark)
	agree("system", string(r.System), m.System)
	agree("model", r.Model, m.Model)
	if m.ModelDisplayName != "" && r.ModelDisplayName != "" {
		agree("model_display_name", r.ModelDisplayName, m.ModelDisplayName)
	}
	if m.RetrievalSource != nil && r.RetrievalSource != *m.RetrievalSource {
		add(0, "retrieval_source", "is %d; %s says %d", r.RetrievalSource, MetadataFile, *m.RetrievalSource)
	}
	if !maps(r.SystemParams, m.SystemParams) {
		add(0, "system_params", "are %v; %s says %v", r.SystemParams, MetadataFile, m.SystemParams)
	}
	if protocols := results.ScoredProtocols(r.Benchmark); !slices.Contains(protocols, r.ScoringProtocol) {
		add(0, "scoring_protocol", "is %q; a %s submission is scored under %s", r.ScoringProtocol, r.Benchmark, strings.Join(protocols, " or "))
	}
	if !r.Totals.Scored {
		add(0, "totals.scored", "is false: a submission reports outcomes")
	}
	if r.Round < 1 {
		add(0, "round", "is %d; submitted runs are rounds 1, 2, …", r.Round)
	}

	// Credentials: every string of the run record and of every row.
	scanStrings(reflect.ValueOf(r), "", func(field, kind string) {
		add(0, field, "holds a credential (%s): remove it, and revoke it", kind)
	})
	for i := range f.Questions {
		scanStrings(reflect.ValueOf(&f.Questions[i]), "", func(field, kind string) {
			add(i+1, field, "holds a credential (%s): remove it, and revoke it", kind)
		})
	}
	for i := range f.QAItems {
		scanStrings(reflect.ValueOf(&f.QAItems[i]), "", func(field, kind string) {
			add(i+1, field, "holds a credential (%s): remove it, and revoke it", kind)
		})
	}
	return ps
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// checkRounds checks that the runs are complete rounds of one
// configuration: the same configuration apart from protocol and round;
// per protocol, tool usage rounds 1 to Rounds, QA at least round 1, each
// once; and within a round, the same answers under every protocol.
func (s *Submission) checkRounds() Problems {
	var ps Problems
	if len(s.Files) == 0 {
		return ps
	}
	first := s.Files[0]
	ref := configWithout(&first.Run)
	rounds := map[string][]int{} // protocol → rounds
	byRound := map[int]*results.File{}
	for _, f := range s.Files {
		if c := configWithout(&f.Run); c != ref {
			ps = append(ps, Problem{File: f.Path, Field: differing(ref, c), Msg: fmt.Sprintf("differs from %s: a submission is one configuration "+
				"(its runs differ only in scoring protocol and round); %s", filepath.Base(first.Path), describe(ref, c))})
			continue
		}
		rounds[f.Run.ScoringProtocol] = append(rounds[f.Run.ScoringProtocol], f.Run.Round)
		if other, ok := byRound[f.Run.Round]; ok {
			ps = append(ps, sameAnswers(other, f)...)
		} else {
			byRound[f.Run.Round] = f
		}
	}
	protocols := make([]string, 0, len(rounds))
	for p := range rounds {
		protocols = append(protocols, p)
	}
	sort.Strings(protocols)
	for _, p := range protocols {
		rs := rounds[p]
		sort.Ints(rs)
		var want []int
		if first.Run.Benchmark.Kind() == results.KindToolUsage {
			for i := 1; i <= Rounds; i++ {
				want = append(want, i)
			}
		} else {
			for i := 1; i <= max(1, len(rs)); i++ {
				want = append(want, i)
			}
		}
		if !slices.Equal(rs, want) {
			ps = append(ps, Problem{File: s.Dir, Field: "round", Msg: fmt.Sprintf("protocol %s has rounds %s; want rounds %s, each once",
				p, ints(rs), ints(want))})
		}
	}
	return ps
}

// configWithout is a run's configuration without scoring protocol.
func configWithout(r *results.Run) results.Configuration {
	c := r.Configuration()
	c.ScoringProtocol = ""
	return c
}

// differing names the first configuration field in which a and b differ.
func differing(a, b results.Configuration) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < va.NumField(); i++ {
		if va.Field(i).Interface() != vb.Field(i).Interface() {
			return configFields[va.Type().Field(i).Name]
		}
	}
	return ""
}

func describe(a, b results.Configuration) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < va.NumField(); i++ {
		if va.Field(i).Interface() != vb.Field(i).Interface() {
			return fmt.Sprintf("%v there, %v here", va.Field(i).Interface(), vb.Field(i).Interface())
		}
	}
	return ""
}

var configFields = map[string]string{"Benchmark": "benchmark", "BenchmarkVersion": "benchmark_version", "System": "system",
	"RetrievalSource": "retrieval_source", "Model": "model", "Variant": "variant", "QuestionSet": "question_set",
	"Provenance": "provenance", "Settings": "generation", "SystemParams": "system_params", "Standalone": "round"}

// sameAnswers checks that two runs of one round (different protocols)
// score the same answers: equal code and function name per question.
func sameAnswers(a, b *results.File) Problems {
	var ps Problems
	codes := map[string]*results.QuestionRow{}
	for i := range a.Questions {
		codes[a.Questions[i].QuestionID] = &a.Questions[i]
	}
	for i := range b.Questions {
		q := &b.Questions[i]
		o, ok := codes[q.QuestionID]
		switch {
		case !ok:
			ps = append(ps, Problem{File: b.Path, Row: i + 1, Field: "question_id", Msg: fmt.Sprintf("%s is not in %s (same round): "+
				"every protocol scores the same answers", q.QuestionID, filepath.Base(a.Path))})
		case o.Code != q.Code || o.FunctionName != q.FunctionName:
			ps = append(ps, Problem{File: b.Path, Row: i + 1, Field: "code", Msg: fmt.Sprintf("%s differs from %s (same round): "+
				"every protocol scores the same answers", q.QuestionID, filepath.Base(a.Path))})
		}
	}
	return ps
}

func ints(v []int) string {
	if len(v) == 0 {
		return "none"
	}
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// problemsOf turns a results read or check error (joined
// *results.FormatError) into problems of file path.
func problemsOf(path string, err error) Problems {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var ps Problems
	for _, e := range errs {
		var fe *results.FormatError
		if errors.As(e, &fe) {
			if j, ok := fe.Err.(interface{ Unwrap() []error }); ok && fe.Field == "" {
				ps = append(ps, problemsOf(path, errors.Join(j.Unwrap()...))...)
				continue
			}
			ps = append(ps, Problem{File: path, Row: fe.Row, Field: fe.Field, Msg: fe.Err.Error()})
			continue
		}
		ps = append(ps, Problem{File: path, Msg: strings.TrimPrefix(e.Error(), path+": ")})
	}
	return ps
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// LoadVerified reads the verified records of submission s from dir (the
// verified root's folder of the same name: verified/<folder>/): results
// files written by VerifiedGenerator, each a rescoring of one of s's runs
// (provenance rescored, origin submitted, the same submission and metadata
// hash, derived_from one of its run ids, its source the SHA-256 of that
// run's file as it is now, and the run id results.MakeRunID gives it: in
// the namespace "rescored-submitted__<folder>__"). A record that fails any
// of these — a submission changed since it was verified, a record written
// by anything else — is a problem and is left out. A missing dir means none.
func LoadVerified(dir string, s *Submission) ([]*results.File, Problems) {
	files, invalid, err := results.ReadDirReport(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var ps Problems
	if err != nil {
		return nil, Problems{{File: dir, Msg: err.Error()}}
	}
	for _, iv := range invalid {
		ps = append(ps, problemsOf(iv.Path, iv.Err)...)
	}
	runs := map[string]*results.File{}
	for _, f := range s.Files {
		runs[f.Run.RunID] = f
	}
	var ok []*results.File
	for _, f := range files {
		p := f.Run.Provenance
		bad := func(field, format string, a ...any) {
			ps = append(ps, Problem{File: f.Path, Field: field, Msg: fmt.Sprintf(format, a...)})
		}
		src := runs[p.DerivedFrom]
		switch {
		case p.Kind != results.ProvenanceRescored || p.Origin != results.ProvenanceSubmitted:
			bad("provenance.kind", "is %q (origin %q); a verified record is a rescoring of submitted code", p.Kind, p.Origin)
		case f.Run.Environment.Generator != VerifiedGenerator:
			bad("environment.generator", "is %q; verified records are written by %s only", f.Run.Environment.Generator, VerifiedGenerator)
		case p.Submission == nil || p.Submission.Folder != s.Folder || p.Submission.MetadataSHA256 != s.MetadataSHA256:
			bad("provenance.submission", "%+v is not submission %s with metadata %s (the metadata changed since verification?)", p.Submission, s.Folder, s.MetadataSHA256)
		case src == nil:
			bad("provenance.derived_from", "%q is not a run of submission %s", p.DerivedFrom, s.Folder)
		case len(p.Source) != 1 || p.Source[0].SHA256 != s.FileSHA256[p.DerivedFrom]:
			bad("provenance.source", "does not hash the file of run %s as it is now: the submission changed since it was verified; verify it again", p.DerivedFrom)
		case !sameCode(src, f):
			bad("code", "differs from run %s's: a verified record re-executes the submitted code", p.DerivedFrom)
		case f.Run.RunID != results.MakeRunID(&f.Run):
			bad("run_id", "is %q; a verified record's run id is the one its run record gives, %q", f.Run.RunID, results.MakeRunID(&f.Run))
		default:
			ok = append(ok, f)
		}
	}
	return ok, ps
}

func sameCode(a, b *results.File) bool {
	codes := map[string]string{}
	for _, q := range a.Questions {
		codes[q.QuestionID] = q.FunctionName + "\x00" + q.Code
	}
	for _, q := range b.Questions {
		if c, ok := codes[q.QuestionID]; !ok || !bytes.Equal([]byte(c), []byte(q.FunctionName+"\x00"+q.Code)) {
			return false
		}
	}
	return true
}
