package results

import (
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
