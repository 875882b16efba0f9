// Command build-site builds the static leaderboard from results files:
//
//	build-site [-results build/results] [-out public] [-data $MATTOOLS_DATA]
//
// Every release is built by its own generator commit when the generator has
// changed since (see site.Options.Frozen), and its pages are checked against
// its manifest (site/releases/<version>.sha256). An invalid results file that
// no release lists is skipped and reported; -strict makes it an error.
//
// With -cut-release vX.Y -date YYYY-MM-DD it instead records a new release in
// site/releases.json (the runs present under -results and the current
// commit), builds the site, and writes the release's manifest.
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

	"github.com/mattools-leaderboard/leaderboard/datasets"
	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/site"
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
	verified := fl.String("verified", "verified", "directory of the verified records of submissions (validate-submission -record); absent: none")
	work := fl.String("work", "build/site", "directory for the generated Hugo sources (rewritten)")
	data := fl.String("data", os.Getenv(datasets.EnvVar), "MatTools data root for the question pages (default $"+datasets.EnvVar+")")
	repo := fl.String("repo", "", "repository root (default: found from the working directory)")
	commit := fl.String("commit", "", "commit of this build's code (default: git rev-parse HEAD)")
	incomplete := fl.Bool("allow-incomplete", false, "build releases even when some of their runs are missing")
	cut := fl.String("cut-release", "", "record a new release `vX.Y` of the runs present in "+site.ReleasesFile+" instead of building")
	date := fl.String("date", "", "release date YYYY-MM-DD (with -cut-release)")
	title := fl.String("title", "", "release title (with -cut-release)")
	strict := fl.Bool("strict", false, "fail on any invalid results file (default: skip and report those that no release lists)")
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
	opts := site.Options{ResultsDir: *resultsDir, SubmissionsDir: *subs, VerifiedDir: *verified, Benchmark: bench, DataHint: dataHint(), RepoRoot: root,
		OutDir: *out, WorkDir: *work, GeneratorCommit: *commit, AllowIncomplete: *incomplete, Frozen: true, Strict: *strict, Log: stderr}
	if *cut != "" {
		if err := cutRelease(ctx, opts, *cut, *date, *title, stdout); err != nil {
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
		fmt.Fprintf(stdout, "releases matching their manifests (%s): %s\n", site.ManifestDir, strings.Join(rep.Verified, ", "))
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

// cutRelease appends a release of every valid run present to
// site/releases.json, builds the site with it (the release's generator is
// the running code, so it is built in-process), and writes the release's
// manifest (site.WriteManifest) from the built /<version>/.
func cutRelease(ctx context.Context, o site.Options, version, date, title string, stdout io.Writer) error {
	root, resultsDir, commit := o.RepoRoot, o.ResultsDir, o.GeneratorCommit
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
	if len(files) == 0 {
		return fmt.Errorf("no results files in %s", resultsDir)
	}
	path := filepath.Join(root, site.ReleasesFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	rs, err := site.ParseReleases(data)
	if err != nil {
		return err
	}
	r := site.Release{Version: version, Date: date, GeneratorCommit: commit, Title: title}
	for _, f := range files {
		r.Runs = append(r.Runs, f.Run.RunID)
	}
	if _, err := os.Stat(filepath.Join(root, site.ManifestDir, version+".sha256")); err == nil {
		return fmt.Errorf("%s/%s.sha256 exists already: a release is cut once", site.ManifestDir, version)
	}
	rs = append(rs, r)
	buf, err := json.MarshalIndent(map[string]any{"releases": rs}, "", "  ")
	if err != nil {
		return err
	}
	buf = append(buf, '\n')
	if _, err := site.ParseReleases(buf); err != nil {
		return err
	}
	o.Releases = rs
	rep, err := site.Build(ctx, o)
	if err != nil {
		return fmt.Errorf("building release %s: %w", version, err)
	}
	if err := site.WriteManifest(root, version, filepath.Join(o.OutDir, version), o.Benchmark); err != nil {
		return err
	}
	if err := results.WriteFileAtomic(path, buf, 0o644); err != nil {
		return err
	}
	sumsPath, dataPath := site.ManifestPaths(root, version)
	fmt.Fprintf(stdout, "recorded release %s (%s, commit %s, %d runs) in %s, built it into %s (%d pages) and wrote its manifest %s and %s; commit these files\n",
		version, date, commit, len(r.Runs), site.ReleasesFile, o.OutDir, rep.Pages, sumsPath, dataPath)
	return nil
}
