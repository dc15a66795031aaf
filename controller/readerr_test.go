package controller_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/nand"
	"github.com/ftlsim/ftlsim/sim"
)

// faultyDrive builds a small four-die drive that models read errors with
// the generic preset's part and ECC, edited by edit.
func faultyDrive(t *testing.T, edit func(*controller.Config)) *controller.Controller {
	t.Helper()
	c, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	g := &c.NAND.Geometry
	g.Channels, g.TargetsPerChannel, g.DiesPerTarget = 4, 1, 1
	c.Capacity, c.OPPercent = 1<<30, 40
	c.Firmware.ReadErrors = true
	if edit != nil {
		edit(&c)
	}
	d, err := controller.New(c)
	require.NoError(t, err)
	return d
}

// readBack writes 256 MiB sequentially, lets the drive age by bake
// (after pre-wearing it by wear of its rated cycles) and reads 4 KiB at
// random from it at QD1 for 0.3 s, once the drive has been idle a
// second.
func readBack(t *testing.T, d *controller.Controller, wear float64, bake int64) *sim.Result {
	t.Helper()
	e := sim.New(d)
	e.SecureErase()
	require.NoError(t, d.PreWear(wear))
	runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "256m"})
	require.NoError(t, e.Idle(sim.Second)) // the writes' programs end
	require.NoError(t, d.Bake(bake))
	return runJob(t, e, map[string]string{"rw": "randread", "size": "256m", "runtime": "0.3", "time_based": "1"})
}

// retentionHeavy makes retention dominate the raw bit errors: a year at
// rated wear gives RBER 0.01, past what 40 bits per KiB correct (mean 87
// errors a codeword), while two read-retry steps bring it to 2.6e-3
// (mean 23).
func retentionHeavy(c *controller.Config) { c.NAND.Reliability.RetentionRBER = 0.01 }

func TestUnwornDriveNeedsNoRetry(t *testing.T) {
	d := faultyDrive(t, retentionHeavy)
	r := readBack(t, d, 0, 0)
	require.Positive(t, r.Read.IOs)
	k := r.Device.Counters
	require.Zero(t, k.ReadRetries)
	require.Zero(t, k.UncorrectableReads)
	require.Zero(t, r.IOErrors)
}

func TestWornAgedDriveRetries(t *testing.T) {
	fresh := readBack(t, faultyDrive(t, retentionHeavy), 0, 0)
	d := faultyDrive(t, retentionHeavy)
	worn := readBack(t, d, 1, nand.RetentionYear)
	k := worn.Device.Counters
	rel := d.Config().NAND.Reliability
	t.Logf("worn and a year old: %d reads, %d retried with %d steps, %d uncorrectable; p99 %d us (fresh %d us)",
		worn.Read.IOs, k.RetriedReads, k.ReadRetries, k.UncorrectableReads,
		worn.Read.Latency.Percentiles[99]/1e3, fresh.Read.Latency.Percentiles[99]/1e3)
	require.Positive(t, k.RetriedReads)
	require.Zero(t, k.UncorrectableReads, "read retry recovers retention errors")
	require.LessOrEqual(t, k.ReadRetries, int64(rel.RetrySteps)*k.RetriedReads)
	require.GreaterOrEqual(t, k.ReadRetries, k.RetriedReads)
	// Each retry senses the page again: at least tR more.
	tR := d.Config().NAND.Timing.ReadNs
	require.GreaterOrEqual(t, worn.Read.Latency.Percentiles[99], fresh.Read.Latency.Percentiles[99]+tR)
	require.Greater(t, worn.Read.Latency.Mean, fresh.Read.Latency.Mean+float64(tR)*float64(k.ReadRetries)/float64(worn.Read.IOs)*0.9)
}

// wearHeavy makes worn blocks unreadable whatever read retry does: at
// rated wear the RBER is 0.01 (mean 87 errors a 1 KiB codeword, 40
// corrected).
func wearHeavy(c *controller.Config) { c.NAND.Reliability.RatedRBER = 0.01 }

func TestRaiseRebuildsWhatOthersFail(t *testing.T) {
	plain := faultyDrive(t, wearHeavy)
	r := readBack(t, plain, 1, 0)
	k := r.Device.Counters
	require.Positive(t, k.UncorrectableReads)
	require.Zero(t, k.ParityRebuilds)
	require.Equal(t, k.UncorrectableReads, k.FailedReads, "4 KiB reads: a unit a read")
	require.Equal(t, k.FailedReads, r.IOErrors)

	raised := faultyDrive(t, func(c *controller.Config) {
		wearHeavy(c)
		c.Firmware.RaiseStripe = 4
	})
	r = readBack(t, raised, 1, 0)
	k = r.Device.Counters
	t.Logf("RAISE: %d reads, %d uncorrectable, %d rebuilt, mean %.0f us", r.Read.IOs, k.UncorrectableReads, k.ParityRebuilds, r.Read.Latency.Mean/1e3)
	require.Positive(t, k.ParityRebuilds)
	require.Equal(t, k.UncorrectableReads, k.ParityRebuilds)
	require.Zero(t, k.FailedReads)
	require.Zero(t, r.IOErrors)
}

func TestReadReclaimRefreshesHotBlocks(t *testing.T) {
	d := faultyDrive(t, func(c *controller.Config) { c.Firmware.ReadReclaimReads = 500 })
	e := sim.New(d)
	e.SecureErase()
	runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "64m"})
	// 1 MiB read over and over: a few groups take every read.
	r := runJob(t, e, map[string]string{"rw": "randread", "size": "1m", "runtime": "0.5", "time_based": "1"})
	k := r.Device.Counters
	t.Logf("%d reads of 1 MiB: %d groups reclaimed, %d units moved", r.Read.IOs, k.ReclaimedGroups, k.GCCopiedUnits)
	require.Positive(t, k.ReclaimedGroups)
	require.GreaterOrEqual(t, k.GCRuns, k.ReclaimedGroups)
	require.Positive(t, k.GCCopiedUnits)
	require.Zero(t, k.FailedReads)
	// Every group was refreshed before reaching many more reads than the
	// threshold: the reads since erase stay bounded.
	dev := d.Device()
	var most uint32
	for pb := range dev.Geometry().Blocks() {
		most = max(most, dev.ReadsSinceErase(pb))
	}
	require.Less(t, most, uint32(2*500))
}

func TestReadErrorsConfig(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*controller.Config)
		field string
	}{
		{"no model", func(c *controller.Config) { c.NAND.Reliability = nand.Reliability{} }, "firmware.read_errors"},
		{"no ecc", func(c *controller.Config) { c.Firmware.ECCBits = 0 }, "firmware.ecc_bits"},
		{"no codeword", func(c *controller.Config) { c.Firmware.ECCCodeword = 0 }, "firmware.ecc_codeword"},
		{"ecc too strong", func(c *controller.Config) { c.Firmware.ECCBits = 1001 }, "firmware.ecc_bits"},
		{"reclaim", func(c *controller.Config) { c.Firmware.ReadReclaimReads = -1 }, "firmware.read_reclaim_reads"},
		{"model", func(c *controller.Config) { c.NAND.Reliability.WearExponent = -1 }, "reliability.wear_exponent"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := controller.Preset("generic-mlc-small")
			require.NoError(t, err)
			c.Firmware.ReadErrors = true
			tc.edit(&c)
			_, err = c.Resolve()
			require.ErrorIs(t, err, controller.ErrConfig)
			require.ErrorContains(t, err, tc.field)
		})
	}
}
