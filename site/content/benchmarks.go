package content

import (
	"strings"
	"unicode/utf8"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
)

// FolderBenchmark is what a folder benchmark's own folder (benchmark.json,
// as synthesize -layout writes it; docs/runner.md#folder-benchmarks) adds to
// its page: its questions and the review page of its synthesis.
type FolderBenchmark struct {
	Questions []datasets.Question // in evaluation order
	// Review is the folder's review.html (docs/synthesis.md §5); nil: none.
	Review []byte
}

// BenchmarkPath is the edition-relative path of benchmark b's own page.
func BenchmarkPath(b results.Benchmark) string { return href("benchmarks", string(b)) }

// benchmarkQuestionText is how much of a question's text its row shows.
const benchmarkQuestionText = 240

// writeBenchmarkPages writes a page for each benchmark outside MatTools'
// suite that has ranked tables (order: the home page's): its title,
// description, versions and scoring protocols, its tables (tables[b], as
// the home page shows them), its questions and its review page when the
// build has its folder (Edition.FolderBenchmarks). It returns the links to
// them, in that order.
func (w *writer) writeBenchmarkPages(order []results.Benchmark, tables map[results.Benchmark][]*rankedView) []linkView {
	type versionView struct {
		ID         string `json:"id"`
		Questions  int    `json:"questions"`
		Properties int    `json:"properties"`
	}
	type questionView struct {
		Index      int    `json:"index"`
		ID         string `json:"id"`
		Text       string `json:"text"`
		Properties string `json:"properties"`
		Count      int    `json:"count"`
	}
	links := []linkView{}
	for _, b := range order {
		info, _ := results.LookupBenchmark(b)
		title := info.Title
		if title == "" {
			title = string(b)
		}
		rel := BenchmarkPath(b)
		var versions []versionView
		for _, v := range info.Versions {
			versions = append(versions, versionView{ID: v.ID, Questions: v.Questions, Properties: v.Properties})
		}
		data := map[string]any{"name": string(b), "description": info.Description, "versions": versions,
			"protocols": strings.Join(info.Protocols, ", "), "tables": tables[b], "std": StdConvention, "runnable_note": RunnableNote}
		if fb := w.e.FolderBenchmarks[b]; fb != nil {
			qs := []questionView{}
			for _, q := range fb.Questions {
				names := make([]string, len(q.Properties))
				for i, p := range q.Properties {
					names[i] = p.Name
				}
				qs = append(qs, questionView{Index: q.Index, ID: q.ID, Text: shorten(q.Text, benchmarkQuestionText),
					Properties: strings.Join(names, ", "), Count: len(names)})
			}
			data["questions"] = qs
			if fb.Review != nil {
				review := strings.TrimSuffix(rel, "/") + "/review.html"
				w.static(review, fb.Review)
				data["review"] = review
			}
		}
		w.page(rel, title, "benchmark", data)
		links = append(links, linkView{Text: title, Href: rel})
	}
	return links
}

// shorten returns s's first paragraph, cut to at most n runes (with "…").
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
