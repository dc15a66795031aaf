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

// TestEnduranceRoundCountsIdleCollection: a round's write amplification
// counts what the drive programs while it idles after the write pass, as
// wear does. Without background collection nothing is programmed after
// the writes, so the round's WA is the write pass's; with it, the idle
// drive collects back to its high-water mark what the writes used up, so
// in steady state (after the first round) every round programs more than
// its write pass did — and the host bytes the added wear stands for, at
// the round's WA, are fewer.
func TestEnduranceRoundCountsIdleCollection(t *testing.T) {
	run := func(background bool) *sim.EnduranceResult {
		d := twoDies(t, func(c *controller.Config) {
			c.Firmware.BackgroundGC = background
			c.Firmware.GCHighWater = max(c.Firmware.GCHighWater, c.Firmware.GCLowWater+4)
		})
		spec, err := workload.NewEndurance(true)
		require.NoError(t, err)
		spec.RoundWear, spec.MaxLife = 0.25, 1
		r, err := sim.New(d).Endurance(spec, sim.Hooks{})
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(r.Rounds), 3)
		return r
	}
	for _, x := range run(false).Rounds {
		require.InEpsilon(t, x.WritePassWA, x.WA, 1e-9, "round %d: no background collection, nothing programmed after the writes", x.Round)
	}
	r := run(true)
	for _, x := range r.Rounds[1:] {
		t.Logf("round %d: WA %.2f, write pass %.2f", x.Round, x.WA, x.WritePassWA)
		require.Greater(t, x.WA, 1.2*x.WritePassWA, "round %d: idle collection programs a fifth more at least", x.Round)
	}
	var sum float64
	for _, x := range r.Rounds {
		sum += x.WA
	}
	require.InEpsilon(t, float64(r.RatedCycles)*float64(flashBytes(t))/(sum/float64(len(r.Rounds))), float64(r.RatedHostBytes), 1e-9,
		"the rated host bytes at the rounds' mean WA")
}

// flashBytes is twoDies' raw flash.
func flashBytes(t *testing.T) int64 {
	g := twoDies(t, nil).Config().NAND.Geometry
	return int64(g.Blocks()) * int64(g.PagesPerBlock) * int64(g.PageBytes)
}
