//go:build !amd64 && !arm64

package prefetch

import "unsafe"

// Load hints that the cache line holding p will be read or written soon.
// This architecture has no implementation: it does nothing.
func Load(p unsafe.Pointer) {}
