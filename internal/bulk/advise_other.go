//go:build !linux

package bulk

// Advise would ask for huge pages for s; this system has no such hint
// here, and it does nothing.
func Advise[T any](s []T) {}
