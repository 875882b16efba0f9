package site

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattools-leaderboard/leaderboard/results"
	"github.com/mattools-leaderboard/leaderboard/results/submission"
	"github.com/mattools-leaderboard/leaderboard/site/release"
	"github.com/mattools-leaderboard/leaderboard/site/sitetest"
)

func TestSubmissionFolder(t *testing.T) {
	const folder = "2026-12-01_fixture_fixture-model_single-llm"
	for id, want := range map[string]string{
		"submitted__" + folder + "__tool-usage__single-llm__s0__fixture-model__mattools-v1__r1":                                   folder,
		"rescored-submitted__" + folder + "__tool-usage__single-llm__s0__fixture-model__mattools-v1__set-executable-f2690625__r1": folder,
		"imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-original__r1":                                          "",
		"rescored-imported__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-v1__r1":                                       "",
		"runner__tool-usage__single-llm__s0__gpt-4o-2024-08-06__mattools-v1__r1":                                                  "",
		"submitted":   "",
		"submitted__": "",
	} {
		if got := SubmissionFolder(id); got != want {
			t.Errorf("SubmissionFolder(%q) = %q, want %q", id, got, want)
		}
	}
}

// writeSubmission writes the sitetest submission of org into a temporary
// submissions root, with verified records when verified, and returns both
// roots and what ReadSubmissions reads from them.
func writeSubmission(t *testing.T, org string, verified bool) (subRoot, verRoot string, read *Submissions) {
	t.Helper()
	dir := t.TempDir()
	subRoot, verRoot = filepath.Join(dir, SubmissionsRoot), filepath.Join(dir, VerifiedRoot)
	sub, err := sitetest.WriteSubmission(subRoot, "2026-12-01", org)
	if err != nil {
		t.Fatal(err)
	}
	if verified {
		if _, err := sitetest.WriteVerified(verRoot, sub); err != nil {
			t.Fatal(err)
		}
	}
	read, err = ReadSubmissions(subRoot, verRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Valid) != 1 || len(read.Invalid) != 0 || len(read.Valid[0].Runs) != submission.Rounds {
		t.Fatalf("ReadSubmissions: valid %v, invalid %v; want the one submission with %d runs", read.Valid, read.Invalid, submission.Rounds)
	}
	if want := 0; verified {
		want = submission.Rounds
		if got := len(read.Valid[0].Verified); got != want {
			t.Fatalf("ReadSubmissions: %d verified records accepted, want %d (warnings %q)", got, want, read.Warnings)
		}
	}
	return subRoot, verRoot, read
}

// TestReleaseShowsTheSubmissionsItLists: a release shows a submission with
// only the runs and verified records it lists; one it does not list at all
// is not on its pages.
func TestReleaseShowsTheSubmissionsItLists(t *testing.T) {
	_, _, read := writeSubmission(t, "fixture", true)
	s := read.Valid[0]
	cut := release.Release{Version: "v1.0", Runs: append([]string{"imported__x"}, s.Runs...)} // cut before it was verified
	got := releaseSubmissions(read.Valid, cut)
	if len(got) != 1 || !slices.Equal(got[0].Runs, s.Runs) || len(got[0].Verified) != 0 || got[0].Folder != s.Folder {
		t.Errorf("release listing the runs only: %+v, want %s with runs %v and no verified record", got, s.Folder, s.Runs)
	}
	all := release.Release{Version: "v1.1", Runs: append(slices.Clone(s.Runs), s.Verified...)}
	if got := releaseSubmissions(read.Valid, all); len(got) != 1 || !slices.Equal(got[0].Verified, s.Verified) {
		t.Errorf("release listing runs and records: %+v, want verified %v", got, s.Verified)
	}
	if got := releaseSubmissions(read.Valid, release.Release{Version: "v0.9", Runs: []string{"imported__x"}}); len(got) != 0 {
		t.Errorf("release listing none of its runs: %+v, want none", got)
	}
	if len(s.Verified) != submission.Rounds {
		t.Errorf("the submission itself was changed: verified %v", s.Verified)
	}
}

// TestListedSubmissionRunMustBeThere: a release listing a run of a
// submission whose folder is missing, invalid, or no longer holds the run
// (here: a verified record no longer there) fails the build with an error
// naming the release, the run and the folder; with -allow-incomplete a
// missing folder is a warning.
func TestListedSubmissionRunMustBeThere(t *testing.T) {
	subRoot, verRoot, read := writeSubmission(t, "fixture", true)
	s := read.Valid[0]
	r := release.Release{Version: "v1.3", Date: "2026-12-02", GeneratorCommit: "3333333333333333333333333333333333333333",
		Runs: append(slices.Clone(s.Runs), s.Verified...)}
	build := func(allowIncomplete bool) error {
		dir := t.TempDir()
		_, err := Build(context.Background(), Options{ResultsDir: filepath.Join(dir, "none"), SubmissionsDir: subRoot, VerifiedDir: verRoot,
			RepoRoot: "..", OutDir: filepath.Join(dir, "public"), WorkDir: filepath.Join(dir, "work"), Releases: []release.Release{r},
			AllowIncomplete: allowIncomplete})
		return err
	}
	check := func(name string, err error, id string, want ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		for _, w := range append([]string{"run " + id + ", listed by release v1.3 (" + release.File + "), is of submission " + s.Folder, r.GeneratorCommit}, want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error does not say %q:\n%v", name, w, err)
			}
		}
	}

	// The verified records are gone (e.g. removed when the submission changed).
	if err := os.RemoveAll(filepath.Join(verRoot, s.Folder)); err != nil {
		t.Fatal(err)
	}
	check("records gone", build(false), s.Verified[0], "holds no such run or accepted verified record")

	// The submission is invalid now.
	meta := filepath.Join(subRoot, s.Folder, submission.MetadataFile)
	data, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(meta, append(data, []byte("unknown_field = 1\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	check("invalid", build(false), s.Runs[0], "which is invalid", "unknown_field")
	if err := os.WriteFile(meta, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// The folder is missing.
	if err := os.Rename(filepath.Join(subRoot, s.Folder), filepath.Join(t.TempDir(), s.Folder)); err != nil {
		t.Fatal(err)
	}
	check("missing", build(false), s.Runs[0], "whose folder "+filepath.Join(subRoot, s.Folder)+" is missing", "-allow-incomplete")
	read, err = ReadSubmissions(subRoot, verRoot)
	if err != nil {
		t.Fatal(err)
	}
	errs, warnings := checkListedSubmissionRuns([]release.Release{r}, read, subRoot, true)
	if len(errs) != 0 || len(warnings) != len(r.Runs) || !strings.Contains(warnings[0], "is missing") {
		t.Errorf("-allow-incomplete: errors %v, warnings %q; want one warning per run", errs, warnings)
	}
}

// TestInvalidSubmissionOnNoReleaseIsNotAReleaseError: an invalid submission
// that no release lists is treated as before releases could list
// submissions: skipped with a warning, or with -strict an error naming the
// folder (checked so, without Hugo), never a release's error.
func TestInvalidSubmissionOnNoReleaseIsNotAReleaseError(t *testing.T) {
	subRoot, verRoot, read := writeSubmission(t, "fixture", false)
	folder := read.Valid[0].Folder
	if err := os.Remove(filepath.Join(subRoot, folder, submission.MetadataFile)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err := Build(context.Background(), Options{ResultsDir: filepath.Join(dir, "none"), SubmissionsDir: subRoot, VerifiedDir: verRoot,
		RepoRoot: "..", OutDir: filepath.Join(dir, "public"), WorkDir: filepath.Join(dir, "work"), Releases: []release.Release{}, Strict: true})
	if err == nil || !strings.Contains(err.Error(), "submission "+folder+" is invalid") || strings.Contains(err.Error(), "listed by release") {
		t.Errorf("-strict build: error %v, want the folder's own error, not a release's", err)
	}
}

// TestVerifiedRecordOutsideItsNamespaceIsLeftOut: a verified record whose run
// id is not the one its run record gives (so not in the namespace
// "rescored-submitted__<folder>__", where SubmissionFolder finds its
// submission) is left out with a problem naming run_id, as a record written
// by anything but validate-submission -record; the others stay accepted.
func TestVerifiedRecordOutsideItsNamespaceIsLeftOut(t *testing.T) {
	subRoot, verRoot, read := writeSubmission(t, "fixture", true)
	s := read.Valid[0]
	dir := filepath.Join(verRoot, s.Folder)
	path := filepath.Join(dir, s.Verified[0]+results.Extension)
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Run.RunID = "custom-record-id"
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := results.Write(filepath.Join(dir, "custom-record-id"+results.Extension), f); err != nil {
		t.Fatal(err)
	}
	again, err := ReadSubmissions(subRoot, verRoot)
	if err != nil {
		t.Fatal(err)
	}
	got := again.Valid[0].Verified
	if len(got) != len(s.Verified)-1 || slices.Contains(got, "custom-record-id") {
		t.Errorf("verified records accepted %v; want the %d others, not custom-record-id", got, len(s.Verified)-1)
	}
	left := again.LeftOut[s.Folder]
	if len(left) != 1 || !strings.Contains(left[0].Error(), "run_id") || !strings.Contains(left[0].Error(), s.Verified[0]) {
		t.Errorf("left out %v; want one problem naming run_id and the id %s", left, s.Verified[0])
	}
}
