//go:build linux

package bulk

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on linux/amd64 and
// arm64 with 4 KiB base pages.
const hugePage = 2 << 20

// Advise asks the kernel to back s, newly allocated and not yet touched,
// with transparent huge pages (madvise MADV_HUGEPAGE, where the system's
// setting is "madvise"): one page fault then maps 2 MiB instead of
// 4 KiB, and the translations of a table indexed at random fit the TLB
// far better. Slices under 4 MiB are left alone. It is a hint: results
// never depend on it, and an error is ignored.
func Advise[T any](s []T) {
	if len(s) == 0 {
		return
	}
	size := uintptr(len(s)) * unsafe.Sizeof(s[0])
	if size < 2*hugePage {
		return
	}
	start := uintptr(unsafe.Pointer(&s[0]))
	lo := (start + hugePage - 1) &^ (hugePage - 1)
	hi := (start + size) &^ (hugePage - 1)
	if hi <= lo {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), size)
	_ = syscall.Madvise(b[lo-start:hi-start], syscall.MADV_HUGEPAGE)
}
