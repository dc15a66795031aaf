//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// hold takes an exclusive lock on a temporary file for as long as it is
// open, so that removeStale can tell a live writer's file from one a
// killed process left.
func hold(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// stale reports whether no process holds the temporary file at path: its
// writer is gone (killed before it could remove it).
func stale(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
