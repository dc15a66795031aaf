package analysis

import (
	"sort"

	"gonum.org/v1/gonum/stat"

	"github.com/ftlsim/ftlsim/sim"
)

// SustainedSummary is what reviews read off a sustained sequential write
// (a whole-span write logged each second): the rate while the drive's
// fast path (an SLC cache, a write buffer, free blocks) lasts, how much
// it took before the rate fell, and the rate after.
type SustainedSummary struct {
	Bytes       int64   // bytes written
	AverageMBps float64 // over the whole write, 10^6 bytes a second
	// BurstMBps is full speed: the write rate's fresh level (Drop).
	BurstMBps float64
	// Dropped tells whether the rate fell: three intervals in a row
	// below DropShare of BurstMBps (Drop).
	Dropped bool
	// FastBytes is what was written before the drop (Bytes when the rate
	// did not drop).
	FastBytes int64
	// AfterMBps is the rate over the full intervals after the drop, their
	// bytes over their time (0 when it did not drop): what folding or
	// cleaning leaves the host, stalls included.
	AfterMBps float64
	// PerGB is the rate over each GB (10^9 bytes) written, the last one
	// partial: the chart reviews draw against data written.
	PerGB []float64
}

// SummarizeSustained reads a sustained write's series; the last, partial
// interval counts in the totals and PerGB only.
func SummarizeSustained(series []sim.Interval) SustainedSummary {
	var s SustainedSummary
	var ns int64
	for _, iv := range series {
		s.Bytes += iv.WriteBytes
		ns += iv.EndNs - iv.StartNs
	}
	if s.Bytes == 0 || ns == 0 {
		return s
	}
	s.AverageMBps = float64(s.Bytes) / float64(ns) * 1e3
	s.PerGB = perGB(series)
	full := fullIntervals(series)
	rates := make([]float64, len(full))
	for i, iv := range full {
		rates[i] = float64(iv.WriteBytes) / float64(max(1, iv.EndNs-iv.StartNs)) * 1e3
	}
	drop := Drop(rates)
	s.BurstMBps, s.FastBytes = drop.Level, s.Bytes
	if drop.At >= 0 {
		var written, b, t int64
		for _, iv := range full[:drop.At] {
			written += iv.WriteBytes
		}
		for _, iv := range full[drop.At:] {
			b, t = b+iv.WriteBytes, t+iv.EndNs-iv.StartNs
		}
		s.Dropped, s.FastBytes, s.AfterMBps = true, written, float64(b)/float64(t)*1e3
	}
	return s
}

// perGB returns the write rate over each GB written (RateOver).
func perGB(series []sim.Interval) []float64 { return RateOver(series, 1e9) }

// RateOver returns a series' write rate, MB/s, over each bin bytes
// written (the last bin partial), an interval's bytes spread evenly over
// its time: the rate against data written, at any resolution.
func RateOver(series []sim.Interval, bin float64) []float64 {
	gb := bin
	var out []float64
	var bytes, ns float64 // in the GB being filled
	for _, iv := range series {
		b, t := float64(iv.WriteBytes), float64(iv.EndNs-iv.StartNs)
		for b > 0 {
			take := min(b, gb-bytes)
			dt := t * take / b
			bytes += take
			ns += dt
			b -= take
			t -= dt
			if bytes >= gb {
				out = append(out, bytes/ns*1e3)
				bytes, ns = 0, 0
			}
		}
	}
	if bytes > 0 && ns > 0 {
		out = append(out, bytes/ns*1e3)
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	ys := append([]float64(nil), xs...)
	sort.Float64s(ys)
	return stat.Quantile(0.5, stat.Empirical, ys, nil)
}
