package controller_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// gcRun fills a 1 GiB drive on two dies at 25 % spare, tortures it with
// 4 KiB random writes into steady state, and measures 10 s more of them
// at QD 32, with the firmware edited by edit.
func gcRun(t *testing.T, edit func(*controller.Firmware)) (*controller.Controller, *sim.Result) {
	t.Helper()
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg = cfg.Resized(1<<30, 25)
	g := &cfg.NAND.Geometry
	g.Channels, g.TargetsPerChannel, g.DiesPerTarget = 2, 1, 1
	if edit != nil {
		edit(&cfg.Firmware)
	}
	d, err := controller.New(cfg)
	require.NoError(t, err)
	e := sim.New(d)
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionTorture, TortureNs: 120 * sim.Second}))
	j := workload.NewJob("gc")
	for _, kv := range [][2]string{{"rw", "randwrite"}, {"iodepth", "32"}, {"runtime", "10"}, {"time_based", "1"}, {"norandommap", "1"}} {
		require.NoError(t, j.Set(kv[0], kv[1]))
	}
	r, err := e.RunJob(j, sim.Hooks{})
	require.NoError(t, err)
	require.Positive(t, r.Device.GCCopiedUnits)
	return d, r
}

// TestGCUnitCostLoadsTheFirmwareCore: firmware time per GC-copied unit is
// spent on the core that takes host commands. When it dominates, the core
// is busy nearly all the time — host commands plus copies fill the run,
// and can never exceed it — and the drive is slower than without it.
func TestGCUnitCostLoadsTheFirmwareCore(t *testing.T) {
	_, base := gcRun(t, nil)
	const unitNs = 300_000
	d, r := gcRun(t, func(f *controller.Firmware) { f.GCUnitNs = unitNs })
	fw := d.Config().Firmware
	cmdNs := fw.CommandNs
	if fw.WriteCommandNs > 0 {
		cmdNs = fw.WriteCommandNs
	}
	busy := float64(r.Device.Commands*cmdNs + r.Device.GCCopiedUnits*unitNs)
	span := float64(r.RuntimeNs)
	t.Logf("IOPS %.0f without, %.0f with %d ns per copied unit; firmware busy %.1f %% of the run", base.Write.IOPS, r.Write.IOPS, unitNs, 100*busy/span)
	require.Less(t, r.Write.IOPS, 0.8*base.Write.IOPS)
	require.LessOrEqual(t, busy, 1.02*span, "one core cannot be busier than the run")
	require.Greater(t, busy, 0.9*span, "the firmware is the bottleneck")
}

// TestECCEngineBoundsGC: data GC copies through the controller crosses
// the ECC engine twice; a slow engine bounds the copy rate, so its busy
// time fills the run (and cannot exceed it), and the drive is slower.
func TestECCEngineBoundsGC(t *testing.T) {
	_, base := gcRun(t, nil)
	const mbps = 20
	d, r := gcRun(t, func(f *controller.Firmware) { f.ECCMBps = mbps })
	eccNs := float64(2*r.Device.GCCopiedUnits*d.SlotBytes()) * 1000 / mbps
	span := float64(r.RuntimeNs)
	t.Logf("IOPS %.0f without, %.0f with a %d MB/s ECC engine; engine busy %.1f %% of the run", base.Write.IOPS, r.Write.IOPS, mbps, 100*eccNs/span)
	require.Less(t, r.Write.IOPS, 0.8*base.Write.IOPS)
	require.LessOrEqual(t, eccNs, 1.05*span)
	require.Greater(t, eccNs, 0.8*span, "the engine is the bottleneck")
}

// TestCopybackSparesTheChannels: copyback moves GC's data inside the die,
// so the channels carry less per host write and the drive is no slower.
func TestCopybackSparesTheChannels(t *testing.T) {
	perWrite := func(d *controller.Controller, r *sim.Result) float64 {
		var busy int64
		for c := range d.Config().NAND.Geometry.Channels {
			busy += d.Timeline().ChannelBusy(c)
		}
		return float64(busy) / float64(d.Counters().HostWriteUnits)
	}
	db, base := gcRun(t, nil)
	dc, cb := gcRun(t, func(f *controller.Firmware) { f.GCCopyback = true })
	t.Logf("channel ns per host unit written: %.0f through the controller, %.0f with copyback; IOPS %.0f, %.0f", perWrite(db, base), perWrite(dc, cb), base.Write.IOPS, cb.Write.IOPS)
	require.Less(t, perWrite(dc, cb), 0.8*perWrite(db, base))
	require.GreaterOrEqual(t, cb.Write.IOPS, 0.99*base.Write.IOPS)
}

// streamBusyNs is the least time GC streams were busy in run r: every GC
// read senses its pages and moves its units out, every GC program moves a
// page in and programs it (an MLC block's pages alternate fast and slow).
func streamBusyNs(d *controller.Controller, r *sim.Result) float64 {
	tm := d.Config().NAND.Timing
	planes := int64(d.Config().NAND.Geometry.PlanesPerDie)
	gc := r.Device.Flash[ftl.CauseGC]
	reads, progs := gc.ReadPages/planes, gc.ProgramPages/planes
	pageBytes := int(planes) * d.Config().NAND.Geometry.PageBytes
	return float64(reads*tm.ReadNs) + float64(tm.TransferNs(int(gc.ReadUnits*d.SlotBytes()))) +
		float64(progs)*(float64(tm.ProgLSBNs+tm.ProgMSBNs)/2+float64(tm.TransferNs(pageBytes)))
}

// TestGCStreamsBoundHowManyDiesCopy: with one GC stream the firmware has
// one copy operation in flight at a time, so the stream's least busy time
// fills the run and cannot exceed it; with a stream per die both dies copy
// at once, the drive is faster, and it runs exactly as with no limit.
func TestGCStreamsBoundHowManyDiesCopy(t *testing.T) {
	d1, one := gcRun(t, func(f *controller.Firmware) { f.GCStreams = 1 })
	_, two := gcRun(t, func(f *controller.Firmware) { f.GCStreams = 2 })
	_, unlimited := gcRun(t, nil)
	busy, span := streamBusyNs(d1, one), float64(one.RuntimeNs)
	t.Logf("IOPS %.0f with one stream (busy at least %.1f %% of the run), %.0f with two", one.Write.IOPS, 100*busy/span, two.Write.IOPS)
	require.LessOrEqual(t, busy, 1.02*span, "one stream cannot be busier than the run")
	require.Greater(t, busy, 0.8*span, "the stream is the bottleneck")
	require.Greater(t, two.Write.IOPS, 1.2*one.Write.IOPS)
	require.Equal(t, unlimited.Write.IOPS, two.Write.IOPS, "a stream per die is no limit")
}

// TestPaceAboveLevelAlternates: paced collection faster than the rate
// that keeps free space level cleans ahead and then lets the host run
// free, so per-second IOPS swing between troughs and peaks, while the
// mean, set by the copying each host write causes, stays about the same.
func TestPaceAboveLevelAlternates(t *testing.T) {
	spread := func(r *sim.Result) (mean, cv float64) {
		var xs []float64
		for _, iv := range r.Intervals.All() {
			xs = append(xs, iv.IOPS)
		}
		m, sd := stat.MeanStdDev(xs, nil)
		return m, sd / m
	}
	level := func(f *controller.Firmware) { f.GCStreams = 1 }
	ahead := func(f *controller.Firmware) { f.GCStreams, f.GCPacePercent = 1, 300 }
	_, a := gcRun(t, level)
	_, b := gcRun(t, ahead)
	ma, ca := spread(a)
	mb, cb := spread(b)
	t.Logf("pace 100 %%: mean %.0f IOPS, CV %.3f; pace 300 %%: mean %.0f, CV %.3f", ma, ca, mb, cb)
	require.InEpsilon(t, ma, mb, 0.15)
	require.Greater(t, cb, 2*ca)
}

// TestVictimChoiceCostsFirmwareTime: choosing each victim costs firmware
// time on the core that takes host commands; when it dominates, that
// core's work — host commands and victim choices — fills the run.
func TestVictimChoiceCostsFirmwareTime(t *testing.T) {
	_, base := gcRun(t, nil)
	const victimNs = 300_000_000
	d, r := gcRun(t, func(f *controller.Firmware) { f.GCVictimNs = victimNs })
	busy := float64(r.Device.Commands*writeCommandNs(d) + r.Device.GCRuns*victimNs)
	span := float64(r.RuntimeNs)
	t.Logf("IOPS %.0f without, %.0f with %d ms per victim; %d victims, firmware busy %.1f %% of the run", base.Write.IOPS, r.Write.IOPS, victimNs/1_000_000, r.Device.GCRuns, 100*busy/span)
	require.Less(t, r.Write.IOPS, 0.8*base.Write.IOPS)
	require.LessOrEqual(t, busy, 1.02*span)
	require.Greater(t, busy, 0.8*span)
}

// TestSecondCoreTakesGCWork: on a one-core controller the firmware's GC
// work and the host's commands share the core; with two cores the GC
// work has its own, which becomes the bottleneck, while the host's core
// only takes commands. The drive's speed is then set by the GC core, as
// it was by the shared one.
func TestSecondCoreTakesGCWork(t *testing.T) {
	const unitNs = 300_000
	_, one := gcRun(t, func(f *controller.Firmware) { f.GCUnitNs = unitNs })
	d, two := gcRun(t, func(f *controller.Firmware) { f.GCUnitNs, f.Cores = unitNs, 2 })
	span := float64(two.RuntimeNs)
	host := float64(two.Device.Commands * writeCommandNs(d))
	gc := float64(two.Device.GCCopiedUnits * unitNs)
	t.Logf("IOPS %.0f on one core, %.0f on two; with two the host's core is busy %.1f %% and the GC core %.1f %% of the run", one.Write.IOPS, two.Write.IOPS, 100*host/span, 100*gc/span)
	require.Less(t, host, 0.2*span, "the host's core only takes commands")
	require.LessOrEqual(t, gc, 1.02*span)
	require.Greater(t, gc, 0.9*span, "the GC core is the bottleneck")
	require.InEpsilon(t, one.Write.IOPS, two.Write.IOPS, 0.1)
}

// writeCommandNs is the firmware time a write command takes on d.
func writeCommandNs(d *controller.Controller) int64 {
	fw := d.Config().Firmware
	if fw.WriteCommandNs > 0 {
		return fw.WriteCommandNs
	}
	return fw.CommandNs
}
