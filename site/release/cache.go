package release

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// Cache keeps the built pages of frozen releases between builds, so that a
// build whose release inputs are unchanged copies them instead of
// rebuilding the release (by its generator commit, a minute or more each).
// Dir holds one folder per release version: <version>/key (the Inputs key
// the pages were built from) and <version>/pages/ (the edition /<version>/).
// An entry is used only when its key equals the build's and its pages still
// match the release's committed manifest (CheckManifest), so a stale or
// damaged entry is rebuilt, never shown. Put stores only pages that matched
// the manifest.
type Cache struct {
	Dir string
}

// Inputs are everything a release's pages depend on besides the code of its
// generator commit (fixed by the commit, named in Releases): the release
// list the edition is built with, the benchmark data root, the results
// files of its runs and its submission folders. Key hashes their contents.
type Inputs struct {
	// Releases are the release (the last) and the older ones, exactly as
	// the build passes them (its version switcher shows them).
	Releases []Release
	// DataSum is TreeSum of the benchmark data root ("" none), since a
	// rebuild from the commit imports the published results from there.
	DataSum string
	// DataFingerprint is DataFingerprint of the build's benchmark.
	DataFingerprint string
	// Runs maps the run ids of the release's runs present in this build
	// to their results files (hashed by content); a listed run that is
	// absent is simply not in the map, which changes the key too.
	Runs map[string]string
	// Trees are further folders whose files are hashed by path and
	// content (a release's submission folders and verified records).
	Trees []string
	// Mode says how the pages would be built ("from-commit", "in-process")
	// and with which options ("allow-incomplete").
	Mode []string
}

// Key returns "sha256:<hex>" of the inputs (and the Go version building
// them): two builds with the same key give the same pages. Errors are
// read errors naming the file.
func (in Inputs) Key() (string, error) {
	h := sha256.New()
	rs, err := json.Marshal(in.Releases)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "releases %s\ndata %s %s\ngo %s\nmode %s\n", rs, in.DataFingerprint, in.DataSum, runtime.Version(), strings.Join(in.Mode, ","))
	ids := make([]string, 0, len(in.Runs))
	for id := range in.Runs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		sum, err := fileSum(in.Runs[id])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "run %s %s\n", id, sum)
	}
	for i, t := range in.Trees {
		if _, err := os.Stat(t); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(h, "tree%d absent\n", i)
			continue
		}
		if err := hashTree(h, fmt.Sprintf("tree%d", i), t); err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// TreeSum returns "sha256:<hex>" of every file under root by path and
// content, following links to folders and skipping .git folders (the
// upstream commit is in DataFingerprint): a data root's, for Inputs.DataSum.
func TreeSum(root string) (string, error) {
	h := sha256.New()
	if err := hashTree(h, "data", root); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func fileSum(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashTree writes "<label> <relative path> <sha256>" for every file under
// root to h, in path order, following links to folders (as mirrorTree does)
// and skipping .git folders.
func hashTree(h io.Writer, label, root string) error {
	var walk func(dir, rel string, depth int) error
	walk = func(dir, rel string, depth int) error {
		if depth > 64 {
			return fmt.Errorf("%s: folders nested more than 64 deep (a link loop?)", dir)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries { // sorted by name
			p, r := filepath.Join(dir, e.Name()), filepath.ToSlash(filepath.Join(rel, e.Name()))
			info, err := os.Stat(p) // follows links
			if err != nil {
				return err
			}
			if info.IsDir() {
				if e.Name() == ".git" {
					continue
				}
				if err := walk(p, r, depth+1); err != nil {
					return err
				}
				continue
			}
			if !info.Mode().IsRegular() {
				continue
			}
			sum, err := fileSum(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s %s %s\n", label, r, sum)
		}
		return nil
	}
	return walk(root, "", 0)
}

func (c Cache) paths(version string) (key, pages string) {
	return filepath.Join(c.Dir, version, "key"), filepath.Join(c.Dir, version, "pages")
}

// Get returns the folder of release version's cached pages when the entry
// was stored with key and its pages match the release's manifest under
// repoRoot for benchmark b (CheckManifest); ok is false otherwise (no
// entry, another key, or pages that no longer match: why is then in
// reason). err is a read error.
func (c Cache) Get(repoRoot, version, key string, b *datasets.Benchmark) (pages string, reason string, ok bool, err error) {
	keyPath, pages := c.paths(version)
	have, err := os.ReadFile(keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "not cached yet", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	if strings.TrimSpace(string(have)) != key {
		return "", "its inputs changed since it was cached", false, nil
	}
	if err := CheckManifest(repoRoot, version, pages, b); err != nil {
		return "", "the cached pages do not match its manifest (" + err.Error() + ")", false, nil
	}
	return pages, "", true, nil
}

// Put stores pagesDir (a built /<version>/ that matched its manifest) as
// release version's entry under key, replacing any older entry. The copy is
// made beside the entry and renamed into place, so an interrupted Put
// leaves no entry that Get would take.
func (c Cache) Put(version, key, pagesDir string) error {
	entry := filepath.Join(c.Dir, version)
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(c.Dir, version+".tmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := CopyDir(pagesDir, filepath.Join(tmp, "pages")); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "key"), []byte(key+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.RemoveAll(entry); err != nil {
		return err
	}
	return os.Rename(tmp, entry)
}
