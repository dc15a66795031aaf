package sim_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// nvmeDrive builds the preset called name (generic-nvme or
// generic-nvme-hmb) at 16 GiB with its dies, interface and firmware, edited
// by edit, and fills it so that every read goes to flash.
func nvmeDrive(t testing.TB, name string, edit func(*controller.Config)) *sim.Engine {
	t.Helper()
	cfg, err := controller.Preset(name)
	require.NoError(t, err)
	cfg = cfg.Resized(16<<30, cfg.OPPercent)
	if edit != nil {
		edit(&cfg)
	}
	d, err := controller.New(cfg)
	require.NoError(t, err)
	e := sim.New(d)
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill}))
	return e
}

// randReads runs numjobs jobs of 4 KiB random reads at iodepth qd each
// over size bytes (0: the whole drive) for runtime seconds, and returns
// their results and the reads per second completed between the end of
// the first tenth of the runtime and its end: the drive's steady rate,
// without the start (queues filling) or the end (the last reads
// draining, which the jobs' own IOPS count).
func randReads(t testing.TB, e *sim.Engine, numjobs, qd int, size int64, runtime float64) ([]*sim.Result, float64) {
	t.Helper()
	from, to := int64(runtime*1e8), int64(runtime*1e9)
	var done int64
	count := func(c sim.Completion) {
		if c.DoneNs > from && c.DoneNs <= to {
			done++
		}
	}
	streams := make([]sim.Stream, numjobs)
	for k := range streams {
		j := job(t, "rw", "randread", "bs", "4k", "iodepth", strconv.Itoa(qd), "runtime", strconv.FormatFloat(runtime, 'f', -1, 64),
			"time_based", "1", "norandommap", "1", "randseed", strconv.Itoa(k+1))
		if size > 0 {
			require.NoError(t, j.Set("size", strconv.FormatInt(size, 10)))
		}
		require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
		o := sim.JobOptions(j)
		o.Name = fmt.Sprintf("r%d", k)
		o.Hooks.OnComplete = count
		streams[k] = sim.Stream{Source: workload.NewGenerator(j), Options: o}
	}
	rs, err := e.RunGroup(streams)
	require.NoError(t, err)
	return rs, float64(done) / (float64(to-from) / 1e9)
}

// TestNVMeQueueScaling: 4 KiB random reads on the generic NVMe drive at
// QD 1 → 256 on 1, 2, 4 and 8 queues (numjobs, one job a queue). IOPS
// never fall as the commands outstanding grow, are far below the bound at
// QD 1 (one read at a time: the sum of its costs), and level off within
// 2 % of the bound the configuration gives (controller.Config.ReadLimits):
// the dies on the PCIe 3.0 ×4 drive, the link on the same drive cut to
// one lane, the firmware with a slower read command.
func TestNVMeQueueScaling(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*controller.Config)
		by   string
	}{
		{"dies", nil, "dies"},
		{"link x1", func(c *controller.Config) { c.Host.PCIeLanes = 1 }, "link"},
		{"firmware", func(c *controller.Config) { c.Firmware.ReadCommandNs = 2500 }, "firmware"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := nvmeDrive(t, "generic-nvme", tc.edit)
			require.NoError(t, e.Idle(sim.Second)) // the write buffer programmed
			cfg := e.Controller().Config()
			lim, err := cfg.ReadLimits(4096)
			require.NoError(t, err)
			bound, by := lim.Bound()
			require.Equal(t, tc.by, by, "%+v", lim)

			type point struct {
				queues, qd int
				iops       float64
			}
			var points []point
			var tab strings.Builder
			fmt.Fprintf(&tab, "bound %.0f IOPS by the %s (%+v)\nQD a queue", bound, by, lim)
			queues := []int{1, 2, 4, 8}
			for _, q := range queues {
				fmt.Fprintf(&tab, "\t%d queues", q)
			}
			for qd := 1; qd <= 256; qd *= 2 {
				fmt.Fprintf(&tab, "\n%d", qd)
				for _, q := range queues {
					_, iops := randReads(t, e, q, qd, 0, 0.05)
					points = append(points, point{q, qd, iops})
					fmt.Fprintf(&tab, "\t%.0f (%.1f %%)", iops, 100*iops/bound)
				}
			}
			t.Log(tab.String())

			// QD 1: one read at a time, each costing the doorbell, the
			// read command, the NAND command, tR and the transfer, the
			// link and the interrupt.
			h, f, nt := cfg.Host, cfg.Firmware, cfg.NAND.Timing
			one := f.DoorbellNs + f.ReadCommandNs + nt.CommandNs + nt.ReadNs + nt.TransferNs(4096) +
				h.CommandNs + (4096*1000+h.LinkMBps-1)/h.LinkMBps + f.InterruptNs
			require.InEpsilon(t, 1e9/float64(one), points[0].iops, 0.01)
			require.Less(t, points[0].iops, bound/10, "QD 1 is far below the bound")
			// Non-decreasing with the commands outstanding (queues × QD);
			// points with as many commands give the same IOPS.
			for _, a := range points {
				for _, b := range points {
					if a.queues*a.qd < b.queues*b.qd {
						require.GreaterOrEqual(t, b.iops, 0.99*a.iops, "%d×%d against %d×%d", b.queues, b.qd, a.queues, a.qd)
					}
					if a.queues*a.qd == b.queues*b.qd {
						require.InEpsilon(t, a.iops, b.iops, 0.02, "%d×%d against %d×%d", b.queues, b.qd, a.queues, a.qd)
					}
				}
			}
			// The plateau: 8 queues of 256.
			top := points[len(points)-1]
			require.InEpsilon(t, bound, top.iops, 0.02, "plateau against the %s' bound", by)
			require.LessOrEqual(t, top.iops, 1.005*bound)
		})
	}
}

// TestNVMeJobsMapToQueues: job k of a group submits to queue k mod
// host.queues, and a queue holds at most host.queue_depth commands at the
// drive: the requests beyond wait on the host.
func TestNVMeJobsMapToQueues(t *testing.T) {
	e := nvmeDrive(t, "generic-nvme", func(c *controller.Config) { c.Host.Queues, c.Host.QueueDepth = 2, 16 })
	require.NoError(t, e.Idle(sim.Second))
	deep := func(r *sim.Result) int64 { return r.DepthCounts[5] + r.DepthCounts[6] } // submissions that found ≥ 32 outstanding

	// One job of iodepth 64 on a queue of 16: as fast as iodepth 16, and
	// never more than 16 at the drive.
	q16, _ := randReads(t, e, 1, 16, 0, 0.05)
	q64, _ := randReads(t, e, 1, 64, 0, 0.05)
	require.Zero(t, deep(q64[0]))
	require.Positive(t, q64[0].DepthCounts[4], "16 outstanding")
	require.InEpsilon(t, q16[0].Read.IOPS, q64[0].Read.IOPS, 0.02)
	require.InEpsilon(t, 4*q16[0].Read.Latency.Mean, q64[0].Read.Latency.Mean, 0.1, "three quarters of the time on the host")

	// Two jobs: one a queue, 32 at the drive.
	two, _ := randReads(t, e, 2, 16, 0, 0.05)
	require.Greater(t, totalReadIOPS(two), 1.4*q16[0].Read.IOPS)
	// Three jobs: jobs 0 and 2 share queue 0, job 1 has queue 1.
	three, _ := randReads(t, e, 3, 16, 0, 0.05)
	for _, r := range three {
		require.Zero(t, deep(r))
	}
	require.InEpsilon(t, totalReadIOPS(two), totalReadIOPS(three), 0.02, "still 32 at the drive")
	require.InEpsilon(t, three[0].Read.IOPS, three[2].Read.IOPS, 0.05)
	require.InEpsilon(t, three[1].Read.IOPS, three[0].Read.IOPS+three[2].Read.IOPS, 0.05, "job 1 has a queue to itself")
	t.Logf("QD 16: %.0f IOPS; QD 64 on a 16-deep queue: %.0f; two jobs on two queues: %.0f; three jobs: %.0f, %.0f, %.0f",
		q16[0].Read.IOPS, q64[0].Read.IOPS, totalReadIOPS(two), three[0].Read.IOPS, three[1].Read.IOPS, three[2].Read.IOPS)
}

// TestNVMeHonoursDeepQueues: on NVMe an iodepth beyond SATA's 32 reaches
// the drive (up to the queue's depth) and raises IOPS; on SATA it waits
// on the host (TestNCQLimit).
func TestNVMeHonoursDeepQueues(t *testing.T) {
	e := nvmeDrive(t, "generic-nvme", func(c *controller.Config) { c.Host.Queues = 1 })
	q32, _ := randReads(t, e, 1, 32, 0, 0.05)
	q256, _ := randReads(t, e, 1, 256, 0, 0.05)
	require.Positive(t, q256[0].DepthCounts[6], "submissions found ≥ 64 outstanding")
	require.Greater(t, q256[0].Read.IOPS, 1.4*q32[0].Read.IOPS)
}

// TestHMBServesMappingMisses: on the DRAM-less drive, random reads over a
// span larger than the controller's mapping cache but inside the host
// memory buffer find their mapping pages in the HMB (hmb_ns each), and
// are faster than reads over a span beyond it, whose mapping pages come
// from flash, and than the same drive's without an HMB; the DRAM drive is
// faster than all.
func TestHMBServesMappingMisses(t *testing.T) {
	// 16 GiB: the controller's 2 MiB cache maps 2 GiB, a 4 MiB HMB 4 GiB.
	e := nvmeDrive(t, "generic-nvme-hmb", func(c *controller.Config) { c.Firmware.HMB = 4 << 20 })
	require.NoError(t, e.Idle(sim.Second))
	read := func(e *sim.Engine, span int64) (float64, sim.Device) {
		// Warm the caches until the HMB holds the span (its CLOCK
		// replacement may evict a page or two of it while it fills).
		for range 4 {
			if rs, _ := randReads(t, e, 1, 1, span, 0.2); rs[0].Device.HMBMisses == 0 {
				break
			}
		}
		rs, _ := randReads(t, e, 1, 1, span, 0.2)
		return rs[0].Read.Latency.Mean, rs[0].Device
	}
	inside, in := read(e, 3<<30)
	beyond, out := read(e, 0)
	d := nvmeDrive(t, "generic-nvme", nil)
	require.NoError(t, d.Idle(sim.Second))
	dram, _ := read(d, 3<<30)
	n := nvmeDrive(t, "generic-nvme-hmb", func(c *controller.Config) { c.Firmware.HMB, c.Firmware.HMBNs = 0, 0 })
	require.NoError(t, n.Idle(sim.Second))
	noHMB, _ := read(n, 3<<30)
	t.Logf("mean QD 1 read latency: DRAM %.1f µs; HMB drive over 3 GiB %.1f µs (%d lookups, %d cache misses, %d HMB hits, %d HMB misses), over 16 GiB %.1f µs (%d, %d, %d, %d); without its HMB over 3 GiB %.1f µs",
		dram/1e3, inside/1e3, in.MapLookups, in.MapMisses, in.HMBHits, in.HMBMisses,
		beyond/1e3, out.MapLookups, out.MapMisses, out.HMBHits, out.HMBMisses, noHMB/1e3)
	// Over 3 GiB a third of the look-ups miss the cache, and the HMB holds
	// every page they need.
	require.InEpsilon(t, 1.0/3, float64(in.MapMisses)/float64(in.MapLookups), 0.1)
	require.Equal(t, in.MapMisses, in.HMBHits)
	require.Zero(t, in.HMBMisses)
	require.Zero(t, in.MapReads)
	// Over 16 GiB most miss both, and read their mapping page from flash.
	require.Greater(t, float64(out.HMBMisses), 0.6*float64(out.MapLookups))
	require.Equal(t, out.HMBMisses, out.MapReads)
	require.Less(t, dram, inside)
	require.Less(t, inside, beyond)
	require.Less(t, inside+0.2*50e3, noHMB, "without the HMB a third of the reads read a mapping page from flash first")
	// Each cache miss the HMB serves costs map_miss_ns and hmb_ns.
	f := e.Controller().Config().Firmware
	require.InDelta(t, dram+float64(in.MapMisses)/float64(in.MapLookups)*float64(f.MapMissNs+f.HMBNs), inside, 100)
	// A page from flash costs about a read more.
	require.Greater(t, beyond-inside, 0.6*50e3)
}

// TestNVMeStateRestored: an NVMe drive with an HMB, saved and restored,
// runs a multi-queue job as the saved one does.
func TestNVMeStateRestored(t *testing.T) {
	a := nvmeDrive(t, "generic-nvme-hmb", func(c *controller.Config) { c.Firmware.HMB = 4 << 20 })
	var saved bytes.Buffer
	n, err := a.SaveState(&saved)
	require.NoError(t, err)
	cfg, err := controller.Preset("generic-nvme-hmb")
	require.NoError(t, err)
	cfg = cfg.Resized(16<<30, cfg.OPPercent)
	cfg.Firmware.HMB = 4 << 20
	d, err := controller.New(cfg)
	require.NoError(t, err)
	b := sim.New(d)
	require.NoError(t, b.LoadState(bytes.NewReader(saved.Bytes()), n))
	ra, _ := randReads(t, a, 4, 8, 6<<30, 0.02)
	rb, _ := randReads(t, b, 4, 8, 6<<30, 0.02)
	require.Equal(t, ra, rb)
	require.Positive(t, ra[0].Device.HMBHits)
}

// totalReadIOPS adds the read IOPS of a group's jobs.
func totalReadIOPS(rs []*sim.Result) float64 {
	s := 0.0
	for _, r := range rs {
		s += r.Read.IOPS
	}
	return s
}
