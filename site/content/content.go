// Package content writes the Hugo content and static files of the
// leaderboard: one page file per page (JSON front matter holding the page's
// data, rendered and escaped by the templates in layouts/), the figures, and
// the downloads (results files, one CSV per leaderboard table, the data behind
// each figure). It sits after site/aggregate and site/plots and before
// site/hugo.
//
// Pages of an edition (a release or the preview) live under the edition's
// path and link to each other with relative URLs, so that an edition's output
// can be copied (/latest/) and stays byte-identical. Nothing written depends
// on the clock: a frozen release shows its own date and generator commit.
package content

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
)

// Edition is one self-contained copy of the leaderboard: a frozen release
// (/v1.0/) or the preview of every run present (/preview/).
type Edition struct {
	Path    string // URL path segment, e.g. "v1.0" or "preview"
	Version string // e.g. "v1.0"; "preview" for the preview
	Title   string
	// Date is the release date (YYYY-MM-DD); "" for the preview.
	Date string
	// GeneratorCommit is the commit of this project that generated the
	// release, as recorded when the release was cut ("" when unknown).
	GeneratorCommit string
	Frozen          bool
	// RenderCommit is the commit of the code that renders the edition (the
	// running build's): every edition is rendered by the current templates,
	// so a release shows the look of RenderCommit and the numbers frozen when
	// it was cut (site/release: numbers manifests).
	RenderCommit string
	// Newest is the newest release when it is not this edition (an older
	// release's pages carry a banner naming it); zero otherwise.
	Newest Link
	// Errata are the corrections made since the release was cut that change
	// numbers it shows (site/release: errata), each with how many; ErrataCSV
	// is the release's errata file, published as downloads/errata.csv.
	Errata    []ErratumNote
	ErrataCSV []byte
	Notes     string
	// Switcher lists the releases known to this edition (itself and older
	// ones, newest first), for the static version switcher; newer releases
	// are added in the browser from the site root's releases.js.
	Switcher []Link
	// Missing lists run ids of the release that were not found.
	Missing []string
	// Previous is the release this edition follows (the newest older
	// release; for the preview the newest release), "" for the first;
	// PreviousRuns its run ids, so that the home page lists what is new.
	Previous     string
	PreviousRuns []string
	// PreviousVerifiedSet is the id of the verified question set the
	// previous release showed ("" none), so that a set shown first here is
	// listed as new.
	PreviousVerifiedSet string
	// PreviousMoreVerifiedSets are the ids of the further verified sets
	// the previous release showed (release.Release.MoreVerifiedSets).
	PreviousMoreVerifiedSets []string

	Leaderboard *aggregate.Leaderboard
	Files       []*results.File
	// Audit are the benchmark audit's runs this edition shows (provenance
	// audit: the reference solution and the trivial baselines; cmd/audit,
	// docs/benchmark-audit.md): unranked rows of the ranked tool-usage
	// tables of their question set, never configurations, never among
	// Files. The preview shows every audit run of the build; a release only
	// those it lists.
	Audit []*results.File
	// AuditRows are the audit runs' rows as the build loaded them (run id
	// → compact rows with their per-property outcomes), for the verified
	// question set's bounds; a run without an entry is scored on its
	// Questions.
	AuditRows map[string][]results.SummaryRow
	// AuditPaths maps the audit runs' ids to their results files, from which
	// the question pages read the reference solution's code and per-property
	// outcomes (results.ReadDetails); nil: the question pages show no
	// reference solution (releases before v1.4 showed none).
	AuditPaths map[string]string
	// EnvironmentComparison lists the published answers whose verdicts
	// differ between the pinned environment and the tasks environment
	// (results.ReadEnvironmentComparison), shown on the methodology page;
	// nil: none (releases before v1.4).
	EnvironmentComparison *results.EnvironmentComparison
	// Diagnoses say why the reference solution fails the properties it
	// fails (datasets.ReadDiagnoses), shown beside them on the question
	// pages; nil: none.
	Diagnoses datasets.Diagnoses
	// VerifiedSet is the verified question set (docs/benchmark-audit.md)
	// whose ranked table the home page shows after the full set's tables;
	// nil: none. The preview sets it, and a release that records it
	// (release.Release.VerifiedSet, from v1.3 on): v1.0-v1.2 show what
	// they showed.
	VerifiedSet *aggregate.VerifiedSet
	// MoreVerifiedSets are further verified question sets whose tables
	// follow VerifiedSet's, each saying what differs from the one before
	// it and how the ranks move (the preview's; a release's those it
	// records, release.Release.MoreVerifiedSets).
	MoreVerifiedSets []*aggregate.VerifiedSet
	Figures          []*plots.Figure
	Benchmark        *datasets.Benchmark // nil: no question pages
	// FolderBenchmarks are the folders the build was given of benchmarks
	// outside MatTools' suite (site.Options.BenchmarkFolders), by name: a
	// benchmark's page lists its questions and links its review page only
	// when its folder is here.
	FolderBenchmarks map[results.Benchmark]*FolderBenchmark
	Paper            []paperonly.Value
	// Catalog names models that have no run (paper-only rows); nil means aggregate.DefaultCatalog().
	Catalog *aggregate.Catalog
	// ResultsPaths maps run ids to their results files, copied as downloads.
	// The question pages read each tool-usage file's texts from it
	// (results.ReadDetails), one configuration identity at a time, when
	// Files hold only the summary columns (results.ReadSummary); a run
	// without a path is shown from its rows in Files.
	ResultsPaths map[string]string
	// CodeKeys maps run ids to CodeKey of each of the run's question rows'
	// code, in row order (results.SummaryOptions.CodeKey), for the
	// hallucinated-API counts; a run without keys has them computed from
	// its rows in Files.
	CodeKeys map[string][]string
	// DataHint says how to get the data when the edition has no runs.
	DataHint string
	// Submissions are the submissions known to the build; the edition
	// shows those with a run among Files.
	Submissions []*Submission
	// Warnings are set by Write: conditions the build log must show (e.g.
	// the runs of a QA set that disagree on its baselines).
	Warnings []string
}

// Submission is a submission by pull request (SUBMITTING.md) as the pages
// show it: its metadata and which of its runs were verified.
type Submission struct {
	Folder   string
	Metadata submission.Metadata
	// Runs are the run ids of its submitted runs; Verified those of the
	// verified records the project recorded for it (validate-submission
	// -reexecute -record), accepted by submission.LoadVerified.
	Runs, Verified []string
}

// Link is a version switcher entry: a version and its edition path.
type Link struct {
	Version string `json:"version"`
	Path    string `json:"path"`
	Date    string `json:"date,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Title   string `json:"title,omitempty"`
}

// ErratumNote is one correction an older release shows (release.Erratum
// with how many of its numbers it changes).
type ErratumNote struct {
	ID      string `json:"id"`
	Date    string `json:"date"`
	Commit  string `json:"commit"`
	Text    string `json:"text"`
	Numbers int    `json:"numbers"`
}

// Root is what the site's root page shows: the headline tables of the
// newest edition (Home: the newest release, or the preview when there is no
// release), linking into its pages at HomePath ("latest" or "preview"), and
// the release list, which is on its own page (releases/).
type Root struct {
	// Releases are every release, newest first.
	Releases []Link
	// Latest is the version /latest/ copies ("" when there is no release).
	Latest string
	// Preview: a preview edition is built (it has a link).
	Preview bool
	// DataHint says how to get the data when there are no runs.
	DataHint string
	// Home is the edition whose headline tables the root shows, with its
	// Leaderboard built; nil shows none. HomePath is the URL path of its
	// pages, which the tables' links point into.
	Home     *Edition
	HomePath string
}

// WriteRoot writes the site's root page (the newest edition's headline
// tables, Root.Home, linking into its pages), the release list
// (releases/: every release, newest first, with a link to /latest/ and to
// the preview) and releases.js, which every edition's version switcher reads
// to list releases newer than itself, the search page (search/, over the
// index scripts/publish.sh adds), and favicon.ico (FaviconICO). The
// root is not part of any release and changes with each new one; it writes
// no file into an edition.
func WriteRoot(dirs Dirs, r Root) error {
	releases := r.Releases
	if releases == nil {
		releases = []Link{}
	}
	params := map[string]any{"releases": releases, "latest": r.Latest, "preview": r.Preview, "data_hint": r.DataHint,
		"headline": []*rankedView{}, "std": StdConvention, "runnable_note": RunnableNote, "paper_url": PaperURL, "upstream_url": UpstreamURL}
	if e := r.Home; e != nil && e.Leaderboard != nil {
		if e.Catalog == nil {
			e.Catalog = aggregate.DefaultCatalog()
		}
		v := newViews(e)
		headline := []*rankedView{}
		for _, t := range v.lb.Headline {
			tv := v.ranked(t, v.lb.Headline)
			if by := v.supersededBy(t.BenchmarkVersion); by != "" {
				tv = collapseRanked(tv, by) // the edition's own home page writes the pages of its rows
			} else if n := len(tv.Rows); n > ListRows { // the edition's own home page writes the pages of every row (boundRanked)
				tv = sliceRanked(tv, 0, ListRows)
				tv.Cut = newCut(ListRows, n, ListRows, "the top", "rows (the table's filters apply to the rows shown)", "tables/"+tv.ID, tv.CSV)
			}
			headline = append(headline, tv)
		}
		headline, fig := v.homeTables(v.lb.Headline, headline)
		if fig != nil { // at the site root: the release /latest/ copies may predate the figure
			svg, err := fig.SVG()
			if err != nil {
				return err
			}
			id := strings.TrimSuffix(fig.ID, "-intervals")
			if err := writeFile(filepath.Join(dirs.Static, filepath.FromSlash(intervalFigurePath(id, "svg"))), svg); err != nil {
				return err
			}
			if err := writeFile(filepath.Join(dirs.Static, filepath.FromSlash(intervalFigurePath(id, "csv"))), fig.CSV()); err != nil {
				return err
			}
		}
		params["headline"] = headline
		params["figroot"] = "./"
		params["qa"] = v.qaHome()
		if vv := v.verified(); vv != nil {
			params["verified"] = vv
		}
		params["root"] = r.HomePath + "/" // the tables' links; the page's own assets are the site root's ("assets")
		params["assets"] = "./"
		params["home"] = map[string]any{"path": r.HomePath, "version": e.Version, "date": e.Date, "frozen": e.Frozen,
			"runs": len(e.Files), "configs": len(e.Leaderboard.Configurations)}
	}
	err := writeJSONPage(filepath.Join(dirs.Content, "_index.md"), page{Title: "MatTools leaderboard", URL: "/", Layout: "home", Params: params})
	if err != nil {
		return err
	}
	err = writeJSONPage(filepath.Join(dirs.Content, "releases.md"), page{Title: "Releases", URL: "/releases/", Layout: "releases",
		Params: map[string]any{"releases": releases, "latest": r.Latest, "preview": r.Preview, "data_hint": r.DataHint, "root": "../"}})
	if err != nil {
		return err
	}
	// The search page: Pagefind's UI over the index scripts/publish.sh adds at /pagefind/ (layouts/search.html).
	err = writeJSONPage(filepath.Join(dirs.Content, "search.md"), page{Title: "Search", URL: "/search/", Layout: "search", Params: map[string]any{"root": "../", "latest": r.Latest}})
	if err != nil {
		return err
	}
	all := append([]Link(nil), releases...)
	if r.Preview {
		all = append(all, Link{Version: "preview", Path: "preview"})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(all); err != nil {
		return err
	}
	js := "// Generated: every edition of the leaderboard, newest release first (read by assets/switcher.js).\n" +
		"window.MATTOOLS_RELEASES = " + strings.TrimSpace(buf.String()) + ";\n"
	if err := writeFile(filepath.Join(dirs.Static, "favicon.ico"), FaviconICO()); err != nil {
		return err
	}
	return writeFile(filepath.Join(dirs.Static, "releases.js"), []byte(js))
}

// Dirs are the Hugo input directories content writes into.
type Dirs struct {
	Content string // mounted as Hugo content
	Static  string // mounted as Hugo static
}

// page is one Hugo page file: JSON front matter, no body.
type page struct {
	Title  string `json:"title"`
	URL    string `json:"url"`
	Layout string `json:"layout"`
	Params any    `json:"params"`
}

type editionView struct {
	Path              string        `json:"path"`
	Version           string        `json:"version"`
	Title             string        `json:"title"`
	Date              string        `json:"date"`
	Commit            string        `json:"commit"`
	Frozen            bool          `json:"frozen"`
	RenderCommit      string        `json:"render_commit"`
	Newest            *Link         `json:"newest"`
	Errata            []ErratumNote `json:"errata"`
	Corrected         int           `json:"corrected"`
	Notes             string        `json:"notes"`
	Switcher          []Link        `json:"switcher"`
	Missing           []string      `json:"missing"`
	BenchmarkVersions []string      `json:"benchmark_versions"`
	Protocols         []string      `json:"protocols"`
	Runs              int           `json:"runs"`
	DataHint          string        `json:"data_hint"`
	HasQuestions      bool          `json:"has_questions"`
}

// writer writes the pages of one edition.
type writer struct {
	dirs Dirs
	e    *Edition
	ev   editionView
	err  error
	// sizes maps each static file written (rel, as static's) to its size in
	// bytes, for the downloads page.
	sizes map[string]int
}

// rootFor returns the relative URL from a page at rel (inside the edition,
// "" for its home, "questions/x/" for a question) to the edition root.
func rootFor(rel string) string {
	depth := strings.Count(strings.Trim(rel, "/"), "/") + 1
	if strings.Trim(rel, "/") == "" {
		return "./"
	}
	return strings.Repeat("../", depth)
}

// page writes the page at rel (a directory-style path inside the edition,
// "" for the edition home) with the given layout and data.
func (w *writer) page(rel, title, layout string, data map[string]any) {
	if w.err != nil {
		return
	}
	rel = strings.Trim(rel, "/")
	params := map[string]any{"root": rootFor(rel), "edition": w.ev}
	for k, v := range data {
		params[k] = v
	}
	url := "/" + w.e.Path + "/"
	file := filepath.Join(w.dirs.Content, w.e.Path, "_index.md")
	if rel != "" {
		url += rel + "/"
		file = filepath.Join(w.dirs.Content, w.e.Path, filepath.FromSlash(rel)+".md")
	}
	w.err = writeJSONPage(file, page{Title: title, URL: url, Layout: layout, Params: params})
}

func writeJSONPage(file string, p page) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true) // "<" as \u003c: no front matter text can look like markup
	enc.SetIndent("", " ")
	if err := enc.Encode(p); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return writeFile(file, buf.Bytes())
}

func writeFile(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

// static writes a static file of the edition at rel (slash-separated).
func (w *writer) static(rel string, data []byte) {
	if w.err != nil {
		return
	}
	w.err = writeFile(filepath.Join(w.dirs.Static, w.e.Path, filepath.FromSlash(rel)), data)
	if w.sizes == nil {
		w.sizes = map[string]int{}
	}
	w.sizes[rel] = len(data)
}

// byteSize writes a file size in decimal units as a download list shows
// it: "812 B", "34.1 kB", "2.3 MB".
func byteSize(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}

// Write writes every page and static file of the edition e into dirs. The
// output depends only on e (no clock, no map order).
func Write(dirs Dirs, e *Edition) error {
	if e.Catalog == nil {
		e.Catalog = aggregate.DefaultCatalog()
	}
	w := &writer{dirs: dirs, e: e}
	e.Warnings = nil
	w.ev = editionView{Path: e.Path, Version: e.Version, Title: e.Title, Date: e.Date, Commit: e.GeneratorCommit,
		Frozen: e.Frozen, Notes: e.Notes, Switcher: e.Switcher, Missing: e.Missing, Runs: len(e.Files),
		DataHint: e.DataHint, HasQuestions: e.Benchmark != nil, RenderCommit: e.RenderCommit}
	if e.Newest.Version != "" {
		w.ev.Newest = &e.Newest
	}
	w.ev.Errata = e.Errata
	for _, n := range e.Errata {
		w.ev.Corrected += n.Numbers
	}
	if len(e.ErrataCSV) > 0 {
		w.static("downloads/errata.csv", e.ErrataCSV)
	}
	if w.ev.Switcher == nil {
		w.ev.Switcher = []Link{}
	}
	if w.ev.Missing == nil {
		w.ev.Missing = []string{}
	}
	seenV, seenP := map[string]bool{}, map[string]bool{}
	for _, f := range e.Files {
		if !seenV[f.Run.BenchmarkVersion] {
			seenV[f.Run.BenchmarkVersion] = true
			w.ev.BenchmarkVersions = append(w.ev.BenchmarkVersions, f.Run.BenchmarkVersion)
		}
		if !seenP[f.Run.ScoringProtocol] {
			seenP[f.Run.ScoringProtocol] = true
			w.ev.Protocols = append(w.ev.Protocols, f.Run.ScoringProtocol)
		}
	}
	sortStrings(w.ev.BenchmarkVersions)
	sortStrings(w.ev.Protocols)
	v := newViews(e)
	w.writeBoards(v)
	w.writeFailures(v)
	w.writeCompare(v)
	w.writeCost(v)
	w.writeModules(v)
	w.writeConfigurations(v)
	w.writeModels(v)
	w.writeSystems(v)
	w.writeQuestions(v)
	w.writeMethodology(v)
	w.writeDownloads(v)
	w.writeSubmissions(v)
	w.writeHome(v)
	return w.err
}

// href joins edition-relative path parts into a directory URL ("qa/").
func href(parts ...string) string { return path.Join(parts...) + "/" }
