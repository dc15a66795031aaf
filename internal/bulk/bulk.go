// Package bulk sets up large arrays of one value. The simulator's largest
// tables (the mapping table, the OOB tags) store their values so that
// their initial value is zero and need no setting at all: a new table is
// left to the kernel's zero pages until written. What remains is for
// arrays whose initial value cannot be zero.
package bulk

// chunk is the length of the pattern Fill copies: it stays in the
// first-level cache while the copies stream out.
const chunk = 2048

// Fill sets every element of s to v.
func Fill(s []uint32, v uint32) {
	n := min(len(s), chunk)
	for i := range s[:n] {
		s[i] = v
	}
	src := s[:n]
	for i := n; i < len(s); i += n {
		copy(s[i:], src)
	}
}

// Uint32s returns a slice of n elements set to v.
//
// (Backing these arrays with transparent huge pages, madvise
// MADV_HUGEPAGE, was measured: the kernel's compaction for them doubled
// the system time of a 256 GiB fill and saved no user time.)
func Uint32s(n int64, v uint32) []uint32 {
	s := make([]uint32, n)
	if v != 0 {
		Fill(s, v)
	}
	return s
}
