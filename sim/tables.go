package sim

// fio's fixed tables. They are arrays, not exported slices, so that no
// caller can change them under a run: the exported functions return
// fresh copies.

// defaultPercentiles are fio's default completion-latency percentiles.
var defaultPercentiles = [...]float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// latencyBucketsNs are the upper edges of fio's latency_ns, latency_us
// and latency_ms buckets, in ns: 2, 4, 10, 20, 50, 100, 250, 500, 750 and
// 1000 of each unit, and 2000 ms.
var latencyBucketsNs = [...]int64{
	2, 4, 10, 20, 50, 100, 250, 500, 750, 1000,
	2e3, 4e3, 10e3, 20e3, 50e3, 100e3, 250e3, 500e3, 750e3, 1000e3,
	2e6, 4e6, 10e6, 20e6, 50e6, 100e6, 250e6, 500e6, 750e6, 1000e6,
	2000e6,
}

// depthLevels are fio's iodepth_level buckets (the last is ">=64").
var depthLevels = [...]int{1, 2, 4, 8, 16, 32, 64}

const (
	nLatencyBuckets = len(latencyBucketsNs) + 1 // a last bucket holds everything longer
	nDepthLevels    = len(depthLevels)
)

// DefaultPercentiles returns fio's default completion-latency
// percentiles, the ones a run reports when Options.Percentiles is nil.
// The slice is the caller's.
func DefaultPercentiles() []float64 { return append([]float64(nil), defaultPercentiles[:]...) }

// LatencyBucketsNs returns the upper edges of fio's latency_ns,
// latency_us and latency_ms buckets, in ns, that Result.LatencyBuckets
// counts by; a last bucket, beyond them, holds everything longer. The
// slice is the caller's.
func LatencyBucketsNs() []int64 { return append([]int64(nil), latencyBucketsNs[:]...) }

// DepthLevels returns fio's iodepth_level buckets, the lower bounds of
// the queue depths Result.DepthCounts counts by (the last is ">=64"). The
// slice is the caller's.
func DepthLevels() []int { return append([]int(nil), depthLevels[:]...) }

// latencyBucket is the bucket of a latency of ns: the first edge at or
// above it, or the last bucket.
func latencyBucket(ns int64) int {
	lo, hi := 0, len(latencyBucketsNs)
	for lo < hi {
		mid := (lo + hi) / 2
		if ns <= latencyBucketsNs[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// depthLevel is the iodepth_level bucket of a submission that made the
// queue depth depth.
func depthLevel(depth int) int {
	i := 0
	for i < len(depthLevels)-1 && depth >= depthLevels[i+1] {
		i++
	}
	return i
}
