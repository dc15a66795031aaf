package cli

import (
	"fmt"
	"math/bits"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/internal/atomicfile"
	"github.com/ftlsim/ftlsim/sim"
)

// fio's completion-latency histogram (stat.h): 29 groups of 64 bins, the
// first two groups 1 ns wide, each later one twice as wide as the one
// before. A histogram log line is "time_ms, ddir, bs, " and the 1,856
// bins' counts over the interval, as fio's write_hist_log writes them
// (tools/hist/fio-histo-log-pctiles.py reads them).
const (
	histBits   = 6
	histVal    = 1 << histBits
	histGroups = 29
	histBins   = histGroups * histVal
)

// histBin is fio's plat_val_to_idx: the bin of a latency of ns.
func histBin(ns int64) int {
	if ns < 0 {
		ns = 0
	}
	v := uint64(ns)
	msb := 0
	if v > 0 {
		msb = 63 - bits.LeadingZeros64(v)
	}
	if msb <= histBits {
		return int(v)
	}
	errBits := msb - histBits
	idx := (errBits+1)<<histBits + int((histVal-1)&(v>>uint(errBits)))
	return min(idx, histBins-1)
}

// histLog writes fio's completion-latency histogram log for reads and
// writes (fio's tools know no trim histograms): a line for each interval
// of log_hist_msec and each direction with I/O completed in it (as fio,
// which writes a histogram when an I/O completes: an interval without
// one has no line).
type histLog struct {
	w       *atomicfile.File // buffered; put in place with the run's other outputs
	everyNs int64
	winEnd  int64
	counts  [2][histBins]int64 // the current interval
	n       [2]int64           // I/Os in counts, by direction
	bs      [2]int64           // the block size of the direction's latest I/O
	// The last whole interval, written when the next one closes, so that
	// the I/Os in flight when the run stopped join it (as in the averaged
	// logs) instead of making an interval of their own.
	pend    [2][histBins]int64
	pendN   [2]int64
	pendEnd int64 // 0: none
}

// newHistLog starts a histogram log of an interval of everyMsec, written
// to w.
func newHistLog(w *atomicfile.File, everyMsec int64) *histLog {
	return &histLog{w: w, everyNs: everyMsec * 1e6, winEnd: everyMsec * 1e6}
}

func (h *histLog) complete(c sim.Completion) {
	d := 0
	switch c.Op {
	case blockio.Read:
	case blockio.Write:
		d = 1
	default:
		return
	}
	h.advance(c.DoneNs)
	h.n[d]++
	h.bs[d] = c.Length
	h.counts[d][histBin(c.DoneNs-c.IssuedNs)]++
}

// advance closes the intervals that end at or before t; once the pending
// interval and the current one hold nothing, those up to t are passed in
// one step (t is the next completion: they would hold nothing either).
func (h *histLog) advance(t int64) {
	for t >= h.winEnd {
		if h.pendEnd > 0 && h.pendN == [2]int64{} && h.n == [2]int64{} {
			h.winEnd += ((t-h.winEnd)/h.everyNs + 1) * h.everyNs
			h.pendEnd = h.winEnd - h.everyNs
			return
		}
		h.flush(h.winEnd)
		h.winEnd += h.everyNs
	}
}

// flush closes the interval ending at end and writes the one before it.
func (h *histLog) flush(end int64) {
	if h.pendEnd > 0 {
		h.write()
	}
	h.pend, h.pendN, h.pendEnd = h.counts, h.n, end
	h.counts, h.n = [2][histBins]int64{}, [2]int64{}
}

// write writes the pending interval, a line a direction with I/O in it.
func (h *histLog) write() {
	for d := range 2 {
		if h.pendN[d] == 0 {
			continue
		}
		fmt.Fprintf(h.w, "%d, %d, %d", h.pendEnd/1e6, d, h.bs[d])
		for _, c := range h.pend[d] {
			fmt.Fprintf(h.w, ", %d", c)
		}
		fmt.Fprintln(h.w)
	}
}

// close writes the intervals up to the run's end — what completed after
// the last whole one joins it.
func (h *histLog) close(res *sim.Result) {
	end := res.EndNs - res.StartNs
	h.advance(end)
	if h.pendEnd == 0 {
		h.pendEnd = end // a run shorter than an interval
	}
	for d := range 2 {
		for i, c := range h.counts[d] {
			h.pend[d][i] += c
		}
		h.pendN[d] += h.n[d]
	}
	h.write()
}
