package sim_test

import (
	"encoding/json"
	"maps"
	"runtime"
	"slices"
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
	for i, iv := range r.Intervals {
		reads += iv.ReadIOs
		writes += iv.WriteIOs
		bytes += iv.Bytes
		if i > 0 {
			require.Equal(t, r.Intervals[i-1].EndNs, iv.StartNs)
		}
	}
	require.Equal(t, r.Read.IOs, reads)
	require.Equal(t, r.Write.IOs, writes)
	require.Equal(t, r.Read.Bytes+r.Write.Bytes, bytes)
	require.Len(t, r.Intervals, 4)
	require.Equal(t, int64(sim.Second), r.Intervals[0].EndNs)
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
	for _, iv := range r.Intervals {
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
		for _, iv := range r.Intervals[secs*4/5 : secs] {
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
	for _, iv := range rnd.Intervals[:len(rnd.Intervals)-1] {
		sum += iv.PowerW
	}
	require.InEpsilon(t, rnd.Power.AverageW, sum/float64(len(rnd.Intervals)-1), 0.02, "series and total agree")
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

// TestLatencyBins: the latency distribution (fio's json+ bins) counts
// every completion once, and results combined from parts add theirs.
func TestLatencyBins(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	var parts []*sim.Result
	for range 2 {
		r, err := e.RunJob(job(t, "rw", "randrw", "iodepth", "8", "runtime", "1", "time_based", "1"), sim.Hooks{})
		require.NoError(t, err)
		parts = append(parts, r)
	}
	sum := func(bins []sim.LatencyBin) (n int64) {
		for i, b := range bins {
			require.Positive(t, b.Count)
			if i > 0 {
				require.Greater(t, b.Ns, bins[i-1].Ns, "lowest first")
			}
			n += b.Count
		}
		return
	}
	r := parts[0]
	require.Equal(t, r.Read.IOs, sum(r.Read.Latency.Bins))
	require.Equal(t, r.Write.IOs, sum(r.Write.Latency.Bins))
	var jsonSum int64
	for _, c := range fioreport.JobPlusOf(r, nil).Read.ClatNs.Bins {
		jsonSum += c
	}
	require.Equal(t, r.Read.IOs, jsonSum)
	require.Nil(t, fioreport.JobOf(r, nil).Read.ClatNs.Bins, "plain json has no bins")
	c := sim.Combine(parts)
	require.Equal(t, parts[0].Write.IOs+parts[1].Write.IOs, sum(c.Write.Latency.Bins))
}

// TestFlushPutsTheBufferOnFlash: a FLUSH (fio's fsync) completes once the
// write buffer's data is programmed — its partly filled page padded — so
// with a flush after every write each write waits a page program, where
// without one it is acknowledged from the buffer.
func TestFlushPutsTheBufferOnFlash(t *testing.T) {
	d := smallDrive(t, nil)
	e := sim.New(d)
	e.SecureErase()
	run := func(kv ...string) *sim.Result {
		r, err := e.RunJob(job(t, append([]string{"rw", "randwrite", "runtime", "1", "time_based", "1"}, kv...)...), sim.Hooks{})
		require.NoError(t, err)
		return r
	}
	plain := run()
	synced := run("fsync", "1")
	tm := d.Config().NAND.Timing
	require.Zero(t, plain.Sync.IOs)
	require.InDelta(t, synced.Write.IOs, synced.Sync.IOs, 1, "a FLUSH after every write")
	require.GreaterOrEqual(t, synced.Sync.Latency.Mean, float64(tm.ProgLSBNs), "a flush waits at least a page program")
	require.Less(t, synced.Write.IOPS, plain.Write.IOPS/10)
	require.Greater(t, synced.Device.PaddedUnits, int64(0), "each flush pads its page")
	require.Equal(t, synced.Sync.IOs, fioreport.JobOf(synced, nil).Sync.TotalIOs)
}

// rewriter passes a generator's requests on but stamps its writes with
// other tokens, as a drive that lost or misplaced the job's data would
// return: every verify read must then find a mismatch.
type rewriter struct{ *workload.Generator }

func (r rewriter) Next(it *workload.Item) bool {
	ok := r.Generator.Next(it)
	if it.Op == blockio.Write {
		it.Token += 1 << 30
	}
	return ok
}

// TestVerifyReadsBackTheLastWrites: fio's verify reads back everything the
// job wrote once its writes are done, through garbage collection on a
// drive written several times over, and finds every block's last write;
// a drive holding other data fails every unit read back. A time-based
// job writes and verifies in turn.
func TestVerifyReadsBackTheLastWrites(t *testing.T) {
	d := twoDies(t, func(c *controller.Config) { c.NAND.TrackData = true })
	e := sim.New(d)
	e.SecureErase()
	size := d.CapacityBytes() / 4
	j := job(t, "rw", "randwrite", "bssplit", "4k/50:16k/50", "iodepth", "16", "size", strconv.FormatInt(size, 10),
		"io_size", strconv.FormatInt(3*d.CapacityBytes(), 10), "verify", "crc32c", "norandommap", "1")
	r, err := e.RunJob(j, sim.Hooks{})
	require.NoError(t, err)
	require.Positive(t, r.Device.GCCopiedUnits, "garbage collection moved data before the read-back")
	require.Zero(t, r.Verify.Mismatches)
	require.Equal(t, int64(-1), r.Verify.FirstMismatch)
	require.Equal(t, size, r.Verify.Bytes, "norandommap over three drive-fills leaves no block of the range unwritten")
	require.Equal(t, r.Verify.Reads, r.Read.IOs, "verify reads are the job's reads")

	j = job(t, "rw", "write", "bs", "128k", "size", "64m", "verify", "md5")
	require.NoError(t, j.Resolve(d.CapacityBytes()))
	r, err = e.Run(rewriter{workload.NewGenerator(j)}, sim.JobOptions(j))
	require.NoError(t, err)
	require.Equal(t, int64(64<<20)/d.UnitBytes(), r.Verify.Mismatches)
	require.Equal(t, int64(0), r.Verify.FirstMismatch)
	require.Equal(t, 84, fioreport.JobOf(r, nil).Error, "fio's EILSEQ")
	// verify_write_sequence=0 takes any write's data.
	j = job(t, "rw", "write", "bs", "128k", "size", "64m", "verify", "md5", "verify_write_sequence", "0")
	require.NoError(t, j.Resolve(d.CapacityBytes()))
	r, err = e.Run(rewriter{workload.NewGenerator(j)}, sim.JobOptions(j))
	require.NoError(t, err)
	require.Zero(t, r.Verify.Mismatches)

	j = job(t, "rw", "randwrite", "size", "16m", "verify", "crc32c", "runtime", "2", "time_based", "1", "iodepth", "8")
	r, err = e.RunJob(j, sim.Hooks{})
	require.NoError(t, err)
	require.Greater(t, r.Verify.Bytes, int64(16<<20), "more than one write-and-verify pass")
	require.Zero(t, r.Verify.Mismatches)

	plain := sim.New(twoDies(t, nil))
	_, err = plain.RunJob(job(t, "rw", "write", "size", "1m", "verify", "crc32c"), sim.Hooks{})
	require.ErrorIs(t, err, controller.ErrNoData)
}

// TestSPRandomSkipsTheCliff: after fio's sprandom pass the drive's blocks
// already hold the spread of valid data random writes leave, so random
// writes start near the steady state the model gives; after a sequential
// fill every block is full, and once the spare area is used the random
// writes meet the cliff: write amplification well above that.
func TestSPRandomSkipsTheCliff(t *testing.T) {
	peak := func(pre *workload.Job) (first, peak float64, unmapped int64) {
		d := twoDies(t, nil)
		e := sim.New(d)
		e.SecureErase()
		_, err := e.RunJob(pre, sim.Hooks{})
		require.NoError(t, err)
		r, err := e.RunJob(job(t, "rw", "randwrite", "iodepth", "32", "norandommap", "1",
			"io_size", strconv.FormatInt(d.CapacityBytes()/4, 10)), sim.Hooks{})
		require.NoError(t, err)
		for _, iv := range r.Intervals {
			peak = max(peak, iv.WriteAmplification)
		}
		rd, err := e.RunJob(job(t, "rw", "read", "bs", "1m"), sim.Hooks{})
		require.NoError(t, err)
		return r.Intervals[0].WriteAmplification, peak, rd.Device.UnwrittenReadUnits
	}
	op := (twoDies(t, nil).Config().OPPercent) / 100
	model := 0.5/op + 0.7 // the steady state sprandom aims at (fio's model)
	sprFirst, sprPeak, unmapped := peak(job(t, "rw", "randwrite", "iodepth", "32", "norandommap", "1", "sprandom", "1",
		"spr_op", strconv.FormatFloat(op, 'g', -1, 64)))
	require.Zero(t, unmapped, "sprandom wrote every block")
	fillFirst, fillPeak, _ := peak(workload.FillJob())
	t.Logf("write amplification, first second and peak over a quarter of the drive: after sprandom %.2f, %.2f; after a fill %.2f, %.2f; fio's model %.2f",
		sprFirst, sprPeak, fillFirst, fillPeak, model)
	require.InDelta(t, 1, fillFirst, 0.05, "after the fill, the spare area takes the first writes")
	require.InDelta(t, model, sprFirst, model/3, "sprandom: garbage collection from the first second, near the model")
	require.Greater(t, fillPeak, 1.5*model, "the cliff: fully valid victims")
	require.Less(t, sprPeak, fillPeak, "no cliff after sprandom")
}

// TestNumericKeysInFiosOrder: percentile keys and json+ bins encode in
// numeric order, as fio writes them.
func TestNumericKeysInFiosOrder(t *testing.T) {
	b, err := json.Marshal(fioreport.NumericKeyed{"40.000000": 4, "5.000000": 2, "99.990000": 9, "1.000000": 1, "100": 3})
	require.NoError(t, err)
	require.Equal(t, `{"1.000000":1,"5.000000":2,"40.000000":4,"99.990000":9,"100":3}`, string(b))
	var back map[string]int64
	require.NoError(t, json.Unmarshal(b, &back))
	require.Len(t, back, 5)
}

// TestDiskUtil: fio's disk_util for the drive sums the jobs' reads and
// writes, their sectors and their time in the drive; the drive's busy
// time counts once for the jobs of a group, so utilisation stays within
// 100 %, and a paced job that leaves the drive idle shows less.
func TestDiskUtil(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	var streams []sim.Stream
	for _, rw := range []string{"randread", "randwrite"} {
		j := job(t, "rw", rw, "iodepth", "4", "size", "64m", "runtime", "1", "time_based", "1")
		require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
		streams = append(streams, sim.Stream{Source: workload.NewGenerator(j), Options: sim.JobOptions(j)})
	}
	rs, err := e.RunGroup(streams)
	require.NoError(t, err)
	d := fioreport.SumDiskUtil("x", fioreport.JobOf(rs[0], nil), fioreport.JobOf(rs[1], nil))
	require.Equal(t, rs[0].Read.IOs, d.ReadIOs)
	require.Equal(t, rs[1].Write.IOs, d.WriteIOs)
	require.Equal(t, rs[1].Write.Bytes/512, d.WriteSectors)
	require.InDelta(t, float64(rs[0].Read.IOs)*rs[0].Read.Latency.Mean/1e6, d.ReadTicks, 1)
	require.LessOrEqual(t, d.Util, 100.0)
	require.Greater(t, d.Util, 90.0, "two jobs at QD 4 keep the drive busy")

	paced, err := e.RunJob(job(t, "rw", "randread", "rate_iops", "100", "runtime", "1", "time_based", "1"), sim.Hooks{})
	require.NoError(t, err)
	require.Less(t, fioreport.SumDiskUtil("x", fioreport.JobOf(paced, nil)).Util, 10.0, "100 reads a second leave the drive idle")
}

// TestPercentileOptions: percentile_list sets the percentiles reported,
// lat_percentiles reports them for total latency, clat_percentiles=0 not
// at all — as fio's JSON places them.
func TestPercentileOptions(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	run := func(kv ...string) fioreport.Dir {
		r, err := e.RunJob(job(t, append([]string{"rw", "randwrite", "number_ios", "2000", "iodepth", "8"}, kv...)...), sim.Hooks{})
		require.NoError(t, err)
		return fioreport.JobOf(r, nil).Write
	}
	d := run("percentile_list", "50:99.9:99.999")
	require.Equal(t, []string{"50.000000", "99.900000", "99.999000"}, slices.Sorted(maps.Keys(d.ClatNs.Percentile)))
	require.Nil(t, d.LatNs.Percentile)
	require.LessOrEqual(t, d.ClatNs.Percentile["50.000000"], d.ClatNs.Percentile["99.999000"])
	d = run("lat_percentiles", "1")
	require.Nil(t, d.ClatNs.Percentile)
	require.Len(t, d.LatNs.Percentile, len(sim.DefaultPercentiles()))
	d = run("clat_percentiles", "0")
	require.Nil(t, d.ClatNs.Percentile)
	require.Nil(t, d.LatNs.Percentile)
	require.Error(t, workload.NewJob("x").Set("percentile_list", "50:101"))
}

// TestMergeConcurrentJobs: Merge (fio's group_reporting) adds I/Os over
// the longest runtime, and reads the merged percentiles from the summed
// distribution: between the parts' own.
func TestMergeConcurrentJobs(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	var streams []sim.Stream
	for _, bs := range []string{"4k", "64k"} {
		j := job(t, "rw", "randwrite", "bs", bs, "iodepth", "4", "size", "256m", "runtime", "1", "time_based", "1")
		require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
		streams = append(streams, sim.Stream{Source: workload.NewGenerator(j), Options: sim.JobOptions(j)})
	}
	rs, err := e.RunGroup(streams)
	require.NoError(t, err)
	m := sim.Merge(rs)
	require.Equal(t, rs[0].Write.IOs+rs[1].Write.IOs, m.Write.IOs)
	require.Equal(t, max(rs[0].RuntimeNs, rs[1].RuntimeNs), m.RuntimeNs)
	require.InDelta(t, rs[0].Write.IOPS+rs[1].Write.IOPS, m.Write.IOPS, m.Write.IOPS/100)
	for _, p := range sim.DefaultPercentiles() {
		lo := min(rs[0].Write.Latency.Percentiles[p], rs[1].Write.Latency.Percentiles[p])
		hi := max(rs[0].Write.Latency.Percentiles[p], rs[1].Write.Latency.Percentiles[p])
		got := m.Write.Latency.Percentiles[p]
		require.True(t, float64(got) >= 0.97*float64(lo) && float64(got) <= 1.03*float64(hi), "p%g: %d not within [%d, %d]", p, got, lo, hi)
	}
	require.Equal(t, rs[1].Device, m.Device, "the group's device figures")
}

// TestExitAll: when a job with exitall finishes, the other jobs of its
// group stop too (fio's exitall); without it they run their time.
func TestExitAll(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	run := func(exitall string) []*sim.Result {
		var streams []sim.Stream
		for _, kv := range [][]string{{"rw", "randread", "number_ios", "1000", "exitall", exitall}, {"rw", "randwrite", "runtime", "5", "time_based", "1"}} {
			j := job(t, kv...)
			require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
			streams = append(streams, sim.Stream{Source: workload.NewGenerator(j), Options: sim.JobOptions(j)})
		}
		rs, err := e.RunGroup(streams)
		require.NoError(t, err)
		return rs
	}
	rs := run("0")
	require.InDelta(t, 5e9, float64(rs[1].EndNs-rs[1].StartNs), 0.1e9, "the timed job runs its 5 s")
	rs = run("1")
	require.Equal(t, int64(1000), rs[0].Read.IOs)
	require.Less(t, rs[1].EndNs-rs[1].StartNs, int64(1e9), "stopped with the first")
}

// TestRateMin: a job whose bandwidth over a rate cycle falls below
// rate_min fails with fio's EIO and stops there; one the drive sustains
// runs its time.
func TestRateMin(t *testing.T) {
	e := sim.New(smallDrive(t, nil))
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
	free, err := e.RunJob(job(t, "rw", "randread", "runtime", "2", "time_based", "1"), sim.Hooks{})
	require.NoError(t, err)
	half := strconv.FormatInt(int64(free.Read.BWBytes/2), 10) // a rate the drive sustains
	r, err := e.RunJob(job(t, "rw", "randread", "runtime", "5", "time_based", "1", "rate_min", half), sim.Hooks{})
	require.NoError(t, err)
	require.Empty(t, r.RateMinFailed)
	require.InDelta(t, 5e9, float64(r.RuntimeNs), 1e7)
	slow, err := e.RunJob(job(t, "rw", "randread", "runtime", "5", "time_based", "1", "rate_min", "10g", "ratecycle", "500"), sim.Hooks{})
	require.NoError(t, err)
	require.Contains(t, slow.RateMinFailed, "rate_min=10737418240B/s not met")
	require.Less(t, slow.RuntimeNs, int64(0.6e9), "stopped after the first cycle")
	require.Equal(t, 5, fioreport.JobOf(slow, nil).Error)
	iops, err := e.RunJob(job(t, "rw", "randread", "runtime", "2", "time_based", "1", "rate_iops_min", "1000000"), sim.Hooks{})
	require.NoError(t, err)
	require.Contains(t, iops.RateMinFailed, "rate_iops_min")
}

// TestPowerLossDuringAJob: a power cut during a job fails the commands in
// flight, mounts the drive again and lets the job go on; the job's verify
// phase then finds the writes the cut lost — none on a drive with
// power-loss protection.
func TestPowerLossDuringAJob(t *testing.T) {
	for _, plp := range []bool{false, true} {
		d := twoDies(t, func(c *controller.Config) {
			c.NAND.TrackData = true
			c.Firmware.GCSafeErase = true
			c.Firmware.PowerLossProtection = plp
		})
		e := sim.New(d)
		e.SecureErase()
		// One pass over the range (each block written once): what the cut
		// loses is not written again before the read-back.
		r, err := e.RunJob(job(t, "rw", "randwrite", "iodepth", "8", "size", "256m",
			"power_loss", "500ms", "verify", "crc32c"), sim.Hooks{})
		require.NoError(t, err)
		require.Len(t, r.PowerLosses, 1)
		pl := r.PowerLosses[0]
		require.Equal(t, plp, pl.Protected)
		require.Positive(t, r.AbortedIOs, "commands in flight fail")
		require.Positive(t, r.Verify.Reads)
		lostUnits := (pl.LostVolatileBytes + pl.LostProgrammedBytes + pl.LostFlushedBytes) / d.UnitBytes()
		if plp {
			require.Zero(t, lostUnits)
			require.Zero(t, r.Verify.Mismatches)
			continue
		}
		require.Positive(t, lostUnits)
		require.Equal(t, lostUnits, r.Verify.Mismatches, "the read-back finds exactly the units the cut lost")
	}
}

// TestFlushMakesWritesDurable: a job that flushes after every write at
// queue depth one can lose, when the power goes, only the one write whose
// flush had not completed — and nothing a flush made durable: safe erase
// closes the word lines a flush leaves half programmed, so that no
// interrupted upper-page program can destroy flushed data; without the
// flushes the write buffer's data is lost.
func TestFlushMakesWritesDurable(t *testing.T) {
	cut := func(kv ...string) controller.PowerLossReport {
		d := twoDies(t, func(c *controller.Config) { c.NAND.TrackData = true; c.Firmware.GCSafeErase = true })
		e := sim.New(d)
		e.SecureErase()
		r, err := e.RunJob(job(t, append([]string{"rw", "randwrite", "size", "256m", "runtime", "2", "time_based", "1", "power_loss", "1s"}, kv...)...), sim.Hooks{})
		require.NoError(t, err)
		require.Len(t, r.PowerLosses, 1)
		return r.PowerLosses[0]
	}
	unit := int64(4096)
	synced := cut("fsync", "1")
	require.LessOrEqual(t, synced.LostVolatileBytes, unit, "only the write whose flush was under way")
	g := twoDies(t, nil).Config().NAND.Geometry
	require.Zero(t, synced.LostFlushedBytes, "nothing a flush made durable")
	require.LessOrEqual(t, synced.LostProgrammedBytes, int64(synced.CorruptedPages*g.PageBytes*g.PlanesPerDie))
	plain := cut()
	require.Greater(t, plain.LostVolatileBytes, 8*unit, "the write buffer's data")
}
