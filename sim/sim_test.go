package sim_test

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testtier"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
)

func smallDrive(t testing.TB, edit func(*controller.Config)) *controller.Controller {
	t.Helper()
	c, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	c.Capacity = 4 << 30
	c.OPPercent = 25
	if edit != nil {
		edit(&c)
	}
	d, err := controller.New(c)
	require.NoError(t, err)
	return d
}

// twoDies is a 4 GiB drive with 7 % spare on two dies: few enough dies
// that its spare area, not the groups each die keeps open, sets its write
// amplification, and small enough to reach steady state in a second.
func twoDies(t testing.TB, edit func(*controller.Config)) *controller.Controller {
	return smallDrive(t, func(c *controller.Config) {
		c.NAND.Geometry.Channels, c.NAND.Geometry.TargetsPerChannel, c.NAND.Geometry.DiesPerTarget = 2, 1, 1
		c.OPPercent = 7
		if edit != nil {
			edit(c)
		}
	})
}

func job(t testing.TB, opts ...string) *workload.Job {
	j := workload.NewJob("t")
	for i := 0; i < len(opts); i += 2 {
		require.NoError(t, j.Set(opts[i], opts[i+1]))
	}
	return j
}

func TestDeterministic(t *testing.T) {
	run := func() *sim.Result {
		e := sim.New(twoDies(t, func(c *controller.Config) { c.Firmware.GCPolicy = "d-choices:4" }))
		e.SecureErase()
		require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
		r, err := e.RunJob(job(t, "rw", "randrw", "iodepth", "8", "runtime", "30", "time_based", "1",
			"bssplit", "4k/50:16k/50", "random_distribution", "pareto:0.3"), sim.Hooks{})
		require.NoError(t, err)
		return r
	}
	a, b := run(), run()
	require.Equal(t, a, b)
	// The run reaches garbage collection: the flash programs the host's
	// units and the units GC moved.
	require.Positive(t, a.Device.GCCopiedUnits)
	require.InEpsilon(t, a.Device.HostWriteBytes+a.Device.GCCopiedUnits*4096, a.Device.NANDWriteBytes, 0.01)
}

// TestDeterministicWithSandForceMechanisms: compression with duplicates,
// RAISE, the mapping cache and the TRIM backlog keep runs bit-identical
// for a seed, and another firmware seed changes the dedupe draws.
func TestDeterministicWithSandForceMechanisms(t *testing.T) {
	const stripe, dedupe = 8, 5 // raise_stripe; percent of units deduplicated
	run := func(seed uint64) *sim.Result {
		e := sim.New(smallDrive(t, func(c *controller.Config) {
			fw := &c.Firmware
			fw.Compression, fw.CompressionSlot, fw.RaiseStripe = true, 1024, stripe
			fw.MapCache, fw.MapMissNs, fw.TrimBacklog = 2<<20, 20000, 1<<30
			c.OPPercent, c.Seed = 25, seed
		}))
		e.SecureErase()
		require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
		r, err := e.RunJob(job(t, "rw", "randwrite", "iodepth", "8", "runtime", "60", "time_based", "1",
			"bssplit", "4k/50:16k/50", "buffer_compress_percentage", "30", "dedupe_percentage", strconv.Itoa(dedupe)), sim.Hooks{})
		require.NoError(t, err)
		return r
	}
	a, b := run(1), run(1)
	require.Equal(t, a, b)
	dv := a.Device
	// Every mechanism is exercised: GC, mapping-cache misses, parity
	// (a page per raise_stripe−1 pages of data and mapping), dedupe (its
	// share of the units written, all of them 4 KiB).
	require.Positive(t, dv.GCCopiedUnits)
	require.Positive(t, dv.MapReads)
	page := int64(a.Geometry.PageBytes)
	require.InEpsilon(t, float64(dv.NANDWriteBytes-dv.ParityBytes-dv.MapWrites*page)/(stripe-1), float64(dv.ParityBytes), 0.01)
	require.InEpsilon(t, dedupe/100.0*float64(dv.HostWriteBytes/4096), float64(dv.DedupedUnits), 0.05)
	require.InDelta(t, 0.95*0.75+0.05*0.25, dv.CompressionRatio(), 0.01) // 3 slots of 1 KiB, 5 % deduplicated to one
	c := run(2)
	require.NotEqual(t, a.Device.DedupedUnits, c.Device.DedupedUnits)
}

func TestSeriesAddsUp(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	r, err := e.RunJob(job(t, "rw", "randrw", "iodepth", "4", "runtime", "3500ms", "time_based", "1"), sim.Hooks{})
	require.NoError(t, err)
	var reads, writes, bytes int64
	for i, iv := range r.Intervals.All() {
		reads += iv.ReadIOs
		writes += iv.WriteIOs
		bytes += iv.Bytes
		if i > 0 {
			require.Equal(t, r.Intervals.At(i-1).EndNs, iv.StartNs)
		}
	}
	require.Equal(t, r.Read.IOs, reads)
	require.Equal(t, r.Write.IOs, writes)
	require.Equal(t, r.Read.Bytes+r.Write.Bytes, bytes)
	require.Equal(t, 4, r.Intervals.Len())
	require.Equal(t, int64(sim.Second), r.Intervals.At(0).EndNs)
	require.InDelta(t, float64(r.Read.IOs+r.Write.IOs)/(float64(r.RuntimeNs)/1e9), r.Read.IOPS+r.Write.IOPS, 1)
	// Closed loop at QD 4: every submission made a depth of at most 4.
	require.Equal(t, r.Issued, r.DepthCounts[0]+r.DepthCounts[1]+r.DepthCounts[2])
}

// list is a Source of timestamped requests.
type list struct {
	items []workload.Item
	i     int
}

func (l *list) Next(it *workload.Item) bool {
	if l.i == len(l.items) {
		return false
	}
	*it = l.items[l.i]
	l.i++
	return true
}

func TestOpenLoopAndBusyTime(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	// 100 reads, one every 10 ms: the drive idles between them.
	src := &list{}
	for i := 0; i < 100; i++ {
		src.items = append(src.items, workload.Item{At: int64(i) * 10e6,
			Request: blockio.Request{Op: blockio.Write, Offset: int64(i) * 4096, Length: 4096}})
	}
	r, err := e.Run(src, sim.Options{})
	require.NoError(t, err)
	require.Equal(t, int64(100), r.Write.IOs)
	require.GreaterOrEqual(t, r.RuntimeNs, int64(990e6))
	require.Less(t, r.BusyNs, r.RuntimeNs/10, "idle time is excluded from busy time")
	require.InDelta(t, float64(r.BusyNs)/100, r.AvgServiceNs, 1)
	// TimeScale replays faster.
	src.i = 0
	r2, err := e.Run(src, sim.Options{TimeScale: 10})
	require.NoError(t, err)
	require.Less(t, r2.RuntimeNs, r.RuntimeNs/5)
}

func TestNCQLimit(t *testing.T) {
	// iodepth 64 on a 32-deep NCQ: the same throughput as 32, twice the
	// latency (half the time in the host's queue).
	measure := func(qd string) *sim.Result {
		e := sim.New(smallDrive(t, nil))
		e.SecureErase()
		require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
		r, err := e.RunJob(job(t, "rw", "randread", "iodepth", qd, "runtime", "1", "time_based", "1"), sim.Hooks{})
		require.NoError(t, err)
		return r
	}
	q32, q64 := measure("32"), measure("64")
	require.InEpsilon(t, q32.Read.IOPS, q64.Read.IOPS, 0.03)
	require.InEpsilon(t, 2*q32.Read.Latency.Mean, q64.Read.Latency.Mean, 0.1)
	require.Zero(t, q64.DepthCounts[6], "no submission finds more than 32 outstanding")
}

func TestRampExcluded(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	r, err := e.RunJob(job(t, "rw", "randwrite", "iodepth", "1", "runtime", "2", "ramp_time", "1", "time_based", "1"), sim.Hooks{})
	require.NoError(t, err)
	require.InDelta(t, 1e9, float64(r.RuntimeNs), 1e6)
	var ivWrites int64
	for _, iv := range r.Intervals.All() {
		ivWrites += iv.WriteIOs
	}
	require.Less(t, r.Write.IOs, ivWrites*2/3, "statistics cover only the second after the ramp")
}

func TestHooks(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	var done, ivs int
	_, err := e.RunJob(job(t, "rw", "randwrite", "number_ios", "500"), sim.Hooks{
		OnComplete: func(c sim.Completion) {
			done++
			require.GreaterOrEqual(t, c.DoneNs, c.IssuedNs)
		},
		OnInterval: func(sim.Interval) { ivs++ },
	})
	require.NoError(t, err)
	require.Equal(t, 500, done)
	require.Equal(t, 1, ivs)
}

// TestSpareAreaRaisesSteadyState is the reviews' finding: the same drive
// with 25 % of its LBAs never written (spare area by partitioning) reaches
// a higher steady state under 4 KiB random writes than with every LBA in
// use, and lower write amplification. The steady state is the last fifth
// of a 1500 s run in the long tier, of a 600 s one by default.
func TestSpareAreaRaisesSteadyState(t *testing.T) {
	secs := testtier.Pick(600, 1500)
	steady := func(size string) (iops, wa float64) {
		e := sim.New(twoDies(t, nil))
		e.SecureErase()
		fill := workload.FillJob()
		require.NoError(t, fill.Set("size", size))
		_, err := e.RunJob(fill, sim.Hooks{})
		require.NoError(t, err)
		j := workload.RandomWriteJob("steady", int64(secs)*sim.Second)
		require.NoError(t, j.Set("size", size))
		r, err := e.RunJob(j, sim.Hooks{})
		require.NoError(t, err)
		var n float64
		for _, iv := range r.Intervals.Slice()[secs*4/5 : secs] {
			iops += iv.IOPS
			wa += iv.WriteAmplification
			n++
		}
		return iops / n, wa / n
	}
	fullIOPS, fullWA := steady("100%")
	spareIOPS, spareWA := steady("75%")
	t.Logf("steady state: all LBAs %.0f IOPS (WA %.2f); 25%% spare area %.0f IOPS (WA %.2f)", fullIOPS, fullWA, spareIOPS, spareWA)
	require.Greater(t, spareIOPS, 1.5*fullIOPS)
	require.Less(t, spareWA, fullWA)
}

// TestRunGroupSharesTheDrive runs a reader and a writer at once: each has
// its own queue depth and statistics, together they never exceed the
// drive's command queue, and reads slow down beside writes.
func TestRunGroupSharesTheDrive(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
	reader := func() *workload.Generator {
		j := job(t, "rw", "randread", "runtime", "2", "time_based", "1", "iodepth", "24")
		require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
		return workload.NewGenerator(j)
	}
	alone, err := e.Run(reader(), sim.Options{Name: "r", QueueDepth: 24, RuntimeNs: 2 * sim.Second})
	require.NoError(t, err)
	w := job(t, "rw", "randwrite", "runtime", "2", "time_based", "1", "iodepth", "24", "norandommap", "1")
	require.NoError(t, w.Resolve(e.Controller().CapacityBytes()))
	rs, err := e.RunGroup([]sim.Stream{
		{Source: reader(), Options: sim.Options{Name: "r", QueueDepth: 24, RuntimeNs: 2 * sim.Second}},
		{Source: workload.NewGenerator(w), Options: sim.Options{Name: "w", QueueDepth: 24, RuntimeNs: 2 * sim.Second}},
	})
	require.NoError(t, err)
	require.Len(t, rs, 2)
	require.Zero(t, rs[0].Write.IOs)
	require.Zero(t, rs[1].Read.IOs)
	require.Less(t, rs[0].Read.IOPS, alone.Read.IOPS, "reads share the drive with writes")
	w2 := job(t, "rw", "randwrite", "runtime", "2", "time_based", "1", "iodepth", "24", "norandommap", "1")
	require.NoError(t, w2.Resolve(e.Controller().CapacityBytes()))
	writerAlone, err := e.Run(workload.NewGenerator(w2), sim.Options{Name: "w", QueueDepth: 24, RuntimeNs: 2 * sim.Second})
	require.NoError(t, err)
	require.Less(t, rs[1].Write.IOPS, writerAlone.Write.IOPS, "writes share the drive with reads")
	// 48 requests wanted, 32 NCQ slots: each job's own depth stays ≤ 24.
	require.Zero(t, rs[0].DepthCounts[6])
	require.Equal(t, rs[0].BusyNs, rs[1].BusyNs)
	t.Logf("random read alone %.0f IOPS; beside random writes %.0f IOPS (writes %.0f IOPS, alone %.0f)", alone.Read.IOPS, rs[0].Read.IOPS, rs[1].Write.IOPS, writerAlone.Write.IOPS)
}

// TestPower: an idle drive draws its idle power; sequential and random
// writes draw more, and random writes in steady state spend more energy
// per byte than sequential ones (write amplification).
func TestPower(t *testing.T) {
	d := twoDies(t, nil)
	e := sim.New(d)
	e.SecureErase()
	// Idle: one read a second.
	src := &list{}
	for i := 0; i < 10; i++ {
		src.items = append(src.items, workload.Item{At: int64(i) * sim.Second, Request: blockio.Request{Op: blockio.Read, Offset: 0, Length: 4096}})
	}
	idle, err := e.Run(src, sim.Options{})
	require.NoError(t, err)
	seq, err := e.RunJob(workload.FillJob(), sim.Hooks{})
	require.NoError(t, err)
	rnd, err := e.RunJob(workload.RandomWriteJob("r", 200*sim.Second), sim.Hooks{})
	require.NoError(t, err)
	t.Logf("idle %.2f W, sequential write %.2f W (%.2f J/GB), random write %.2f W (%.2f J/GB, WA %.1f)",
		idle.Power.AverageW, seq.Power.AverageW, seq.Power.JoulesPerGBWritten, rnd.Power.AverageW, rnd.Power.JoulesPerGBWritten, rnd.Device.WriteAmplification)
	require.InDelta(t, idle.Power.IdleW, idle.Power.AverageW, 0.01)
	require.Greater(t, seq.Power.AverageW, 1.5*idle.Power.AverageW)
	require.Greater(t, rnd.Power.AverageW, idle.Power.AverageW)
	require.Greater(t, rnd.Power.JoulesPerGBWritten, 2*seq.Power.JoulesPerGBWritten)
	require.GreaterOrEqual(t, seq.Power.PeakW, seq.Power.AverageW*0.99)
	var sum float64
	for _, iv := range rnd.Intervals.Slice()[:rnd.Intervals.Len()-1] {
		sum += iv.PowerW
	}
	require.InEpsilon(t, rnd.Power.AverageW, sum/float64(rnd.Intervals.Len()-1), 0.02, "series and total agree")
}

// TestResultsDoNotPinTheDrive: a kept Result must not keep its drive's
// memory alive.
func TestResultsDoNotPinTheDrive(t *testing.T) {
	var kept []*sim.Result
	var ms runtime.MemStats
	heap := func() int64 { runtime.GC(); runtime.ReadMemStats(&ms); return int64(ms.HeapInuse) }
	base := heap()
	for i := 0; i < 4; i++ {
		e := sim.New(smallDrive(t, nil)) // 4 GiB: about 9 MiB of state
		e.SecureErase()
		r, err := e.RunJob(job(t, "rw", "randwrite", "number_ios", "100"), sim.Hooks{})
		require.NoError(t, err)
		kept = append(kept, r)
	}
	// Four 4 GiB drives hold about 44 MiB of state; the results alone
	// only a few.
	require.Less(t, heap()-base, int64(16<<20), "four kept results hold at most a few MiB")
	runtime.KeepAlive(kept)
}

// TestStartDelay: a job held back (fio's startdelay) issues nothing
// before its start, runs its whole runtime after it, and the group ends
// when it does; closed and open loop alike.
func TestStartDelay(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	for _, qd := range []int{8, 0} {
		first := job(t, "rw", "randwrite", "runtime", "1", "time_based", "1", "norandommap", "1")
		late := job(t, "rw", "randwrite", "runtime", "1", "time_based", "1", "norandommap", "1", "rate_iops", "2000", "startdelay", "500ms")
		for _, j := range []*workload.Job{first, late} {
			require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
		}
		var firstIssue int64 = -1
		start := e.Now()
		rs, err := e.RunGroup([]sim.Stream{
			{Source: workload.NewGenerator(first), Options: sim.Options{Name: "first", QueueDepth: 8, RuntimeNs: sim.Second}},
			{Source: workload.NewGenerator(late), Options: sim.Options{Name: "late", QueueDepth: qd, RuntimeNs: sim.Second, StartDelayNs: late.StartDelayNs,
				Hooks: sim.Hooks{OnComplete: func(c sim.Completion) {
					if firstIssue < 0 {
						firstIssue = c.IssuedNs
					}
				}}}},
		})
		require.NoError(t, err)
		require.GreaterOrEqual(t, firstIssue, int64(0), "qd %d: the late job issued", qd)
		require.Equal(t, rs[1].StartNs, start+sim.Second/2, "qd %d: its run starts after the delay", qd)
		require.GreaterOrEqual(t, e.Now()-start, 7*sim.Second/5, "qd %d: the group ends with the late job", qd)
		require.Positive(t, rs[1].Write.IOs)
	}
}

// TestSteadyStateStopsTheJob: fio's steady-state detection. Random reads
// of a filled drive are steady at once, so a job that asks for IOPS
// within 5 % of their mean over 5 s stops after 5 s (8 s with 3 s of
// ss_ramp), with fio's steadystate block; a limit nothing meets (a slope
// of exactly 0) runs the whole runtime and says it was not attained.
func TestSteadyStateStopsTheJob(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
	run := func(kv ...string) *sim.Result {
		j := job(t, append([]string{"rw", "randread", "iodepth", "8", "runtime", "30", "time_based", "1", "ss_dur", "5s"}, kv...)...)
		r, err := e.RunJob(j, sim.Hooks{})
		require.NoError(t, err)
		require.NotNil(t, r.SteadyState)
		return r
	}
	r := run("ss", "iops:5%")
	require.True(t, r.SteadyState.Attained)
	require.InDelta(t, 5*sim.Second, r.RuntimeNs, 1e7, "stops once steady (then drains what is in flight)")
	require.Len(t, r.SteadyState.IOPS, 5)
	f := fioreport.JobOf(r, nil).SteadyState
	require.Equal(t, "iops:5.000000%", f.SS)
	require.Equal(t, 1, f.Attained)
	require.Equal(t, int64(5), f.Duration)
	require.Len(t, f.Data.BW, 5)
	require.InEpsilon(t, r.Read.IOPS, float64(f.Data.IOPSMean), 0.01)

	r = run("ss", "iops:5%", "ss_ramp", "3s")
	require.InDelta(t, 8*sim.Second, r.RuntimeNs, 1e7, "the window starts after the ramp")

	r = run("ss", "iops:5%", "ss_interval", "2s", "ss_dur", "6s")
	require.Len(t, r.SteadyState.IOPS, 3, "a sample every 2 s over 6 s")
	require.InDelta(t, 6*sim.Second, r.RuntimeNs, 1e7)

	r = run("ss", "lat:5%")
	require.True(t, r.SteadyState.Attained, "steady latency too")
	lf := fioreport.JobOf(r, nil).SteadyState
	require.Len(t, lf.Data.LatNs, 5)
	require.InEpsilon(t, r.Read.Latency.Mean, float64(*lf.Data.LatMean), 0.05)

	r = run("ss", "iops_slope:0%")
	require.False(t, r.SteadyState.Attained)
	require.InDelta(t, 30*sim.Second, r.RuntimeNs, 1e7)
}

// TestThinkTime: fio's thinktime pauses a job after its blocks complete.
// With one block (the default) at most one I/O is in flight, whatever
// the iodepth, and each I/O takes its service time plus the pause; with
// four blocks, four at a time.
func TestThinkTime(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
	run := func(kv ...string) *sim.Result {
		j := job(t, append([]string{"rw", "randread", "iodepth", "16", "runtime", "1", "time_based", "1"}, kv...)...)
		r, err := e.RunJob(j, sim.Hooks{})
		require.NoError(t, err)
		return r
	}
	one := run("thinktime", "1000") // microseconds
	require.Equal(t, int64(0), one.DepthCounts[1], "never two in flight")
	perIO := float64(sim.Second) / one.Read.IOPS
	require.InDelta(t, 1e6+one.Read.Latency.Mean, perIO, 0.02*perIO, "each I/O: its service time and the pause")
	four := run("thinktime", "1ms", "thinktime_blocks", "4")
	require.Greater(t, four.Read.IOPS, 3*one.Read.IOPS, "four I/Os a pause")
	require.Zero(t, four.DepthCounts[3], "never more than four in flight")
}
