// Package atomicfile writes files so that a reader sees either the old
// file or the whole new one, never a part: the data go to a temporary file
// in the same folder (named "." + the base name + ".tmp-*", which this
// project's readers skip), which is synced, closed and renamed over the
// path; the folder is synced after, so that the rename survives a crash.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path with mode perm, atomically, creating
// path's folder if needed (mode 0755). On error the temporary file is
// removed and path is untouched.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	tmp, err := Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	return Commit(tmp, path, perm)
}

// Create creates the temporary file of an atomic write of path, in path's
// folder (created if needed); write it whole, then Commit it. On an error
// after Create the caller closes and removes it.
func Create(path string) (*os.File, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
}

// Commit gives tmp, written whole, mode perm, syncs and closes it and
// renames it over path, durably. On error the caller removes tmp.
func Commit(tmp *os.File, path string, perm fs.FileMode) error {
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil { // make the rename durable
		d.Sync()
		d.Close()
	}
	return nil
}
