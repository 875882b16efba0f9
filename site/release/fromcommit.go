package release

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/results"
)

// BuildEnv is set (to the release's version) in the environment of
// the build-site that builds a release inside its generator commit's tree.
// A build-site that sees it builds every edition with its own code and
// checks no manifest: the outer build takes only that release's directory.
const BuildEnv = "MATTOOLS_SITE_RELEASE_BUILD"

// CommitAvailable returns nil when commit is in the git clone at repoRoot,
// else an error saying why a release cannot be rebuilt by its own generator
// commit (not a git checkout; a shallow clone: git fetch --unshallow).
func CommitAvailable(ctx context.Context, repoRoot, commit string) error {
	if out, err := exec.CommandContext(ctx, "git", "-C", repoRoot, "rev-parse", "--is-inside-work-tree").Output(); err != nil || strings.TrimSpace(string(out)) != "true" {
		return fmt.Errorf("%s is not a git checkout, so generator commit %s cannot be extracted", repoRoot, commit)
	}
	if err := exec.CommandContext(ctx, "git", "-C", repoRoot, "cat-file", "-e", commit+"^{commit}").Run(); err != nil {
		shallow, _ := exec.CommandContext(ctx, "git", "-C", repoRoot, "rev-parse", "--is-shallow-repository").Output()
		hint := ""
		if strings.TrimSpace(string(shallow)) == "true" {
			hint = " (this is a shallow clone: git fetch --unshallow)"
		}
		return fmt.Errorf("generator commit %s is not in the clone at %s%s, so the release cannot be rebuilt by its own generator", commit, repoRoot, hint)
	}
	return nil
}

// CommitBuild is what BuildFromCommit needs.
type CommitBuild struct {
	RepoRoot string
	// Releases are the release to build (the last) and the older ones (for
	// its version switcher, exactly as an in-process build shows them).
	Releases []Release
	DataRoot string // MatTools data root ("" none): imported by the commit's own importer, and its question pages
	// Present are the results files of this build by run id: runs of the
	// releases that the commit's importer does not produce are copied from
	// there, except runs of submissions (those IsSubmissionRun reports).
	Present map[string]string
	// IsSubmissionRun reports whether a run id is a run of a submission
	// (read from a submission folder, never copied); nil: none is.
	IsSubmissionRun func(runID string) bool
	// Submissions is set when the releases list runs of submissions: the
	// commit's build-site then reads them from the commit's own
	// SubmissionsRoot and VerifiedRoot (the folders, relative to a
	// checkout's root, as the release was cut from them), given as
	// -submissions and -verified. Unset, neither flag
	// is given (the generator commits of releases without submissions may
	// predate them), and the commit's build-site reads its own defaults
	// (its working directory's submissions/ and verified/, when it has
	// them), whose runs such a release does not list.
	Submissions                   bool
	SubmissionsRoot, VerifiedRoot string
	AllowIncomplete               bool
	Go                            string
	Log                           func(format string, a ...any)
}

// BuildFromCommit builds release b.Releases[last] with the programs of its
// generator commit, in a temporary extraction of that commit (git archive):
// the commit's importer over DataRoot, the release runs it does not produce
// copied from Present (runs of submissions excepted: with b.Submissions, the
// commit's build-site reads them from the extraction's SubmissionsRoot and
// VerifiedRoot, as committed when the release was cut), its releases.json
// replaced by b.Releases (it is go:embed'ed), then the commit's
// cmd/build-site. It copies the built /<version>/ directory to dst. The
// extraction is removed afterwards.
func BuildFromCommit(ctx context.Context, b CommitBuild, dst string) error {
	r := b.Releases[len(b.Releases)-1]
	tmp, err := os.MkdirTemp("", "mattools-release-"+r.Version+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	b.Log("site: release %s: extracting its generator commit %s into %s", r.Version, r.GeneratorCommit, src)
	if err := extractCommit(ctx, b.RepoRoot, r.GeneratorCommit, src); err != nil {
		return fmt.Errorf("release %s: extract %s: %w", r.Version, r.GeneratorCommit, err)
	}
	goCmd := valueOr(b.Go, "go")
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, goCmd, args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), BuildEnv+"="+r.Version, "GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("release %s: %s %s (at commit %s): %w\n%s", r.Version, goCmd, strings.Join(args, " "), r.GeneratorCommit, err, tail(out.String(), 4000))
		}
		return nil
	}
	resultsDir := filepath.Join(tmp, "results")
	produced := map[string]bool{}
	if b.DataRoot != "" {
		// An older importer may not follow linked folders (a data root
		// assembled from symbolic links): it gets a mirror whose folders
		// are real and whose files link to the data.
		mirror := filepath.Join(tmp, "data")
		if err := mirrorTree(b.DataRoot, mirror); err != nil {
			return fmt.Errorf("release %s: data root %s: %w", r.Version, b.DataRoot, err)
		}
		b.DataRoot = mirror
		b.Log("site: release %s: importing %s with the importer of %s", r.Version, b.DataRoot, r.GeneratorCommit)
		if err := run("run", "./cmd/import-mattools", "-data", b.DataRoot, "-out", filepath.Join(resultsDir, "imported")); err != nil {
			return err
		}
		entries, err := os.ReadDir(filepath.Join(resultsDir, "imported"))
		if err != nil {
			return err
		}
		for _, e := range entries {
			produced[strings.TrimSuffix(e.Name(), results.Extension)] = true
		}
	}
	copied := 0
	for _, rel := range b.Releases {
		for _, id := range rel.Runs {
			if p, ok := b.Present[id]; ok && !produced[id] && (b.IsSubmissionRun == nil || !b.IsSubmissionRun(id)) {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Join(resultsDir, "copied"), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(resultsDir, "copied", id+results.Extension), data, 0o644); err != nil {
					return err
				}
				produced[id] = true
				copied++
			}
		}
	}
	if copied > 0 {
		b.Log("site: release %s: %d results files copied from this build's results", r.Version, copied)
	}
	buf, err := json.MarshalIndent(map[string]any{"releases": b.Releases}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, File), append(buf, '\n'), 0o644); err != nil {
		return err
	}
	out := filepath.Join(tmp, "public")
	args := []string{"run", "./cmd/build-site", "-results", resultsDir, "-out", out, "-work", filepath.Join(tmp, "work"),
		"-data", b.DataRoot, "-repo", src, "-commit", r.GeneratorCommit}
	if b.AllowIncomplete {
		args = append(args, "-allow-incomplete")
	}
	if b.Submissions {
		args = append(args, "-submissions", filepath.Join(src, b.SubmissionsRoot), "-verified", filepath.Join(src, b.VerifiedRoot))
		b.Log("site: release %s: its runs of submissions are read from %s and %s of %s", r.Version, b.SubmissionsRoot, b.VerifiedRoot, r.GeneratorCommit)
	}
	b.Log("site: release %s: building it with the build-site of %s", r.Version, r.GeneratorCommit)
	if err := run(args...); err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return CopyDir(filepath.Join(out, r.Version), dst)
}

// extractCommit writes the tree of commit into dir (git archive).
func extractCommit(ctx context.Context, repoRoot, commit, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "-C", repoRoot, "archive", "--format=tar", commit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	terr := untar(pipe, dir)
	io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return terr
}

func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if name == ".." || strings.HasPrefix(name, "../") || filepath.IsAbs(name) {
			return fmt.Errorf("unsafe path %q in the archive", h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			fh, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			if _, err := io.Copy(fh, tr); err != nil {
				fh.Close()
				return err
			}
			if err := fh.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		}
	}
}

// mirrorTree recreates the folders under src (following symbolic links to
// folders) in dst, which must not exist, and links every file to its
// resolved path. Only the folder structure is copied, not the data.
func mirrorTree(src, dst string) error { return mirrorDepth(src, dst, 0) }

func mirrorDepth(src, dst string, depth int) error {
	if depth > 64 {
		return fmt.Errorf("%s: folders nested more than 64 deep (a link loop?)", src)
	}
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	info, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return os.Symlink(real, dst)
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := mirrorDepth(filepath.Join(real, e.Name()), filepath.Join(dst, e.Name()), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// CopyDir copies the regular files of src into dst, recursively.
func CopyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
