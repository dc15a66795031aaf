package hugepage

import "syscall"

// madvHugepage is Linux's MADV_HUGEPAGE.
const madvHugepage = 14

func advise(b []byte) {
	if b = inner(b); len(b) > 0 {
		_ = syscall.Madvise(b, madvHugepage) // advice: an error (no THP in this kernel) changes nothing
	}
}
