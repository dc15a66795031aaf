package sim_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/testtier"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// largeUnitTolerance is how far the measured write amplification of 4 KiB
// random writes on large mapping units may be from its closed form.
const largeUnitTolerance = 0.02

// TestLargeUnitWriteAmplification checks 4 KiB uniform random writes on
// mapping units of 16 and 64 KiB (the 64 KiB unit spans the 4 planes of a
// multi-plane page of 16 KiB pages) against the closed form: every write
// reads the rest of its unit and programs the whole unit again (read-
// modify-write), and garbage collection then sees uniform random writes
// of whole units, so
//
//	WA = unit/4 KiB × WA_FIFO(α)
//
// with WA_FIFO Desnoyers' model (ftl.FIFOWriteAmplification) at the α the
// FTL measures (the space that can hold data over user space). Every
// write of a mapped unit not in the write buffer is one read-modify-write
// read of the whole unit, counted and booked on its die.
//
// References: Desnoyers, "Analytic modeling of SSD write performance",
// SYSTOR 2012, eq. 5; the factor of unit over write size: P. Raghav,
// "Indirection Unit and WAF" (2023), and Micron's note on 16 KiB
// indirection units (2023).
func TestLargeUnitWriteAmplification(t *testing.T) {
	if testing.Short() {
		t.Skip("runs drive writes of random data")
	}
	for _, unit := range []int{16 << 10, 64 << 10} {
		t.Run(fmt.Sprintf("%dKiB", unit>>10), func(t *testing.T) {
			d := largeUnitDrive(t, unit)
			e := sim.New(d)
			e.SecureErase()
			require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
			units := int(d.CapacityBytes()) / unit
			j := workload.RandomWriteJob("rmw", 1<<62)
			require.NoError(t, j.Resolve(d.CapacityBytes()))
			gen := workload.NewGenerator(j)
			// Warm up to the steady state, then measure.
			_, err := e.Run(&count{g: gen, n: 3 * units}, sim.Options{QueueDepth: 32})
			require.NoError(t, err)
			n := testtier.Pick(6, 12) * units
			r, err := e.Run(&count{g: gen, n: n}, sim.Options{QueueDepth: 32})
			require.NoError(t, err)
			dv := r.Device
			want := float64(unit) / 4096 * ftl.FIFOWriteAmplification(dv.EffectiveAlpha)
			t.Logf("%d KiB units: α %.4f, WA %.3f, closed form %.3f (%+.2f %%), %d RMW reads for %d writes",
				unit>>10, dv.EffectiveAlpha, dv.WriteAmplification, want, 100*(dv.WriteAmplification/want-1), dv.RMWReads, n)
			require.InEpsilon(t, want, dv.WriteAmplification, largeUnitTolerance)
			// Every write reads the rest of its unit from flash, but for the
			// few whose unit still waits in the write buffer (merged there).
			require.LessOrEqual(t, dv.RMWReads, int64(n))
			require.Greater(t, dv.RMWReads, int64(n)*999/1000, "a 4 KiB write of a mapped unit reads the rest of it")
			require.Equal(t, int64(n)*4096, dv.HostWriteBytes)
		})
	}
}

// largeUnitDrive is a 1 GiB one-die drive of 4 planes of 16 KiB pages,
// 64 pages a block, 7 % spare, FIFO cleaning, with mapping units of unit
// bytes.
func largeUnitDrive(t *testing.T, unit int) *controller.Controller {
	t.Helper()
	c, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	g := &c.NAND.Geometry
	g.Channels, g.TargetsPerChannel, g.DiesPerTarget, g.PlanesPerDie, g.PagesPerBlock = 1, 1, 1, 4, 64
	g.UnitBytes = unit
	c.Capacity, c.OPPercent = 1<<30, 7
	c.Firmware.GCPolicy = "fifo"
	d, err := controller.New(c)
	require.NoError(t, err)
	return d
}
