package sim

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// latency accumulates one direction's statistics.
type latency struct {
	ios, bytes int64
	min, max   int64
	sum, sumsq float64
	h          *hdrhistogram.Histogram // nil until the first I/O
}

func newLatency() *latency {
	return &latency{min: math.MaxInt64}
}

// newHistogram returns an empty latency histogram: 1 ns to an hour at
// three significant digits (about 270 KiB, taken by a direction's first
// I/O: most runs use one or two of the four).
func newHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(1, 3600*Second, 3) }

func (l *latency) add(ns, bytes int64) {
	l.ios++
	l.bytes += bytes
	l.min = min(l.min, ns)
	l.max = max(l.max, ns)
	f := float64(ns)
	l.sum += f
	l.sumsq += f * f
	if l.h == nil {
		l.h = newHistogram()
	}
	_ = l.h.RecordValue(max(1, min(ns, 3600*Second)))
}

func (l *latency) stats(runtime int64, pcts []float64) DirStats {
	s := DirStats{IOs: l.ios, Bytes: l.bytes}
	if runtime > 0 {
		s.IOPS = float64(l.ios) / (float64(runtime) / 1e9)
		s.BWBytes = float64(l.bytes) / (float64(runtime) / 1e9)
	}
	s.Latency.N = l.ios
	s.Latency.Percentiles = make(map[float64]int64, len(pcts))
	if l.ios == 0 {
		for _, p := range pcts {
			s.Latency.Percentiles[p] = 0
		}
		return s
	}
	s.Latency.Min, s.Latency.Max = l.min, l.max
	n := float64(l.ios)
	s.Latency.Mean = l.sum / n
	s.Latency.Stdev = math.Sqrt(max(0, l.sumsq/n-s.Latency.Mean*s.Latency.Mean))
	for _, p := range pcts {
		s.Latency.Percentiles[p] = l.h.ValueAtQuantile(p)
	}
	for _, b := range l.h.Distribution() {
		if b.Count > 0 {
			s.Latency.Bins = append(s.Latency.Bins, LatencyBin{Ns: (b.From + b.To) / 2, Count: b.Count})
		}
	}
	return s
}
