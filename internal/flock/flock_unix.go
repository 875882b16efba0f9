//go:build unix

// Package flock takes the exclusive advisory file locks that keep two
// processes off one journal, one merge's output directory or one graph
// index build.
package flock

import (
	"fmt"
	"os"
	"syscall"
)

// ErrLocked is Lock's error when another open file holds the lock.
var ErrLocked error = syscall.EWOULDBLOCK

// Lock takes an exclusive advisory lock on f without waiting; the kernel
// releases it when the process ends, even on SIGKILL. It returns an error
// matching ErrLocked when the lock is held elsewhere, and another error
// (naming f) when it cannot be taken at all, e.g. on a file system without
// flock (some NFS or FUSE mounts).
func Lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil || err == syscall.EWOULDBLOCK {
		return err
	}
	return fmt.Errorf("cannot lock %s (the file system may not support flock, as some NFS or FUSE mounts do not): %w", f.Name(), err)
}
