package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
)

// perSecond builds a series of one-second intervals of the given IOPS
// (4 KiB writes, WA 3).
func perSecond(iops ...float64) []sim.Interval {
	series := make([]sim.Interval, len(iops))
	for i, v := range iops {
		series[i] = sim.Interval{StartNs: int64(i) * sim.Second, EndNs: int64(i+1) * sim.Second, IOPS: v,
			WriteIOs: int64(v), WriteBytes: int64(v) * 4096, WriteAmplification: 3}
	}
	return series
}

func TestSummarizeConsistency(t *testing.T) {
	series := perSecond(100, 100, 100, 40, 0, 10, 20, 10, 0, 0, 20, 10, 5)
	series[len(series)-1].EndNs -= sim.Second / 2 // a partial last interval is left out
	s := analysis.SummarizeConsistency(series, 5*sim.Second)
	require.Equal(t, 100.0, s.FreshIOPS)
	require.Equal(t, 4*sim.Second, s.CliffNs)
	require.Equal(t, 3, s.ZeroSeconds)
	require.Equal(t, 2, s.LongestStall)
	// The window from 5 s: 10 20 10 0 0 20 10.
	require.Equal(t, 10.0, s.SteadyMedian)
	require.Equal(t, 0.0, s.SteadyP10)
	require.Equal(t, 20.0, s.SteadyP90)
	require.Equal(t, 20.0, s.SteadyMax)
	require.Equal(t, 10.0, s.SteadyActiveMedian)
	require.InDelta(t, 70.0/7, s.SteadyMean, 1e-9)
	require.Equal(t, 3.0, s.SteadyWA)
	flat := analysis.SummarizeConsistency(series[:3], 0)
	require.Equal(t, int64(-1), flat.CliffNs)
}

// TestConsistencyShallowDrop: a drop to 70 % of the plateau (a drive
// with spare area to spare, as m4-256 with 25 % more: 51,282 IOPS for
// 50 s, then about 36,000 rising to 43,700) is a drop: the fresh level is
// the plateau, not the median of the whole run, and the cliff is where
// the plateau ends — the rule the sustained-write summary uses.
func TestConsistencyShallowDrop(t *testing.T) {
	iops := make([]float64, 0, 600)
	for range 50 {
		iops = append(iops, 51282)
	}
	for i := range 550 {
		iops = append(iops, 31000+float64(i)*23)
	}
	s := analysis.SummarizeConsistency(perSecond(iops...), 420*sim.Second)
	require.Equal(t, 51282.0, s.FreshIOPS)
	require.Equal(t, 51*sim.Second, s.CliffNs)
	w := analysis.SummarizeSustained(perSecond(iops...))
	require.True(t, w.Dropped)
	require.Equal(t, s.FreshIOPS*4096/1e6, w.BurstMBps, "one rule: the same level")
	require.Equal(t, int64(50*51282*4096), w.FastBytes, "one rule: the same drop")
}

// TestDrop: the fresh level and the drop, case by case.
func TestDrop(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rates []float64
		level float64
		at    int
	}{
		{"flat", []float64{10, 10, 10, 10}, 10, -1},
		{"one slow interval is no drop", []float64{10, 10, 6, 10, 10, 10}, 10, -1},
		{"three slow intervals are", []float64{10, 10, 10, 6, 6, 6, 10}, 10, 3},
		{"just above the share", []float64{10, 10, 10, 7, 7, 7}, 10, -1},
		{"a fast first second is full speed", []float64{100, 10, 10, 10, 10}, 100, 1},
		{"empty", nil, 0, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := analysis.Drop(tc.rates)
			require.Equal(t, tc.level, p.Level)
			require.Equal(t, tc.at, p.At)
		})
	}
}
