package results

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSystemInfo: the paper's systems are described (titles as the paper
// names them, their boards and retrieval sources); a system nobody
// described is titled by its id on the advanced board; a described system
// is known to the results layer; a second description, an unknown board or
// retrieval method is refused.
func TestSystemInfo(t *testing.T) {
	for s, want := range map[System]string{SystemSingleLLM: "Single LLM|single-llm|false|mc", SystemLLMRAG: "LLM-RAG|llm-rag|true|",
		SystemAgenticRAG: "Agentic RAG|advanced|true|", SystemGraphRAG: "GraphRAG (LightRAG)|advanced|false|", SystemSelfReflectionRAG: "Self-reflection LLM-doc RAG|advanced|true|"} {
		info, ok := LookupSystem(s)
		mc := ""
		if info.MultipleChoice {
			mc = "mc"
		}
		got := strings.Join([]string{SystemTitle(s), SystemBoard(s), map[bool]string{true: "true", false: "false"}[info.Retrieval.PlanSources], mc}, "|")
		if !ok || got != want || info.Description == "" {
			t.Errorf("%s: %s (described %v); want %s and a description", s, got, ok, want)
		}
	}
	if info, _ := LookupSystem(SystemAgenticRAG); len(info.Retrieval.Only) != 2 || info.Retrieval.Only[0] != 3 || info.Retrieval.Only[1] != 4 {
		t.Errorf("agentic-rag retrieves from %v; want 3 and 4", info.Retrieval.Only)
	}
	if info, _ := LookupSystem(SystemGraphRAG); info.Retrieval.Fixed == nil || *info.Retrieval.Fixed != (FixedRetrieval{Source: 1, Method: "graph", TopK: 60}) {
		t.Errorf("graph-rag retrieves %+v; want source 1, graph, 60", info.Retrieval.Fixed)
	}
	if _, ok := LookupSystem(SystemReferenceSolution); ok || SystemTitle("nobody-knows") != "nobody-knows" || SystemBoard("nobody-knows") != BoardAdvanced {
		t.Errorf("an undescribed system: described %v, title %q, board %q", ok, SystemTitle("nobody-knows"), SystemBoard("nobody-knows"))
	}
	RegisterSystemInfo(SystemInfo{Name: "described-in-test", Title: "Described", Board: BoardLLMRAG})
	if !KnownSystem("described-in-test") || SystemTitle("described-in-test") != "Described" || SystemBoard("described-in-test") != BoardLLMRAG {
		t.Errorf("described-in-test: known %v, title %q, board %q", KnownSystem("described-in-test"), SystemTitle("described-in-test"), SystemBoard("described-in-test"))
	}
	for name, info := range map[string]SystemInfo{
		"already described": {Name: SystemLLMRAG},
		"unknown board":     {Name: "bad-board", Board: "qa"},
		"unknown method":    {Name: "bad-method", Retrieval: SystemRetrieval{Fixed: &FixedRetrieval{Source: 1, Method: "chroma"}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: RegisterSystemInfo(%+v) did not panic", name, info)
				}
			}()
			RegisterSystemInfo(info)
		}()
	}
}

// TestRecordedSystemAndProtocol: a results file of a system and a scoring
// protocol this process has not registered is refused for its system (the
// protocol alone is not checked), unless the run describes both in its
// extensions ExtensionSystem and ExtensionScoringProtocol: then reading it
// registers them (title, board, retrieval; kind, scored, title), a second
// read of the same descriptions is accepted, and a contradicting one, one
// for another system or protocol, or a protocol of another kind than the
// benchmark's is an error naming the extension. The paper's systems and
// the registry's own protocols are not recorded.
func TestRecordedSystemAndProtocol(t *testing.T) {
	const sys, protocol = "recorded-rag", "recorded-all-or-nothing"
	f := toolUsageFile()
	f.Run.System, f.Run.ScoringProtocol = sys, protocol
	f.Run.RunID = MakeRunID(&f.Run)
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "bare.parquet"), f); err == nil || !strings.Contains(err.Error(), `metadata: system: unknown value "recorded-rag"`) {
		t.Fatalf("a file of an unregistered system without its description: %v; want the system refused", err)
	}
	sysExt := `{"name":"recorded-rag","title":"Recorded RAG","description":"Described by its runs.","board":"llm-rag","retrieval":{"plan_sources":true,"only":[2]}}`
	protExt := `{"id":"recorded-all-or-nothing","kind":"tool-usage","scored":true,"title":"Recorded all-or-nothing","description":"Every property or none."}`
	f.Run.Extensions = map[string]json.RawMessage{ExtensionSystem: json.RawMessage(sysExt), ExtensionScoringProtocol: json.RawMessage(protExt)}
	path := filepath.Join(dir, "described.parquet")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err != nil {
		t.Fatalf("the same descriptions again: %v", err)
	}
	info, ok := LookupSystem(sys)
	if !ok || !KnownSystem(sys) || SystemTitle(sys) != "Recorded RAG" || SystemBoard(sys) != BoardLLMRAG || info.Description != "Described by its runs." ||
		!info.Retrieval.PlanSources || len(info.Retrieval.Only) != 1 || info.Retrieval.Only[0] != 2 || !slices.Contains(SystemsUnderTest(), sys) {
		t.Errorf("the system read: %+v (known %v); want Recorded RAG on the LLM-RAG board, plan sources, only 2", info, KnownSystem(sys))
	}
	p, ok := LookupScoringProtocol(protocol)
	if !ok || p.Kind != KindToolUsage || !p.Scored || ProtocolTitle(protocol) != "Recorded all-or-nothing" || p.Description != "Every property or none." {
		t.Errorf("the protocol read: %+v (registered %v)", p, ok)
	}
	// What was read is recorded again, as it was read.
	if ext, ok := SystemRecord(sys); !ok || string(ext) != sysExt {
		t.Errorf("SystemRecord = %s, %v; want %s", ext, ok, sysExt)
	}
	if ext, ok := ProtocolRecord(protocol); !ok || string(ext) != protExt {
		t.Errorf("ProtocolRecord = %s, %v; want %s", ext, ok, protExt)
	}
	for _, s := range append(slices.Clone(Systems), SystemReferenceSolution) {
		if ext, ok := SystemRecord(s); ok {
			t.Errorf("SystemRecord(%s) = %s; the paper's and the audit's systems are not recorded", s, ext)
		}
	}
	for _, p := range []string{ProtocolMatToolsV1, ProtocolMatToolsV1Strict, ProtocolMatToolsOriginal, ProtocolQAV1} {
		if ext, ok := ProtocolRecord(p); ok {
			t.Errorf("ProtocolRecord(%s) = %s; the registry's own protocols are not recorded", p, ext)
		}
	}
	for ext, want := range map[[2]string]string{
		{ExtensionSystem, strings.Replace(sysExt, "llm-rag", "advanced", 1)}:                     "metadata: extensions.system: system recorded-rag: already described, differently",
		{ExtensionSystem, strings.Replace(sysExt, `"recorded-rag"`, `"other-rag"`, 1)}:           `metadata: extensions.system: describes system "other-rag"; the run's is "recorded-rag"`,
		{ExtensionSystem, `{"name":"recorded-rag","board":"qa"}`}:                                "metadata: extensions.system: system recorded-rag: board qa is not single-llm, llm-rag or advanced",
		{ExtensionScoringProtocol, strings.Replace(protExt, "Every", "Each", 1)}:                 "metadata: extensions.scoring_protocol: scoring protocol recorded-all-or-nothing: already registered",
		{ExtensionScoringProtocol, strings.Replace(protExt, "tool-usage", "multiple-choice", 1)}: "metadata: extensions.scoring_protocol: is a multiple-choice protocol; the run's benchmark tool-usage is tool-usage",
		{ExtensionScoringProtocol, `{"id":"mattools-v1","kind":"tool-usage","scored":true}`}:     `metadata: extensions.scoring_protocol: describes scoring protocol "mattools-v1"; the run's is "recorded-all-or-nothing"`,
	} {
		g := toolUsageFile()
		g.Run = f.Run
		g.Run.Extensions = map[string]json.RawMessage{ExtensionSystem: json.RawMessage(sysExt), ExtensionScoringProtocol: json.RawMessage(protExt)}
		g.Run.Extensions[ext[0]] = json.RawMessage(ext[1])
		if err := Validate(g); err == nil || err.Error() != want {
			t.Errorf("extension %s = %s: %v; want %s", ext[0], ext[1], err, want)
		}
	}
}
