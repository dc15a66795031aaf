//go:build amd64 || arm64

package prefetch

import "unsafe"

// Load hints that the cache line holding p will be read or written soon.
//
//go:noescape
func Load(p unsafe.Pointer)
