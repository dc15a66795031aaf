package analysis

import (
	"sort"

	"gonum.org/v1/gonum/stat"

	"github.com/ftlsim/ftlsim/sim"
)

// ConsistencySummary is what reviewers read off a performance-consistency
// run (IOPS logged every second under sustained 4 KiB random writes): the
// early plateau while free blocks last, the cliff, and the steady state's
// level, spread and stalls.
type ConsistencySummary struct {
	FreshIOPS    float64 // the fresh level (Drop): the early plateau while free blocks last
	CliffNs      int64   // end of the first interval of the drop (Drop); -1 when there is none
	SteadyFromNs int64   // start of the steady-state window
	SteadyMedian float64 // median IOPS over the window
	SteadyP10    float64 // 10th percentile of IOPS over the window
	SteadyP90    float64 // 90th percentile of IOPS over the window
	SteadyMean   float64 // mean IOPS over the window
	SteadyWA     float64 // mean write amplification over the window's seconds with host writes
	SteadyMax    float64 // highest IOPS over the window (the peaks)
	// SteadyActiveMedian is the median IOPS over the window's intervals
	// that completed any I/O: the level between stalls.
	SteadyActiveMedian float64
	ZeroSeconds        int // intervals after the cliff with no completed I/O
	// LongestStall is the longest run of consecutive intervals after the
	// cliff with no completed I/O.
	LongestStall int
}

// SummarizeConsistency reads a run's series. The steady-state window
// starts at steadyFromNs (the reviews use 1,400 s of 2,000); the last,
// partial interval is left out.
func SummarizeConsistency(series []sim.Interval, steadyFromNs int64) ConsistencySummary {
	s := ConsistencySummary{CliffNs: -1, SteadyFromNs: steadyFromNs}
	full := fullIntervals(series)
	if len(full) == 0 {
		return s
	}
	rates := make([]float64, len(full))
	for i, iv := range full {
		rates[i] = iv.IOPS
	}
	drop := Drop(rates)
	s.FreshIOPS = drop.Level
	cliff := len(full)
	if drop.At >= 0 {
		cliff, s.CliffNs = drop.At, full[drop.At].EndNs
	}
	var steady, active, wa []float64
	run := 0
	for i, iv := range full {
		if i >= cliff && iv.IOPS == 0 {
			s.ZeroSeconds++
			run++
			s.LongestStall = max(s.LongestStall, run)
		} else {
			run = 0
		}
		if iv.StartNs >= steadyFromNs {
			steady = append(steady, iv.IOPS)
			if iv.IOPS > 0 {
				active = append(active, iv.IOPS)
			}
			if iv.WriteAmplification > 0 { // seconds with host writes
				wa = append(wa, iv.WriteAmplification)
			}
		}
	}
	if len(steady) == 0 {
		return s
	}
	s.SteadyMean = stat.Mean(steady, nil)
	if len(wa) > 0 {
		s.SteadyWA = stat.Mean(wa, nil)
	}
	sort.Float64s(steady)
	s.SteadyMedian = stat.Quantile(0.5, stat.Empirical, steady, nil)
	s.SteadyP10 = stat.Quantile(0.1, stat.Empirical, steady, nil)
	s.SteadyP90 = stat.Quantile(0.9, stat.Empirical, steady, nil)
	s.SteadyMax = steady[len(steady)-1]
	if len(active) > 0 {
		sort.Float64s(active)
		s.SteadyActiveMedian = stat.Quantile(0.5, stat.Empirical, active, nil)
	}
	return s
}
