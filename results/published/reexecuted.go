package published

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// The verdicts of MatTools' published generated code re-executed by this
// project (make rescore-published) are committed in one JSON file,
// ReexecutedFile, so that the importer (and with it make site and CI) never
// re-executes anything. It holds, per environment id, the sandbox and the
// library versions (lock file hash included), and per published run id the
// generated-code file it was re-executed from (path relative to the data
// root, SHA-256), the environment id and one row per question × scoring
// protocol: [question_id, protocol, verdict, cause, runnable,
// properties_passed]. No generated code: the importer joins the rows with
// the code of the data root, and only while its SHA-256 matches. Questions
// whose data files were absent where the command ran have no row.
const ReexecutedFile = "reexecuted.json"

//go:embed reexecuted.json
var committedReexecuted []byte

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
// properties_passed].
type ReexecutedVerdict struct {
	QuestionID       string
	Protocol         string // mattools-v1 or mattools-v1-strict
	Verdict          results.Verdict
	Cause            string
	Runnable         bool
	PropertiesPassed int
}

// MarshalJSON writes the row as an array.
func (v ReexecutedVerdict) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{v.QuestionID, v.Protocol, v.Verdict, v.Cause, v.Runnable, v.PropertiesPassed})
}

// UnmarshalJSON reads the array form, checking each field.
func (v *ReexecutedVerdict) UnmarshalJSON(data []byte) error {
	var a []json.RawMessage
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	if len(a) != 6 {
		return fmt.Errorf("want [question_id, protocol, verdict, cause, runnable, properties_passed], got %d fields", len(a))
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
	return nil
}

var rowFields = []string{"question_id", "protocol", "verdict", "cause", "runnable", "properties_passed"}

// Reexecuted is the store of re-executed verdicts.
type Reexecuted struct {
	About        string                            `json:"about"`
	Environments map[string]ReexecutionEnvironment `json:"environments"` // environment id →
	Runs         map[string]*ReexecutedRun         `json:"runs"`         // published run id →
}

const reexecutedAbout = "Verdicts of MatTools' published generated code re-executed by this project (make rescore-published); " +
	"rows are [question_id, protocol, verdict, cause, runnable, properties_passed]; see results/published/reexecuted.go."

// NewReexecuted returns an empty store.
func NewReexecuted() *Reexecuted {
	return &Reexecuted{About: reexecutedAbout, Environments: map[string]ReexecutionEnvironment{}, Runs: map[string]*ReexecutedRun{}}
}

// CommittedReexecuted returns the store committed with this program
// (results/published/reexecuted.json), possibly empty.
func CommittedReexecuted() (*Reexecuted, error) {
	return parseReexecuted(committedReexecuted, "results/published/"+ReexecutedFile)
}

// ReadReexecuted reads the store at path; a missing file gives an empty
// store. Malformed content is an error naming the file, run and field.
func ReadReexecuted(path string) (*Reexecuted, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewReexecuted(), nil
	}
	if err != nil {
		return nil, err
	}
	return parseReexecuted(data, path)
}

func parseReexecuted(data []byte, name string) (*Reexecuted, error) {
	st := NewReexecuted()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(st); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if st.Runs == nil || st.Environments == nil {
		return nil, fmt.Errorf("%s: runs and environments: required", name)
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

// Write writes the store to path atomically (temporary file renamed), one
// row per line, rows sorted by order (question id → evaluation position),
// then protocol, so that the file diffs well.
func (st *Reexecuted) Write(path string, order map[string]int) error {
	for _, r := range st.Runs {
		sort.SliceStable(r.Rows, func(i, j int) bool {
			if r.Rows[i].QuestionID != r.Rows[j].QuestionID {
				return order[r.Rows[i].QuestionID] < order[r.Rows[j].QuestionID]
			}
			return r.Rows[i].Protocol < r.Rows[j].Protocol
		})
	}
	var b bytes.Buffer
	about, _ := json.Marshal(st.About)
	envs, err := json.MarshalIndent(st.Environments, " ", " ")
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "{\n \"about\": %s,\n \"environments\": %s,\n \"runs\": {", about, envs)
	ids := make([]string, 0, len(st.Runs))
	for id := range st.Runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for i, id := range ids {
		r := st.Runs[id]
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
	b.WriteString("\n }\n}\n")
	if !json.Valid(b.Bytes()) {
		return fmt.Errorf("%s: internal error: the encoding is not valid JSON", path)
	}
	return results.WriteFileAtomic(path, b.Bytes(), 0o644)
}

// reexecutedFiles returns, for each imported tool-usage run in tool whose
// generated-code file the store holds verdicts for (same SHA-256), two
// rescored runs (provenance rescored, origin imported), mattools-v1 and
// mattools-v1-strict: the imported rows' code with the stored verdicts;
// questions without a stored verdict are data-missing and outside the
// question set. A run whose code changed since it was re-executed is left
// out with a warning.
func (im *importer) reexecutedFiles(tool []*results.File, st *Reexecuted) []*results.File {
	var out []*results.File
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
	}
	return out
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
	var ids, missing []string
	props := 0
	for _, q := range f.Questions {
		row := results.QuestionRow{QuestionIndex: q.QuestionIndex, QuestionID: q.QuestionID, PropertyCount: q.PropertyCount,
			Code: q.Code, FunctionName: q.FunctionName}
		if v, ok := byQuestion[q.QuestionID]; ok {
			rn, pp := v.Runnable, int32(v.PropertiesPassed)
			row.Verdict, row.VerdictCause, row.Runnable, row.PropertiesPassed = string(v.Verdict), v.Cause, &rn, &pp
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
	r.FinishedAt = nil
	r.RunID = results.MakeRunID(r)
	return g
}
