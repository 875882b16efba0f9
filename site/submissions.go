package site

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
	"github.com/mattools-leaderboard/leaderboard/site/content"
)

// readSubmissions reads every submission folder of subRoot
// (results/submission.Load) and the verified records of each from
// verRoot/<folder>/ (submission.LoadVerified). It returns the runs of the
// valid submissions and their accepted verified records, what the pages
// show of each submission, the invalid submissions (as results.Invalid
// with an empty run id, a release never listing a whole submission), and a
// warning per verified record left out or verified folder without a
// submission. Empty roots, or roots that do not exist, hold none.
func readSubmissions(subRoot, verRoot string) ([]*results.File, []*content.Submission, []results.Invalid, []string, error) {
	var files []*results.File
	var subs []*content.Submission
	var invalid []results.Invalid
	var warnings []string
	known := map[string]bool{}
	if subRoot != "" {
		entries, err := os.ReadDir(subRoot)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil, nil, err
		}
		for _, e := range entries {
			if !e.IsDir() || e.Name()[0] == '.' {
				continue // submissions/README.md
			}
			dir := filepath.Join(subRoot, e.Name())
			s, ps := submission.Load(dir, submission.DefaultLimits)
			if len(ps) > 0 {
				invalid = append(invalid, results.Invalid{Path: dir, Err: fmt.Errorf("submission %s is invalid (%d problems; validate-submission lists them all): %w",
					e.Name(), len(ps), ps[0])})
				continue
			}
			known[s.Folder] = true
			cs := &content.Submission{Folder: s.Folder, Metadata: s.Metadata}
			for _, f := range s.Files {
				cs.Runs = append(cs.Runs, f.Run.RunID)
			}
			files = append(files, s.Files...)
			if verRoot != "" {
				recs, ps := submission.LoadVerified(filepath.Join(verRoot, s.Folder), s)
				for _, p := range ps {
					warnings = append(warnings, fmt.Sprintf("verified record left out (the submission shows as self-reported without it): %v", p))
				}
				for _, f := range recs {
					cs.Verified = append(cs.Verified, f.Run.RunID)
				}
				files = append(files, recs...)
			}
			subs = append(subs, cs)
		}
	}
	if verRoot != "" {
		entries, err := os.ReadDir(verRoot)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil, nil, err
		}
		for _, e := range entries {
			if e.IsDir() && !known[e.Name()] {
				warnings = append(warnings, fmt.Sprintf("%s: verified records of no valid submission in %s: left out", filepath.Join(verRoot, e.Name()), subRoot))
			}
		}
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Folder < subs[j].Folder })
	return files, subs, invalid, warnings, nil
}
