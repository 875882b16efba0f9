// Command build-site builds the static leaderboard from results files:
//
//	build-site [-results build/results] [-out public] [-data $MATTOOLS_DATA]
//
// Every release is rendered by the running code from the runs it lists, and
// every value and rank of its tables is checked against its numbers manifest
// (site/releases/<version>.numbers.csv; site/release.CheckNumbers). An
// invalid results file that no release lists is skipped and reported; -strict
// makes it an error. -preview-only builds only /preview/ and the root.
//
// -freeze-numbers vX.Y writes a release's numbers manifest from the pages its
// own generator commit builds, checked against its byte manifest
// (site/releases/<version>.sha256): how v1.0-v1.3, cut when releases were
// frozen in bytes, got theirs.
//
// With -cut-release vX.Y -date YYYY-MM-DD it instead records a new release in
// site/releases.json (the runs present under -results, the runs of every
// valid submission under -submissions and their verified records under
// -verified, and the current commit), builds the site, and writes the
// release's manifest. An invalid submission folder fails the cut unless
// -exclude-submission FOLDER (repeatable) leaves it out.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/mattools-leaderboard/leaderboard/cmd/internal/cliflags"
	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dataHint says exactly how to get the benchmark data.
func dataHint() string {
	return fmt.Sprintf("To get the data: git clone https://github.com/Grenzlinie/MatTools /path/to/MatTools && "+
		"git -C /path/to/MatTools checkout %s, then run: MATTOOLS_DATA=/path/to/MatTools make site", datasets.PinnedCommit)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("build-site", flag.ContinueOnError)
	fl.SetOutput(stderr)
	resultsDir := fl.String("results", "build/results", "directory searched recursively for results files (*.parquet)")
	out := fl.String("out", "public", "output directory (replaced as a whole)")
	subs := fl.String("submissions", "submissions", "directory of submission folders (SUBMITTING.md); absent: none")
	verifiedSet := fl.String("verified-set", "benchmarks/mattools-tool-usage/verified-v1.json", "the verified question set (docs/benchmark-audit.md): the home page of the preview and of a release cut with it ranks every mattools-v1-strict configuration on it from the stored per-property outcomes; absent: none")
	moreVerifiedSets := fl.String("more-verified-sets", "benchmarks/mattools-tool-usage/verified-v2.json", "further verified question sets, comma-separated (docs/benchmark-audit.md): each gets a table after -verified-set's on the preview's home page (and on that of a release cut with them), saying what differs from the one before and how ranks move; absent files: none")
	verified := fl.String("verified", "verified", "directory of the verified records of submissions (validate-submission -record); absent: none")
	auditDir := fl.String("audit", "benchmarks/mattools-tool-usage/audit", "directory of the benchmark audit's committed results files (make audit AUDIT_FLAGS=-publish …): the unranked reference-solution and baseline rows; absent: none")
	var folders []string
	fl.Func("benchmark-folder", "a folder benchmark's folder (benchmark.json; as synthesize -layout writes it): its page lists its questions and links its review.html (repeatable)", func(v string) error {
		folders = append(folders, v)
		return nil
	})
	diagnoses := fl.String("diagnoses", "benchmarks/mattools-tool-usage/diagnoses.csv", "the benchmark audit's diagnoses (question,property,category,evidence): the preview's question pages show each beside the reference solution's failed property; absent: none")
	envCmp := fl.String("environment-differences", "", "the published answers whose verdicts differ between the pinned and the tasks environment (make import writes it), listed on the preview's methodology page; default <results>/imported/"+results.EnvironmentComparisonFile+"; absent: none")
	work := fl.String("work", "build/site", "directory for the generated Hugo sources (rewritten)")
	data := cliflags.Data(fl, nil, ", for the question pages")
	repo := fl.String("repo", "", "repository root (default: found from the working directory)")
	commit := fl.String("commit", "", "commit of this build's code (default: git rev-parse HEAD)")
	incomplete := fl.Bool("allow-incomplete", false, "build releases even when some of their runs are missing")
	cut := fl.String("cut-release", "", "record a new release `vX.Y` of the runs present in "+release.File+", then build the site and write the release's manifest")
	date := fl.String("date", "", "release date YYYY-MM-DD (with -cut-release)")
	title := fl.String("title", "", "release title (with -cut-release)")
	var exclude folderList
	fl.Var(&exclude, "exclude-submission", "with -cut-release: leave the submission `folder` (a folder name under -submissions) out of the release; repeatable")
	strict := fl.Bool("strict", false, "fail on any invalid results file (default: skip and report those that no release lists)")
	recordErratum := fl.String("record-erratum", "", "record every number a release shows otherwise than its numbers manifest as a correction by erratum `id` (described in "+release.ErrataFile+") in site/releases/<version>"+release.ErrataSuffix+", instead of failing; review and commit the files")
	var freeze folderList
	fl.Var(&freeze, "freeze-numbers", "write the numbers manifest of release `vX.Y` from the pages its own generator commit builds (checked against its .sha256 manifest; needs -data as the release was cut); repeatable")
	previewOnly := fl.Bool("preview-only", false, "build only the preview of every run present and the root page (no release, no /latest/, no manifest check): the quick look at new runs (make preview)")
	serve := fl.String("serve", "", "serve -out on `addr` (e.g. 127.0.0.1:8080) instead of building")
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "build-site: unexpected arguments %q\n", fl.Args())
		return exitUsage
	}
	if *serve != "" {
		if err := serveDir(ctx, *serve, *out, stdout); err != nil {
			fmt.Fprintln(stderr, "build-site:", err)
			return exitError
		}
		return exitOK
	}
	root := *repo
	if root == "" {
		var err error
		if root, err = findRepoRoot(); err != nil {
			fmt.Fprintln(stderr, "build-site:", err)
			return exitError
		}
	}
	if *commit == "" {
		*commit = gitCommit(root)
	}
	if len(exclude) > 0 && *cut == "" {
		fmt.Fprintln(stderr, "build-site: -exclude-submission is for -cut-release only: a build shows what the releases list, and every valid submission on the preview")
		return exitUsage
	}
	if *cut != "" && *data == "" {
		fmt.Fprintf(stderr, "build-site: -cut-release needs the benchmark data (-data or %s): a release has question pages\n", datasets.EnvVar)
		return exitUsage
	}
	var bench *datasets.Benchmark
	if *data == "" {
		fmt.Fprintf(stderr, "build-site: %s is not set: building without question pages. %s\n", datasets.EnvVar, dataHint())
	} else {
		var err error
		if bench, err = datasets.Load(*data); err != nil {
			fmt.Fprintln(stderr, "build-site:", err)
			return exitError
		}
	}
	if *envCmp == "" {
		*envCmp = filepath.Join(*resultsDir, "imported", results.EnvironmentComparisonFile)
	}
	opts := site.Options{BenchmarkFolders: folders, EnvironmentComparison: *envCmp, ResultsDir: *resultsDir, SubmissionsDir: *subs, VerifiedDir: *verified, AuditDir: *auditDir, Diagnoses: *diagnoses, VerifiedSet: *verifiedSet, MoreVerifiedSets: splitList(*moreVerifiedSets), Benchmark: bench, DataHint: dataHint(), RepoRoot: root,
		OutDir: *out, WorkDir: *work, GeneratorCommit: *commit, AllowIncomplete: *incomplete, Frozen: true, Strict: *strict, Log: stderr, PreviewOnly: *previewOnly, RecordErratum: *recordErratum}
	if *recordErratum != "" {
		if err := release.CheckErratumID(root, *recordErratum); err != nil { // before a build that would end in it
			fmt.Fprintln(stderr, "build-site: -record-erratum:", err)
			return exitUsage
		}
	}
	if len(freeze) > 0 {
		rs, err := site.DefaultReleases()
		if err != nil {
			fmt.Fprintln(stderr, "build-site:", err)
			return exitError
		}
		opts.Releases = rs
		for _, v := range freeze {
			n, err := site.FreezeNumbers(ctx, opts, v)
			if err != nil {
				fmt.Fprintln(stderr, "build-site:", err)
				return exitError
			}
			fmt.Fprintf(stdout, "release %s: wrote %s (%d table cells, from the pages its generator commit builds)\n", v, release.NumbersPath(root, v), n)
		}
		return exitOK
	}
	if *previewOnly && *cut != "" {
		fmt.Fprintln(stderr, "build-site: -preview-only builds no release, so it cannot cut one (-cut-release)")
		return exitUsage
	}
	if *cut != "" {
		if err := cutRelease(ctx, opts, cutOptions{version: *cut, date: *date, title: *title, exclude: exclude}, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "build-site:", err)
			return exitError
		}
		return exitOK
	}
	rep, err := site.Build(ctx, opts)
	if err != nil {
		fmt.Fprintln(stderr, "build-site:", err)
		return exitError
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(stderr, "build-site: warning:", w)
	}
	if rep.Runs == 0 {
		fmt.Fprintf(stderr, "build-site: no results files in %s: the site is empty. %s\n", *resultsDir, dataHint())
	}
	fmt.Fprintf(stdout, "built %s: %d pages, %d runs, editions %s, latest %s\n", *out, rep.Pages, rep.Runs,
		strings.Join(rep.Editions, ", "), valueOr(rep.Latest, "none"))
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(stdout, "skipped %d invalid results files (in no release; -strict fails instead):\n", len(rep.Skipped))
		for _, iv := range rep.Skipped {
			fmt.Fprintf(stdout, "  %s (run %s): %v\n", iv.Path, iv.RunID, iv.Err)
		}
	}
	if len(rep.Verified) > 0 {
		fmt.Fprintf(stdout, "releases showing their frozen numbers (%s/<version>%s): %s\n", release.ManifestDir, release.NumbersSuffix, strings.Join(rep.Verified, ", "))
	}
	return exitOK
}

// serveDir serves dir over HTTP on addr until ctx ends. Only loopback
// addresses are accepted: this is a preview server, not a web server.
func serveDir(ctx context.Context, addr, dir string, stdout io.Writer) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-serve %s: only loopback addresses (127.0.0.1, ::1, localhost) are served", addr)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return fmt.Errorf("%s has no index.html: build the site first (make site)", dir)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(stdout, "serving %s on http://%s/ (Ctrl-C to stop)\n", dir, ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func valueOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// findRepoRoot walks up from the working directory to the directory holding tools/go.mod.
func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (with tools/go.mod) not found above the working directory; use -repo")
		}
		dir = parent
	}
}

func gitCommit(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// folderList is a repeatable flag of folder names.
type folderList []string

func (l *folderList) String() string { return strings.Join(*l, ",") }

func (l *folderList) Set(v string) error {
	if v == "" || strings.ContainsAny(v, `/\`) || v == "." || v == ".." {
		return fmt.Errorf("%q is not a submission folder name (<date>_<org>_<model>_<system>, no path)", v)
	}
	*l = append(*l, v)
	return nil
}

// cutOptions are what -cut-release records.
type cutOptions struct {
	version, date, title string
	// exclude are submission folders left out of the release.
	exclude []string
}

// cutRelease appends a release of every valid run present to
// site/releases.json: the runs of o.ResultsDir, and the runs of every valid
// submission of o.SubmissionsDir with the verified records accepted for it
// (site.ReadSubmissions), except the folders c.exclude names. Every results
// file must be valid, and every submission folder not excluded; the
// submissions included must be those of the repository's site.SubmissionsRoot
// and site.VerifiedRoot as committed in the generator commit, as the release
// records them. It then builds the site with the release and writes the
// release's numbers manifest (release.WriteNumbers) from the built
// /<version>/: every later build checks that the release shows them. Errors name the file, folder or flag at fault.
func cutRelease(ctx context.Context, o site.Options, c cutOptions, stdout, stderr io.Writer) error {
	root, resultsDir, commit := o.RepoRoot, o.ResultsDir, o.GeneratorCommit
	version, date, title := c.version, c.date, c.title
	if commit == "" {
		return errors.New("-cut-release needs the commit of the generator (-commit, or run inside the git checkout)")
	}
	if out, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--", "layouts", "content", "static", "site", "cmd").Output(); len(out) > 0 {
		return fmt.Errorf("the generator has uncommitted changes; commit them first so that %s records the code that built the release:\n%s", commit, out)
	}
	files, invalid, err := results.ReadDirReport(resultsDir)
	if err != nil {
		return err
	}
	if len(invalid) > 0 {
		return fmt.Errorf("%d invalid results files in %s, e.g. %v: a release lists only valid runs; fix or remove them", len(invalid), resultsDir, invalid[0].Err)
	}
	for _, f := range files {
		// A release finds a submission's runs by their run ids' namespace
		// (site.SubmissionFolder) and takes them from submissions/ and
		// verified/ only, as committed; such a file elsewhere (e.g. cmd/rescore
		// of a submission into build/results/rescored) is not one of them.
		if folder := site.SubmissionFolder(f.Run.RunID); folder != "" {
			return fmt.Errorf("results file %s (run %s) is in the namespace of submission %s, but a release takes a submission's runs and verified records only from %s/ and %s/ (validate-submission -record writes the records there): move it out of %s",
				f.Path, f.Run.RunID, folder, site.SubmissionsRoot, site.VerifiedRoot, resultsDir)
		}
	}
	subs, err := releaseSubmissions(ctx, o, commit, c.exclude)
	if err != nil {
		return err
	}
	if len(files) == 0 && len(subs) == 0 {
		return fmt.Errorf("no results files in %s and no submission in %s", resultsDir, o.SubmissionsDir)
	}
	path := filepath.Join(root, release.File)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rs, err := release.Parse(data)
	if err != nil {
		return err
	}
	// Its question pages show the reference solution (of the audit runs it
	// lists) with its diagnoses.
	r := release.Release{Version: version, Date: date, GeneratorCommit: commit, Title: title, ReferencePages: true}
	// The verified question set the build has (-verified-set) is shown by
	// the release too: its id is recorded with it.
	if r.VerifiedSet, err = site.VerifiedSetID(o.VerifiedSet); err != nil {
		return err
	}
	for _, p := range o.MoreVerifiedSets {
		id, err := site.VerifiedSetID(p)
		if err != nil {
			return err
		}
		if id != "" {
			r.MoreVerifiedSets = append(r.MoreVerifiedSets, id)
		}
	}
	for _, f := range files {
		r.Runs = append(r.Runs, f.Run.RunID)
	}
	for _, s := range subs {
		r.Runs = append(append(r.Runs, s.Runs...), s.Verified...)
	}
	nAudit := 0
	// The benchmark audit's committed runs (o.AuditDir) are listed too, so
	// that the release shows its reference-solution and baseline rows.
	if o.AuditDir != "" {
		if _, err := os.Stat(o.AuditDir); err == nil {
			audit, invalid, err := results.ReadDirReport(o.AuditDir)
			if err != nil {
				return err
			}
			if len(invalid) > 0 {
				return fmt.Errorf("%d invalid results files in %s, e.g. %v: fix them (make audit AUDIT_FLAGS=-publish …)", len(invalid), o.AuditDir, invalid[0].Err)
			}
			for _, f := range audit {
				r.Runs = append(r.Runs, f.Run.RunID)
			}
			nAudit = len(audit)
		}
	}
	if _, err := os.Stat(release.NumbersPath(root, version)); err == nil {
		return fmt.Errorf("%s exists already: a release is cut once", release.NumbersPath(root, version))
	}
	rs = append(rs, r)
	buf, err := json.MarshalIndent(map[string]any{"releases": rs}, "", "  ")
	if err != nil {
		return err
	}
	buf = append(buf, '\n')
	if _, err := release.Parse(buf); err != nil {
		return err
	}
	o.Releases, o.NewRelease = rs, version
	rep, err := site.Build(ctx, o)
	if err != nil {
		return fmt.Errorf("building release %s: %w", version, err)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(stderr, "build-site: warning:", w)
	}
	cells, err := release.WriteNumbers(root, version, filepath.Join(o.OutDir, version))
	if err != nil {
		return err
	}
	if err := results.WriteFileAtomic(path, buf, 0o644); err != nil {
		os.Remove(release.NumbersPath(root, version)) // the cut did not happen: it can be tried again
		return err
	}
	fmt.Fprintf(stdout, "recorded release %s (%s, commit %s, %d runs: %d results files of %s, %d of the benchmark audit, %d runs and verified records of %d submissions) in %s, built it into %s (%d pages) and wrote its numbers manifest %s (%d table cells); commit these files\n",
		version, date, commit, len(r.Runs), len(files), resultsDir, nAudit, len(r.Runs)-len(files)-nAudit, len(subs), release.File, o.OutDir, rep.Pages, release.NumbersPath(root, version), cells)
	for _, s := range subs {
		badge := "self-reported"
		if len(s.Verified) > 0 {
			badge = fmt.Sprintf("verified: %d verified records", len(s.Verified))
		}
		fmt.Fprintf(stdout, "  submission %s: %d runs (%s)\n", s.Folder, len(s.Runs), badge)
	}
	for _, f := range c.exclude {
		fmt.Fprintf(stdout, "  submission %s: excluded (-exclude-submission)\n", f)
	}
	return nil
}

// cutSubmission is a submission a release includes: its folder, its run
// ids and those of its accepted verified records.
type cutSubmission struct {
	Folder         string
	Runs, Verified []string
}

// releaseSubmissions returns the valid submissions of o.SubmissionsDir that
// a release cut at commit includes, with their accepted verified records:
// all but the folders exclude names, each of which must be a folder there.
// An invalid folder not excluded is an error naming it. The included
// folders must be the repository's site.SubmissionsRoot and
// site.VerifiedRoot folders, committed in commit as they are on disk.
func releaseSubmissions(ctx context.Context, o site.Options, commit string, exclude []string) ([]cutSubmission, error) {
	read, err := site.ReadSubmissions(o.SubmissionsDir, o.VerifiedDir)
	if err != nil {
		return nil, err
	}
	excluded := map[string]bool{}
	for _, f := range exclude {
		if st, err := os.Stat(filepath.Join(o.SubmissionsDir, f)); o.SubmissionsDir == "" || err != nil || !st.IsDir() {
			return nil, fmt.Errorf("-exclude-submission %s: no such submission folder in %s", f, valueOr(o.SubmissionsDir, "(no -submissions)"))
		}
		excluded[f] = true
	}
	var errs []error
	for _, iv := range read.Invalid {
		if !excluded[filepath.Base(iv.Path)] {
			errs = append(errs, fmt.Errorf("%s: %w", iv.Path, iv.Err))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%d invalid submission folders in %s: a release lists only valid runs; fix them, or leave them out with -exclude-submission FOLDER:\n%w",
			len(errs), o.SubmissionsDir, errors.Join(errs...))
	}
	var subs []cutSubmission
	for _, s := range read.Valid {
		if !excluded[s.Folder] {
			subs = append(subs, cutSubmission{Folder: s.Folder, Runs: s.Runs, Verified: s.Verified})
		}
	}
	if len(subs) == 0 {
		return nil, nil
	}
	// A rebuild by the generator commit reads them from its tree.
	for _, d := range []struct{ flag, dir, want string }{{"-submissions", o.SubmissionsDir, site.SubmissionsRoot}, {"-verified", o.VerifiedDir, site.VerifiedRoot}} {
		if !site.SameDir(d.dir, filepath.Join(o.RepoRoot, d.want)) {
			return nil, fmt.Errorf("%s is %q: a release includes submissions only from %s of the repository %s (a rebuild by the release's generator commit reads them from that commit's tree); or exclude them with -exclude-submission",
				d.flag, d.dir, d.want, o.RepoRoot)
		}
	}
	var folders []string
	for _, s := range subs {
		folders = append(folders, s.Folder)
	}
	diff, err := site.SubmissionChanges(ctx, o.RepoRoot, commit, folders, true)
	if err != nil {
		return nil, err
	}
	if diff != "" {
		return nil, fmt.Errorf("the submissions to include differ from their files in the generator commit %s (a rebuild by that commit reads them from its tree): commit them first, or leave a folder out with -exclude-submission FOLDER:\n%s", commit, diff)
	}
	return subs, nil
}

// splitList returns the comma-separated items of s, blanks trimmed and
// empty items left out.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
