package content

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// archiveTime is the modification time of every file in a results archive:
// fixed, so that the archive's bytes depend only on the files it holds (the
// earliest time a zip file can record, 1980-01-01 UTC).
var archiveTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// ResultsArchivePath is the edition-relative path of the single download of
// every results file of the edition at path (Edition.Path): a zip archive,
// results-<path>.zip.
func ResultsArchivePath(path string) string { return "downloads/results-" + path + ".zip" }

// archiveEntry is one file of a results archive: its name in the archive
// and the file to read it from.
type archiveEntry struct{ name, src string }

// writeResultsArchive writes the zip archive of entries to file: the files
// stored uncompressed (Parquet is compressed already) in a folder
// results-<path>/, sorted by name, each with mode 0644 and archiveTime, so
// that the same files always give the same bytes. It returns the archive's
// size in bytes. Errors name the file.
func writeResultsArchive(file, path string, entries []archiveEntry) (int64, error) {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b archiveEntry) int { return strings.Compare(a.name, b.name) })
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return 0, err
	}
	fh, err := os.Create(file)
	if err != nil {
		return 0, err
	}
	zw := zip.NewWriter(fh)
	werr := func() error {
		for i, e := range entries {
			if i > 0 && entries[i-1].name == e.name {
				return fmt.Errorf("results archive %s: %s twice", file, e.name)
			}
			h := &zip.FileHeader{Name: "results-" + path + "/" + e.name, Method: zip.Store, Modified: archiveTime}
			h.SetMode(0o644)
			w, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			src, err := os.Open(e.src)
			if err != nil {
				return err
			}
			_, err = io.Copy(w, src)
			src.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", e.src, err)
			}
		}
		return zw.Close()
	}()
	info, serr := fh.Stat()
	if cerr := fh.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = serr
	}
	if werr != nil {
		return 0, fmt.Errorf("results archive %s: %w", file, werr)
	}
	return info.Size(), nil
}
