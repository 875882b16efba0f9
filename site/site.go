// Package site builds the static leaderboard: results files → configurations
// and tables (site/aggregate) → figures (site/plots) → Hugo content
// (site/content) → Hugo (site/hugo) → the output directory, with one frozen
// copy per release (/v1.0/, …), /latest/ equal to the newest release, and a
// preview of every run present when it differs from the newest release.
//
// The site is built only from results files, the benchmark (datasets) and
// the one committed file of paper-only values (site/paperonly).
package site

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/internal/words"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/check"
	"github.com/mattools-leaderboard/leaderboard/site/aggregate"
	"github.com/mattools-leaderboard/leaderboard/site/content"
	"github.com/mattools-leaderboard/leaderboard/site/hugo"
	"github.com/mattools-leaderboard/leaderboard/site/paperonly"
	"github.com/mattools-leaderboard/leaderboard/site/plots"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// PreviewPath is the URL path of the preview edition.
const PreviewPath = "preview"

// LatestPath is the URL path of the copy of the newest release.
const LatestPath = "latest"

// Options configure a build.
type Options struct {
	// ResultsDir is searched recursively for results files (*.parquet).
	ResultsDir string
	// SubmissionsDir holds submission folders (SUBMITTING.md), each read
	// and checked by results/submission; VerifiedDir the verified records
	// of each, in a folder of the same name (written by validate-submission
	// -record). Empty or absent: none. The preview shows every valid
	// submission and accepted record; a release only the runs and records
	// it lists (ReadSubmissions, SubmissionFolder), and a run it lists whose
	// folder is invalid, missing or without that run is an error naming the
	// release, the run and the folder; with Frozen, in a git checkout whose
	// submissions/ and verified/ these are, so is a listed folder changed
	// since the release's generator commit (releasedSubmissionsChanged).
	SubmissionsDir, VerifiedDir string
	// Benchmark gives the question pages; nil builds none.
	Benchmark *datasets.Benchmark
	// DataHint is shown when there is no data (how to get it).
	DataHint string
	// RepoRoot holds content/, layouts/, static/ and tools/go.mod.
	RepoRoot string
	// OutDir receives the site; it is replaced as a whole at the end of a
	// successful build (the new site is built beside it first).
	OutDir string
	// WorkDir receives the generated Hugo sources; it is rewritten.
	WorkDir string
	// Releases; nil means the committed site/releases.json.
	Releases []release.Release
	// Catalog names and orders models; nil means aggregate.DefaultCatalog().
	Catalog *aggregate.Catalog
	// GeneratorCommit is the commit of the code running this build ("" if
	// unknown): shown on the preview only, and compared with each release's.
	GeneratorCommit string
	// AllowIncomplete builds a release even when some of its runs are
	// missing (its pages then list them); by default that is an error.
	AllowIncomplete bool
	// Log receives progress lines (nil: discarded).
	Log io.Writer
	// Go is the go command used to run Hugo (default "go").
	Go string
	// Frozen checks every release that has all its runs against its
	// numbers manifest (release.CheckNumbers: site/releases/<version>.
	// numbers.csv) after rendering it with the running code: a release
	// without one, or a number that differs, is an error naming the
	// release, table, row and column. In a git checkout, a submission folder
	// a release lists that changed since its generator commit is an error
	// too. False renders every release unchecked (tests with made-up
	// releases).
	Frozen bool
	// HugoPassBytes bounds the generated page files one Hugo pass reads
	// (hugo.Options.PassBytes): 0 means hugo.DefaultPassBytes, negative one
	// pass. The output is the same bytes whatever the number of passes.
	HugoPassBytes int64
	// AuditDir holds the benchmark audit's results files (cmd/audit
	// -publish; provenance audit: the reference solution and the trivial
	// baselines), committed with the benchmark
	// (benchmarks/mattools-tool-usage/audit) so that a build never executes
	// anything; empty or absent: none. They are read like ResultsDir's
	// (LoadResults) but never become configurations: the preview shows
	// them all, a release those of its runs it lists, as unranked rows of
	// the ranked tool-usage tables of their question set
	// (content.Edition.Audit). A file there that is invalid or not an
	// audit run is an error naming it; so is a run id also in ResultsDir.
	AuditDir string
	// Diagnoses is the benchmark audit's diagnoses file (datasets.
	// ReadDiagnoses; benchmarks/mattools-tool-usage/diagnoses.csv): why the
	// reference solution fails each property it fails, which the preview's
	// question pages show beside the reference's outcomes. "" or absent:
	// none; an invalid file is an error naming it and the line.
	Diagnoses string
	// BenchmarkFolders are folders of benchmarks outside MatTools' suite
	// (benchmark.json and src/question_segments/, as synthesize -layout
	// writes them; docs/runner.md#folder-benchmarks): the preview's page of
	// each such benchmark (content.BenchmarkPath) lists its questions and
	// links the folder's review.html. A folder that does not load is an
	// error naming it. Without its folder a benchmark's page shows its
	// tables only.
	BenchmarkFolders []string
	// EnvironmentComparison is the file of the published answers whose
	// verdicts differ between the pinned and the tasks environment
	// (results.EnvironmentComparisonFile, written by cmd/import-mattools),
	// which the preview's methodology page lists. "" or absent: none.
	EnvironmentComparison string
	// RecordErratum, with Frozen, records every number a release shows
	// otherwise than its numbers manifest as a correction by this erratum
	// (release.RecordErrata; its id must be in release.ErrataFile) instead
	// of failing: after a reviewed fix of the statistics.
	RecordErratum string
	// NewRelease is the version being cut (build-site -cut-release), whose
	// numbers manifest the cut writes after this build: the only release
	// not checked against one.
	NewRelease string
	// PreviewOnly builds only the preview of every run present (and the
	// root page, which then shows it): no release, no /latest/, no
	// manifest check. The preview still compares with the newest release's
	// runs; the links to releases lead nowhere in this output.
	PreviewOnly bool
	// VerifiedSet is the verified question set's file
	// (benchmarks/mattools-tool-usage/verified-v1.json;
	// aggregate.ReadVerifiedSet): the preview's home page gets its ranked
	// table, scored from the runs' stored per-property outcomes, after the
	// full set's tables. Empty or absent: none; releases never show it.
	VerifiedSet string
	// MoreVerifiedSets are further verified question sets' files, each
	// usually of another benchmark version (verified-v2.json, of
	// 2025-05-corrected-2): the preview's home page gets a table for each
	// after VerifiedSet's, each saying what differs from the one before it
	// and how the ranks move. Absent files are skipped; a release shows
	// those it records (release.Release.MoreVerifiedSets).
	MoreVerifiedSets []string
	// Strict makes an invalid results file an error even when no release
	// lists its run; by default such a file is skipped and reported
	// (Report.Skipped). An invalid file of a run a release lists is always an error.
	Strict bool
}

// Report describes a finished build.
type Report struct {
	Editions []string // paths of the editions built, newest release first, then the preview
	Latest   string   // the version /latest/ copies ("" when there is no release)
	Runs     int      // results files read
	Pages    int      // HTML pages written, /latest/ included
	// HugoPasses is how many Hugo runs rendered the generated pages
	// (hugo.Options.PassBytes).
	HugoPasses int
	// Skipped are the invalid results files that no release lists, left out
	// of the build (each also has a line in Warnings).
	Skipped []results.Invalid
	// Verified are the releases whose pages matched their manifest.
	Verified []string
	Warnings []string
}

// Build builds the site. Errors name the file or the release at fault.
func Build(ctx context.Context, o Options) (*Report, error) {
	logf := func(format string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", a...)
		}
	}
	if o.Catalog == nil {
		o.Catalog = aggregate.DefaultCatalog()
	}
	if o.Releases == nil {
		rs, err := DefaultReleases()
		if err != nil {
			return nil, err
		}
		o.Releases = rs
	}
	in, err := loadInputs(o, logf)
	if err != nil {
		return nil, err
	}
	files, paths, codeKeys, rows, subs, audit := in.files, in.paths, in.codeKeys, in.rows, in.subs, in.audit
	rep := &Report{Runs: len(files), Warnings: in.read.Warnings}
	if err := checkRuns(ctx, o, in, rep); err != nil {
		return nil, err
	}
	byID := map[string]*results.File{}
	for _, f := range files {
		byID[f.Run.RunID] = f
	}
	paper := paperonly.Values()

	var editions []*content.Edition
	var links []content.Link // newest first
	for i := len(o.Releases) - 1; i >= 0; i-- {
		r := o.Releases[i]
		links = append(links, content.Link{Version: r.Version, Path: r.Version, Date: r.Date, Commit: r.GeneratorCommit, Title: r.Title})
	}
	st := &releaseState{links: links, byID: byID, paper: paper}
	if err := addReleases(o, rep, in, st); err != nil {
		return nil, err
	}
	editions = st.editions
	if needPreview(o.Releases, files, audit) || o.PreviewOnly {
		e := &content.Edition{Path: PreviewPath, Version: "preview", Title: "Preview of every run present",
			GeneratorCommit: o.GeneratorCommit, Switcher: links, Files: files, Audit: audit, Benchmark: o.Benchmark, Paper: paper, ResultsPaths: paths,
			CodeKeys: codeKeys, Submissions: subs, AuditRows: in.auditRows, AuditPaths: in.auditPaths, Diagnoses: in.diagnoses, EnvironmentComparison: in.envCmp,
			VerifiedSet: in.verifiedSet, MoreVerifiedSets: in.moreVerified, FolderBenchmarks: in.folders}
		if n := len(o.Releases); n > 0 {
			e.Previous, e.PreviousRuns, e.PreviousVerifiedSet = o.Releases[n-1].Version, o.Releases[n-1].Runs, o.Releases[n-1].VerifiedSet
			e.PreviousMoreVerifiedSets = o.Releases[n-1].MoreVerifiedSets
		}
		if len(files) == 0 {
			e.DataHint = o.DataHint
		}
		editions = append(editions, e)
	}

	// Generated Hugo sources: rewritten completely by every build.
	dirs := content.Dirs{Content: filepath.Join(o.WorkDir, "content"), Static: filepath.Join(o.WorkDir, "static")}
	for _, d := range []string{dirs.Content, dirs.Static} {
		if err := os.RemoveAll(d); err != nil {
			return nil, err
		}
	}
	// The root page shows the headline tables of the newest release (its
	// pages are copied to /latest/), or of the preview when there is no
	// release, computed by the running code from the same runs.
	dataHint := ""
	if len(files) == 0 {
		dataHint = o.DataHint
	}
	root := content.Root{Releases: links, Preview: needPreview(o.Releases, files, audit) || o.PreviewOnly, DataHint: dataHint}
	if len(o.Releases) > 0 && !o.PreviewOnly {
		root.Latest = o.Releases[len(o.Releases)-1].Version
	}
	var home *content.Edition
	if len(editions) > 0 && len(editions[0].Files) > 0 {
		home = editions[0] // newest release first, else the preview
		root.HomePath = home.Path
	}
	for _, e := range editions {
		e.RenderCommit = o.GeneratorCommit
		lb := aggregate.BuildRows(e.Files, rows, o.Catalog)
		e.Leaderboard = lb
		e.Catalog = o.Catalog
		e.Figures = plots.All(lb, paper)
		if e == home {
			root.Home = e
			if err := content.WriteRoot(dirs, root); err != nil {
				return nil, err
			}
		}
		if err := content.Write(dirs, e); err != nil {
			return nil, fmt.Errorf("edition %s: %w", e.Path, err)
		}
		for _, w := range e.Warnings {
			rep.Warnings = append(rep.Warnings, "edition "+e.Path+": "+w)
			logf("site: warning: edition %s: %s", e.Path, w)
		}
		if err := release.CopyDir(filepath.Join(o.RepoRoot, "static", "assets"), filepath.Join(dirs.Static, e.Path, "assets")); err != nil {
			return nil, err
		}
		rep.Editions = append(rep.Editions, e.Path)
		logf("site: edition %s: %s, %s, %s", e.Path, words.Count(len(e.Files), "run", "runs"), words.Count(len(lb.Configurations), "configuration", "configurations"),
			words.Count(len(e.Figures), "figure", "figures"))
		e.Leaderboard, e.Figures = nil, nil // written: the next edition's need not share memory with them
	}
	rep.Latest = root.Latest
	if home == nil {
		if err := content.WriteRoot(dirs, root); err != nil {
			return nil, err
		}
	}
	if err := release.CopyDir(filepath.Join(o.RepoRoot, "static", "assets"), filepath.Join(dirs.Static, "assets")); err != nil {
		return nil, err
	}

	// Release what the pages no longer need before Hugo runs:
	// the runs, their rows and the leaderboards; only what the manifest
	// checks below read is kept.
	complete := map[string]bool{} // editions with all their runs present
	for _, e := range editions {
		complete[e.Path] = len(e.Files) > 0 && len(e.Missing) == 0
		e.Files, e.Audit, e.Leaderboard, e.Figures, e.ResultsPaths, e.CodeKeys = nil, nil, nil, nil, nil, nil
	}
	files, byID, codeKeys, rows = nil, nil, nil, nil
	*in, st.byID = buildInputs{}, nil
	runtime.GC()
	debug.FreeOSMemory()

	st.editions = editions
	return render(ctx, o, rep, logf, dirs, st, complete)
}

// buildInputs are what a build reads besides the releases: the results
// files (with their paths, code keys and compact rows), the submissions,
// the benchmark audit's runs, the folder benchmarks, the diagnoses, the
// environment comparison and the verified question set.
type buildInputs struct {
	files       []*results.File
	paths       map[string]string
	invalid     []results.Invalid
	codeKeys    map[string][]string
	rows        map[string][]results.SummaryRow
	read        *Submissions
	subs        []*content.Submission
	audit       []*results.File
	auditRows   map[string][]results.SummaryRow
	auditPaths  map[string]string
	auditByID   map[string]*results.File
	folders     map[results.Benchmark]*content.FolderBenchmark
	diagnoses   datasets.Diagnoses
	envCmp      *results.EnvironmentComparison
	verifiedSet *aggregate.VerifiedSet
	// moreVerified are Options.MoreVerifiedSets' sets, those present.
	moreVerified []*aggregate.VerifiedSet
}

// loadInputs reads Build's inputs (Options); errors name the file.
func loadInputs(o Options, logf func(string, ...any)) (*buildInputs, error) {
	loaded, err := LoadResults(o.ResultsDir)
	if err != nil {
		return nil, err
	}
	files, paths, invalid, codeKeys, rows := loaded.Files, loaded.Paths, loaded.Invalid, loaded.CodeKeys, loaded.Rows
	loaded = nil
	logf("site: %d results files in %s", len(files), o.ResultsDir)
	read, err := ReadSubmissions(o.SubmissionsDir, o.VerifiedDir)
	if err != nil {
		return nil, err
	}
	subFiles, subs := read.Files, read.Valid
	for _, f := range subFiles {
		if other, dup := paths[f.Run.RunID]; dup {
			return nil, fmt.Errorf("run %s: in %s and in %s", f.Run.RunID, other, f.Path)
		}
		paths[f.Run.RunID] = f.Path
		files = append(files, f)
		keys := make([]string, len(f.Questions))
		for i := range f.Questions {
			keys[i] = content.CodeKey(f.Questions[i].Code)
		}
		codeKeys[f.Run.RunID] = keys
	}
	if len(subs) > 0 {
		logf("site: %d submissions in %s (%d runs and verified records)", len(subs), o.SubmissionsDir, len(subFiles))
	}
	audit, auditRows, auditPaths, err := loadAudit(o.AuditDir, paths)
	if err != nil {
		return nil, err
	}
	folders, err := loadBenchmarkFolders(o.BenchmarkFolders)
	if err != nil {
		return nil, err
	}
	diagnoses, err := datasets.ReadDiagnoses(o.Diagnoses)
	if err != nil {
		return nil, err
	}
	envCmp, err := results.ReadEnvironmentComparison(o.EnvironmentComparison)
	if err != nil {
		return nil, err
	}
	if len(audit) > 0 {
		logf("site: %d benchmark audit results files in %s", len(audit), o.AuditDir)
	}
	verifiedSet, err := aggregate.ReadVerifiedSet(o.VerifiedSet)
	if err != nil {
		return nil, err
	}
	var moreVerified []*aggregate.VerifiedSet
	for _, p := range o.MoreVerifiedSets {
		vs, err := aggregate.ReadVerifiedSet(p)
		if err != nil {
			return nil, err
		}
		if vs != nil {
			moreVerified = append(moreVerified, vs)
		}
	}
	auditByID := map[string]*results.File{}
	for _, f := range audit {
		auditByID[f.Run.RunID] = f
	}
	return &buildInputs{files: files, paths: paths, invalid: invalid, codeKeys: codeKeys, rows: rows, read: read, subs: subs,
		audit: audit, auditRows: auditRows, auditPaths: auditPaths, auditByID: auditByID, folders: folders, diagnoses: diagnoses,
		envCmp: envCmp, verifiedSet: verifiedSet, moreVerified: moreVerified}, nil
}

// checkRuns checks the runs the releases list against what was read: a
// listed run that is missing from its submission folder, invalid, or (with
// Frozen) of a submission changed since the release is an error; other
// invalid files are errors with Strict, else skipped with a warning (rep).
func checkRuns(ctx context.Context, o Options, in *buildInputs, rep *Report) error {
	read, invalid := in.read, in.invalid
	listed := map[string]string{} // run id → the newest release listing it
	for _, r := range o.Releases {
		for _, id := range r.Runs {
			listed[id] = r.Version
		}
	}
	// A release's runs of submissions come from their folders; an invalid
	// or missing folder is named with the release and the run.
	errs, warnings := checkListedSubmissionRuns(o.Releases, read, o.SubmissionsDir, o.AllowIncomplete)
	rep.Warnings = append(rep.Warnings, warnings...)
	if o.Frozen {
		errs = append(errs, releasedSubmissionsChanged(ctx, o)...)
	}
	listedFolders := map[string]bool{}
	for id := range listed {
		if f := SubmissionFolder(id); f != "" {
			listedFolders[f] = true
		}
	}
	for _, iv := range read.Invalid {
		if !listedFolders[filepath.Base(iv.Path)] { // else an error above
			invalid = append(invalid, iv)
		}
	}
	for _, iv := range invalid {
		switch v, ok := listed[iv.RunID]; {
		case ok:
			errs = append(errs, fmt.Errorf("run %s, listed by release %s (%s), is invalid: %w", iv.RunID, v, release.File, iv.Err))
		case o.Strict:
			errs = append(errs, iv.Err)
		default:
			rep.Skipped = append(rep.Skipped, iv)
			if iv.RunID == "" {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("skipped %s: %v", iv.Path, iv.Err))
			} else {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("skipped invalid results file %s (run %s, in no release): %v", iv.Path, iv.RunID, iv.Err))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return nil
}

// releaseState is what Build knows of its editions while it plans them.
type releaseState struct {
	editions []*content.Edition
	links    []content.Link // newest first
	byID     map[string]*results.File
	paper    []paperonly.Value
}

// addReleases adds an edition per release (newest first) to st.editions, each
// rendered by the running code from the runs it lists; a release missing
// runs is an error unless AllowIncomplete.
func addReleases(o Options, rep *Report, in *buildInputs, st *releaseState) error {
	paths, codeKeys, subs, verifiedSet, auditRows, diagnoses, auditPaths, auditByID := in.paths, in.codeKeys, in.subs, in.verifiedSet, in.auditRows, in.diagnoses, in.auditPaths, in.auditByID
	links, paper, byID := st.links, st.paper, st.byID
	for i := len(o.Releases) - 1; i >= 0 && !o.PreviewOnly; i-- {
		r := o.Releases[i]
		e := &content.Edition{Path: r.Version, Version: r.Version, Title: r.Title, Date: r.Date, GeneratorCommit: r.GeneratorCommit,
			Frozen: true, Notes: r.Notes, Switcher: links, Benchmark: o.Benchmark, Paper: paper,
			ResultsPaths: map[string]string{}, CodeKeys: codeKeys, Submissions: releaseSubmissions(subs, r)}
		if i < len(o.Releases)-1 {
			e.Newest = links[0]
		}
		errata, counts, err := release.ErrataOf(o.RepoRoot, r.Version)
		if err != nil {
			return fmt.Errorf("release %s: %w", r.Version, err)
		}
		for _, x := range errata {
			e.Errata = append(e.Errata, content.ErratumNote{ID: x.ID, Date: x.Date, Commit: x.Commit, Text: x.Text, Numbers: counts[x.ID]})
		}
		if len(errata) > 0 {
			if e.ErrataCSV, err = os.ReadFile(release.ErrataPath(o.RepoRoot, r.Version)); err != nil {
				return err
			}
		}
		if r.VerifiedSet != "" {
			vs, err := releaseVerifiedSet(o.RepoRoot, verifiedSet, r.VerifiedSet)
			if err != nil {
				return fmt.Errorf("release %s (%s): %w", r.Version, release.File, err)
			}
			e.VerifiedSet, e.AuditRows = vs, auditRows
		}
		for _, id := range r.MoreVerifiedSets {
			var have *aggregate.VerifiedSet
			for _, vs := range in.moreVerified {
				if vs.ID == id {
					have = vs
				}
			}
			vs, err := releaseVerifiedSet(o.RepoRoot, have, id)
			if err != nil {
				return fmt.Errorf("release %s (%s): %w", r.Version, release.File, err)
			}
			e.MoreVerifiedSets, e.AuditRows = append(e.MoreVerifiedSets, vs), auditRows
		}
		if i > 0 {
			e.Previous, e.PreviousRuns, e.PreviousVerifiedSet = o.Releases[i-1].Version, o.Releases[i-1].Runs, o.Releases[i-1].VerifiedSet
			e.PreviousMoreVerifiedSets = o.Releases[i-1].MoreVerifiedSets
		}
		if r.ReferencePages {
			e.AuditPaths, e.Diagnoses = map[string]string{}, diagnoses
		}
		e.Files, e.Audit, e.Missing = releaseRuns(r, byID, auditByID)
		for _, f := range e.Files {
			e.ResultsPaths[f.Run.RunID] = paths[f.Run.RunID]
		}
		if e.AuditPaths != nil {
			for _, f := range e.Audit {
				e.AuditPaths[f.Run.RunID] = auditPaths[f.Run.RunID]
			}
		}
		switch {
		case len(e.Files) == 0 && len(r.Runs) > 0:
			e.Missing = nil
			e.DataHint = fmt.Sprintf("None of the %d results files of release %s are present, so its pages are empty. %s", len(r.Runs), r.Version, o.DataHint)
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("release %s: none of its %d runs is present; built empty", r.Version, len(r.Runs)))
		case len(e.Missing) > 0 && !o.AllowIncomplete:
			return fmt.Errorf("release %s (%s): %d of its %d runs are missing from %s, e.g. %s; import them (make import) or build with -allow-incomplete",
				r.Version, release.File, len(e.Missing), len(r.Runs), o.ResultsDir, e.Missing[0])
		case len(e.Missing) > 0:
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("release %s: %s missing", r.Version, words.Count(len(e.Missing), "run", "runs")))
		}
		st.editions = append(st.editions, e)
	}
	return nil
}

// releaseRuns sorts the runs release r lists, in r's order, into those of
// the results files and submissions (byID: run id → file), those of the
// benchmark audit (auditByID) and those present in neither (missing): the
// runs a build shows in r's edition.
func releaseRuns(r release.Release, byID, auditByID map[string]*results.File) (files, audit []*results.File, missing []string) {
	for _, id := range r.Runs {
		if f := auditByID[id]; f != nil {
			audit = append(audit, f)
		} else if f := byID[id]; f != nil {
			files = append(files, f)
		} else {
			missing = append(missing, id)
		}
	}
	return files, audit, missing
}

// render runs Hugo over the generated sources into a folder beside
// o.OutDir, checks each release that has all its runs against its numbers
// manifest (with Frozen), writes /latest/ (redirects to the newest
// release) and puts the whole site in place of o.OutDir.
func render(ctx context.Context, o Options, rep *Report, logf func(string, ...any), dirs content.Dirs, st *releaseState, complete map[string]bool) (*Report, error) {
	tmp := strings.TrimRight(o.OutDir, string(filepath.Separator)) + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	logf("site: running Hugo")
	hs, err := hugo.Build(ctx, hugo.Options{RepoRoot: o.RepoRoot, WorkDir: o.WorkDir, Content: dirs.Content, Static: dirs.Static,
		Destination: tmp, Go: o.Go, PassBytes: o.HugoPassBytes})
	if err != nil {
		return nil, err
	}
	rep.HugoPasses = hs.Passes
	logf("site: Hugo built the pages in %s", words.Count(hs.Passes, "pass", "passes"))
	// Every edition's ranked tables show what their CSVs hold (the numbers
	// manifests are read from the CSVs): a template that puts a number in
	// the wrong row or column fails here.
	shown := map[string]release.Numbers{} // by edition path, for the releases' check below
	for _, e := range st.editions {
		dir := filepath.Join(tmp, e.Path)
		ns, err := release.ReadEditionNumbers(dir)
		if err != nil {
			return nil, fmt.Errorf("edition %s: %w", e.Path, err)
		}
		n, diffs, err := release.CheckShownTables(dir, ns)
		if err != nil {
			return nil, fmt.Errorf("edition %s: %w", e.Path, err)
		}
		if len(diffs) > 0 {
			more := ""
			if len(diffs) > 10 {
				more, diffs = fmt.Sprintf("\n  … and %d more", len(diffs)-10), diffs[:10]
			}
			return nil, fmt.Errorf("edition %s: its ranked tables show other numbers than their CSV downloads:\n  %s%s", e.Path, strings.Join(diffs, "\n  "), more)
		}
		logf("site: edition %s: its ranked tables show their CSVs' numbers (%s)", e.Path, words.Count(n, "cell", "cells"))
		shown[e.Path] = ns
	}
	if o.Frozen {
		for _, e := range st.editions {
			if !e.Frozen || !complete[e.Path] || e.Version == o.NewRelease {
				continue // the preview, a release built without all its runs, or the one being cut
			}
			chk, err := release.CheckEditionNumbers(o.RepoRoot, e.Version, shown[e.Path])
			if err != nil && o.RecordErratum != "" && chk != nil && len(chk.Differences) > 0 {
				n, rerr := release.RecordErrata(o.RepoRoot, e.Version, o.RecordErratum, chk.Differences)
				if rerr != nil {
					return nil, rerr
				}
				logf("site: release %s: recorded %s as erratum %s in %s (its pages list it from the next build on)", e.Version, words.Count(n, "number", "numbers"), o.RecordErratum, release.ErrataPath(o.RepoRoot, e.Version))
				chk, err = release.CheckEditionNumbers(o.RepoRoot, e.Version, shown[e.Path])
			}
			if err != nil {
				return nil, err
			}
			rep.Verified = append(rep.Verified, e.Version)
			corrected := 0
			for _, n := range chk.Corrected {
				corrected += n
			}
			logf("site: release %s: every number of its manifest is shown as frozen (%s by errata; %s not in it)", e.Version,
				words.Count(corrected, "number corrected", "numbers corrected"), words.Count(chk.Extra, "cell", "cells"))
		}
	}
	if rep.Latest != "" {
		if err := writeLatest(tmp, rep.Latest); err != nil {
			return nil, err
		}
	}
	if rep.Pages, err = countPages(tmp); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(o.OutDir); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, o.OutDir); err != nil {
		return nil, err
	}
	logf("site: %d pages in %s", rep.Pages, o.OutDir)
	return rep, nil
}

// needPreview reports whether the runs present (results files and the
// benchmark audit's) differ from the newest release's runs (or there is no
// release): then a preview edition is built.
func needPreview(rs []release.Release, files, audit []*results.File) bool {
	if len(rs) == 0 {
		return true
	}
	want := slices.Clone(rs[len(rs)-1].Runs)
	var have []string
	for _, f := range append(slices.Clone(files), audit...) {
		have = append(have, f.Run.RunID)
	}
	slices.Sort(want)
	slices.Sort(have)
	return len(have) > 0 && !slices.Equal(want, have)
}

// Loaded is what LoadResults read from a results directory.
type Loaded struct {
	// Files are the valid files, in path order, each with its run record
	// and no rows (results.SummaryOptions.Compact): a tool-usage file's are
	// in Rows, and the question pages read their texts again, file by file.
	Files []*results.File
	// Rows maps each valid tool-usage file's run id to its rows' summary
	// columns (results.SummaryRow), in row order: what aggregate.BuildRows
	// takes.
	Rows map[string][]results.SummaryRow
	// Paths maps each valid file's run id to its path.
	Paths map[string]string
	// CodeKeys maps each valid tool-usage file's run id to content.CodeKey of
	// each row's code, in row order.
	CodeKeys map[string][]string
	// Invalid are the files that could not be read, failed validation or
	// failed results/check.AgainstManifest.
	Invalid []results.Invalid
}

// LoadResults reads every results file under dir as a build does
// (results.ScanDir: the run records and the summary columns, up to
// GOMAXPROCS files at once, each file's rows kept compact) and checks
// tool-usage rows against the benchmark manifest
// (results/check.AgainstManifest, on each file's rows before they are
// compacted). The error is a walk error or a duplicate run id; invalid
// files are in Loaded.Invalid.
func LoadResults(dir string) (*Loaded, error) {
	sums, invalid, err := results.ScanDir(dir, results.SummaryOptions{CodeKey: content.CodeKey, Check: check.AgainstManifest, Compact: true})
	if err != nil {
		return nil, err
	}
	l := &Loaded{Paths: map[string]string{}, CodeKeys: map[string][]string{}, Rows: map[string][]results.SummaryRow{}, Invalid: invalid}
	for _, s := range sums {
		f := s.File
		if err := s.CheckErr; err != nil {
			l.Invalid = append(l.Invalid, results.Invalid{Path: f.Path, RunID: f.Run.RunID, Err: fmt.Errorf("%s: %w", f.Path, err)})
			continue
		}
		l.Paths[f.Run.RunID] = f.Path
		if s.CodeKeys != nil {
			l.CodeKeys[f.Run.RunID] = s.CodeKeys
		}
		if s.Rows != nil {
			l.Rows[f.Run.RunID] = s.Rows
		}
		l.Files = append(l.Files, f)
	}
	return l, nil
}

// loadAudit reads the benchmark audit's results files under dir (Options.
// AuditDir) as LoadResults does; "" or an absent dir gives none. A file that
// cannot be read or fails validation, a run that is not an audit run
// (provenance audit), and a run id also among present (the results files'
// run ids → paths) are errors naming the file. It returns the files, their
// rows and their paths by run id.
func loadAudit(dir string, present map[string]string) ([]*results.File, map[string][]results.SummaryRow, map[string]string, error) {
	if dir == "" {
		return nil, nil, nil, nil
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	l, err := LoadResults(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	var errs []error
	for _, iv := range l.Invalid {
		errs = append(errs, fmt.Errorf("benchmark audit results file %v", iv.Err))
	}
	for _, f := range l.Files {
		switch {
		case f.Run.Provenance.Kind != results.ProvenanceAudit:
			errs = append(errs, fmt.Errorf("%s: run %s has provenance kind %q; %s holds only the benchmark audit's runs (provenance %q, cmd/audit -publish)",
				l.Paths[f.Run.RunID], f.Run.RunID, f.Run.Provenance.Kind, dir, results.ProvenanceAudit))
		case present[f.Run.RunID] != "":
			errs = append(errs, fmt.Errorf("run %s: in %s and in %s", f.Run.RunID, present[f.Run.RunID], l.Paths[f.Run.RunID]))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, nil, err
	}
	return l.Files, l.Rows, l.Paths, nil
}

func countPages(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
			n++
		}
		return err
	})
	return n, err
}

// VerifiedSetsDir holds the verified question sets (docs/benchmark-audit.md),
// one file <id>.json each, relative to the repository root.
const VerifiedSetsDir = "benchmarks/mattools-tool-usage"

// releaseVerifiedSet returns the verified question set id that a release
// records: the build's own (Options.VerifiedSet) when it has that id, else
// the committed file VerifiedSetsDir/<id>.json under root. A set that is
// absent or has another id is an error naming the file.
func releaseVerifiedSet(root string, have *aggregate.VerifiedSet, id string) (*aggregate.VerifiedSet, error) {
	if have != nil && have.ID == id {
		return have, nil
	}
	p := filepath.Join(root, VerifiedSetsDir, id+".json")
	vs, err := aggregate.ReadVerifiedSet(p)
	if err != nil {
		return nil, err
	}
	if vs == nil {
		return nil, fmt.Errorf("it shows the verified question set %s, but %s does not exist", id, p)
	}
	if vs.ID != id {
		return nil, fmt.Errorf("it shows the verified question set %s, but %s is the set %s", id, p, vs.ID)
	}
	return vs, nil
}

// VerifiedSetID returns the id of the verified question set in the file at
// path (aggregate.ReadVerifiedSet), "" when path is empty or absent.
func VerifiedSetID(path string) (string, error) {
	vs, err := aggregate.ReadVerifiedSet(path)
	if err != nil || vs == nil {
		return "", err
	}
	return vs.ID, nil
}

// loadBenchmarkFolders loads each folder benchmark (datasets.LoadFolder)
// with its review.html, if it has one, by benchmark name.
func loadBenchmarkFolders(dirs []string) (map[results.Benchmark]*content.FolderBenchmark, error) {
	out := map[results.Benchmark]*content.FolderBenchmark{}
	for _, dir := range dirs {
		b, m, err := datasets.LoadFolder(dir)
		if err != nil {
			return nil, fmt.Errorf("benchmark folder %s: %w", dir, err)
		}
		name := results.Benchmark(m.Name)
		if out[name] != nil {
			return nil, fmt.Errorf("benchmark folder %s: benchmark %s is given twice", dir, name)
		}
		fb := &content.FolderBenchmark{Questions: b.Questions}
		switch review, err := os.ReadFile(filepath.Join(dir, "review.html")); {
		case err == nil:
			fb.Review = review
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("benchmark folder %s: %w", dir, err)
		}
		out[name] = fb
	}
	return out, nil
}

// latestRedirect is the page /latest/<rel> holds for the page <rel> of the
// newest release: a redirect (keeping the query and the #anchor), so that
// every /latest/ link resolves while no edition is published twice.
var latestRedirect = template.Must(template.New("latest").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Redirecting to release {{ .Version }}</title>
<meta name="robots" content="noindex">
<link rel="canonical" href="{{ .Target }}">
<meta http-equiv="refresh" content="0; url={{ .Target }}">
<script>location.replace({{ .Target }} + location.search + location.hash)</script>
</head><body><p>/latest/ is the newest release, <a href="{{ .Target }}">{{ .Version }}</a>.</p></body></html>
`))

// notFound is the site's 404 page (GitHub Pages serves 404.html for a missing
// path): a path under /latest/ that is not a page (a CSV, a figure, a zip)
// goes to the same path in the newest release; anything else says so.
var notFound = template.Must(template.New("404").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Page not found · MatTools leaderboard</title>
<meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }</style>
<meta name="site-base" content="">
<script>(function () {
  // The site's base path: written into the meta above by scripts/publish.sh ("/REPO/" on a project site); a
  // build served elsewhere leaves it empty, and the path before an edition's folder (v1.2/, preview/) or the
  // host's root stands for it. The links get their href here: the page is served at any depth.
  var p = location.pathname, base = document.querySelector('meta[name="site-base"]').content;
  var i = base ? (p.indexOf(base + "{{ .Latest }}/") === 0 ? base.length - 1 : -1) : p.lastIndexOf("/{{ .Latest }}/");
  if (i >= 0) { location.replace(p.slice(0, i) + "/" + {{ .Version }} + "/" + p.slice(i + {{ .Skip }}) + location.search + location.hash); }
  var m = p.match(/^(.*?\/)(v[0-9][0-9.]*|preview)\//);
  document.addEventListener("DOMContentLoaded", function () {
    var root = base || (m ? m[1] : "/"), home = document.getElementById("home"), newest = document.getElementById("newest");
    home.href = root;
    newest.href = root + {{ .Version }} + "/";
  });
})();</script>
</head><body><h1>Page not found</h1><p>This page is not on the leaderboard. Start at its <a id="home">home page</a> or the newest release, <a id="newest">{{ .Version }}</a>.</p></body></html>
`))

// writeLatest writes /latest/ into site: for every page (index.html) of the
// newest release version, a redirect page at the same path under latest/,
// and the root 404.html that sends other /latest/ paths to that release.
func writeLatest(site, version string) error {
	src := filepath.Join(site, version)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "index.html" {
			return err
		}
		rel, err := filepath.Rel(src, filepath.Dir(p))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		depth := 1 // latest/
		target := "../" + version + "/"
		if rel != "." {
			depth += strings.Count(rel, "/") + 1
			target = strings.Repeat("../", depth) + version + "/" + rel + "/"
		}
		var buf bytes.Buffer
		if err := latestRedirect.Execute(&buf, map[string]string{"Version": version, "Target": target}); err != nil {
			return err
		}
		dst := filepath.Join(site, LatestPath, filepath.FromSlash(rel), "index.html")
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, buf.Bytes(), 0o644)
	})
	if err != nil {
		return fmt.Errorf("latest/: %w", err)
	}
	var buf bytes.Buffer
	if err := notFound.Execute(&buf, map[string]any{"Latest": LatestPath, "Version": version, "Skip": len(LatestPath) + 2}); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(site, "404.html"), buf.Bytes(), 0o644)
}

// FreezeNumbers writes the numbers manifest of release version (o.Releases,
// which must list it) from the pages its own generator commit builds
// (release.BuildFromCommit, as a release was rebuilt before it was frozen in
// numbers), after checking them against the release's byte manifest
// (release.CheckManifest: site/releases/<version>.sha256, with the data root
// it was cut from): so the numbers are those the release showed, never the
// running renderer's. It returns the number of table cells written.
func FreezeNumbers(ctx context.Context, o Options, version string) (int, error) {
	logf := func(format string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", a...)
		}
	}
	i := slices.IndexFunc(o.Releases, func(r release.Release) bool { return r.Version == version })
	if i < 0 {
		return 0, fmt.Errorf("-freeze-numbers %s: no such release in %s", version, release.File)
	}
	if o.Benchmark == nil {
		return 0, fmt.Errorf("-freeze-numbers %s: needs the benchmark data the release was cut from (-data)", version)
	}
	if sums, _ := release.ManifestPaths(o.RepoRoot, version); !fileExists(sums) {
		return 0, fmt.Errorf("-freeze-numbers %s: no byte manifest %s: only a release cut when releases were frozen in bytes (v1.0-v1.3) is frozen this way; a release cut since has its numbers manifest from its cut", version, sums)
	}
	if err := release.CommitAvailable(ctx, o.RepoRoot, o.Releases[i].GeneratorCommit); err != nil {
		return 0, fmt.Errorf("-freeze-numbers %s: %w", version, err)
	}
	in, err := loadInputs(o, logf)
	if err != nil {
		return 0, err
	}
	cb := release.CommitBuild{RepoRoot: o.RepoRoot, Releases: o.Releases[:i+1], Present: in.paths, AllowIncomplete: o.AllowIncomplete, Go: o.Go, Log: logf,
		Submissions: listsSubmissions(o.Releases[:i+1]), SubmissionsRoot: SubmissionsRoot, VerifiedRoot: VerifiedRoot, DataRoot: o.Benchmark.Root,
		IsSubmissionRun: func(id string) bool { return SubmissionFolder(id) != "" }}
	tmp, err := os.MkdirTemp("", "mattools-freeze-"+version+"-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, version)
	if err := release.BuildFromCommit(ctx, cb, dir); err != nil {
		return 0, err
	}
	if err := release.CheckManifest(o.RepoRoot, version, dir, o.Benchmark); err != nil {
		return 0, fmt.Errorf("-freeze-numbers %s: the pages its commit built are not those it was cut with: %w", version, err)
	}
	return release.WriteNumbers(o.RepoRoot, version, dir)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
