package sim_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/internal/testdrive"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// qlcDrive is a 16 GiB drive on four dies of the IMFT 64-layer QLC part
// (one channel each, an NVMe link that never limits them) with an SLC
// cache of 512 MiB static and up to 4 GiB dynamic.
func qlcDrive(t *testing.T, whenFull string) *controller.Controller {
	t.Helper()
	cfg := testdrive.Part(t, "imft-64l-qlc-1tbit", 4, 16<<30)
	nvme, err := controller.Preset("generic-nvme")
	require.NoError(t, err)
	cfg.Host = nvme.Host
	cfg.Firmware.DatapathWriteMBps, cfg.Firmware.DatapathReadMBps = 0, 0
	cfg.Firmware.SLCCache = controller.SLCCache{Static: 512 << 20, DynamicMax: 4 << 30, WhenFull: whenFull}
	c, err := controller.New(cfg)
	require.NoError(t, err)
	return c
}

// seqWrite writes pct % of the LBAs from offset off % at QD 32 in 128 KiB
// transfers and returns the MB/s of each 50 ms.
func seqWrite(t *testing.T, e *sim.Engine, off, pct int) []float64 {
	t.Helper()
	j := job(t, "rw", "write", "bs", "128k", "offset", strconv.Itoa(off)+"%", "size", strconv.Itoa(pct)+"%")
	require.NoError(t, j.Resolve(e.Controller().CapacityBytes()))
	r, err := e.Run(workload.NewGenerator(j), sim.Options{QueueDepth: 32, IntervalNs: sim.Second / 20})
	require.NoError(t, err)
	var out []float64
	for _, iv := range r.Intervals.Slice()[:r.Intervals.Len()-1] {
		out = append(out, iv.MBps)
	}
	return out
}

// burstBytes is what the series wrote before its rate first fell below
// half of its first intervals'.
func burstBytes(mbps []float64) (fast float64, bytes float64) {
	fast = mbps[1]
	for _, m := range mbps {
		if m < fast/2 {
			break
		}
		bytes += m * 1e6 / 20
	}
	return fast, bytes
}

// TestSLCCacheSustainedWrite: an empty QLC drive writes at the SLC-mode
// rate of its dies until the cache the FTL reported is full, then at the
// rate folding allows, or, writing straight to QLC, at the QLC rate:
// each from the part's times (one channel a die: a die's page transfers
// and its program alternate). Filled to 80 %, the cache is smaller;
// after an idle long enough to fold it, the cache is back.
func TestSLCCacheSustainedWrite(t *testing.T) {
	c := qlcDrive(t, "direct")
	cfg := c.Config()
	g, tm := cfg.NAND.Geometry, cfg.NAND.Timing
	slc, ok := tm.SLCMode()
	require.True(t, ok)
	dies := float64(g.Dies())
	planeBytes := float64(g.PlanesPerDie * g.PageBytes)
	xfer := float64(int64(g.PlanesPerDie) * tm.TransferNs(g.PageBytes+g.SpareBytes))
	slcRate := dies * planeBytes / (xfer + float64(tm.CommandNs+slc.ProgLSBNs)) * 1e3 // MB/s
	wlPages := float64(tm.WordLinePages())
	qlcRate := dies * wlPages * planeBytes / (wlPages*(xfer+float64(tm.CommandNs)) + float64(tm.ProgWordLineNs)) * 1e3

	e := sim.New(c)
	e.SecureErase()
	cache := float64(c.FTL().SLCCacheUnits() * int64(g.UnitBytes))
	mbps := seqWrite(t, e, 0, 60)
	fast, burst := burstBytes(mbps)
	// After the cache, host data goes straight to QLC: first into the
	// free groups the cache keeps to fold itself, then, the cache
	// holding most of the flash (a QLC block holds 4 times its SLC
	// data), into groups freed by folding: bits/(bits−1) SLC groups for
	// each, so each byte written brings 1/(bits−1) of a byte folded
	// (read in SLC mode, programmed in QLC).
	end := int(burst / (fast * 1e6 / 20))
	first := mean(mbps[end+20 : end+20+int(1e9/(qlcRate*1e6/20))]) // the next GB
	after := mean(mbps[end:])
	slcRead := dies * planeBytes / (xfer + float64(tm.CommandNs+slc.ReadNs)) * 1e3
	b := wlPages
	reclaimRate := 1 / (b/(b-1)/qlcRate + 1/(b-1)/slcRead)
	t.Logf("empty: %.0f MB/s (theory %.0f) for %.2f GB (cache %.2f GB), then %.1f MB/s (QLC theory %.1f), %.1f MB/s on average (between %.1f, folding to free each group, and %.1f)",
		fast, slcRate, burst/1e9, cache/1e9, first, qlcRate, after, reclaimRate, qlcRate)
	require.InEpsilon(t, slcRate, fast, 0.05, "SLC-mode rate")
	require.InEpsilon(t, cache, burst, 0.05, "cache size")
	require.InEpsilon(t, qlcRate, first, 0.05, "direct-to-QLC rate")
	require.Less(t, after, qlcRate)
	require.Greater(t, after, 0.95*reclaimRate)

	// An idle long enough to fold what the cache holds at the QLC rate.
	held := float64(c.FTL().Counters().SLCHostUnits-c.FTL().Counters().FoldedUnits) * float64(g.UnitBytes)
	require.NoError(t, e.Idle(int64(1.2*held/(qlcRate*1e6)*1e9)+sim.Second))
	for d := range g.Dies() {
		require.False(t, c.FTL().NeedsFold(d), "die %d still has SLC groups to fold", d)
	}
	back := float64(c.FTL().SLCCacheUnits() * int64(g.UnitBytes))
	_, burst2 := burstBytes(seqWrite(t, e, 60, 30))
	t.Logf("after idle: cache %.2f GB, burst %.2f GB", back/1e9, burst2/1e9)
	require.InEpsilon(t, back, burst2, 0.05, "the cache after idle")
	require.Less(t, back, cache, "60 %% full: a smaller cache")
	require.Greater(t, back, cache/4)

	// Folding while the host waits, paced: the host's data is programmed
	// twice.
	c = qlcDrive(t, "fold")
	e = sim.New(c)
	e.SecureErase()
	mbps = seqWrite(t, e, 0, 60)
	after = mean(mbps[len(mbps)/2:])
	stalls := 0
	for _, m := range mbps[len(mbps)/2:] {
		if m == 0 {
			stalls++
		}
	}
	// Per byte: an SLC program, then folding: an SLC read (its
	// transfer) and a QLC program. The cache also shrinks as the folded
	// data fills the flash (with k SLC groups a die keeps k/bits + high
	// water free): each QLC group's worth folded takes bits/(bits+1) SLC
	// groups, U/(bits+1) bytes of the cache, with it, so the dies fold
	// (bits+1)/bits bytes for each byte the host writes.
	foldRate := 1 / (1/slcRate + (b+1)/b*(1/slcRead+1/qlcRate))
	t.Logf("folding: %.1f MB/s on average after the cache (theory %.1f), %d of %d 50 ms intervals without a write", after, foldRate, stalls, len(mbps)-len(mbps)/2)
	require.InEpsilon(t, foldRate, after, 0.1, "folding-limited rate")
	// Paced a little after each host page, folding leaves few 50 ms
	// intervals without a write (folding whole groups while the host
	// waits left 93 % of them empty).
	require.Less(t, stalls, (len(mbps)-len(mbps)/2)/10, "intervals without a write")
}

func mean(x []float64) float64 { return stat.Mean(x, nil) }

// TestSLCCacheFillsWithoutCollection: writing a whole drive sequentially
// overwrites nothing, so no native group ever holds invalid data: once
// the cache is full and the free groups used up, the only space to
// reclaim is the cache's, and the drive folds it rather than copy native
// groups (which would move nearly a whole group to free a few units).
func TestSLCCacheFillsWithoutCollection(t *testing.T) {
	for _, whenFull := range []string{"direct", "fold"} {
		c := qlcDrive(t, whenFull)
		e := sim.New(c)
		e.SecureErase()
		mbps := seqWrite(t, e, 0, 100)
		cn := c.FTL().Counters()
		t.Logf("%s: %.1f MB/s on average, %d units folded, %d copied by collection", whenFull, mean(mbps), cn.FoldedUnits, cn.GCCopiedUnits)
		require.Zero(t, cn.GCCopiedUnits, whenFull)
		require.Positive(t, cn.FoldedUnits, whenFull)
		require.NoError(t, c.FTL().CheckInvariants())
	}
}
