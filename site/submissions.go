package site

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
	"github.com/mattools-leaderboard/leaderboard/site/content"
	"github.com/mattools-leaderboard/leaderboard/site/release"
)

// SubmissionsRoot and VerifiedRoot are the folders of the repository that
// hold the submissions (SUBMITTING.md) and their verified records. A release
// that lists runs of submissions is cut from these folders as committed, and
// a rebuild by its generator commit (Options.Frozen) reads them from that
// commit's tree.
const (
	SubmissionsRoot = "submissions"
	VerifiedRoot    = "verified"
)

// Submissions is what ReadSubmissions read from a submissions root and its
// verified root.
type Submissions struct {
	// Files are the runs of the valid submissions and their accepted
	// verified records, each run read whole.
	Files []*results.File
	// Valid are the valid submissions, sorted by folder: their metadata,
	// run ids and accepted verified records' run ids.
	Valid []*content.Submission
	// Invalid are the invalid submission folders, sorted by folder: Path
	// is the folder, RunID is empty (a release lists runs, never a folder
	// as a whole), Err names the folder and its first problem.
	Invalid []results.Invalid
	// LeftOut maps the folder of a valid submission to its verified
	// records that were left out (submission.LoadVerified's problems).
	LeftOut map[string][]error
	// Warnings: one per verified record left out and one per folder of
	// verified records with no valid submission.
	Warnings []string
}

// ReadSubmissions reads every submission folder of subRoot
// (results/submission.Load; entries that are not folders, or are hidden,
// are ignored: submissions/README.md) and the verified records of each from
// verRoot/<folder>/ (submission.LoadVerified). Empty roots, or roots that do
// not exist, hold none. The error is an unreadable root; an invalid
// submission is in Submissions.Invalid.
func ReadSubmissions(subRoot, verRoot string) (*Submissions, error) {
	out := &Submissions{LeftOut: map[string][]error{}}
	known := map[string]bool{}
	if subRoot != "" {
		entries, err := os.ReadDir(subRoot)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() || e.Name()[0] == '.' {
				continue // submissions/README.md
			}
			dir := filepath.Join(subRoot, e.Name())
			s, ps := submission.Load(dir, submission.DefaultLimits)
			if len(ps) > 0 {
				out.Invalid = append(out.Invalid, results.Invalid{Path: dir, Err: fmt.Errorf("submission %s is invalid (%d problems; validate-submission lists them all): %w",
					e.Name(), len(ps), ps[0])})
				continue
			}
			known[s.Folder] = true
			cs := &content.Submission{Folder: s.Folder, Metadata: s.Metadata}
			for _, f := range s.Files {
				cs.Runs = append(cs.Runs, f.Run.RunID)
			}
			out.Files = append(out.Files, s.Files...)
			if verRoot != "" {
				recs, ps := submission.LoadVerified(filepath.Join(verRoot, s.Folder), s)
				for _, p := range ps {
					out.LeftOut[s.Folder] = append(out.LeftOut[s.Folder], p)
					out.Warnings = append(out.Warnings, fmt.Sprintf("verified record left out (the submission shows as self-reported without it): %v", p))
				}
				for _, f := range recs {
					cs.Verified = append(cs.Verified, f.Run.RunID)
				}
				out.Files = append(out.Files, recs...)
			}
			out.Valid = append(out.Valid, cs)
		}
	}
	if verRoot != "" {
		entries, err := os.ReadDir(verRoot)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() && !known[e.Name()] {
				out.Warnings = append(out.Warnings, fmt.Sprintf("%s: verified records of no valid submission in %s: left out", filepath.Join(verRoot, e.Name()), subRoot))
			}
		}
	}
	sort.Slice(out.Valid, func(i, j int) bool { return out.Valid[i].Folder < out.Valid[j].Folder })
	sort.Slice(out.Invalid, func(i, j int) bool { return out.Invalid[i].Path < out.Invalid[j].Path })
	return out, nil
}

// SubmissionFolder returns the submission folder whose namespace a run id
// is in: <folder> for a submitted run ("submitted__<folder>__…") and for a
// verified record of it ("rescored-submitted__<folder>__…"), "" for any
// other run.
func SubmissionFolder(runID string) string {
	for _, kind := range []string{string(results.ProvenanceSubmitted),
		string(results.ProvenanceRescored) + "-" + string(results.ProvenanceSubmitted)} {
		if rest, ok := strings.CutPrefix(runID, kind+"__"); ok {
			if folder, _, ok := strings.Cut(rest, "__"); ok {
				return folder
			}
		}
	}
	return ""
}

// listsSubmissions reports whether any of the releases lists a run of a
// submission (SubmissionFolder).
func listsSubmissions(rs []release.Release) bool {
	for _, r := range rs {
		if slices.ContainsFunc(r.Runs, func(id string) bool { return SubmissionFolder(id) != "" }) {
			return true
		}
	}
	return false
}

// releaseSubmissions returns what release r shows of the submissions: each
// submission with a run or a verified record that r lists, with only the
// run ids r lists (a submission merged, or a record verified, after the
// release was cut is not on its pages).
func releaseSubmissions(subs []*content.Submission, r release.Release) []*content.Submission {
	listed := map[string]bool{}
	for _, id := range r.Runs {
		listed[id] = true
	}
	keep := func(ids []string) []string {
		var out []string
		for _, id := range ids {
			if listed[id] {
				out = append(out, id)
			}
		}
		return out
	}
	var out []*content.Submission
	for _, s := range subs {
		c := &content.Submission{Folder: s.Folder, Metadata: s.Metadata, Runs: keep(s.Runs), Verified: keep(s.Verified)}
		if len(c.Runs) > 0 || len(c.Verified) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// checkListedSubmissionRuns returns an error per run of a submission that a
// release lists but that the submissions read (subs, from subRoot) do not
// hold: its folder is invalid (always an error, as an invalid results file a
// release lists), missing from subRoot, or valid but without that run or
// verified record (the submission or its records changed since the release
// was cut). A missing folder is only a warning with allowIncomplete. Each
// error names the run, the release, the folder and what to do.
func checkListedSubmissionRuns(rs []release.Release, subs *Submissions, subRoot string, allowIncomplete bool) (errs []error, warnings []string) {
	have := map[string]bool{}
	for _, f := range subs.Files {
		have[f.Run.RunID] = true
	}
	valid := map[string]bool{}
	for _, s := range subs.Valid {
		valid[s.Folder] = true
	}
	invalid := map[string]error{}
	for _, iv := range subs.Invalid {
		invalid[filepath.Base(iv.Path)] = iv.Err
	}
	for _, r := range rs {
		for _, id := range r.Runs {
			folder := SubmissionFolder(id)
			if folder == "" || have[id] {
				continue
			}
			where := fmt.Sprintf("run %s, listed by release %s (%s), is of submission %s", id, r.Version, release.File, folder)
			restore := fmt.Sprintf("restore %s/%s (and %s/%s) as they were at the release's generator commit %s", SubmissionsRoot, folder, VerifiedRoot, folder, r.GeneratorCommit)
			switch {
			case invalid[folder] != nil:
				errs = append(errs, fmt.Errorf("%s, which is invalid: %w; %s", where, invalid[folder], restore))
			case !valid[folder] && allowIncomplete:
				warnings = append(warnings, fmt.Sprintf("%s, whose folder %s is missing", where, filepath.Join(subRoot, folder)))
			case !valid[folder]:
				errs = append(errs, fmt.Errorf("%s, whose folder %s is missing; %s, or build with -allow-incomplete", where, filepath.Join(subRoot, folder), restore))
			case len(subs.LeftOut[folder]) > 0 && strings.HasPrefix(id, string(results.ProvenanceRescored)):
				errs = append(errs, fmt.Errorf("%s, which holds no accepted verified record of that id (%d left out, e.g. %v); %s",
					where, len(subs.LeftOut[folder]), subs.LeftOut[folder][0], restore))
			default:
				errs = append(errs, fmt.Errorf("%s, which holds no such run or accepted verified record now (changed since the release was cut?); %s", where, restore))
			}
		}
	}
	return errs, warnings
}

// SameDir reports whether a and b name the same existing directory, or the
// same path when either does not exist; "" is never the same.
func SameDir(a, b string) bool {
	if a == "" {
		return false
	}
	ai, aerr := os.Stat(a)
	bi, berr := os.Stat(b)
	if aerr == nil && berr == nil {
		return os.SameFile(ai, bi)
	}
	aa, _ := filepath.Abs(a)
	ba, _ := filepath.Abs(b)
	return aa == ba
}

// SubmissionChanges lists, one path a line (relative to repoRoot), what of
// the submission folders differs in repoRoot's working tree from commit:
// every file of submissions/<folder> added, changed or removed (untracked
// ones included), and of verified/<folder> the files changed or removed,
// or, with verifiedAdded, added as well. "" means unchanged. Errors are
// git's (e.g. a commit not in the clone).
func SubmissionChanges(ctx context.Context, repoRoot, commit string, folders []string, verifiedAdded bool) (string, error) {
	git := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", repoRoot}, args...)...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	var subs, vers []string
	for _, f := range folders {
		subs = append(subs, SubmissionsRoot+"/"+f)
		vers = append(vers, VerifiedRoot+"/"+f)
	}
	if len(folders) == 0 {
		return "", nil
	}
	var out strings.Builder
	filter := "--diff-filter=DMRT" // a record added after a release was cut is not one it lists
	if verifiedAdded {
		filter = "--diff-filter=ACDMRT"
	}
	for _, args := range [][]string{
		append([]string{"diff", "--name-only", commit, "--"}, subs...),
		append([]string{"ls-files", "--others", "--"}, subs...),
		append([]string{"diff", "--name-only", filter, commit, "--"}, vers...),
	} {
		o, err := git(args...)
		if err != nil {
			return "", err
		}
		out.WriteString(o)
	}
	if verifiedAdded {
		o, err := git(append([]string{"ls-files", "--others", "--"}, vers...)...)
		if err != nil {
			return "", err
		}
		out.WriteString(o)
	}
	return strings.TrimSpace(out.String()), nil
}

// releasedSubmissionsChanged returns an error per release that lists runs
// of submissions whose folders in o.RepoRoot differ from the release's
// generator commit (SubmissionChanges; records verified after the cut are
// allowed): its pages would otherwise change while the generator is
// unchanged (built in-process from the working tree) and not once it has
// changed (rebuilt from the commit's tree). Nothing is checked when
// o.RepoRoot is not a git checkout or the submissions and verified roots
// are not the repository's own (the manifest check still tells).
func releasedSubmissionsChanged(ctx context.Context, o Options) []error {
	if !SameDir(o.SubmissionsDir, filepath.Join(o.RepoRoot, SubmissionsRoot)) || !SameDir(o.VerifiedDir, filepath.Join(o.RepoRoot, VerifiedRoot)) {
		return nil
	}
	if out, err := exec.CommandContext(ctx, "git", "-C", o.RepoRoot, "rev-parse", "--is-inside-work-tree").Output(); err != nil || strings.TrimSpace(string(out)) != "true" {
		return nil
	}
	var errs []error
	for _, r := range o.Releases {
		seen := map[string]bool{}
		var folders []string
		for _, id := range r.Runs {
			if f := SubmissionFolder(id); f != "" && !seen[f] {
				seen[f] = true
				folders = append(folders, f)
			}
		}
		changes, err := SubmissionChanges(ctx, o.RepoRoot, r.GeneratorCommit, folders, false)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("release %s: checking its submissions against its generator commit %s: %w", r.Version, r.GeneratorCommit, err))
		case changes != "":
			errs = append(errs, fmt.Errorf("release %s (%s) lists runs of submissions whose files changed since its generator commit %s, so its pages would change: restore them (git checkout %s -- %s) and put a revised submission in a new folder:\n%s",
				r.Version, release.File, r.GeneratorCommit, r.GeneratorCommit, strings.Join(changedFolders(changes), " "), changes))
		}
	}
	return errs
}

// changedFolders returns the submissions/<folder> and verified/<folder>
// paths that the lines of changes (paths, one a line) fall in, once each.
func changedFolders(changes string) []string {
	var out []string
	for _, line := range strings.Split(changes, "\n") {
		parts := strings.SplitN(line, "/", 3)
		if len(parts) < 2 {
			continue
		}
		if d := parts[0] + "/" + parts[1]; !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
