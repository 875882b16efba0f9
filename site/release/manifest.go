package release

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mattools-leaderboard/leaderboard/datasets"
)

// ManifestDir holds one manifest per release, relative to the repository
// root: <version>.sha256 lists the SHA-256 of every file of the release's
// edition (/<version>/), in sha256sum format ("<hex>  <path>"), paths relative
// to /<version>/ and sorted bytewise; <version>.data records the fingerprint
// of the benchmark data the edition was cut with (see DataFingerprint), since
// the question pages show what the data root holds.
const ManifestDir = "site/releases"

// ManifestPaths returns the paths of a release's manifest and data record
// under repoRoot.
func ManifestPaths(repoRoot, version string) (sums, data string) {
	base := filepath.Join(repoRoot, ManifestDir, version)
	return base + ".sha256", base + ".data"
}

// HashTree returns the sha256sum-format manifest of every regular file under
// dir: one line "<64 hex>  <path>\n" per file, paths relative to dir with
// forward slashes, sorted bytewise.
func HashTree(dir string) ([]byte, error) {
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		defer fh.Close()
		h := sha256.New()
		if _, err := io.Copy(h, fh); err != nil {
			return err
		}
		lines = append(lines, hex.EncodeToString(h.Sum(nil))+"  "+filepath.ToSlash(rel)+"\n")
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	return []byte(strings.Join(lines, "")), nil
}

// DataFingerprint is "sha256:<hex>" of everything the question pages show
// from the benchmark data root: its upstream commit, and for each question
// its id, statement, properties and data files (path, presence, size).
// Two roots with the same fingerprint give the same question pages; the copy of
// MatTools this project's CI reads and an upstream checkout differ (the
// upstream one has data files ours lacks). nil (no data) gives "none".
func DataFingerprint(b *datasets.Benchmark) string {
	if b == nil {
		return "none"
	}
	type q struct {
		ID, Text   string
		Properties []datasets.Property
		DataFiles  []datasets.DataFile
	}
	v := struct {
		Commit    string
		Questions []q
	}{Commit: b.Commit}
	for _, x := range b.Questions {
		v.Questions = append(v.Questions, q{ID: x.ID, Text: x.Text, Properties: x.Properties, DataFiles: x.DataFiles})
	}
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain strings, numbers and bools
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func valueOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// recordedFingerprint reads the data_fingerprint line of a data record.
func recordedFingerprint(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "data_fingerprint "); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("%s: no data_fingerprint line", path)
}

// ErrNoManifest: the release has no committed manifest.
var ErrNoManifest = errors.New("no manifest")

// ErrOtherData: the manifest was cut from a data root with another fingerprint.
var ErrOtherData = errors.New("manifest cut from another data root")

// CheckManifest compares the built edition editionDir of release version
// with its committed manifest. It returns nil when every file matches; an
// error wrapping ErrNoManifest when the release has none; one wrapping
// ErrOtherData (saying both fingerprints) when the manifest was cut from a
// data root whose question pages differ from b's, so that the bytes cannot
// be compared; else an error naming the first differing file (in manifest
// order: changed, missing or extra) and both hashes.
func CheckManifest(repoRoot, version, editionDir string, b *datasets.Benchmark) error {
	sumsPath, dataPath := ManifestPaths(repoRoot, version)
	want, err := os.ReadFile(sumsPath)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("release %s: %w (%s)", version, ErrNoManifest, sumsPath)
	}
	if err != nil {
		return err
	}
	fp, err := recordedFingerprint(dataPath)
	if err != nil {
		return fmt.Errorf("release %s: %w", version, err)
	}
	if have := DataFingerprint(b); have != fp {
		return fmt.Errorf("release %s: %w: %s records data fingerprint %s, but this build's data root (%s) has %s; "+
			"its question pages differ, so the pages are not compared with %s (build with the data root the release was cut from)",
			version, ErrOtherData, dataPath, fp, benchRoot(b), have, sumsPath)
	}
	got, err := HashTree(editionDir)
	if err != nil {
		return err
	}
	if bytes.Equal(got, want) {
		return nil
	}
	wl, gl := parseSums(want), parseSums(got)
	for i := 0; i < len(wl) || i < len(gl); i++ {
		switch {
		case i >= len(gl) || (i < len(wl) && wl[i][1] < gl[i][1]):
			return fmt.Errorf("release %s: /%s/%s is listed in %s but was not built", version, version, wl[i][1], sumsPath)
		case i >= len(wl) || gl[i][1] < wl[i][1]:
			return fmt.Errorf("release %s: /%s/%s was built but is not listed in %s", version, version, gl[i][1], sumsPath)
		case wl[i][0] != gl[i][0]:
			return fmt.Errorf("release %s: /%s/%s differs from %s: sha256 %s, manifest %s", version, version, wl[i][1], sumsPath, gl[i][0], wl[i][0])
		}
	}
	return fmt.Errorf("release %s: %s is not in sha256sum format (sorted paths)", version, sumsPath)
}

func benchRoot(b *datasets.Benchmark) string {
	if b == nil {
		return "none"
	}
	return b.Root
}

// parseSums splits sha256sum lines into [hash, path] pairs.
func parseSums(data []byte) [][2]string {
	var out [][2]string
	for line := range strings.Lines(string(data)) {
		h, p, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "  ")
		out = append(out, [2]string{h, p})
	}
	return out
}
