package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/analysis"
)

// series writes at fast MB/s until cache bytes are written, then at slow
// MB/s, in one-second intervals, total bytes in all.
func series(fast, slow float64, cache, total int64) []sim.Interval {
	var out []sim.Interval
	var written, t int64
	for written < total {
		rate := fast
		if written >= cache {
			rate = slow
		}
		b := min(int64(rate*1e6), total-written)
		dur := int64(1e9)
		if b < int64(rate*1e6) {
			dur = int64(float64(b) / (rate * 1e6) * 1e9) // the last, partial interval
		}
		out = append(out, sim.Interval{StartNs: t, EndNs: t + dur, WriteBytes: b, Bytes: b})
		written += b
		t += dur
	}
	return out
}

func TestSummarizeSustained(t *testing.T) {
	for _, tc := range []struct {
		name              string
		fast, slow        float64
		cache, total      int64
		dropped           bool
		wantFast, wantAvg float64
	}{
		// 20 GB at 2,000 MB/s, then 80 GB at 100 MB/s: 10 s + 800 s.
		{"cache then fold", 2000, 100, 20e9, 100e9, true, 20e9, 100e9 / 810.0 / 1e6},
		{"no cache", 500, 500, 0, 10e9, false, 10e9, 500},
		{"cache outlasts the write", 2000, 100, 50e9, 30e9, false, 30e9, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := analysis.SummarizeSustained(series(tc.fast, tc.slow, tc.cache, tc.total))
			assert.Equal(t, tc.total, s.Bytes)
			assert.InDelta(t, tc.wantAvg, s.AverageMBps, tc.wantAvg*0.01)
			assert.InDelta(t, tc.fast, s.BurstMBps, 1e-6)
			assert.Equal(t, tc.dropped, s.Dropped)
			assert.InDelta(t, tc.wantFast, float64(s.FastBytes), tc.fast*1e6, "the drop is found within an interval")
			if tc.dropped {
				assert.InDelta(t, tc.slow, s.AfterMBps, 1e-6)
			} else {
				assert.Zero(t, s.AfterMBps)
			}
			// One rate per GB written; the GBs inside the cache at the
			// fast rate, those after it at the slow one.
			assert.Len(t, s.PerGB, int((tc.total+999_999_999)/1e9))
			assert.InDelta(t, tc.fast, s.PerGB[0], 1e-6)
			if tc.dropped {
				assert.InDelta(t, tc.slow, s.PerGB[len(s.PerGB)-1], 1e-6)
			}
		})
	}
	assert.Equal(t, analysis.SustainedSummary{}, analysis.SummarizeSustained(nil))
}
