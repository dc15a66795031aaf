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
	// BurstMBps is the highest median rate of three intervals in a row
	// that start in the first tenth of the write (or its first three
	// intervals) — or, when the first two intervals hold a faster rate
	// that soon dropped (a cache that lasts a second or two), that rate:
	// full speed.
	BurstMBps float64
	// Dropped tells whether the rate fell: three intervals in a row
	// below DropShare of BurstMBps.
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

// DropShare is the share of the burst rate below which a sustained
// write's rate has dropped.
const DropShare = 0.7

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
	full := series
	if n := len(full); n > 1 && full[n-1].EndNs-full[n-1].StartNs < full[0].EndNs-full[0].StartNs {
		full = full[:n-1]
	}
	rate := func(iv sim.Interval) float64 {
		return float64(iv.WriteBytes) / float64(max(1, iv.EndNs-iv.StartNs)) * 1e3
	}
	head := min(max(3, len(full)/10), len(full))
	for i := range head {
		w := full[i:min(i+3, len(full))]
		rs := make([]float64, len(w))
		for j, iv := range w {
			rs[j] = rate(iv)
		}
		s.BurstMBps = max(s.BurstMBps, median(rs))
	}
	// A fast path that lasts a second or two (a small cache) is gone
	// from every window of three: the first intervals' rate, when it is
	// that far above, is full speed.
	for _, iv := range full[:min(2, len(full))] {
		if r := rate(iv); r*DropShare > s.BurstMBps {
			s.BurstMBps = r
		}
	}
	s.FastBytes = s.Bytes
	var written int64
	for i := range full {
		if i+3 <= len(full) && rate(full[i]) < DropShare*s.BurstMBps && rate(full[i+1]) < DropShare*s.BurstMBps && rate(full[i+2]) < DropShare*s.BurstMBps {
			s.Dropped, s.FastBytes = true, written
			var b, t int64
			for _, iv := range full[i:] {
				b, t = b+iv.WriteBytes, t+iv.EndNs-iv.StartNs
			}
			s.AfterMBps = float64(b) / float64(t) * 1e3
			break
		}
		written += full[i].WriteBytes
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
