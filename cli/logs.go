package cli

import (
	"cmp"
	"fmt"

	"github.com/ftlsim/ftlsim/internal/atomicfile"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// fioLog writes one of fio's log files: lines "time_ms, value, ddir, bs,
// prio" (ddir 0 read, 1 write, 2 trim; prio 0), or with log_offset "time_ms,
// value, ddir, bs, offset, prio", as fio 3 writes them. With log_avg_msec >
// 0 each line is a window's average with bs (and offset) 0, and, as fio
// writes them (stat.c: a window without samples adds no entry), a window
// in which no I/O of a direction completed has no line for it: a stall
// shows as a gap in the times, and an idle gap of any length costs
// nothing. With log_avg_msec = 0 each I/O has a line.
type fioLog struct {
	w    *atomicfile.File // buffered; put in place with the run's other outputs
	kind string           // iops, bw, lat
}

type logSet struct {
	logs   []*fioLog
	avgNs  int64
	winEnd int64
	offset bool // log_offset: each line carries the I/O's offset
	// per-direction accumulators of the current window
	n     [3]int64
	bytes [3]int64
	lat   [3]int64
	// The last whole window, written when the next one closes, so that
	// the run's last sliver (the I/Os in flight when it stopped) joins it
	// instead of making a short window of its own that would drag every
	// average of the log down.
	pend *window
	hist *histLog // write_hist_log (nil without)
}

// window is one averaging window of a log: its end, its length and what
// completed in it, by direction.
type window struct {
	end, ns       int64
	n, bytes, lat [3]int64
}

// openLogsN opens the logs of the n-th job (fio numbers them from 1)
// among the run's outputs: those its job file asks for (jl), and for the
// rest those of the command line.
func openLogsN(o *options, jl workload.Logs, job string, n int, outs *outputs) (*logSet, error) {
	avg, offset, histMsec := o.logAvgMsec, o.logOffset, o.logHistMsec
	if jl.AvgSet {
		avg = jl.AvgMsec
	}
	if jl.OffsetSet {
		offset = jl.Offset
	}
	if jl.HistSet {
		histMsec = jl.HistMsec
	}
	iops, bw, lat, hist := cmp.Or(jl.IOPS, o.iopsLog), cmp.Or(jl.BW, o.bwLog), cmp.Or(jl.Lat, o.latLog), cmp.Or(jl.Hist, o.histLog)
	iops, bw, lat, hist = jl.Prefix(iops, job), jl.Prefix(bw, job), jl.Prefix(lat, job), jl.Prefix(hist, job)
	ls := &logSet{avgNs: avg * 1e6, winEnd: avg * 1e6, offset: offset}
	for _, x := range []struct{ option, prefix, kind string }{
		{"write_iops_log", iops, "iops"}, {"write_bw_log", bw, "bw"},
		{"write_lat_log", lat, "lat"}, {"write_lat_log", lat, "clat"}, {"write_lat_log", lat, "slat"},
	} {
		if x.prefix == "" {
			continue
		}
		f, err := outs.create(x.option+"="+x.prefix, fmt.Sprintf("%s_%s.%d.log", x.prefix, x.kind, n))
		if err != nil {
			return nil, err
		}
		ls.logs = append(ls.logs, &fioLog{w: f, kind: x.kind})
	}
	if hist != "" {
		f, err := outs.create("write_hist_log="+hist, fmt.Sprintf("%s_clat_hist.%d.log", hist, n))
		if err != nil {
			return nil, err
		}
		ls.hist = newHistLog(f, histMsec)
	}
	return ls, nil
}

func (ls *logSet) active() bool { return len(ls.logs) > 0 || ls.hist != nil }

func (ls *logSet) complete(c sim.Completion) {
	if ls.hist != nil {
		ls.hist.complete(c)
	}
	d := c.Op.Dir()
	if ls.avgNs == 0 {
		lat := c.DoneNs - c.IssuedNs
		for _, l := range ls.logs {
			var v int64
			switch l.kind {
			case "iops":
				v = 1
			case "bw":
				v = c.Length * 1e9 / 1024 / max(lat, 1) // KiB/s of this I/O
			case "lat", "clat":
				v = lat
			}
			if ls.offset {
				fmt.Fprintf(l.w, "%d, %d, %d, %d, %d, 0\n", c.DoneNs/1e6, v, d, c.Length, c.Offset)
			} else {
				fmt.Fprintf(l.w, "%d, %d, %d, %d, 0\n", c.DoneNs/1e6, v, d, c.Length)
			}
		}
		return
	}
	ls.advance(c.DoneNs)
	ls.n[d]++
	ls.bytes[d] += c.Length
	ls.lat[d] += c.DoneNs - c.IssuedNs
}

// advance closes the windows that end at or before t. Once the pending
// window and the current one hold nothing, the windows up to t would
// hold nothing either (t is the next completion): they are passed in one
// step.
func (ls *logSet) advance(t int64) {
	for t >= ls.winEnd {
		if ls.pend != nil && ls.pend.n == [3]int64{} && ls.n == [3]int64{} {
			ls.winEnd += ((t-ls.winEnd)/ls.avgNs + 1) * ls.avgNs
			ls.pend.end = ls.winEnd - ls.avgNs
			return
		}
		ls.flush()
	}
}

// flush closes the window ending at winEnd, writes the one before it, and
// starts the next.
func (ls *logSet) flush() {
	if ls.pend != nil {
		ls.write(ls.pend)
	}
	ls.pend = &window{end: ls.winEnd, ns: ls.avgNs, n: ls.n, bytes: ls.bytes, lat: ls.lat}
	ls.n, ls.bytes, ls.lat = [3]int64{}, [3]int64{}, [3]int64{}
	ls.winEnd += ls.avgNs
}

// write writes window w's averages to every log, a line for each
// direction with I/O in it.
func (ls *logSet) write(w *window) {
	secs := float64(w.ns) / 1e9
	for d := 0; d < 3; d++ {
		if w.n[d] == 0 {
			continue
		}
		for _, l := range ls.logs {
			var v int64
			switch l.kind {
			case "iops":
				v = int64(float64(w.n[d])/secs + 0.5)
			case "bw":
				v = int64(float64(w.bytes[d])/1024/secs + 0.5)
			case "lat", "clat":
				if w.n[d] > 0 {
					v = w.lat[d] / w.n[d]
				}
			}
			if ls.offset {
				fmt.Fprintf(l.w, "%d, %d, %d, 0, 0, 0\n", w.end/1e6, v, d)
			} else {
				fmt.Fprintf(l.w, "%d, %d, %d, 0, 0\n", w.end/1e6, v, d)
			}
		}
	}
}

// close writes what the logs hold at the run's end and closes them; the
// files are put in place with the run's other outputs. It returns the
// first write error.
func (ls *logSet) close(res *sim.Result) error {
	if ls.hist != nil {
		ls.hist.close(res)
	}
	if ls.avgNs > 0 && len(ls.logs) > 0 {
		// Windows up to the end of the run; what completed after the last
		// whole one joins it (or, in a run shorter than a window, makes
		// the only one, as long as the run).
		end := res.EndNs - res.StartNs
		if end >= ls.winEnd {
			ls.advance(end)
		}
		if rest := end - (ls.winEnd - ls.avgNs); rest > 0 {
			if ls.pend == nil {
				ls.pend = &window{end: end}
			}
			for d := range 3 {
				ls.pend.n[d] += ls.n[d]
				ls.pend.bytes[d] += ls.bytes[d]
				ls.pend.lat[d] += ls.lat[d]
			}
			ls.pend.ns += rest
		}
		if ls.pend != nil {
			ls.write(ls.pend)
		}
	}
	var first error
	for _, l := range ls.logs {
		if err := l.w.Close(); err != nil && first == nil {
			first = err
		}
	}
	if ls.hist != nil {
		if err := ls.hist.w.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// writeDeviceLog writes the per-interval series as CSV with a header row
// to file, one of the run's outputs.
func writeDeviceLog(outs *outputs, file string, r *sim.Result) error {
	w, err := outs.create("write_device_log="+file, file)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "time_s,iops,read_iops,write_iops,mbps,mean_latency_us,write_amplification,free_blocks,gc_copied_units,erases,power_w")
	row := func(iv sim.Interval) {
		secs := float64(iv.EndNs-iv.StartNs) / 1e9
		fmt.Fprintf(w, "%.3f,%.1f,%.1f,%.1f,%.3f,%.1f,%.3f,%d,%d,%d,%.3f\n",
			float64(iv.EndNs)/1e9, iv.IOPS, float64(iv.ReadIOs)/secs, float64(iv.WriteIOs)/secs, iv.MBps,
			iv.MeanLatencyNs/1e3, iv.WriteAmplification, iv.FreeBlocks, iv.GCCopiedUnits, iv.Erases, iv.PowerW)
	}
	// A run of intervals alike but for their times (an idle gap) is its
	// first and last rows: the values between are the same.
	for iv, n := range r.Intervals.Runs() {
		row(iv)
		if n > 1 {
			l := iv.EndNs - iv.StartNs
			iv.StartNs += int64(n-1) * l
			iv.EndNs += int64(n-1) * l
			row(iv)
		}
	}
	return w.Close()
}
