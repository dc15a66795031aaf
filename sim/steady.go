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
	Lat          []float64 // the window's mean completion latencies (ns), alike
}

// steady watches a job's series for fio's steady-state criterion.
type steady struct {
	c       workload.SteadyState
	window  int       // samples in a full window
	iops    []float64 // the latest samples (rings)
	bw      []float64
	lat     []float64
	n, head int
	from    int64 // the check starts with intervals ending after this (ramp)
	done    bool
	last    SteadyState
	// The sample being gathered: a check interval's I/Os, bytes, summed
	// latencies and length (series intervals add up to one).
	ios, bytes, latSum, secs float64
	every                    float64 // check interval, s
}

func newSteady(c workload.SteadyState, start, intervalNs int64) *steady {
	if c.DurationNs <= 0 {
		return nil
	}
	every := max(c.CheckNs, intervalNs)
	w := max(2, int((c.DurationNs+every-1)/every))
	return &steady{c: c, window: w, iops: make([]float64, w), bw: make([]float64, w), lat: make([]float64, w),
		from: start + c.RampNs, every: float64(every) / 1e9}
}

// observe takes an interval that ended at end, lasting secs, and reports
// whether the criterion is met over the last full window.
func (s *steady) observe(iv *Interval, end int64, secs float64) bool {
	if s == nil || s.done || end <= s.from || secs <= 0 {
		return false
	}
	// Series intervals add up to a check interval's sample (fio's
	// ss_interval, 1 s by default).
	ios := iv.IOPS * secs
	s.ios += ios
	s.bytes += float64(iv.Bytes)
	s.latSum += iv.MeanLatencyNs * ios
	s.secs += secs
	if s.secs < s.every-1e-9 {
		return false
	}
	at := (s.head + s.n) % s.window
	s.iops[at], s.bw[at] = s.ios/s.secs, s.bytes/s.secs
	s.lat[at] = 0
	if s.ios > 0 {
		s.lat[at] = s.latSum / s.ios
	}
	step := s.secs
	s.ios, s.bytes, s.latSum, s.secs = 0, 0, 0, 0
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
	s.last.IOPS, s.last.BW, s.last.Lat = ordered(s.iops), ordered(s.bw), ordered(s.lat)
	xs := s.last.IOPS
	switch {
	case s.c.Bandwidth:
		xs = s.last.BW
	case s.c.Latency:
		xs = s.last.Lat
	}
	mean := stat.Mean(xs, nil)
	var dev float64
	ts := make([]float64, len(xs))
	for i, v := range xs {
		dev = math.Max(dev, math.Abs(v-mean))
		ts[i] = float64(i) * step
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

// observeRun observes k intervals like iv, each l long, the first ending
// at end, as k calls of observe would. Once a window of like samples has
// been taken, more of them leave the window as it is; only their number
// within a check interval (the samples' period) still counts, so a run of
// any length takes at most a few windows' observations.
func (s *steady) observeRun(iv *Interval, end, l, k int64) {
	if s == nil || s.done {
		return
	}
	first := int64(0) // the intervals that end within the ramp change nothing
	if s.from >= end {
		first = min(k, (s.from-end)/l+1)
	}
	n := k - first
	secs := float64(l) / 1e9
	period := max(1, int64(math.Ceil((s.every-1e-9)/secs)))
	if lim := int64(2*s.window+2) * period; n > lim {
		n = lim + (n-lim)%period
	}
	for i := k - n; i < k && !s.done; i++ {
		s.observe(iv, end+i*l, secs)
	}
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
