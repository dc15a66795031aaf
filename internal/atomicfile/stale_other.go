//go:build !unix

package atomicfile

import "os"

// hold does nothing where files cannot be locked.
func hold(*os.File) {}

// stale is false where files cannot be locked: a temporary file may be a
// live writer's.
func stale(string) bool { return false }
