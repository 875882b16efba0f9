package qasynth

import (
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/datasets/corpus"
)

// The sizes a dry run assumes for the answers (bytes; 4 bytes a token).
const (
	// UpstreamDocuments is the number of documents upstream generated
	// from: the 7,192 code objects that have questions in its QA CSVs
	// (docs/mattools.md §4).
	UpstreamDocuments = 7192
	// CodeItemBytes and DocItemBytes are the mean bytes of an item's
	// question and four choices in the real sample of 120 items of each
	// set (MATTOOLS_QA_SAMPLE's qa_120.json: 504.45; qa_doc_120.json:
	// 381.76; TestEstimateConstantsFitTheSample checks them).
	CodeItemBytes = 504
	DocItemBytes  = 382
	// TagBytes is the XML around one item in the prompts' answer format:
	// <questionN></questionN>, <answer_choicesN>, four indented
	// <choice></choice> lines, </answer_choicesN>, and
	// <correct_answerN>X</correct_answerN>, with their line ends.
	TagBytes = 11 + 13 + 18 + 4*22 + 19 + 38
)

// ItemsPerDocument is the mean number of questions upstream's accepted
// answers gave per document: 34,621 code and 34,604 doc items from 7,192
// documents.
func ItemsPerDocument(set string) float64 {
	if set == SetCode {
		return float64(datasets.NumQACode) / UpstreamDocuments
	}
	return float64(datasets.NumQADoc) / UpstreamDocuments
}

// Estimate is a dry run's forecast of a QA synthesis.
type Estimate struct {
	// Documents and Calls (one per document when every first answer is
	// accepted); MaxCalls when every document takes MaxAttempts.
	Documents, Calls, MaxCalls int
	// Items is the questions expected: Documents × ItemsPerDocument.
	Items int
	// PagesEstimated counts the documents of the doc set without a text
	// (code objects walked, not yet documented), whose page_content is
	// taken at cmd/gen-docs' estimate of an answer: 1,600 bytes plus a
	// quarter of the object's code (runner/docgen.EstimateCalls).
	PagesEstimated int
	// PromptTokens counts each message at 4 bytes a token;
	// CompletionTokens ItemsPerDocument × (item bytes + TagBytes) / 4 per
	// document.
	PromptTokens, CompletionTokens int64
}

// EstimateCalls forecasts a Generate over docs with p and an empty journal.
func EstimateCalls(docs []corpus.LLMDoc, p *Prompt) Estimate {
	e := Estimate{Documents: len(docs), Calls: len(docs), MaxCalls: MaxAttempts * len(docs)}
	item := DocItemBytes
	if p.Set == SetCode {
		item = CodeItemBytes
	}
	per := ItemsPerDocument(p.Set)
	e.Items = int(float64(len(docs))*per + 0.5)
	for _, d := range docs {
		if p.Set == SetDoc && d.PageContent == "" {
			d.PageContent = string(make([]byte, 1600+len(d.Metadata.CodeContent)/4))
			e.PagesEstimated++
		}
		m, err := p.Message(d)
		if err != nil {
			m = p.Text
		}
		e.PromptTokens += int64(len(m)) / 4
		e.CompletionTokens += int64(per * float64(item+TagBytes) / 4)
	}
	return e
}

// Cost returns the cost of e in dollars at the given prices per million
// prompt and completion tokens.
func (e Estimate) Cost(pricePerMIn, pricePerMOut float64) float64 {
	return float64(e.PromptTokens)/1e6*pricePerMIn + float64(e.CompletionTokens)/1e6*pricePerMOut
}
