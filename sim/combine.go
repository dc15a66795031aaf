package sim

import (
	"cmp"
	"math"
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
	out.Intervals = Series{}
	dirs := []func(r *Result) *DirStats{
		func(r *Result) *DirStats { return &r.Read }, func(r *Result) *DirStats { return &r.Write }, func(r *Result) *DirStats { return &r.Trim },
		func(r *Result) *DirStats { return &r.Sync },
	}
	out.RuntimeNs, out.BusyNs, out.Issued, out.IOErrors = 0, 0, 0, 0
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
		out.Interrupted = out.Interrupted || r.Interrupted
		out.IOErrors += r.IOErrors
		if out.ZoneError == "" {
			out.ZoneError, out.ZoneErrno = r.ZoneError, r.ZoneErrno
		}
		out.Intervals = out.Intervals.Concat(r.Intervals)
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
		if f := r.Device.FDP; f != nil {
			if out.Device.FDP == nil {
				out.Device.FDP = &FDPStats{}
			}
			out.Device.FDP.add(f)
		}
		if z := r.Device.Zones; z != nil {
			if out.Device.Zones == nil {
				out.Device.Zones = &ZoneStats{}
			}
			t := out.Device.Zones
			t.Resets, t.Finishes, t.AutoCloses, t.Refused = t.Resets+z.Resets, t.Finishes+z.Finishes, t.AutoCloses+z.AutoCloses, t.Refused+z.Refused
		}
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

// Merge reports jobs that ran at the same time as one, as fio's
// group_reporting does: I/Os and bytes add; the runtime is the longest,
// and rates are the total over it; latencies merge — mean and deviation
// over all I/Os, the extremes kept, the distributions added bin by bin
// and the percentiles read from the sum; the series add interval by
// interval. Device figures are the last result's: every job of a group
// carries the figures of the whole group.
func Merge(rs []*Result) *Result {
	if len(rs) == 0 {
		return nil
	}
	out := *rs[len(rs)-1]
	out.Name = rs[0].Name
	out.StartNs, out.EndNs, out.RuntimeNs, out.BusyNs, out.Issued = rs[0].StartNs, 0, 0, 0, 0
	out.IOErrors = 0
	out.Intervals = Series{}
	out.LatencyBuckets = make([]int64, len(rs[0].LatencyBuckets))
	out.DepthCounts = make([]int64, len(rs[0].DepthCounts))
	out.Verify = VerifyStats{FirstMismatch: -1}
	out.RateMinFailed = ""
	out.ZBD, out.ZoneResets = false, 0
	out.ZoneError, out.ZoneErrno = "", 0
	for _, r := range rs {
		out.ZBD = out.ZBD || r.ZBD
		if out.ZoneError == "" {
			out.ZoneError, out.ZoneErrno = r.ZoneError, r.ZoneErrno
		}
		out.ZoneResets += r.ZoneResets // fio sums them under group_reporting
	}
	var svc float64
	var ios int64
	for _, r := range rs {
		out.StartNs, out.EndNs = min(out.StartNs, r.StartNs), max(out.EndNs, r.EndNs)
		out.RuntimeNs, out.BusyNs = max(out.RuntimeNs, r.RuntimeNs), max(out.BusyNs, r.BusyNs)
		out.Issued += r.Issued
		out.Interrupted = out.Interrupted || r.Interrupted
		out.IOErrors += r.IOErrors
		n := r.Read.IOs + r.Write.IOs + r.Trim.IOs
		svc += r.AvgServiceNs * float64(n)
		ios += n
		for i := range min(len(out.LatencyBuckets), len(r.LatencyBuckets)) {
			out.LatencyBuckets[i] += r.LatencyBuckets[i]
		}
		for i := range min(len(out.DepthCounts), len(r.DepthCounts)) {
			out.DepthCounts[i] += r.DepthCounts[i]
		}
		out.Intervals = zip(out.Intervals, r.Intervals, func(a *Interval, iv Interval) {
			na, nb := float64(a.ReadIOs+a.WriteIOs+a.TrimIOs), float64(iv.ReadIOs+iv.WriteIOs+iv.TrimIOs)
			if na+nb > 0 {
				a.MeanLatencyNs = (a.MeanLatencyNs*na + iv.MeanLatencyNs*nb) / (na + nb)
			}
			a.AddCounts(iv)
			a.IOPS += iv.IOPS
			a.MBps += iv.MBps
		})
		if out.RateMinFailed == "" {
			out.RateMinFailed = r.RateMinFailed
		}
		v := r.Verify
		if v.Mismatches > 0 && out.Verify.Mismatches == 0 {
			out.Verify.FirstMismatch = v.FirstMismatch
		}
		out.Verify.Reads += v.Reads
		out.Verify.Bytes += v.Bytes
		out.Verify.Mismatches += v.Mismatches
	}
	if ios > 0 {
		out.AvgServiceNs = svc / float64(ios)
	}
	for _, d := range []func(r *Result) *DirStats{
		func(r *Result) *DirStats { return &r.Read }, func(r *Result) *DirStats { return &r.Write },
		func(r *Result) *DirStats { return &r.Trim }, func(r *Result) *DirStats { return &r.Sync },
	} {
		*d(&out) = mergeDir(rs, d, out.RuntimeNs)
	}
	return &out
}

// mergeDir merges direction d of results rs that ran at the same time,
// over runtime ns.
func mergeDir(rs []*Result, d func(*Result) *DirStats, runtime int64) DirStats {
	var s DirStats
	var sum, sumsq float64
	counts := map[int64]int64{}
	var pcts []float64
	for _, r := range rs {
		x := d(r)
		if x.IOs > 0 && (s.IOs == 0 || x.Latency.Min < s.Latency.Min) {
			s.Latency.Min = x.Latency.Min
		}
		s.Latency.Max = max(s.Latency.Max, x.Latency.Max)
		s.IOs += x.IOs
		s.Bytes += x.Bytes
		n := float64(x.IOs)
		sum += x.Latency.Mean * n
		sumsq += (x.Latency.Stdev*x.Latency.Stdev + x.Latency.Mean*x.Latency.Mean) * n
		for _, b := range x.Latency.Bins {
			counts[b.Ns] += b.Count
		}
		if pcts == nil {
			for p := range x.Latency.Percentiles {
				pcts = append(pcts, p)
			}
		}
	}
	s.Latency.N = s.IOs
	if s.IOs > 0 {
		n := float64(s.IOs)
		s.Latency.Mean = sum / n
		s.Latency.Stdev = math.Sqrt(max(0, sumsq/n-s.Latency.Mean*s.Latency.Mean))
	}
	if runtime > 0 {
		s.IOPS = float64(s.IOs) / (float64(runtime) / 1e9)
		s.BWBytes = float64(s.Bytes) / (float64(runtime) / 1e9)
	}
	for ns, c := range counts {
		s.Latency.Bins = append(s.Latency.Bins, LatencyBin{Ns: ns, Count: c})
	}
	slices.SortFunc(s.Latency.Bins, func(x, y LatencyBin) int { return cmp.Compare(x.Ns, y.Ns) })
	s.Latency.Percentiles = make(map[float64]int64, len(pcts))
	for _, p := range pcts {
		s.Latency.Percentiles[p] = binPercentile(s.Latency.Bins, s.IOs, p)
	}
	return s
}

// binPercentile returns the latency of percentile p of a distribution of
// n I/Os given by its bins: the first bin whose running count reaches
// p % of n (0 for none).
func binPercentile(bins []LatencyBin, n int64, p float64) int64 {
	if n == 0 {
		return 0
	}
	need := int64(math.Ceil(p / 100 * float64(n)))
	var c int64
	for _, b := range bins {
		c += b.Count
		if c >= need {
			return b.Ns
		}
	}
	return bins[len(bins)-1].Ns
}
