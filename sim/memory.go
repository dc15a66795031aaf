package sim

import "unsafe"

// StreamMemoryBytes estimates the memory one stream of a run holds for
// its statistics: its latency histograms (read, write, trim and sync) and,
// with a series of intervals intervals, that series twice (the result's,
// and a copy: merged, combined or as the fio JSON's columns).
func StreamMemoryBytes(intervals int64) int64 {
	hist := int64(newHistogram().ByteSize())
	return 4*hist + 2*intervals*int64(unsafe.Sizeof(Interval{}))
}
