package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// systemMu guards systems, registered and systemInfos: reading a results
// file may register the system it describes (ExtensionSystem), and files
// are read concurrently (ScanDir).
var systemMu sync.RWMutex

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
	systemMu.Lock()
	defer systemMu.Unlock()
	registerSystem(s)
}

func registerSystem(s System) {
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
	systemMu.RLock()
	defer systemMu.RUnlock()
	return append(slices.Clone(Systems), registered...)
}

// KnownSystem reports whether s is a system results files may name: one
// of the paper's, of the audit's, or registered.
func KnownSystem(s System) bool {
	systemMu.RLock()
	defer systemMu.RUnlock()
	return systems[s]
}

// SystemInfo is one entry of the system registry: what the plan and the
// site know of a system under test, beside its code (runner/systems). The
// paper's five are described here, so that the site, which never imports
// the runner, shows them; a system added in runner/systems describes
// itself in its registration (RegisterSystemInfo), and its runs carry that
// description as the run extension ExtensionSystem (its JSON form, below),
// so that the site and the validators, which do not link the runner, know
// it from its results files.
type SystemInfo struct {
	Name System `json:"name"`
	// Title names the system on the site ("LLM-RAG"); Description is what
	// it does per question, in a sentence or two (the systems page).
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Board is the site's leaderboard its tool-usage configurations are
	// ranked on (site/aggregate.Board): BoardSingleLLM, BoardLLMRAG or
	// BoardAdvanced ("" = BoardAdvanced).
	Board string `json:"board,omitempty"`
	// MultipleChoice: its configurations include the plan's
	// multiple-choice benchmarks (the paper answers its QA sets with the
	// single LLM only).
	MultipleChoice bool `json:"multiple_choice,omitempty"`
	// Retrieval is the retrieval sources its configurations use.
	Retrieval SystemRetrieval `json:"retrieval"`
	// Recorded marks a system described at run time (RegisterSystemInfo,
	// or read from a run's ExtensionSystem), not one of the paper's five:
	// its runs carry this description (SystemRecord).
	Recorded bool `json:"-"`
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
	PlanSources bool `json:"plan_sources,omitempty"`
	// Only, with PlanSources, keeps only these of the plan's sources
	// (agentic RAG: 3 and 4, the LLM-written documentation).
	Only []int `json:"only,omitempty"`
	// Fixed is a retrieval of the system's own instead (graph-rag: source
	// 1, method "graph", top-k 60): one source, one method, one top-k.
	Fixed *FixedRetrieval `json:"fixed,omitempty"`
}

// FixedRetrieval is a system's own retrieval source, method
// (RetrievalMethods) and top-k.
type FixedRetrieval struct {
	Source int    `json:"source"`
	Method string `json:"method"`
	TopK   int    `json:"top_k"`
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
// registers it with RegisterSystem when it is not known yet), marking it
// Recorded. It is called from init only, and panics on a system already
// described, on a board that is not one of the three, or on a fixed
// retrieval method that is not one of RetrievalMethods.
func RegisterSystemInfo(info SystemInfo) {
	systemMu.Lock()
	defer systemMu.Unlock()
	if _, dup := systemInfos[info.Name]; dup {
		panic("results: system " + string(info.Name) + " is already described")
	}
	if err := checkSystemInfo(info); err != nil {
		panic("results: " + err.Error())
	}
	info.Recorded = true
	if !systems[info.Name] {
		registerSystem(info.Name)
	}
	systemInfos[info.Name] = info
}

// checkSystemInfo checks a description's id, board and fixed retrieval.
func checkSystemInfo(info SystemInfo) error {
	if !systemID.MatchString(string(info.Name)) {
		return fmt.Errorf("system id %q is not lower-case words joined by \"-\"", info.Name)
	}
	if info.Name.IsAudit() {
		return fmt.Errorf("system %s is one of the benchmark audit's systems, not a system under test", info.Name)
	}
	if b := info.Board; b != "" && b != BoardSingleLLM && b != BoardLLMRAG && b != BoardAdvanced {
		return fmt.Errorf("system %s: board %s is not %s, %s or %s", info.Name, b, BoardSingleLLM, BoardLLMRAG, BoardAdvanced)
	}
	if f := info.Retrieval.Fixed; f != nil && !slices.Contains(RetrievalMethods, f.Method) {
		return fmt.Errorf("system %s: retrieval method %s is not one of the results format's", info.Name, f.Method)
	}
	return nil
}

// LookupSystem returns the description of system s; ok is false for a
// system nobody described (an audit system, or a system of a results file
// this process has no registration for: the site then shows its id).
func LookupSystem(s System) (info SystemInfo, ok bool) {
	systemMu.RLock()
	defer systemMu.RUnlock()
	info, ok = systemInfos[s]
	return info, ok
}

// SystemTitle names system s: its registered title, else its id.
func SystemTitle(s System) string {
	if info, ok := LookupSystem(s); ok && info.Title != "" {
		return info.Title
	}
	return string(s)
}

// SystemBoard returns the board of system s (SystemInfo.Board):
// BoardAdvanced for a system nobody described or without a board.
func SystemBoard(s System) string {
	if info, ok := LookupSystem(s); ok && info.Board != "" {
		return info.Board
	}
	return BoardAdvanced
}

// ExtensionSystem is the run extension holding the description
// (SystemInfo, as JSON: name, title, description, board, multiple_choice,
// retrieval) of a system registered at run time (SystemInfo.Recorded, or
// added by RegisterSystem alone: then its name only), so that results files
// of a system the reading process does not link describe it themselves.
// The paper's five systems' runs carry none.
const ExtensionSystem = "system"

// SystemRecord returns the extension ExtensionSystem for runs of s: its
// description as JSON; ok is false for the paper's systems and the
// audit's, and for a system nobody registered.
func SystemRecord(s System) (ext json.RawMessage, ok bool) {
	systemMu.RLock()
	info, described := systemInfos[s]
	added := slices.Contains(registered, s)
	systemMu.RUnlock()
	switch {
	case described && info.Recorded:
	case !described && added:
		info = SystemInfo{Name: s}
	default:
		return nil, false
	}
	ext, err := json.Marshal(info)
	return ext, err == nil
}

// checkSystem checks the run record's system: given and known, or
// described by the run's extension ExtensionSystem, which it then registers
// (a description that contradicts the registry's is an error; the same one
// again is not).
func checkSystem(r *Run) error {
	if r.System == "" {
		return metaErr("system", "required field missing")
	}
	raw, has := r.Extensions[ExtensionSystem]
	if !has {
		if !KnownSystem(r.System) {
			return metaErr("system", "unknown value %q", string(r.System))
		}
		return nil
	}
	var info SystemInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return metaErr("extensions."+ExtensionSystem, "%v", err)
	}
	if info.Name != r.System {
		return metaErr("extensions."+ExtensionSystem, "describes system %q; the run's is %q", info.Name, r.System)
	}
	if err := registerRecordedSystem(info); err != nil {
		return metaErr("extensions."+ExtensionSystem, "%v", err)
	}
	return nil
}

// registerRecordedSystem registers the description read from a run: a
// new system, a system added by RegisterSystem alone, or one already
// described the same way at run time.
func registerRecordedSystem(info SystemInfo) error {
	if err := checkSystemInfo(info); err != nil {
		return err
	}
	info.Recorded = true
	systemMu.Lock()
	defer systemMu.Unlock()
	if have, ok := systemInfos[info.Name]; ok {
		a, _ := json.Marshal(have)
		b, _ := json.Marshal(info)
		if !have.Recorded || !bytes.Equal(a, b) {
			return fmt.Errorf("system %s: already described, differently", info.Name)
		}
		return nil
	}
	if slices.Contains(Systems, info.Name) {
		return fmt.Errorf("system %s is one of the paper's, described by this format's registry", info.Name)
	}
	if !systems[info.Name] {
		registerSystem(info.Name)
	}
	systemInfos[info.Name] = info
	return nil
}
