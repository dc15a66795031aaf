package sim

import (
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/ftlsim/ftlsim/workload"
)

// SteadyState is what fio's steady-state detection (steadystate, ss_dur,
// ss_ramp) found: over the last window of Duration, the criterion's
// figure against its limit, and whether the job stopped because the
// limit was met.
type SteadyState struct {
	Criterion    string  // iops, iops_slope, bw or bw_slope
	Limit        float64 // the limit the criterion was held to, in its units
	Percent      bool    // Limit was given as a percentage of the mean
	DurationNs   int64
	Attained     bool
	MaxDeviation float64   // largest distance of a sample of the criterion's figure from its mean (IOPS or bytes/s)
	Slope        float64   // least-squares slope of the criterion's figure, per second
	IOPS         []float64 // the window's IOPS, a sample an interval, oldest first
	BW           []float64 // the window's bytes per second, alike
}

// steady watches a job's series for fio's steady-state criterion.
type steady struct {
	c       workload.SteadyState
	window  int       // samples in a full window
	iops    []float64 // the latest samples (rings)
	bw      []float64
	n, head int
	from    int64 // the check starts with intervals ending after this (ramp)
	done    bool
	last    SteadyState
}

func newSteady(c workload.SteadyState, start, intervalNs int64) *steady {
	if c.DurationNs <= 0 {
		return nil
	}
	w := max(2, int((c.DurationNs+intervalNs-1)/intervalNs))
	return &steady{c: c, window: w, iops: make([]float64, w), bw: make([]float64, w), from: start + c.RampNs}
}

// observe takes an interval that ended at end, lasting secs, and reports
// whether the criterion is met over the last full window.
func (s *steady) observe(iv *Interval, end int64, secs float64) bool {
	if s == nil || s.done || end <= s.from || secs <= 0 {
		return false
	}
	at := (s.head + s.n) % s.window
	s.iops[at], s.bw[at] = iv.IOPS, float64(iv.Bytes)/secs
	if s.n < s.window {
		s.n++
	} else {
		s.head = (s.head + 1) % s.window
	}
	s.last = SteadyState{Criterion: s.c.Name(), Limit: s.c.Limit, Percent: s.c.Percent, DurationNs: s.c.DurationNs}
	if s.n < s.window {
		return false
	}
	ordered := func(ring []float64) []float64 {
		xs := make([]float64, s.window)
		for i := range xs {
			xs[i] = ring[(s.head+i)%s.window]
		}
		return xs
	}
	s.last.IOPS, s.last.BW = ordered(s.iops), ordered(s.bw)
	xs := s.last.IOPS
	if s.c.Bandwidth {
		xs = s.last.BW
	}
	mean := stat.Mean(xs, nil)
	var dev float64
	ts := make([]float64, len(xs))
	for i, v := range xs {
		dev = math.Max(dev, math.Abs(v-mean))
		ts[i] = float64(i) * secs
	}
	_, slope := stat.LinearRegression(ts, xs, nil, false)
	s.last.MaxDeviation, s.last.Slope = dev, slope
	limit := s.c.Limit
	if s.c.Percent {
		limit = s.c.Limit / 100 * mean
	}
	figure := dev
	if s.c.Slope {
		figure = math.Abs(slope)
	}
	if figure <= limit {
		s.done = true
		s.last.Attained = true
	}
	return s.done
}

// result is what the detection found (nil without detection).
func (s *steady) result() *SteadyState {
	if s == nil {
		return nil
	}
	r := s.last
	r.Criterion, r.Limit, r.Percent, r.DurationNs = s.c.Name(), s.c.Limit, s.c.Percent, s.c.DurationNs
	return &r
}
