//go:build !unix

// Package flock takes the exclusive advisory file locks that keep two
// processes off one journal, one merge's output directory or one graph
// index build.
package flock

import (
	"errors"
	"os"
)

// ErrLocked is Lock's error when another open file holds the lock; it
// never happens here.
var ErrLocked = errors.New("locked")

// Lock is a no-op where flock is unavailable.
func Lock(*os.File) error { return nil }
