package sim

import (
	"cmp"
	"slices"
)

// Combine adds up results of the same workload run in parts (a scenario's
// phases): I/O counts, bytes, busy time and runtime add; mean latencies and
// average service time are weighted by I/Os; minimum and maximum latency
// are kept. Percentiles cannot be combined from the parts and are left out;
// the series are concatenated. Device figures add, except those that are
// levels (free blocks, wear), which are the last part's.
func Combine(parts []*Result) *Result {
	if len(parts) == 0 {
		return nil
	}
	out := *parts[len(parts)-1]
	out.StartNs = parts[0].StartNs
	out.Intervals = nil
	dirs := []func(r *Result) *DirStats{
		func(r *Result) *DirStats { return &r.Read }, func(r *Result) *DirStats { return &r.Write }, func(r *Result) *DirStats { return &r.Trim },
		func(r *Result) *DirStats { return &r.Sync },
	}
	out.RuntimeNs, out.BusyNs, out.Issued = 0, 0, 0
	for _, d := range dirs {
		*d(&out) = DirStats{}
	}
	last := out.Device
	out.Device = Device{PageBytes: last.PageBytes, SlotBytes: last.SlotBytes, Wear: last.Wear,
		FreeBlocksEnd: last.FreeBlocksEnd, FreeBlocksMin: last.FreeBlocksMin, EffectiveAlpha: last.EffectiveAlpha}
	var svc, energy float64
	var ios int64
	for _, r := range parts {
		out.RuntimeNs += r.RuntimeNs
		out.BusyNs += r.BusyNs
		out.Issued += r.Issued
		out.Intervals = append(out.Intervals, r.Intervals...)
		for _, d := range dirs {
			a, b := d(&out), d(r)
			n := a.IOs + b.IOs
			if n > 0 {
				a.Latency.Mean = (a.Latency.Mean*float64(a.IOs) + b.Latency.Mean*float64(b.IOs)) / float64(n)
			}
			if b.IOs > 0 && (a.IOs == 0 || b.Latency.Min < a.Latency.Min) {
				a.Latency.Min = b.Latency.Min
			}
			a.Latency.Max = max(a.Latency.Max, b.Latency.Max)
			a.IOs, a.Bytes = n, a.Bytes+b.Bytes
			a.Latency.N = n
		}
		n := r.Read.IOs + r.Write.IOs + r.Trim.IOs
		svc += r.AvgServiceNs * float64(n)
		ios += n
		energy += r.Power.EnergyJ
		out.Device.Counters = out.Device.Counters.Add(r.Device.Counters)
		out.Device.FreeBlocksMin = min(out.Device.FreeBlocksMin, r.Device.FreeBlocksMin)
	}
	out.Device.derive()
	if ios > 0 {
		out.AvgServiceNs = svc / float64(ios)
	}
	secs := float64(out.RuntimeNs) / 1e9
	for _, d := range dirs {
		a := d(&out)
		if secs > 0 {
			a.IOPS, a.BWBytes = float64(a.IOs)/secs, float64(a.Bytes)/secs
		}
		a.Latency.Percentiles = nil
		// The distributions add up bin by bin.
		counts := map[int64]int64{}
		for _, p := range parts {
			for _, b := range d(p).Latency.Bins {
				counts[b.Ns] += b.Count
			}
		}
		a.Latency.Bins = nil
		for ns, c := range counts {
			a.Latency.Bins = append(a.Latency.Bins, LatencyBin{Ns: ns, Count: c})
		}
		slices.SortFunc(a.Latency.Bins, func(x, y LatencyBin) int { return cmp.Compare(x.Ns, y.Ns) })
	}
	out.Power.EnergyJ = energy
	if secs > 0 {
		out.Power.AverageW = energy / secs
	}
	out.LatencyBuckets, out.DepthCounts = nil, nil
	return &out
}

// CombineRepeated merges the measurements of repeated labels (a
// scenario's phases) into one, in order of first appearance.
func CombineRepeated(ms []Measurement) []Measurement {
	var out []Measurement
	parts := map[string][]*Result{}
	for _, m := range ms {
		if _, seen := parts[m.Label]; !seen {
			out = append(out, Measurement{Label: m.Label})
		}
		parts[m.Label] = append(parts[m.Label], m.Result)
	}
	for i := range out {
		p := parts[out[i].Label]
		if len(p) == 1 {
			out[i].Result = p[0]
		} else {
			out[i].Result = Combine(p)
			out[i].Result.Name = out[i].Label
		}
	}
	return out
}
