package results

import (
	"regexp"
	"slices"
)

// registered are the systems under test added by RegisterSystem, in
// registration order.
var registered []System

// systemID is the shape of a system id: lower-case words joined by "-"
// (it is a part of run ids and of page paths).
var systemID = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// RegisterSystem adds s to the systems under test that results files may
// name (beside the paper's Systems): a system that this process's runner
// can run (runner/systems registers each of its systems here when it is
// not one of the paper's). It is called from init only, and panics when s
// is not a system id (lower-case words joined by "-") or is already known.
func RegisterSystem(s System) {
	if !systemID.MatchString(string(s)) {
		panic("results: system id " + string(s) + " is not lower-case words joined by \"-\"")
	}
	if systems[s] {
		panic("results: system " + string(s) + " is already known")
	}
	systems[s] = true
	registered = append(registered, s)
}

// SystemsUnderTest returns the systems a run plan may name: the paper's
// Systems, in the paper's order, then those added by RegisterSystem, in
// registration order (not the audit's systems).
func SystemsUnderTest() []System {
	return append(slices.Clone(Systems), registered...)
}

// KnownSystem reports whether s is a system results files may name: one
// of the paper's, of the audit's, or registered.
func KnownSystem(s System) bool { return systems[s] }

// SystemInfo is one entry of the system registry: what the plan and the
// site know of a system under test, beside its code (runner/systems). The
// paper's five are described here, so that the site, which never imports
// the runner, shows them; a system added in runner/systems describes
// itself in its registration (RegisterSystemInfo).
type SystemInfo struct {
	Name System
	// Title names the system on the site ("LLM-RAG"); Description is what
	// it does per question, in a sentence or two (the systems page).
	Title       string
	Description string
	// Board is the site's leaderboard its tool-usage configurations are
	// ranked on (site/aggregate.Board): BoardSingleLLM, BoardLLMRAG or
	// BoardAdvanced ("" = BoardAdvanced).
	Board string
	// MultipleChoice: its configurations include the plan's
	// multiple-choice benchmarks (the paper answers its QA sets with the
	// single LLM only).
	MultipleChoice bool
	// Retrieval is the retrieval sources its configurations use.
	Retrieval SystemRetrieval
}

// The site's leaderboards of tool-usage systems (SystemInfo.Board).
const (
	BoardSingleLLM = "single-llm" // one configuration per model
	BoardLLMRAG    = "llm-rag"    // model × retrieval source; its source-4 rows are the advanced board's references
	BoardAdvanced  = "advanced"   // the other systems
)

// SystemRetrieval says which retrieval sources a system's configurations
// use. The zero value: none (retrieval source 0, no method, top-k 0).
type SystemRetrieval struct {
	// PlanSources: one configuration per source of the plan's
	// retrieval_sources × method of its retrieval.methods, with its top_k;
	// a plan naming the system must list a source.
	PlanSources bool
	// Only, with PlanSources, keeps only these of the plan's sources
	// (agentic RAG: 3 and 4, the LLM-written documentation).
	Only []int
	// Fixed is a retrieval of the system's own instead (graph-rag: source
	// 1, method "graph", top-k 60): one source, one method, one top-k.
	Fixed *FixedRetrieval
}

// FixedRetrieval is a system's own retrieval source, method
// (RetrievalMethods) and top-k.
type FixedRetrieval struct {
	Source int
	Method string
	TopK   int
}

// DefaultSystem is the system a run plan runs when it names none.
const DefaultSystem = SystemSingleLLM

// systemInfos are the described systems: the paper's five (titles as the
// paper names them; docs/mattools.md §3) and those added by
// RegisterSystemInfo.
var systemInfos = map[System]SystemInfo{
	SystemSingleLLM: {Name: SystemSingleLLM, Title: "Single LLM", Board: BoardSingleLLM, MultipleChoice: true,
		Description: "One chat call per question: the question text plus MatTools' answer format; no retrieval."},
	SystemLLMRAG: {Name: SystemLLMRAG, Title: "LLM-RAG", Board: BoardLLMRAG, Retrieval: SystemRetrieval{PlanSources: true},
		Description: "Retrieve the top 5 documents for the question from one retrieval source, then one generation call."},
	SystemAgenticRAG: {Name: SystemAgenticRAG, Title: "Agentic RAG", Board: BoardAdvanced, Retrieval: SystemRetrieval{PlanSources: true, Only: []int{3, 4}},
		Description: "Keyword extraction, query generation, retrieval, LLM reranking, named-entity lookup of pymatgen objects, " +
			"then a final generation call (at least 9 LLM calls per question)."},
	SystemGraphRAG: {Name: SystemGraphRAG, Title: "GraphRAG (LightRAG)", Board: BoardAdvanced,
		Retrieval: SystemRetrieval{Fixed: &FixedRetrieval{Source: 1, Method: "graph", TopK: 60}},
		Description: "LightRAG-style graph retrieval followed by one generation call. MatTools published no LightRAG results; " +
			"only the paper's figure values exist."},
	SystemSelfReflectionRAG: {Name: SystemSelfReflectionRAG, Title: "Self-reflection LLM-doc RAG", Board: BoardAdvanced,
		Retrieval: SystemRetrieval{PlanSources: true},
		Description: "Up to 5 iterations of retrieve → generate → format check → execute; it stops at the first " +
			"run returning a dict with no None values, else a critic steers the next retrieval."},
}

// RegisterSystemInfo describes a system added by runner/systems (and
// registers it with RegisterSystem when it is not known yet). It is called
// from init only, and panics on a system already described, on a board
// that is not one of the three, or on a fixed retrieval method that is
// not one of RetrievalMethods.
func RegisterSystemInfo(info SystemInfo) {
	if _, dup := systemInfos[info.Name]; dup {
		panic("results: system " + string(info.Name) + " is already described")
	}
	if b := info.Board; b != "" && b != BoardSingleLLM && b != BoardLLMRAG && b != BoardAdvanced {
		panic("results: system " + string(info.Name) + ": board " + b + " is not " + BoardSingleLLM + ", " + BoardLLMRAG + " or " + BoardAdvanced)
	}
	if f := info.Retrieval.Fixed; f != nil && !slices.Contains(RetrievalMethods, f.Method) {
		panic("results: system " + string(info.Name) + ": retrieval method " + f.Method + " is not one of the results format's")
	}
	if !KnownSystem(info.Name) {
		RegisterSystem(info.Name)
	}
	systemInfos[info.Name] = info
}

// LookupSystem returns the description of system s; ok is false for a
// system nobody described (an audit system, or a system of a results file
// this process has no registration for: the site then shows its id).
func LookupSystem(s System) (info SystemInfo, ok bool) {
	info, ok = systemInfos[s]
	return info, ok
}

// SystemTitle names system s: its registered title, else its id.
func SystemTitle(s System) string {
	if info, ok := systemInfos[s]; ok && info.Title != "" {
		return info.Title
	}
	return string(s)
}

// SystemBoard returns the board of system s (SystemInfo.Board):
// BoardAdvanced for a system nobody described or without a board.
func SystemBoard(s System) string {
	if info, ok := systemInfos[s]; ok && info.Board != "" {
		return info.Board
	}
	return BoardAdvanced
}
