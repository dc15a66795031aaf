package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
)

// fio's tables (stat.h, stat.c): latency buckets at 2, 4, 10, 20, 50,
// 100, 250, 500, 750 and 1000 of ns, us and ms, then 2000 ms; iodepth
// levels 1, 2, 4, …, 64; the default percentile list.
func TestTablesAreFios(t *testing.T) {
	var want []int64
	for _, scale := range []int64{1, 1e3, 1e6} {
		for _, e := range []int64{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000} {
			want = append(want, e*scale)
		}
	}
	want = append(want, 2000e6)
	require.Equal(t, want, sim.LatencyBucketsNs())
	var levels []int
	for d := 1; d <= 64; d *= 2 {
		levels = append(levels, d)
	}
	require.Equal(t, levels, sim.DepthLevels())
	require.Equal(t, []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}, sim.DefaultPercentiles())
}

// A caller that changes the tables it was given changes its copy only:
// the next call and a run still use fio's.
func TestTablesAreCopies(t *testing.T) {
	b, d, p := sim.LatencyBucketsNs(), sim.DepthLevels(), sim.DefaultPercentiles()
	for i := range b {
		b[i] = -1
	}
	for i := range d {
		d[i] = 0
	}
	clear(p)
	b, d, p = b[:0], d[:0], p[:1] // and shortened: no index goes out of range
	require.Len(t, sim.LatencyBucketsNs(), 31)
	require.Len(t, sim.DepthLevels(), 7)
	require.Len(t, sim.DefaultPercentiles(), 17)
	_, _, _ = b, d, p

	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	r, err := e.RunJob(job(t, "rw", "randwrite", "iodepth", "8", "number_ios", "2000"), sim.Hooks{})
	require.NoError(t, err)
	require.Len(t, r.LatencyBuckets, len(sim.LatencyBucketsNs())+1)
	require.Len(t, r.DepthCounts, len(sim.DepthLevels()))
	require.Len(t, r.Write.Latency.Percentiles, len(sim.DefaultPercentiles()))
	var n int64
	for _, c := range r.LatencyBuckets {
		n += c
	}
	require.Equal(t, r.Write.IOs, n, "every completion in a bucket")
	f := fioreport.JobOf(r, nil)
	require.Len(t, f.IODepthLevel, len(sim.DepthLevels()))
}
