package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Invalid is a results file that ReadDirReport could not read or that failed
// validation.
type Invalid struct {
	Path string // the file, as found under the directory
	// RunID is the run id recorded in the file's run metadata (MetaRun) when
	// that much is readable, else the file name without Extension (files are
	// written as <run id>.parquet).
	RunID string
	Err   error // what is wrong: a *FormatError naming the file, row and field when the file is Parquet
}

func (iv Invalid) Error() string { return iv.Err.Error() }

// ReadDirReport reads every results file under dir like ReadDir (recursively,
// lexical path order, names starting with "." skipped, a missing dir gives
// nothing), but a file that cannot be read or fails validation does not stop
// it: it is returned in invalid, with its path, best-effort run id and error,
// and the valid files are returned in files. The error reports what is not a
// property of one file: a walk error, or two valid files with the same run id
// (naming both).
func ReadDirReport(dir string) (files []*File, invalid []Invalid, err error) {
	paths, err := resultsPaths(dir)
	if err != nil {
		return nil, nil, err
	}
	byID := map[string]string{}
	var errs []error
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			if e := (*FormatError)(nil); !errors.As(err, &e) && !strings.Contains(err.Error(), p) {
				err = fmt.Errorf("%s: %w", p, err) // e.g. a read error: name the file
			}
			invalid = append(invalid, Invalid{Path: p, RunID: PeekRunID(p), Err: err})
			continue
		}
		if prev, dup := byID[f.Run.RunID]; dup {
			errs = append(errs, fmt.Errorf("%s: run_id %q already used by %s", p, f.Run.RunID, prev))
			continue
		}
		byID[f.Run.RunID] = p
		files = append(files, f)
	}
	return files, invalid, errors.Join(errs...)
}

// PeekRunID returns the run id of the results file at path without
// validating it: the run_id of its run metadata (MetaRun) when the file is
// Parquet and that JSON has one, else the file name without Extension.
func PeekRunID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), Extension)
	fh, err := os.Open(path)
	if err != nil {
		return name
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return name
	}
	pf, err := openRecovered(fh, st.Size())
	if err != nil {
		return name
	}
	runJSON, ok := pf.Lookup(MetaRun)
	if !ok {
		return name
	}
	var r struct {
		RunID string `json:"run_id"`
	}
	if json.Unmarshal([]byte(runJSON), &r) != nil || r.RunID == "" {
		return name
	}
	return r.RunID
}

// openRecovered is parquet.OpenFile with openOptions, a panic of the
// reader returned as an error.
func openRecovered(r io.ReaderAt, size int64) (pf *parquet.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			pf, err = nil, fmt.Errorf("parquet reader failed: %v", p)
		}
	}()
	if err := checkFooter(r, size); err != nil {
		return nil, err
	}
	return parquet.OpenFile(r, size, openOptions...)
}
