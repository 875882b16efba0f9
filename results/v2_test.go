package results

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// formatRequiredFields parses FORMAT.md's tables of the run record (the
// section "The run record" and its sub-sections, one per nested object) and
// returns every field whose "required" column says "yes", as dotted paths.
func formatRequiredFields(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile("(?s)\n## The run record \\(`mattools.run`\\)\n(.*?)\n## ").FindSubmatch(doc)
	if section == nil {
		t.Fatal("FORMAT.md has no section \"The run record (`mattools.run`)\"")
	}
	heading := regexp.MustCompile("^### `([a-z_.]+)`$")
	name := regexp.MustCompile("`([a-z_0-9]+)`")
	var prefix string
	var fields []string
	sc := bufio.NewScanner(strings.NewReader(string(section[1])))
	for sc.Scan() {
		line := sc.Text()
		if m := heading.FindStringSubmatch(line); m != nil {
			prefix = m[1] + "."
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[3]), "yes") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			fields = append(fields, prefix+m[1])
		}
	}
	if len(fields) == 0 {
		t.Fatal("no required fields found in FORMAT.md")
	}
	return fields
}

// submittedFile is toolUsageFile as a submitted run.
func submittedFile(folder string) *File {
	f := toolUsageFile()
	f.Run.Provenance = Provenance{Kind: ProvenanceSubmitted,
		Submission: &Submission{Folder: folder, MetadataSHA256: strings.Repeat("ab", 32)}}
	f.Run.RunID = MakeRunID(&f.Run)
	return f
}

// deletePath removes the dotted path from a decoded JSON object.
func deletePath(t *testing.T, obj map[string]any, path string) {
	t.Helper()
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := obj[p].(map[string]any)
		if !ok {
			t.Fatalf("%s: %s is not an object in the run record", path, p)
		}
		obj = next
	}
	if _, ok := obj[parts[len(parts)-1]]; !ok {
		t.Fatalf("%s is not in the valid run record", path)
	}
	delete(obj, parts[len(parts)-1])
}

// TestEveryRequiredFieldIsNamedWhenMissing removes each field FORMAT.md marks
// required from a valid file's run record and checks that Read names that
// field (and the file), and only it: no check that would follow from it.
func TestEveryRequiredFieldIsNamedWhenMissing(t *testing.T) {
	doc := formatRequiredFields(t)
	if got, want := slices.Sorted(slices.Values(doc)), slices.Sorted(slices.Values(requiredFields)); !reflect.DeepEqual(got, want) {
		t.Fatalf("FORMAT.md marks required %v; the reader checks %v", got, want)
	}
	dir := t.TempDir()
	for _, field := range doc {
		t.Run(field, func(t *testing.T) {
			f := toolUsageFile()
			if strings.HasPrefix(field, "provenance.submission.") {
				f = submittedFile("acme/2026-01")
			}
			f.fillIdentity()
			if err := Validate(f); err != nil {
				t.Fatalf("the valid file is not valid: %v", err)
			}
			runJSON, _ := json.Marshal(&f.Run)
			var obj map[string]any
			if err := json.Unmarshal(runJSON, &obj); err != nil {
				t.Fatal(err)
			}
			deletePath(t, obj, field)
			runJSON, _ = json.Marshal(obj)
			data, err := encode(f, runJSON)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, strings.ReplaceAll(field, ".", "-")+Extension)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Read(path)
			if want := path + ":metadata: " + field + ": required field missing"; err == nil || err.Error() != want {
				t.Errorf("Read error = %v\nwant exactly %q", err, want)
			}
		})
	}
}

// TestMissingFieldsOfTheIssue: the two reports of a missing field that a
// user once got without its name now name it; a file without generation is refused.
func TestMissingFieldsOfTheIssue(t *testing.T) {
	f := toolUsageFile()
	f.Run.Provenance = Provenance{}
	if err := Validate(f); err == nil || !strings.Contains(err.Error(), "provenance.kind: required field missing") {
		t.Errorf("empty provenance: %v", err)
	}
	f = toolUsageFile()
	f.Run.QuestionSet.Name = ""
	if err := Validate(f); err == nil || !strings.Contains(err.Error(), "question_set.name: required field missing") {
		t.Errorf("unnamed question set: %v", err)
	}
}

// TestV1FilesStillReadAndUpgrade reads the committed format-v1 files: they
// validate, keep their run ids and totals (equal to their rows' sums), are
// refused by the writer as they are, and written again as version 2 read
// back equal.
func TestV1FilesStillReadAndUpgrade(t *testing.T) {
	for _, name := range []string{"tool-usage", "qa"} {
		t.Run(name, func(t *testing.T) {
			f, err := Read(filepath.Join("testdata", "v1", name+Extension))
			if err != nil {
				t.Fatal(err)
			}
			if f.Run.FormatVersion != 1 {
				t.Errorf("format_version = %d, want 1", f.Run.FormatVersion)
			}
			if id := MakeRunID(&f.Run); id != f.Run.RunID {
				t.Errorf("MakeRunID = %s; the v1 file's id is %s", id, f.Run.RunID)
			}
			switch name {
			case "tool-usage":
				var runnable, passed int
				for _, q := range f.Questions {
					if q.Runnable != nil && *q.Runnable {
						runnable++
					}
					if q.PropertiesPassed != nil {
						passed += int(*q.PropertiesPassed)
					}
					if q.Retrieved != nil || q.Trace != nil || q.ResponseBytes != nil || q.StdoutBytes != nil {
						t.Errorf("%s: v2 columns read as set from a v1 file: %+v", q.QuestionID, q)
					}
				}
				if len(f.Questions) != 3 || runnable == 0 || *f.Run.Totals.Runnable != runnable || *f.Run.Totals.PropertiesPassed != passed {
					t.Errorf("%d rows, %d runnable, %d passed; totals %d, %d", len(f.Questions), runnable, passed, *f.Run.Totals.Runnable, *f.Run.Totals.PropertiesPassed)
				}
				if f.Questions[0].Response == nil || f.Questions[1].StdoutDroppedBytes == nil {
					t.Error("the v1 texts were not read")
				}
			case "qa":
				var correct int
				for _, it := range f.QAItems {
					correct += int(it.Correct)
				}
				if len(f.QAItems) != 2 || *f.Run.Totals.Correct != correct {
					t.Errorf("%d items, %d correct; totals %d", len(f.QAItems), correct, *f.Run.Totals.Correct)
				}
			}
			path := filepath.Join(t.TempDir(), name+Extension)
			if err := Write(path, f); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("format_version: is 1; this writer writes version %d only", FormatVersion)) {
				t.Errorf("writing a v1 run: %v", err)
			}
			f.Run.FormatVersion = FormatVersion
			if err := Write(path, f); err != nil {
				t.Fatal(err)
			}
			g, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g.Run, f.Run) || !reflect.DeepEqual(g.Questions, f.Questions) || !reflect.DeepEqual(g.QAItems, f.QAItems) {
				t.Errorf("upgraded file reads back different")
			}
		})
	}
}

// TestV1RejectsV2Fields: a version-1 run record cannot hold v2 fields.
func TestV1RejectsV2Fields(t *testing.T) {
	f := toolUsageFile()
	f.Run.FormatVersion = 1
	f.Run.RetrievalSource, f.Run.RetrievalMethod, f.Run.EmbeddingModel = 4, "embedding", "e"
	if err := Validate(f); err == nil || !strings.Contains(err.Error(), "retrieval_method: is a field of format version 2; this file is version 1") {
		t.Errorf("Validate = %v", err)
	}
	f = submittedFile("x")
	f.Run.FormatVersion = 1
	if err := Validate(f); err == nil || !strings.Contains(err.Error(), "provenance.kind: submitted runs exist from format version 2") {
		t.Errorf("Validate = %v", err)
	}
}

func ragRun() Run {
	r := toolUsageFile().Run
	r.System, r.RetrievalSource, r.TopK = SystemLLMRAG, 4, 5
	r.RetrievalMethod, r.EmbeddingModel = "embedding", "text-embedding-3-large"
	r.CorpusID = "sha256:" + strings.Repeat("0f", 32)
	r.SystemParams = map[string]string{"chunk_size": "1000"}
	r.RunID = MakeRunID(&r)
	return r
}

// TestRunIDsAndConfigurationsDoNotCollide: runs that differ only in
// retrieval method, system parameters, variant or submitter get distinct ids
// and configurations; imported runs keep their v1 ids.
func TestRunIDsAndConfigurationsDoNotCollide(t *testing.T) {
	base := ragRun()
	bm25 := base
	bm25.RetrievalMethod, bm25.EmbeddingModel = "bm25", ""
	params := base
	params.SystemParams = map[string]string{"chunk_size": "500"}
	topk := base
	topk.TopK = 10
	corpus := base
	corpus.CorpusID = "sha256:" + strings.Repeat("1e", 32)
	variant := base
	variant.Variant = "cot"
	subA := submittedFile("acme/2026-01").Run
	subB := submittedFile("zeta/2026-01").Run
	runs := map[string]Run{"base": base, "bm25": bm25, "params": params, "top-k": topk, "corpus": corpus, "variant": variant,
		"submitter A": subA, "submitter B": subB}
	ids, confs := map[string]string{}, map[Configuration]string{}
	for name, r := range runs {
		f := toolUsageFile()
		f.Run = r
		f.Run.RunID = MakeRunID(&r)
		f.fillIdentity()
		if err := Validate(f); err != nil {
			t.Errorf("%s is not valid: %v", name, err)
		}
		id := MakeRunID(&r)
		if other, dup := ids[id]; dup {
			t.Errorf("%s and %s share the run id %s", name, other, id)
		}
		ids[id] = name
		c := r.Configuration()
		if other, dup := confs[c]; dup {
			t.Errorf("%s and %s share the configuration %s", name, other, c)
		}
		confs[c] = name
	}
	// The p- part is the SHA-256 of the canonical string FORMAT.md defines.
	canonical := "chunk_size=1000\ncorpus_id=sha256:" + strings.Repeat("0f", 32) +
		"\nembedding_model=text-embedding-3-large\nretrieval_method=embedding\ntop_k=5"
	if got := base.SystemParamsIdentity(); got != canonical {
		t.Errorf("SystemParamsIdentity = %q, want %q", got, canonical)
	}
	sum := sha256.Sum256([]byte(canonical))
	if want := "runner__tool-usage__llm-rag__s4__fake-model__p-" + hex.EncodeToString(sum[:4]) + "__mattools-v1__set-tiny__r2"; MakeRunID(&base) != want {
		t.Errorf("id = %s, want %s", MakeRunID(&base), want)
	}
	if id := MakeRunID(&subA); !strings.HasPrefix(id, "submitted__acme-2026-01-") || !strings.Contains(id, "__tool-usage__single-llm__") {
		t.Errorf("submitted id = %s, want the namespace submitted__<folder>__", id)
	}
	// Imported runs and rescorings of imported code: the published folder is
	// the identity, the parameters never enter the id.
	for _, kind := range []Provenance{{Kind: ProvenanceImported, Citation: "c"}, {Kind: ProvenanceRescored, Origin: ProvenanceImported}} {
		r := base
		r.Provenance = kind
		bare := r
		bare.TopK, bare.RetrievalMethod, bare.EmbeddingModel, bare.CorpusID, bare.SystemParams = 0, "", "", "", nil
		if MakeRunID(&r) != MakeRunID(&bare) || strings.Contains(MakeRunID(&r), "__p-") {
			t.Errorf("%s: id %s depends on the system parameters", kind.Kind, MakeRunID(&r))
		}
		if r.Configuration() == bare.Configuration() {
			t.Errorf("%s: the system parameters do not enter the configuration", kind.Kind)
		}
	}
	fromRunner := base
	fromRunner.Provenance = Provenance{Kind: ProvenanceRescored, Origin: ProvenanceRunner}
	if !strings.Contains(MakeRunID(&fromRunner), "__p-") {
		t.Errorf("rescored runner code: id %s lacks the parameters part", MakeRunID(&fromRunner))
	}
	// A v1 configuration key (top-k was part of the settings) is unchanged.
	imp := toolUsageFile().Run
	imp.System, imp.RetrievalSource, imp.TopK, imp.Generation = SystemLLMRAG, 4, 5, GenerationParams{Temperature: ptr(0.7)}
	if got := imp.Configuration().String(); !strings.HasSuffix(got, "/runner/temperature=0.7,top_k=5") {
		t.Errorf("String() = %s", got)
	}
}

// TestV2RowsRoundTripAndValidate writes the v2 per-question columns, reads
// them back equal, and checks that each broken rule names its row and field.
func TestV2RowsRoundTripAndValidate(t *testing.T) {
	mk := func() *File {
		f := toolUsageFile()
		f.Run = ragRun()
		q := &f.Questions[1]
		q.Retrieved = []RetrievedChunk{{ChunkID: "c-17", Source: "pymatgen/core/structure.py", Score: 0.83, Rank: 1},
			{ChunkID: "c-4", Source: "pymatgen/core/sites.py", Score: 0.71, Rank: 2}}
		q.Trace = []TraceStage{
			{Stage: "retrieve", LatencyMS: 40, RetrievedIDs: []string{"c-17", "c-4", "c-9"}},
			{Stage: "generate", PromptTokens: 900, CompletionTokens: 120, LatencyMS: 2100},
			{Stage: "execute", Iteration: 0, LatencyMS: 1830, Verdict: string(VerdictPartial), StopReason: "complete-dict"}}
		q.ErrorExcerptBytes = ptr(int64(len(*q.ErrorExcerpt)))
		q.VerificationOutputBytes = ptr(int64(9000))
		return f
	}
	path := filepath.Join(t.TempDir(), "v2.parquet")
	want := mk()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Questions, want.Questions) || !reflect.DeepEqual(got.Run, want.Run) {
		t.Errorf("v2 file reads back different:\n got %+v\nwant %+v", got.Questions[1], want.Questions[1])
	}
	duckDBReadsV2Columns(t, path, want)

	tests := []struct {
		name   string
		mutate func(f *File)
		want   string
	}{
		{"empty stage", func(f *File) { f.Questions[1].Trace[1].Stage = "" }, "row 2: trace[1].stage: required field missing"},
		{"negative iteration", func(f *File) { f.Questions[1].Trace[2].Iteration = -1 }, "row 2: trace[2].iteration: is -1"},
		{"negative tokens", func(f *File) { f.Questions[1].Trace[1].CompletionTokens = -5 }, "row 2: trace[1].completion_tokens: is -5"},
		{"negative latency", func(f *File) { f.Questions[1].Trace[0].LatencyMS = -1 }, "row 2: trace[0].latency_ms: is -1"},
		{"unknown stage verdict", func(f *File) { f.Questions[1].Trace[2].Verdict = "ok" }, `row 2: trace[2].verdict: unknown value "ok"`},
		{"empty retrieved id", func(f *File) { f.Questions[1].Trace[0].RetrievedIDs[1] = "" }, "row 2: trace[0].retrieved_ids"},
		{"rank 0", func(f *File) { f.Questions[1].Retrieved[0].Rank = 0 }, "row 2: retrieved[0].rank: is 0; want ≥ 1"},
		{"rank twice", func(f *File) { f.Questions[1].Retrieved[1].Rank = 1 }, "row 2: retrieved[1].rank: 1 appears twice"},
		{"no chunk id", func(f *File) { f.Questions[1].Retrieved[1].ChunkID = "" }, "row 2: retrieved[1].chunk_id: required field missing"},
		{"bytes below excerpt", func(f *File) { f.Questions[1].ErrorExcerptBytes = ptr(int64(3)) }, "row 2: error_excerpt_bytes: is 3 but the stored text has 23 bytes"},
		{"negative bytes", func(f *File) { f.Questions[0].ResponseBytes = ptr(int64(-1)) }, "row 1: response_bytes: is -1"},
		{"capped code", func(f *File) { f.Questions[0].Code = "def f():\n    return '\xe2\x82" }, "row 1: code: is not valid UTF-8, a sign of capping"},
		{"method without retrieval", func(f *File) { f.Run.RetrievalSource = 0 }, `retrieval_method: is "embedding" but retrieval_source is 0`},
		{"unknown method", func(f *File) { f.Run.RetrievalMethod = "tfidf" }, `retrieval_method: unknown value "tfidf"`},
		{"embedding without model", func(f *File) { f.Run.EmbeddingModel = "" }, "embedding_model: required field missing"},
		{"bm25 with a model", func(f *File) { f.Run.RetrievalMethod = "bm25" }, "embedding_model: is \"text-embedding-3-large\" but bm25"},
		{"bad corpus id", func(f *File) { f.Run.CorpusID = "pymatgen-docs" }, `corpus_id: "pymatgen-docs" is not`},
		{"reserved system param", func(f *File) { f.Run.SystemParams["top_k"] = "5" }, "system_params.top_k: is a field of its own"},
		{"bad param key", func(f *File) { f.Run.SystemParams["a b"] = "1" }, `system_params: key "a b"`},
		{"line break in a value", func(f *File) { f.Run.SystemParams["chunk_size"] = "1\ntop_k=9" }, "system_params.chunk_size: value"},
		{"negative top-k", func(f *File) { f.Run.TopK = -1 }, "top_k: is -1"},
		{"submission on a runner run", func(f *File) {
			f.Run.Provenance.Submission = &Submission{Folder: "a", MetadataSHA256: strings.Repeat("0", 64)}
		}, "provenance.submission: is only for submitted runs"},
		{"submitted without submission", func(f *File) { f.Run.Provenance.Kind = ProvenanceSubmitted }, "provenance.submission: required field missing"},
		{"rescored submitted code without submission", func(f *File) {
			f.Run.Provenance = Provenance{Kind: ProvenanceRescored, Origin: ProvenanceSubmitted}
		}, "provenance.submission: required field missing"},
		{"submission folder escapes", func(f *File) {
			f.Run.Provenance = Provenance{Kind: ProvenanceSubmitted, Submission: &Submission{Folder: "../x", MetadataSHA256: strings.Repeat("0", 64)}}
		}, `provenance.submission.folder: "../x"`},
		{"submission hash", func(f *File) {
			f.Run.Provenance = Provenance{Kind: ProvenanceSubmitted, Submission: &Submission{Folder: "x", MetadataSHA256: "abc"}}
		}, `provenance.submission.metadata_sha256: "abc" is not 64 lowercase hex digits`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mk()
			tt.mutate(f)
			path := filepath.Join(t.TempDir(), "run.parquet")
			err := Write(path, f)
			if err == nil || !strings.Contains(err.Error(), path+":") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write error = %v, want it to name the file and contain %q", err, tt.want)
			}
		})
	}
	qa := &File{Run: Run{FormatVersion: FormatVersion, Benchmark: BenchmarkQACode, BenchmarkVersion: "2025-05", System: SystemSingleLLM,
		Model: "m", ScoringProtocol: ProtocolQAV1, QuestionSet: QuestionSet{Name: "one", Questions: 1, IDs: []string{"q"}},
		Provenance: Provenance{Kind: ProvenanceRunner}, Environment: Environment{Generator: "t"},
		Totals: Totals{Scored: true, Questions: 1, Correct: ptr(1)}}, QAItems: []QAItem{
		{Item: "q", Questions: 1, Correct: 1, AnswerText: ptr("<answer>B</answer>"), AnswerTextBytes: ptr(int64(5))}}}
	qa.Run.RunID = MakeRunID(&qa.Run)
	if err := Write(filepath.Join(t.TempDir(), "qa.parquet"), qa); err == nil || !strings.Contains(err.Error(), "row 1: answer_text_bytes: is 5 but the stored text has 18 bytes") {
		t.Errorf("QA answer_text_bytes: %v", err)
	}
}

// duckDBReadsV2Columns has DuckDB (an independent Parquet reader) unnest the
// retrieved and trace columns of path and compares them with f's rows.
func duckDBReadsV2Columns(t *testing.T, path string, f *File) {
	t.Helper()
	duckdb, _ := filepath.Abs("../tools/duckdb")
	if _, err := os.Stat(filepath.Join(duckdb, "node_modules/@duckdb/node-api")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("DuckDB is not installed (run scripts/setup.sh): %v", err)
		}
		t.Log("DuckDB is not installed: run scripts/setup.sh (npm ci in tools/duckdb); skipping the DuckDB check")
		return
	}
	dir := t.TempDir()
	sql := fmt.Sprintf(`
COPY (SELECT question_id, r.chunk_id, r.source, r.score, r.rank
      FROM (SELECT question_id, unnest(retrieved) AS r FROM '%[1]s') ORDER BY question_id, r.rank) TO 'retrieved.csv' (HEADER false);
COPY (SELECT question_id, s.stage, s.iteration, s.prompt_tokens, s.completion_tokens, s.latency_ms,
             array_to_string(s.retrieved_ids, ' '), s.verdict, s.stop_reason
      FROM (SELECT question_id, unnest(trace) AS s FROM '%[1]s')) TO 'trace.csv' (HEADER false);
COPY (SELECT question_id, error_excerpt_bytes, verification_output_bytes FROM '%[1]s'
      WHERE error_excerpt_bytes IS NOT NULL OR verification_output_bytes IS NOT NULL) TO 'bytes.csv' (HEADER false);
`, path)
	cmd := exec.Command("node", filepath.Join(duckdb, "run-sql.mjs"))
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("duckdb: %v\n%s", err, out)
	}
	read := func(name string) [][]string {
		fh, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		recs, err := csv.NewReader(fh).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	var wantR, wantT, wantB [][]string
	i64 := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	for _, q := range f.Questions {
		rs := slices.Clone(q.Retrieved)
		sort.Slice(rs, func(i, j int) bool { return rs[i].Rank < rs[j].Rank })
		for _, c := range rs {
			wantR = append(wantR, []string{q.QuestionID, c.ChunkID, c.Source, strconv.FormatFloat(c.Score, 'g', -1, 64), strconv.Itoa(int(c.Rank))})
		}
		for _, s := range q.Trace {
			wantT = append(wantT, []string{q.QuestionID, s.Stage, strconv.Itoa(int(s.Iteration)), strconv.FormatInt(s.PromptTokens, 10),
				strconv.FormatInt(s.CompletionTokens, 10), strconv.FormatInt(s.LatencyMS, 10), strings.Join(s.RetrievedIDs, " "), s.Verdict, s.StopReason})
		}
		if q.ErrorExcerptBytes != nil || q.VerificationOutputBytes != nil {
			wantB = append(wantB, []string{q.QuestionID, i64(q.ErrorExcerptBytes), i64(q.VerificationOutputBytes)})
		}
	}
	for _, c := range []struct {
		name string
		want [][]string
	}{{"retrieved.csv", wantR}, {"trace.csv", wantT}, {"bytes.csv", wantB}} {
		if got := read(c.name); !reflect.DeepEqual(got, c.want) {
			t.Errorf("DuckDB reads %s as\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}

// TestRescoredGenerationKeepsParameters: a rescoring keeps the parameters the
// code was generated with (so it shares their configuration settings), says
// it re-generated nothing, and a rescoring of a rescoring says so once.
func TestRescoredGenerationKeepsParameters(t *testing.T) {
	temp := 0.7
	g := GenerationParams{Temperature: &temp, Extra: map[string]string{"response_format": "json_object"}, Source: "request_bodies.jsonl"}
	r := g.Rescored()
	if r.Temperature == nil || *r.Temperature != 0.7 || r.Extra["response_format"] != "json_object" {
		t.Errorf("rescored parameters %+v, want those of %+v", r, g)
	}
	if want := "not re-generated: stored code rescored; generated with these parameters (from request_bodies.jsonl)"; r.Source != want {
		t.Errorf("source %q, want %q", r.Source, want)
	}
	r.Extra["response_format"] = "text"
	if g.Extra["response_format"] != "json_object" {
		t.Error("changing the rescoring's extra parameters changed the original's")
	}
	if rr := r.Rescored(); rr.Source != r.Source {
		t.Errorf("rescoring twice: %q, want %q", rr.Source, r.Source)
	}
	a := &Run{Generation: g}
	b := &Run{Generation: g.Rescored()}
	if a.settings() != b.settings() || a.settings() != "temperature=0.7,response_format=json_object" {
		t.Errorf("settings %q and %q, want equal", a.settings(), b.settings())
	}
}
