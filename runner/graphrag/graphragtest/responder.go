// Package graphragtest is the test double of LightRAG's model: Responder
// answers LightRAG's prompts (as runner/graphrag sends them, and as the real
// lightrag-hku 1.3.3 does in scripts/lightrag-check) deterministically, in
// LightRAG's record format, from the text of the prompt: a pure function of
// the request, so the same prompt gets the same answer in both systems. Kind
// names the kind of a request (extraction, gleaning, summary, keywords,
// answer, …). Only tests and the LightRAG comparison import it.
package graphragtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/llm/llmtest"
)

// The kinds of request Kind reports.
const (
	KindExtract     = "extract"      // entity_extraction: one user message
	KindGlean       = "glean"        // entity_continue_extraction: 3 messages (prompt, first answer, continue)
	KindIfLoop      = "if-loop"      // entity_if_loop_extraction (never sent with 1 gleaning pass)
	KindSummary     = "summary"      // summarize_entity_descriptions
	KindKeywords    = "keywords"     // keywords_extraction
	KindAnswerKG    = "answer-kg"    // rag_response (local, global, hybrid) in the system prompt
	KindAnswerNaive = "answer-naive" // naive_rag_response
	KindAnswerMix   = "answer-mix"   // mix_rag_response
	KindEmbeddings  = "embeddings"   // an embeddings request
	KindUnknown     = "unknown"
)

// Unrecognised is the reply to a chat request Kind does not recognise.
const Unrecognised = "UNRECOGNISED PROMPT (scripts/lightrag-check Responder)"

// The fixed openings and markers of LightRAG 1.3.3's prompts (the *.txt files of LIGHTRAG_DATA).
const (
	extractOpening  = "---Goal---\nGiven a text document"
	gleanOpening    = "MANY entities and relationships were missed"
	ifLoopOpening   = "---Goal---'"
	summaryOpening  = "You are a helpful assistant responsible for generating a comprehensive summary"
	keywordsMarker  = "Current Query: "
	answerOpening   = "---Role---"
	realDataMarker  = "---Real Data---"
	textMarker      = "\nText:\n"
	textEnd         = "\n######################\nOutput:"
	queryEnd        = "\n######################"
	entitiesMarker  = "\nEntities: "
	kgAnswerMarker  = "about Knowledge Base provided below"
	naiveAnswerMark = "about Document Chunks provided below"
	mixAnswerMarker = "about Data Sources provided below"
)

// Kind returns the kind of r (one of the Kind constants), recognised by the prompts' fixed openings
// (docs/graphrag.md §8): an answer has a system prompt starting "---Role---"; the others are user messages.
func Kind(r llmtest.Request) string {
	if r.Endpoint == "embeddings" {
		return KindEmbeddings
	}
	if len(r.Messages) == 0 {
		return KindUnknown
	}
	if first := r.Messages[0]; first.Role == "system" {
		if !strings.HasPrefix(first.Content, answerOpening) {
			return KindUnknown
		}
		switch {
		case strings.Contains(first.Content, kgAnswerMarker):
			return KindAnswerKG
		case strings.Contains(first.Content, naiveAnswerMark):
			return KindAnswerNaive
		case strings.Contains(first.Content, mixAnswerMarker):
			return KindAnswerMix
		}
		return KindUnknown
	}
	p := r.Prompt()
	switch {
	case strings.HasPrefix(p, extractOpening) && len(r.Messages) == 1:
		return KindExtract
	case strings.HasPrefix(p, gleanOpening) && len(r.Messages) == 3:
		return KindGlean
	case strings.HasPrefix(p, ifLoopOpening):
		return KindIfLoop
	case strings.HasPrefix(p, summaryOpening):
		return KindSummary
	case strings.Contains(p, keywordsMarker):
		return KindKeywords
	}
	return KindUnknown
}

// CountKinds counts requests by Kind.
func CountKinds(reqs []llmtest.Request) map[string]int {
	n := map[string]int{}
	for _, r := range reqs {
		n[Kind(r)]++
	}
	return n
}

// Responder answers every LightRAG prompt deterministically from its text; use it as
// llmtest.Options.Responder. The answers, by kind:
//
//   - extract: for each `class X` / `def y` (also `async def`) line of the chunk text (the text after
//     "---Real Data---" and "Text:" up to the closing "######################\nOutput:"), in order, a record
//     ("entity"<|>"X"<|>"category"|"event"<|>"Python class X, definition i of this text, line l: <the
//     line, trimmed, at most 120 bytes>"); for each two consecutive definitions A, B a record
//     ("relationship"<|>"A"<|>"B"<|>"A is defined before B."<|>"code order, definition"<|>w), w = Strength(A,
//     B) (a self-loop when A = B); then ("content_keywords"<|>"python code, definitions"), records joined by
//     "##\n", ending "<|COMPLETE|>". A chunk without definitions gets only the content_keywords record.
//   - glean: none ("<|COMPLETE|>") if the chunk (in the first history message) has no `import M` / `from M
//     import` line; else an entity for the first such module M (type "organization"), the chunk's first
//     definition again with another description (LightRAG 1.3.3 ignores a gleaned name it already has), a
//     relationship from that definition to M, and, when M is dotted, a relationship from M to its top-level
//     package with the strength quoted ("7", which LightRAG reads as 1.0), whose target is no entity of the
//     chunk (an UNKNOWN node unless another chunk defines it).
//   - summary: "<name> is summarised here by the fake LLM." with <name> the "Entities:" line of the prompt.
//   - keywords: {"high_level_keywords": […], "low_level_keywords": […]} from the question's words
//     (Keywords).
//   - answers: "Fake <kind> answer to: <question>"; when the question contains EchoTag, the system prompt
//     followed by EchoTail(question) instead, an answer longer than its system prompt, so that LightRAG's
//     post-processing (removing the system prompt, "user", "model", the question and the <system> tags;
//     in naive mode first cutting len(system prompt) code points) and its decoding of \uXXXX apply.
//   - if-loop: "NO". Anything else: Unrecognised.
func Responder(r llmtest.Request) llmtest.Reply {
	switch Kind(r) {
	case KindExtract:
		return llmtest.Reply{Content: extractReply(ChunkText(r.Prompt()))}
	case KindGlean:
		return llmtest.Reply{Content: gleanReply(ChunkText(r.Messages[0].Content))}
	case KindIfLoop:
		return llmtest.Reply{Content: "NO"}
	case KindSummary:
		return llmtest.Reply{Content: summaryName(r.Prompt()) + " is summarised here by the fake LLM."}
	case KindKeywords:
		hl, ll := Keywords(queryText(r.Prompt()))
		b, _ := json.Marshal(map[string][]string{"high_level_keywords": hl, "low_level_keywords": ll})
		return llmtest.Reply{Content: string(b)}
	case KindAnswerKG, KindAnswerNaive, KindAnswerMix:
		if strings.Contains(r.Prompt(), EchoTag) {
			return llmtest.Reply{Content: r.Messages[0].Content + EchoTail(r.Prompt())}
		}
		return llmtest.Reply{Content: fmt.Sprintf("Fake %s answer to: %s", Kind(r), r.Prompt())}
	}
	return llmtest.Reply{Content: Unrecognised}
}

// EchoTag in a question makes Responder answer it with the system prompt and EchoTail.
const EchoTag = "[echo]"

// EchoTail is what an echo answer adds after the system prompt: an escaped "é" (\u00e9, decoded by the
// OpenAI binding), "user", "model" and the question in <system> tags, all of which LightRAG's answer
// post-processing removes, leaving "écho    done".
func EchoTail(question string) string {
	return ` \u00e9cho user model <system>` + question + `</system> done`
}

// ChunkText returns the chunk of an extraction prompt.
func ChunkText(prompt string) string {
	i := strings.Index(prompt, realDataMarker)
	if i < 0 {
		return ""
	}
	s := prompt[i:]
	j := strings.Index(s, textMarker)
	if j < 0 {
		return ""
	}
	s = s[j+len(textMarker):]
	if k := strings.LastIndex(s, textEnd); k >= 0 {
		s = s[:k]
	}
	return s
}

// queryText returns the question of a keywords prompt.
func queryText(prompt string) string {
	i := strings.LastIndex(prompt, keywordsMarker)
	if i < 0 {
		return ""
	}
	s := prompt[i+len(keywordsMarker):]
	if k := strings.Index(s, queryEnd); k >= 0 {
		s = s[:k]
	}
	return s
}

func summaryName(prompt string) string {
	i := strings.LastIndex(prompt, entitiesMarker)
	if i < 0 {
		return "?"
	}
	s := prompt[i+len(entitiesMarker):]
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		s = s[:k]
	}
	return s
}

var (
	defRE    = regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?(class|def)[ \t]+([A-Za-z_][A-Za-z0-9_]*)[^\n]*`)
	importRE = regexp.MustCompile(`(?m)^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import\b|import[ \t]+([A-Za-z_][\w.]*))`)
	wordRE   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// Definition is a `class` or `def` line of a chunk.
type Definition struct {
	Kind string // "class" or "def"
	Name string
	Line int    // 1-based line of the chunk
	Text string // the line, trimmed, at most 120 bytes, without "<|>" and "##"
}

// Definitions returns the class and def lines of text, in order.
func Definitions(text string) []Definition {
	var out []Definition
	for _, m := range defRE.FindAllStringSubmatchIndex(text, -1) {
		line := strings.TrimSpace(text[m[0]:m[1]])
		line = strings.NewReplacer("<|>", " ", "##", " ", "<|COMPLETE|>", " ").Replace(line)
		if len(line) > 120 {
			line = strings.ToValidUTF8(line[:120], "")
		}
		out = append(out, Definition{Kind: text[m[2]:m[3]], Name: text[m[4]:m[5]],
			Line: strings.Count(text[:m[0]], "\n") + 1, Text: line})
	}
	return out
}

// Strength returns the fake strength of the relationship a–b: 1 to 10 in steps of 0.5, from FNV-1a of
// "a\x00b", written with strconv 'g' ("7", "7.5").
func Strength(a, b string) string {
	h := fnv.New32a()
	h.Write([]byte(a + "\x00" + b))
	return strconv.FormatFloat(float64(h.Sum32()%19+2)/2, 'g', -1, 64)
}

func entityRecord(name, typ, desc string) string {
	return `("entity"<|>"` + name + `"<|>"` + typ + `"<|>"` + desc + `")`
}

func relationRecord(src, tgt, desc, keywords, strength string) string {
	return `("relationship"<|>"` + src + `"<|>"` + tgt + `"<|>"` + desc + `"<|>"` + keywords + `"<|>` + strength + `)`
}

func entityType(kind string) string {
	if kind == "class" {
		return "category"
	}
	return "event"
}

func kindWord(kind string) string {
	if kind == "class" {
		return "class"
	}
	return "function"
}

func extractReply(chunk string) string {
	defs := Definitions(chunk)
	var recs []string
	for i, d := range defs {
		recs = append(recs, entityRecord(d.Name, entityType(d.Kind),
			fmt.Sprintf("Python %s %s, definition %d of this text, line %d: %s", kindWord(d.Kind), d.Name, i+1, d.Line, d.Text)))
	}
	for i := 1; i < len(defs); i++ {
		a, b := defs[i-1].Name, defs[i].Name
		recs = append(recs, relationRecord(a, b, a+" is defined before "+b+".", "code order, definition", Strength(a, b)))
	}
	recs = append(recs, `("content_keywords"<|>"python code, definitions")`)
	return strings.Join(recs, "##\n") + "<|COMPLETE|>"
}

func gleanReply(chunk string) string {
	m := importRE.FindStringSubmatch(chunk)
	if m == nil {
		return "<|COMPLETE|>"
	}
	mod := m[1]
	if mod == "" {
		mod = m[2]
	}
	recs := []string{entityRecord(mod, "organization", "Python module "+mod+", imported by this text.")}
	if defs := Definitions(chunk); len(defs) > 0 {
		d := defs[0].Name
		recs = append(recs,
			entityRecord(d, entityType(defs[0].Kind), "Gleaned again: "+d+" (LightRAG ignores this record)."),
			relationRecord(d, mod, d+" is in a text that imports "+mod+".", "import, dependency", Strength(d, mod)))
	}
	if top, _, dotted := strings.Cut(mod, "."); dotted {
		recs = append(recs, relationRecord(mod, top, mod+" belongs to the package "+top+".", "package", `"7"`))
	}
	return strings.Join(recs, "##\n") + "<|COMPLETE|>"
}

// Keywords returns the fake keyword lists of a question: low-level = its identifier-like words (with "_",
// or an upper-case letter after the first character, e.g. DefectEntry, get_vacancy), in order, without
// repeats; high-level = its other words of 6 or more letters, lower-cased, at most 3. If the low-level
// list would be empty it gets the longest word (the first of equals), so that local mode stays local.
func Keywords(question string) (high, low []string) {
	seen := map[string]bool{}
	high, low = []string{}, []string{}
	longest := ""
	for _, w := range wordRE.FindAllString(question, -1) {
		if len(w) > len(longest) {
			longest = w
		}
		if seen[w] {
			continue
		}
		seen[w] = true
		if strings.Contains(w, "_") || strings.ToLower(w[1:]) != w[1:] {
			low = append(low, w)
		} else if len(w) >= 6 && len(high) < 3 {
			high = append(high, strings.ToLower(w))
		}
	}
	if len(low) == 0 && longest != "" {
		low = append(low, longest)
	}
	return high, low
}
