package sim_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/sim/fioreport"
	"github.com/ftlsim/ftlsim/workload"
)

// Tests of a job's options as the engine applies them: latency bins, flushes, verify, sprandom, percentiles, merging, exitall, rate_min, power loss.

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
		for _, iv := range r.Intervals.All() {
			peak = max(peak, iv.WriteAmplification)
		}
		rd, err := e.RunJob(job(t, "rw", "read", "bs", "1m"), sim.Hooks{})
		require.NoError(t, err)
		return r.Intervals.At(0).WriteAmplification, peak, rd.Device.UnwrittenReadUnits
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
