package workload

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlowKeepsTheRatio: two jobs of one flow_id, weights 1 and 8 (fio's
// examples/flow.fio), asked in turn for I/Os, issue them 1 to 8: the job
// ahead of its share waits (Stalled) until the other catches up.
func TestFlowKeepsTheRatio(t *testing.T) {
	jf, err := ParseJobFile("flow.fio", strings.NewReader("[global]\nsize=64m\nbs=4k\ntime_based\nruntime=10\n[w]\nrw=write\nflow=1\n[r]\nrw=randread\nflow=8\n"))
	require.NoError(t, err)
	jf.LayOutFlows()
	var gs []*Generator
	for _, fj := range jf.Jobs {
		require.NoError(t, fj.Job.Resolve(1<<30))
		g := NewGenerator(fj.Job)
		require.True(t, g.Waits())
		gs = append(gs, g)
	}
	ios := make([]int, 2)
	stalls := 0
	for range 9000 {
		for i, g := range gs {
			var it Item
			if g.Next(&it) {
				ios[i]++
				g.Completed(&it)
				continue
			}
			require.True(t, g.Stalled(), "a time-based job only waits")
			stalls++
		}
	}
	require.InDelta(t, 8.0, float64(ios[1])/float64(ios[0]), 0.01, "the I/Os of r to w: %v", ios)
	require.Positive(t, stalls)

	plain := NewJob("p")
	require.NoError(t, plain.Resolve(1<<30))
	require.False(t, NewGenerator(plain).Waits(), "a job with no flow and no zones does not wait")
}
