package sim

// What the engine checks as a run goes: verify reads against what their
// job wrote, and the job's rate against its minimum.

import (
	"fmt"
	"math"

	"github.com/ftlsim/ftlsim/internal/units"

	"github.com/ftlsim/ftlsim/workload"
)

// verify checks a verify read of stream s: each unit it covers must hold
// the token of the source's last write there. The drive reads at
// submission, so the check sees what the read returns.
func (e *Engine) verify(s *stream, it *workload.Item) error {
	vs := &s.m.verify
	if vs.Reads == 0 {
		vs.FirstMismatch = -1
	}
	vs.Reads++
	vs.Bytes += it.Length
	unit := e.ctrl.UnitBytes()
	for u := it.Offset / unit; u <= (it.Offset+it.Length-1)/unit; u++ {
		got, mapped, err := e.ctrl.DataToken(u * unit)
		if err != nil {
			return err
		}
		if (it.Expect != 0 && got != it.Expect) || !mapped {
			if vs.Mismatches == 0 {
				vs.FirstMismatch = u * unit
			}
			vs.Mismatches++
		}
	}
	return nil
}

// checkMinRate counts a completion of n bytes at now against the
// stream's minimum rate: at the end of each rate cycle after the ramp, a
// rate below it fails the stream, which stops issuing (fio's rate_min).
func (s *stream) checkMinRate(now, n int64) {
	cycle := s.o.RateCycleNs
	if cycle <= 0 {
		cycle = Second
	}
	if now < s.start+s.o.RampNs || s.m.rateMinFailed != "" {
		return
	}
	if s.rcStart == 0 {
		s.rcStart = max(s.start+s.o.RampNs, 1)
	}
	s.rcBytes += n
	s.rcIOs++
	spent := now - s.rcStart
	if spent < cycle {
		return
	}
	bps := s.rcBytes * Second / spent
	iops := s.rcIOs * Second / spent
	switch {
	case s.o.MinBytesPerSec > 0 && bps < s.o.MinBytesPerSec:
		s.m.rateMinFailed = fmt.Sprintf("rate_min=%dB/s not met, got %dB/s over %d ms to %.3f s", s.o.MinBytesPerSec, bps, spent/1e6, float64(now-s.start)/1e9)
	case s.o.MinIOPS > 0 && iops < s.o.MinIOPS:
		s.m.rateMinFailed = fmt.Sprintf("rate_iops_min=%d not met, got %d over %d ms to %.3f s", s.o.MinIOPS, iops, spent/1e6, float64(now-s.start)/1e9)
	}
	if s.m.rateMinFailed != "" {
		s.stopAt = min(s.stopAt, now)
	}
	s.rcStart, s.rcBytes, s.rcIOs = now, 0, 0
}

// satAdd is a+b for b ≥ 0, saturated at math.MaxInt64: a request time far
// in the future stays there rather than wrapping into the past.
func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// rateNotReached says how a paced run fell short of its rate, or is empty:
// short means below 99 % of the ceiling over the measured runtime (the
// pace's rounding and the last I/Os' tail stay within that).
func rateNotReached(o Options, r *Result) string {
	if !o.Paced || r.RuntimeNs <= 0 || r.Interrupted {
		return ""
	}
	secs := float64(r.RuntimeNs) / 1e9
	ios := r.Read.IOs + r.Write.IOs + r.Trim.IOs
	bytes := r.Read.Bytes + r.Write.Bytes + r.Trim.Bytes
	switch {
	case o.RateBytes > 0 && float64(bytes)/secs < 0.99*float64(o.RateBytes):
		return fmt.Sprintf("rate %s/s not reached: the drive did %s/s at queue depth %d", units.FormatBytes(o.RateBytes), units.FormatBytes(int64(float64(bytes)/secs)), o.QueueDepth)
	case o.RateIOPS > 0 && float64(ios)/secs < 0.99*float64(o.RateIOPS):
		return fmt.Sprintf("rate %d IOPS not reached: the drive did %.0f IOPS at queue depth %d", o.RateIOPS, float64(ios)/secs, o.QueueDepth)
	}
	return ""
}

// VerifyStats is what a verify phase read back and found.
type VerifyStats struct {
	Reads int64 `json:"reads"`
	Bytes int64 `json:"bytes"`
	// Mismatches is the device units whose data was not the job's last
	// write there; FirstMismatch is the byte offset of the first (-1:
	// none).
	Mismatches    int64 `json:"mismatches"`
	FirstMismatch int64 `json:"first_mismatch"`
}
