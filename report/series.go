package report

import (
	"bytes"
	"fmt"

	"github.com/ftlsim/ftlsim/sim"
)

// tidy returns a series with each short interval that closes a stretch
// of full ones (the I/Os still in flight when a job stopped, completing
// within a few microseconds) folded into the interval before it, so that
// no point stands for a sliver of time and no two rows share a time.
// Rates are recomputed over the joined length; levels (free blocks) are
// the later interval's. The input is not modified.
func tidy(series []sim.Interval) []sim.Interval {
	var full int64
	for _, iv := range series {
		full = max(full, iv.EndNs-iv.StartNs)
	}
	out := make([]sim.Interval, 0, len(series))
	for _, iv := range series {
		n := len(out)
		if n > 0 && iv.EndNs-iv.StartNs < full && out[n-1].EndNs == iv.StartNs && out[n-1].EndNs-out[n-1].StartNs == full {
			out[n-1] = join(out[n-1], iv)
			continue
		}
		out = append(out, iv)
	}
	return out
}

// join is one interval covering a and b (b following a).
func join(a, b sim.Interval) sim.Interval {
	secs := func(iv sim.Interval) float64 { return float64(iv.EndNs-iv.StartNs) / 1e9 }
	ta, tb := secs(a), secs(b)
	t := ta + tb
	iosA, iosB := a.IOPS*ta, b.IOPS*tb
	out := a
	out.EndNs = b.EndNs
	out.AddCounts(b)
	out.IOPS = (iosA + iosB) / t
	out.MBps = float64(out.Bytes) / t / 1e6
	if iosA+iosB > 0 {
		out.MeanLatencyNs = (a.MeanLatencyNs*iosA + b.MeanLatencyNs*iosB) / (iosA + iosB)
	}
	// Write amplification is flash bytes per host byte: weight by host
	// bytes written.
	if w := a.WriteBytes + b.WriteBytes; w > 0 {
		out.WriteAmplification = (a.WriteAmplification*float64(a.WriteBytes) + b.WriteAmplification*float64(b.WriteBytes)) / float64(w)
	}
	out.FreeBlocks = b.FreeBlocks
	out.GCCopiedUnits += b.GCCopiedUnits
	out.Erases += b.Erases
	out.BusyNs += b.BusyNs
	out.PowerW = (a.PowerW*ta + b.PowerW*tb) / t
	return out
}

// seriesCSV is a series as CSV, one row an interval (tidied), by the
// interval's end.
func seriesCSV(series []sim.Interval) []byte {
	var b bytes.Buffer
	fmt.Fprintln(&b, "time_s,iops,mbps,mean_latency_us,write_amplification,free_blocks,gc_copied_units,power_w")
	for _, iv := range tidy(series) {
		fmt.Fprintf(&b, "%.3f,%.1f,%.3f,%.1f,%.3f,%d,%d,%.3f\n", float64(iv.EndNs)/1e9, iv.IOPS, iv.MBps,
			iv.MeanLatencyNs/1e3, iv.WriteAmplification, iv.FreeBlocks, iv.GCCopiedUnits, iv.PowerW)
	}
	return b.Bytes()
}
