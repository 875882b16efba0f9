package published

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// The verdicts of MatTools' published generated code re-executed by this
// project (make rescore-published) are committed as JSON, so that the
// importer (and with it make site and CI) never re-executes anything: the
// main verdicts in ReexecutedFile and those kept beside them (AlongsideKey,
// VersionKey: "<run id>@<part>") in one file per part beside it,
// PartFile(ReexecutedFile, part) ("reexecuted-2025-05-corrected-2.json",
// "reexecuted-tasks.json"), so that no file outgrows the repository's
// 2 MiB limit per file as versions are added. Read and written together
// (ReadReexecuted, Write) they are one store. Each file holds, per
// environment id its runs use, the sandbox and the
// library versions (lock file hash included), and per published run id the
// generated-code file it was re-executed from (path relative to the data
// root, SHA-256), the environment id and one row per question × scoring
// protocol: [question_id, protocol, verdict, cause, runnable,
// properties_passed, property_outcomes], where property_outcomes is a list
// of [property, passed, message] in the unit test's order (results format
// v3's property_outcomes column, each message cut to
// ReexecutedMessageBytes). Rows written before the store kept per-property
// outcomes have six fields and still load (ReexecutedVerdict.HasOutcomes
// false); make rescore-published re-executes them. No generated code: the
// importer joins the rows with the code of the data root, and only while
// its SHA-256 matches. Questions whose data files were absent where the
// command ran have no row.
const ReexecutedFile = "reexecuted.json"

//go:embed reexecuted*.json
var committedReexecuted embed.FS

// PartFile returns the file beside the store file main that holds the runs
// keyed "<run id>@<part>": main's name with "-<part>" before its
// extension ("reexecuted.json", "tasks" → "reexecuted-tasks.json").
func PartFile(main, part string) string {
	ext := path.Ext(main)
	return strings.TrimSuffix(main, ext) + "-" + part + ext
}

// keyPart returns the part of a store key: what follows its '@' ("" for a
// main key).
func keyPart(key string) string {
	if i := strings.LastIndexByte(key, '@'); i >= 0 {
		return key[i+1:]
	}
	return ""
}

// ReexecutedRun is what the store records of one published run.
type ReexecutedRun struct {
	Source      results.SourceFile  `json:"source"`      // the generated-code file, relative to the data root
	Environment string              `json:"environment"` // key of Reexecuted.Environments
	Rows        []ReexecutedVerdict `json:"rows"`        // in evaluation order, mattools-v1 before mattools-v1-strict
}

// ReexecutionEnvironment is what re-executed a run: the sandbox (backend,
// version, limits, lock file hash) and the versions of the libraries the
// code ran against. Its id is EnvironmentID.
type ReexecutionEnvironment struct {
	Sandbox   results.Sandbox   `json:"sandbox"`
	Libraries map[string]string `json:"libraries"`
}

// EnvironmentID is the first 12 hex digits of the SHA-256 of e's JSON
// encoding: verdicts made with equal ids were made in equal environments.
func (e ReexecutionEnvironment) EnvironmentID() string {
	data, _ := json.Marshal(e) // map keys are sorted: the encoding is canonical
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// ReexecutedVerdict is one question's outcome under one protocol, stored
// as the JSON array [question_id, protocol, verdict, cause, runnable,
// properties_passed, property_outcomes] (six fields in rows written before
// the store kept per-property outcomes).
type ReexecutedVerdict struct {
	QuestionID       string
	Protocol         string // mattools-v1 or mattools-v1-strict
	Verdict          results.Verdict
	Cause            string
	Runnable         bool
	PropertiesPassed int
	// HasOutcomes reports whether the row records its per-property
	// outcomes (the seventh field); false for rows of the store's first
	// form, which must be re-executed to be scored by property.
	HasOutcomes bool
	// Outcomes is each property's outcome in the unit test's order, as
	// scoring gives it (results.QuestionRow.PropertyOutcomes): every
	// property under mattools-v1-strict; under mattools-v1 every property
	// of a correct, not-runnable or crashed question, and none of a partial
	// one (MatTools' credit is a count of error strings that cannot be
	// attributed to properties). Messages are cut to ReexecutedMessageBytes.
	Outcomes []results.PropertyOutcome
}

// ReexecutedMessageBytes caps each stored property message (the
// verification's error strings, or why no check ran): longer messages are
// cut at a UTF-8 boundary and end in "…". The full text is in the results
// files of a re-execution (cmd/rescore INPUT), not in the committed store.
const ReexecutedMessageBytes = 160

// StoredOutcomes returns po as the store keeps it: a non-nil copy (empty,
// not nil, when po is empty) with each message cut to
// ReexecutedMessageBytes.
func StoredOutcomes(po []results.PropertyOutcome) []results.PropertyOutcome {
	out := make([]results.PropertyOutcome, 0, len(po))
	for _, o := range po {
		o.Message = strings.ToValidUTF8(o.Message, "\uFFFD")
		if len(o.Message) > ReexecutedMessageBytes {
			cut := ReexecutedMessageBytes
			for cut > 0 && !utf8.RuneStart(o.Message[cut]) {
				cut--
			}
			o.Message = o.Message[:cut] + "…"
		}
		out = append(out, o)
	}
	return out
}

// MarshalJSON writes the row as an array.
func (v ReexecutedVerdict) MarshalJSON() ([]byte, error) {
	a := []any{v.QuestionID, v.Protocol, v.Verdict, v.Cause, v.Runnable, v.PropertiesPassed}
	if v.HasOutcomes {
		po := make([][]any, 0, len(v.Outcomes))
		for _, o := range v.Outcomes {
			po = append(po, []any{o.Property, o.Passed, o.Message})
		}
		a = append(a, po)
	}
	return json.Marshal(a)
}

// UnmarshalJSON reads the array form, checking each field.
func (v *ReexecutedVerdict) UnmarshalJSON(data []byte) error {
	var a []json.RawMessage
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	if len(a) != 6 && len(a) != 7 {
		return fmt.Errorf("want [question_id, protocol, verdict, cause, runnable, properties_passed, property_outcomes], got %d fields", len(a))
	}
	var verdict string
	for i, dst := range []any{&v.QuestionID, &v.Protocol, &verdict, &v.Cause, &v.Runnable, &v.PropertiesPassed} {
		if err := json.Unmarshal(a[i], dst); err != nil {
			return fmt.Errorf("%s: %w", rowFields[i], err)
		}
	}
	v.Verdict = results.Verdict(verdict)
	switch {
	case v.QuestionID == "":
		return fmt.Errorf("question_id: empty")
	case results.CheckScoredProtocol(results.BenchmarkToolUsage, v.Protocol) != nil:
		return fmt.Errorf("protocol: %q: want %s", v.Protocol, strings.Join(results.ScoredProtocols(results.BenchmarkToolUsage), " or "))
	case v.PropertiesPassed < 0 && v.Protocol != results.ProtocolMatToolsV1: // v1 may count below zero (docs/mattools.md §2)
		return fmt.Errorf("properties_passed: %d under %s", v.PropertiesPassed, v.Protocol)
	}
	switch v.Verdict {
	case results.VerdictCorrect, results.VerdictPartial, results.VerdictNotRunnable, results.VerdictVerificationCrash:
	default:
		return fmt.Errorf("verdict: %q is not the verdict of an executed question", verdict)
	}
	v.HasOutcomes, v.Outcomes = len(a) == 7, nil
	if !v.HasOutcomes {
		return nil
	}
	var po [][]json.RawMessage
	if err := json.Unmarshal(a[6], &po); err != nil {
		return fmt.Errorf("property_outcomes: %w", err)
	}
	v.Outcomes = make([]results.PropertyOutcome, 0, len(po))
	seen := map[string]bool{}
	passed := 0
	for i, e := range po {
		var o results.PropertyOutcome
		if len(e) != 3 {
			return fmt.Errorf("property_outcomes[%d]: want [property, passed, message], got %d fields", i, len(e))
		}
		for j, dst := range []any{&o.Property, &o.Passed, &o.Message} {
			if err := json.Unmarshal(e[j], dst); err != nil {
				return fmt.Errorf("property_outcomes[%d].%s: %w", i, []string{"property", "passed", "message"}[j], err)
			}
		}
		switch {
		case o.Property == "":
			return fmt.Errorf("property_outcomes[%d].property: empty", i)
		case seen[o.Property]:
			return fmt.Errorf("property_outcomes[%d].property: %q appears twice", i, o.Property)
		}
		seen[o.Property] = true
		if o.Passed {
			passed++
		}
		v.Outcomes = append(v.Outcomes, o)
	}
	if len(po) > 0 && passed != v.PropertiesPassed {
		return fmt.Errorf("property_outcomes: %d of its %d properties passed but properties_passed is %d", passed, len(po), v.PropertiesPassed)
	}
	if len(po) == 0 && v.Protocol != results.ProtocolMatToolsV1 {
		return fmt.Errorf("property_outcomes: empty under %s (only a mattools-v1 partial question has none)", v.Protocol)
	}
	if len(po) == 0 && v.Verdict != results.VerdictPartial {
		return fmt.Errorf("property_outcomes: empty for a %s question (only a mattools-v1 partial question has none)", v.Verdict)
	}
	return nil
}

var rowFields = []string{"question_id", "protocol", "verdict", "cause", "runnable", "properties_passed", "property_outcomes"}

// Reexecuted is the store of re-executed verdicts.
type Reexecuted struct {
	About        string                            `json:"about"`
	Environments map[string]ReexecutionEnvironment `json:"environments"` // environment id →
	Runs         map[string]*ReexecutedRun         `json:"runs"`         // published run id →
}

const reexecutedAbout = "Verdicts of MatTools' published generated code re-executed by this project (make rescore-published); " +
	"rows are [question_id, protocol, verdict, cause, runnable, properties_passed, property_outcomes] (six fields in rows recorded before per-property outcomes), " +
	"property_outcomes a list of [property, passed, message]; see results/published/reexecuted.go."

// NewReexecuted returns an empty store.
func NewReexecuted() *Reexecuted {
	return &Reexecuted{About: reexecutedAbout, Environments: map[string]ReexecutionEnvironment{}, Runs: map[string]*ReexecutedRun{}}
}

// CommittedReexecuted returns the store committed with this program
// (results/published/reexecuted.json and its part files), possibly empty.
func CommittedReexecuted() (*Reexecuted, error) {
	return readParts(func(name string) ([]byte, error) { return committedReexecuted.ReadFile(name) },
		func(pattern string) ([]string, error) { return fs.Glob(committedReexecuted, pattern) },
		ReexecutedFile, "results/published/")
}

// ReadReexecuted reads the store at path and its part files beside it
// (PartFile(path, part)); missing files give an empty store. A main file
// holding runs of parts (the store's single-file form) still loads, a part
// file's run replacing the main file's of the same key (Write writes the
// part files first, then the main file without them). A part file's run
// keyed for another part is an error naming the file and run; other
// malformed content is an error naming the file, run and field.
func ReadReexecuted(path string) (*Reexecuted, error) {
	return readParts(os.ReadFile, filepath.Glob, path, "")
}

// readParts reads the main file main and every part file matching
// PartFile(main, "*"), naming them prefix+name in errors.
func readParts(read func(string) ([]byte, error), glob func(string) ([]string, error), main, prefix string) (*Reexecuted, error) {
	st := NewReexecuted()
	add := func(name, part string) error {
		data, err := read(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		one, err := parseReexecuted(data, prefix+name)
		if err != nil {
			return err
		}
		for id, e := range one.Environments {
			st.Environments[id] = e // the id is the content's hash: equal ids, equal content
		}
		for key, r := range one.Runs {
			if part != "" && keyPart(key) != part {
				return fmt.Errorf("%s%s: runs.%s: not a run of part %q (want keys \"<run id>@%s\")", prefix, name, key, part, part)
			}
			st.Runs[key] = r
		}
		return nil
	}
	if err := add(main, ""); err != nil {
		return nil, err
	}
	names, err := glob(PartFile(main, "*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	stem := strings.TrimSuffix(PartFile(main, ""), path.Ext(main))
	for _, name := range names {
		part := strings.TrimSuffix(strings.TrimPrefix(name, stem), path.Ext(main))
		if err := add(name, part); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func parseReexecuted(data []byte, name string) (*Reexecuted, error) {
	// The rows are decoded one by one, so that an error names its run and
	// row.
	var raw struct {
		About        string                            `json:"about"`
		Environments map[string]ReexecutionEnvironment `json:"environments"`
		Runs         map[string]*struct {
			Source      results.SourceFile `json:"source"`
			Environment string             `json:"environment"`
			Rows        []json.RawMessage  `json:"rows"`
		} `json:"runs"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if raw.Runs == nil || raw.Environments == nil {
		return nil, fmt.Errorf("%s: runs and environments: required", name)
	}
	st := &Reexecuted{About: raw.About, Environments: raw.Environments, Runs: map[string]*ReexecutedRun{}}
	for id, rr := range raw.Runs {
		if rr == nil {
			return nil, fmt.Errorf("%s: runs.%s: null", name, id)
		}
		r := &ReexecutedRun{Source: rr.Source, Environment: rr.Environment, Rows: make([]ReexecutedVerdict, len(rr.Rows))}
		for i, row := range rr.Rows {
			if err := json.Unmarshal(row, &r.Rows[i]); err != nil {
				return nil, fmt.Errorf("%s: runs.%s.rows[%d]: %w", name, id, i, err)
			}
		}
		st.Runs[id] = r
	}
	for id, r := range st.Runs {
		if _, ok := st.Environments[r.Environment]; !ok {
			return nil, fmt.Errorf("%s: runs.%s.environment: %q is not among the environments", name, id, r.Environment)
		}
		if r.Source.Path == "" || len(r.Source.SHA256) != 64 {
			return nil, fmt.Errorf("%s: runs.%s.source: want a path and a 64-digit SHA-256", name, id)
		}
		seen := map[string]bool{}
		for i, v := range r.Rows {
			if k := v.QuestionID + "/" + v.Protocol; seen[k] {
				return nil, fmt.Errorf("%s: runs.%s.rows[%d]: question %s appears twice under %s", name, id, i, v.QuestionID, v.Protocol)
			} else {
				seen[k] = true
			}
		}
	}
	for id, e := range st.Environments {
		if e.EnvironmentID() != id {
			return nil, fmt.Errorf("%s: environments.%s: its content hashes to %s", name, id, e.EnvironmentID())
		}
	}
	return st, nil
}

// Write writes the store to path and its part files atomically (each a
// temporary file renamed): the runs keyed by a published run id to path,
// those keyed "<run id>@<part>" to PartFile(path, part), each file with the
// environments its runs use (path also with those no run uses). One row per
// line, rows sorted by order (question id → evaluation position), then
// protocol, so that the files diff well. A part file of a part the store
// no longer holds is left as it is.
func (st *Reexecuted) Write(path string, order map[string]int) error {
	st.About = reexecutedAbout
	for _, r := range st.Runs {
		sort.SliceStable(r.Rows, func(i, j int) bool {
			if r.Rows[i].QuestionID != r.Rows[j].QuestionID {
				return order[r.Rows[i].QuestionID] < order[r.Rows[j].QuestionID]
			}
			return r.Rows[i].Protocol < r.Rows[j].Protocol
		})
	}
	parts := map[string][]string{"": nil}
	for key := range st.Runs {
		parts[keyPart(key)] = append(parts[keyPart(key)], key)
	}
	used := map[string]bool{}
	for _, r := range st.Runs {
		used[r.Environment] = true
	}
	names := make([]string, 0, len(parts))
	for part := range parts {
		names = append(names, part)
	}
	sort.Strings(names)
	// The parts first, the main file last: a store interrupted between two
	// renames reads as the new one (a run moved to its part file is read
	// from there, over the main file's old copy).
	for _, part := range append(names[1:], "") {
		envs := map[string]ReexecutionEnvironment{}
		for id, e := range st.Environments {
			if part == "" && !used[id] {
				envs[id] = e
			}
		}
		for _, key := range parts[part] {
			envs[st.Runs[key].Environment] = st.Environments[st.Runs[key].Environment]
		}
		file := path
		if part != "" {
			file = PartFile(path, part)
		}
		if err := writeStoreFile(file, st.About, envs, st.Runs, parts[part]); err != nil {
			return err
		}
	}
	return nil
}

// writeStoreFile writes the runs keys of runs and the environments envs to
// file in the store's form.
func writeStoreFile(file, about string, envs map[string]ReexecutionEnvironment, runs map[string]*ReexecutedRun, keys []string) error {
	var b bytes.Buffer
	aboutJSON, _ := json.Marshal(about)
	envsJSON, err := json.MarshalIndent(envs, " ", " ")
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "{\n \"about\": %s,\n \"environments\": %s,\n \"runs\": {", aboutJSON, envsJSON)
	ids := append([]string(nil), keys...)
	sort.Strings(ids)
	for i, id := range ids {
		r := runs[id]
		key, _ := json.Marshal(id)
		src, _ := json.Marshal(r.Source)
		env, _ := json.Marshal(r.Environment)
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s\n  %s: {\"source\": %s, \"environment\": %s, \"rows\": [", sep, key, src, env)
		for j, v := range r.Rows {
			row, err := json.Marshal(v)
			if err != nil {
				return err
			}
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n   ")
			b.Write(row)
		}
		b.WriteString("\n  ]}")
	}
	if len(ids) > 0 {
		b.WriteString("\n ")
	}
	b.WriteString("}\n}\n")
	if !json.Valid(b.Bytes()) {
		return fmt.Errorf("%s: internal error: the encoding is not valid JSON", file)
	}
	return results.WriteFileAtomic(file, b.Bytes(), 0o644)
}

// reexecutedFiles returns, for each imported tool-usage run in tool whose
// generated-code file the store holds verdicts for (same SHA-256), two
// rescored runs (provenance rescored, origin imported), mattools-v1 and
// mattools-v1-strict: the imported rows' code with the stored verdicts;
// questions without a stored verdict are data-missing and outside the
// question set. A run whose code changed since it was re-executed is left
// out with a warning. joined holds the run ids whose verdicts were joined.
func (im *importer) reexecutedFiles(tool []*results.File, st *Reexecuted) (out []*results.File, joined map[string]bool) {
	joined = map[string]bool{}
	for _, f := range tool {
		rx := st.Runs[f.Run.RunID]
		if rx == nil || len(rx.Rows) == 0 {
			continue
		}
		var src *results.SourceFile
		for i, s := range f.Run.Provenance.Source {
			if path.Base(s.Path) == GenerationFile {
				src = &f.Run.Provenance.Source[i]
			}
		}
		if src == nil || src.SHA256 != rx.Source.SHA256 {
			im.warnf("%s: its generated code differs from the code re-executed (%s, sha256 %.12s…): its re-executed verdicts are left out; run make rescore-published",
				f.Run.RunID, rx.Source.Path, rx.Source.SHA256)
			continue
		}
		env := st.Environments[rx.Environment]
		for _, protocol := range results.ScoredProtocols(results.BenchmarkToolUsage) {
			out = append(out, reexecutedFile(f, rx, protocol, env, len(im.order)))
		}
		joined[f.Run.RunID] = true
		for _, v := range datasets.CorrectedVersions() {
			cx, err := correctedRun(rx, st.Runs[VersionKey(f.Run.RunID, v.ID)], v)
			if err != nil {
				im.warnf("%s: its verdicts in benchmark version %s are left out: %v; run make rescore-published BENCHMARK_VERSION=%s", f.Run.RunID, v.ID, err, v.ID)
				continue
			}
			if cx == nil {
				continue
			}
			for _, protocol := range results.ScoredProtocols(results.BenchmarkToolUsage) {
				g := reexecutedFile(f, cx, protocol, env, len(im.order))
				g.Run.BenchmarkVersion = v.ID
				g.Run.Warnings = append(g.Run.Warnings, fmt.Sprintf("benchmark version %s (datasets/corrections.json): %s; the verdicts of %s come from their re-execution with the corrected verification, the others' from the published version's (same code, same verification)",
					v.ID, v.Description, strings.Join(correctedIDs(v), ", ")))
				g.Run.RunID = results.MakeRunID(&g.Run)
				out = append(out, g)
			}
		}
	}
	return out, joined
}

// correctedIDs returns the ids of the questions whose verification v
// corrects (a corrected question text alone changes no verdict).
func correctedIDs(v datasets.CorrectedVersion) []string {
	return v.VerificationQuestions()
}

// correctedRun returns a published run's verdicts in the corrected
// version v: main's rows with those of v's corrected questions replaced by
// cor's (the store's VersionKey entry); nil when cor is nil. An error when
// cor was made for other code or in another environment than main, or
// lacks a corrected question main has.
func correctedRun(main, cor *ReexecutedRun, v datasets.CorrectedVersion) (*ReexecutedRun, error) {
	if cor == nil {
		return nil, nil
	}
	if cor.Source.SHA256 != main.Source.SHA256 || cor.Environment != main.Environment {
		return nil, fmt.Errorf("re-executed for other code or in another environment (%s, not %s)", cor.Environment, main.Environment)
	}
	fixed := map[string]bool{}
	for _, id := range correctedIDs(v) {
		fixed[id] = true
	}
	has := map[string]bool{}
	for _, r := range cor.Rows {
		has[r.QuestionID+"/"+r.Protocol] = true
	}
	out := &ReexecutedRun{Source: main.Source, Environment: main.Environment}
	for _, r := range main.Rows {
		if !fixed[r.QuestionID] {
			out.Rows = append(out.Rows, r)
		} else if !has[r.QuestionID+"/"+r.Protocol] {
			return nil, fmt.Errorf("question %s (%s) not re-executed in this version", r.QuestionID, r.Protocol)
		}
	}
	for _, r := range cor.Rows {
		if fixed[r.QuestionID] {
			out.Rows = append(out.Rows, r)
		}
	}
	return out, nil
}

func reexecutedFile(f *results.File, rx *ReexecutedRun, protocol string, env ReexecutionEnvironment, total int) *results.File {
	byQuestion := map[string]ReexecutedVerdict{}
	for _, v := range rx.Rows {
		if v.Protocol == protocol {
			byQuestion[v.QuestionID] = v
		}
	}
	g := &results.File{Run: f.Run}
	r := &g.Run
	r.ScoringProtocol = protocol
	r.Generation = f.Run.Generation.Rescored()
	r.Provenance = results.Provenance{Kind: results.ProvenanceRescored, Origin: results.ProvenanceImported, DerivedFrom: f.Run.RunID,
		Source: []results.SourceFile{rx.Source}}
	sb := env.Sandbox
	r.Environment = results.Environment{Generator: Generator, GeneratorVersion: Version, Libraries: env.Libraries, Sandbox: &sb}
	r.Warnings = nil
	var ids, missing, outcomeMismatch []string
	props := 0
	for _, q := range f.Questions {
		row := results.QuestionRow{QuestionIndex: q.QuestionIndex, QuestionID: q.QuestionID, PropertyCount: q.PropertyCount,
			Code: q.Code, FunctionName: q.FunctionName}
		if v, ok := byQuestion[q.QuestionID]; ok {
			rn, pp := v.Runnable, int32(v.PropertiesPassed)
			row.Verdict, row.VerdictCause, row.Runnable, row.PropertiesPassed = string(v.Verdict), v.Cause, &rn, &pp
			if len(v.Outcomes) == int(q.PropertyCount) {
				row.PropertyOutcomes = append([]results.PropertyOutcome(nil), v.Outcomes...)
			} else if v.HasOutcomes && len(v.Outcomes) > 0 {
				outcomeMismatch = append(outcomeMismatch, q.QuestionID)
			}
			ids = append(ids, q.QuestionID)
			props += int(q.PropertyCount)
		} else {
			row.Verdict = string(results.VerdictDataMissing)
			missing = append(missing, q.QuestionID)
		}
		g.Questions = append(g.Questions, row)
	}
	r.QuestionSet = results.ExecutableQuestionSet(ids, props, total)
	r.Totals, _ = results.Tally(g.Questions, r.QuestionSet)
	r.Warnings = append(r.Warnings,
		fmt.Sprintf("re-executed by this project (make rescore-published, environment %s): verdicts from results/published/%s joined with MatTools' published code", rx.Environment, ReexecutedFile),
		fmt.Sprintf("wall-clock limit %s per execution (MatTools had none); resource limits in environment.sandbox",
			time.Duration(sb.TimeoutSeconds*float64(time.Second))))
	if len(missing) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("scored on %d of %d questions (%d properties): not re-executed for %d questions (%s: data files absent where it ran); never compare with full-set runs",
			len(ids), total, props, len(missing), strings.Join(missing, ", ")))
	}
	if len(outcomeMismatch) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("per-property outcomes left out for %s: the store lists another number of properties than the question has; run make rescore-published",
			strings.Join(outcomeMismatch, ", ")))
	}
	r.FinishedAt = nil
	r.RunID = results.MakeRunID(r)
	return g
}
