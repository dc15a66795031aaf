package fit

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/workload"
)

// A scenario run only as far as its targets read gives those figures
// exactly as the whole run does: the steps after the last one read are
// not run, and HD Tach's write curve stops once its figures are
// determined.
func TestRunOnlyWhatTargetsRead(t *testing.T) {
	ctx := context.Background()
	cfg, err := controller.Preset("bp4-240")
	require.NoError(t, err)
	r, err := cfg.Resolve()
	require.NoError(t, err)
	base := r.Config.Resized(16<<30, r.SparePercent) // a curve past 10 GB
	over := map[string]string{"torture": "1", "torture_time": "20s"}
	whole, err := (&scenario{name: "hdtach", over: over}).Run(ctx, base)
	require.NoError(t, err)
	require.Contains(t, whole, "read-curve: read MB/s")
	t.Logf("whole: first 10 GB %.1f MB/s, GB before 300 MB/s %.2f", whole["write-curve: first 10 GB MB/s"], whole["write-curve: GB before 300 MB/s"])
	require.Positive(t, whole["write-curve: GB before 300 MB/s"], "the curve recovers: the cut must wait for it")
	for _, need := range [][]string{
		{"write-curve: first 10 GB MB/s"},
		{"write-curve: GB before 300 MB/s"},
		{"write-curve: first 10 GB MB/s", "write-curve: GB before 300 MB/s"},
		{"write-curve: write MB/s"}, // not cut: the whole step
		{"read-curve: read MB/s", "write-curve: first 10 GB MB/s"},
	} {
		p := &scenario{name: "hdtach", over: over, need: need}
		end, cut := p.runsTo(mustSteps(t, p))
		got, err := p.Run(ctx, base)
		require.NoError(t, err)
		if cut != nil {
			require.NotContains(t, got, "write-curve: write MB/s", "%v: the curve's other figures are those of a step cut short", need)
		}
		for _, f := range need {
			require.Contains(t, got, f)
			require.Equal(t, whole[f], got[f], "%v: %s", need, f)
		}
		require.NotContains(t, got, "access-4k: read IOPS", "%v: steps after the last one read are not run", need)
		require.Less(t, end, len(mustSteps(t, p)))
	}
	// A figure of no step: every step runs (and the check refuses it).
	p := &scenario{name: "hdtach", over: over, need: []string{"write-curv: first 10 GB MB/s"}}
	end, cut := p.runsTo(mustSteps(t, p))
	require.Equal(t, len(mustSteps(t, p)), end)
	require.Nil(t, cut)
}

func mustSteps(t *testing.T, p *scenario) []workload.Step {
	t.Helper()
	s, err := p.steps()
	require.NoError(t, err)
	return s
}
