// Package hugepage asks the operating system to back large tables with
// huge pages. The simulator's mapping table is hundreds of MiB read and
// written at random, one entry a host I/O: with 4 KiB pages nearly every
// access also misses the processor's TLB, and a page walk (two-level
// under a hypervisor) waits before the cache miss can start. With 2 MiB
// pages the TLB covers the table. Advice never changes results; where the
// system has no transparent huge pages, or keeps them off, it does
// nothing.
package hugepage

import "unsafe"

// Size is the huge page size advised for: the 2 MiB of x86-64 and the
// usual arm64 configuration. Only whole huge pages inside a table are
// advised.
const Size = 2 << 20

// Min is the smallest table worth advising: below it the TLB covers the
// table with small pages.
const Min = 8 << 20

// Uint32s advises that s be backed by huge pages. Call it on a table just
// allocated, before it is written: memory already touched stays in small
// pages until the system collapses it in the background.
func Uint32s(s []uint32) {
	if len(s)*4 < Min {
		return
	}
	advise(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*4))
}

// inner returns the whole huge pages inside b.
func inner(b []byte) []byte {
	a := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((Size - a%Size) % Size)
	if lo >= len(b) {
		return nil
	}
	n := (len(b) - lo) / Size * Size
	return b[lo : lo+n]
}
