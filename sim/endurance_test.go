package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// TestEnduranceWearsOutTheDrive: an accelerated endurance run adds its
// round wear each round, counts the host bytes that wear stands for at
// the measured write amplification, sees read retries and read latency
// grow as the flash wears, and retires the drive on its first read it can
// neither correct nor rebuild; the same run gives the same rounds.
func TestEnduranceWearsOutTheDrive(t *testing.T) {
	run := func() *sim.EnduranceResult {
		d := twoDies(t, func(c *controller.Config) { c.Firmware.ReadErrors = true })
		spec, err := workload.NewEndurance(true)
		require.NoError(t, err)
		spec.RoundWear = 0.5
		r, err := sim.New(d).Endurance(spec, sim.Hooks{})
		require.NoError(t, err)
		return r
	}
	r := run()
	require.NotEmpty(t, r.Rounds)
	for _, x := range r.Rounds {
		t.Logf("round %d: life %.2f, %.2f TB, WA %.2f, retried %.3f, retries/read %.3f, p99 %d us, uncorrectable %d, failed %d",
			x.Round, x.LifeUsed, float64(x.HostBytes)/1e12, x.WA, x.RetriedReadShare, x.RetriesPerRead, x.ReadP99Ns/1000, x.UncorrectableReads, x.FailedReads)
	}
	t.Logf("retired: %s; rated %.2f TB", r.Retired, float64(r.RatedHostBytes)/1e12)
	first, last := r.Rounds[0], r.Rounds[len(r.Rounds)-1]
	for i := 1; i < len(r.Rounds); i++ {
		require.InDelta(t, 0.5, r.Rounds[i].LifeUsed-r.Rounds[i-1].LifeUsed, 0.05, "each round adds its wear (and the write pass a little)")
		require.Greater(t, r.Rounds[i].HostBytes, r.Rounds[i-1].HostBytes)
	}
	require.Greater(t, first.WA, 1.5, "the preconditioning reached garbage collection")
	require.Zero(t, first.RetriesPerRead, "fresh flash needs no read retry")
	require.Greater(t, last.RetriesPerRead, first.RetriesPerRead)
	require.Greater(t, last.ReadP99Ns, first.ReadP99Ns, "retries cost read latency")
	require.Positive(t, last.FailedReads, "the drive (no RAISE) retires on a read it cannot correct")
	require.Contains(t, r.Retired, "neither correct nor rebuild")
	require.Greater(t, last.HostBytes, r.RatedHostBytes, "the flash outlives its rated cycles")
	require.Equal(t, r, run(), "deterministic")
}
