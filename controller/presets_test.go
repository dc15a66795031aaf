package controller_test

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/internal/testtier"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

// requireSameDescription checks that a and b describe the same drive:
// every field of the description the same (where each was read from may
// differ).
func requireSameDescription(t testing.TB, a, b controller.Config, msg string) {
	t.Helper()
	ta, err := a.Marshal()
	require.NoError(t, err)
	tb, err := b.Marshal()
	require.NoError(t, err)
	require.Equal(t, string(ta), string(tb), msg)
	require.Equal(t, a.Policies, b.Policies, msg)
}

func TestEveryPresetResolvesAndRoundTrips(t *testing.T) {
	names := controller.Presets()
	require.GreaterOrEqual(t, len(names), 20)
	for _, name := range names {
		c, err := controller.Preset(name)
		require.NoError(t, err, name)
		r, err := c.Resolve()
		require.NoError(t, err, name)
		b, err := c.Marshal()
		require.NoError(t, err)
		back, err := controller.ParseConfig(name, b)
		require.NoError(t, err)
		requireSameDescription(t, c, back, name)
		rb, err := back.Resolve()
		require.NoError(t, err, "%s:\n%s", name, b)
		requireSameDescription(t, r.Config, rb.Config, name)
		require.Equal(t, r.SparePercent, rb.SparePercent, name)
		require.Contains(t, c.Description, fmt.Sprintf("%d dies", c.NAND.Geometry.Dies()), "%s: the description states the die count", name)
	}
	density := regexp.MustCompile(`(\d+) Gbit`)
	for _, part := range controller.Parts() {
		p, err := controller.Part(part)
		require.NoError(t, err)
		require.NoError(t, p.Timing.Validate(), part)
		// The organisation adds up to the density the part is sold as —
		// or, where whole word lines of a TLC part make blocks that do
		// not divide it, the fewest blocks that hold it.
		m := density.FindStringSubmatch(p.Description)
		require.NotNil(t, m, "%s: %q states no density", part, p.Description)
		gbit, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		nominal := int64(gbit) << 30 / 8
		plane := nominal / int64(p.Die.PlanesPerDie)
		block := int64(p.Die.PagesPerBlock) * int64(p.Die.PageBytes)
		if plane%block == 0 {
			require.Equal(t, nominal, p.DieBytes(), part)
		} else {
			require.Equal(t, (plane+block-1)/block, int64(p.Die.BlocksPerPlane), part)
		}
	}
}

func TestPresetDescriptionErrors(t *testing.T) {
	cases := []struct {
		edit  func(*controller.Config)
		field string
	}{
		{func(c *controller.Config) { c.Capacity = 300e9 }, "does not fit the geometry"},
		{func(c *controller.Config) { c.OPPercent = 25 }, "op_percent = 25 does not match the geometry"},
		{func(c *controller.Config) { c.NAND.Timing.ProgLSBNs = -3 }, "timing.prog_lsb_ns"},
		{func(c *controller.Config) { c.Power.ControllerIdleMW = c.Power.ControllerActiveMW + 1 }, "power"},
		{func(c *controller.Config) { c.Firmware.GCRestoreTo = 1 }, "gc_restore_to"},
		{func(c *controller.Config) { c.Firmware.ReadAhead = 1 << 40 }, "firmware.read_ahead"},
		{func(c *controller.Config) { c.Firmware.DatapathReadMBps = -1 }, "firmware.datapath_read_mbps"},
		{func(c *controller.Config) { c.Firmware.CompressionSlot = 2048 }, "firmware.compression_slot"},
		{func(c *controller.Config) { c.Firmware.Compression = true }, "firmware.compression_slot"},
		{func(c *controller.Config) { c.Firmware.Compression, c.Firmware.CompressionSlot = true, 3000 }, "firmware.compression_slot"},
		{func(c *controller.Config) { c.Firmware.RaiseStripe = 1 }, "firmware.raise_stripe"},
		{func(c *controller.Config) { c.Firmware.RaiseStripe = 8 }, "RAISE parity"}, // 12.5 % parity leaves no room for 7 % spare
		{func(c *controller.Config) { c.Firmware.MapCache = 100 }, "firmware.map_cache"},
		{func(c *controller.Config) { c.Firmware.TrimBacklog = -1 }, "firmware.trim_backlog"},
		{func(c *controller.Config) { c.Firmware.MapMissNs = -1 }, "firmware.map_miss_ns"},
		{func(c *controller.Config) { c.Firmware.GCUnitNs = -1 }, "firmware.gc_unit_ns"},
		{func(c *controller.Config) { c.Firmware.ECCMBps = -5 }, "firmware.ecc_mbps"},
	}
	for _, tc := range cases {
		c, err := controller.Preset("m4-256")
		require.NoError(t, err)
		tc.edit(&c)
		_, err = controller.New(c)
		require.ErrorIs(t, err, controller.ErrConfig, tc.field)
		require.Contains(t, err.Error(), tc.field)
	}
	_, err := controller.Part("no-such-nand")
	require.ErrorIs(t, err, controller.ErrConfig)
	l, err := controller.LoadLine("m4")
	require.NoError(t, err)
	l.NAND = "no-such-nand"
	_, err = l.Expand(l.Variants[0])
	require.ErrorContains(t, err, "no-such-nand")
	l, _ = controller.LoadLine("m4")
	v := l.Variants[0]
	v.Raw = 100 << 30
	_, err = l.Expand(v)
	require.ErrorContains(t, err, "not a whole number")
}

// sparePercent is the spare area a product-line preset's flash leaves
// beside its user capacity and its RAISE parity, in percent of the user
// capacity.
func sparePercent(c controller.Config) float64 {
	data := float64(c.NAND.Geometry.Bytes())
	if s := c.Firmware.RaiseStripe; s > 1 {
		data *= float64(s-1) / float64(s)
	}
	return 100 * (data/float64(c.Capacity) - 1)
}

// shrunkBytesPerDie is the user capacity per die of a preset in the
// default test tier.
const shrunkBytesPerDie = 1 << 30

// tierPreset returns the product-line preset called name for the test
// tier. The long tier (FTLSIM_LONG=1) takes it as it is. The default tier
// keeps its controller, firmware, NAND part, die count and spare area but
// shrinks it to 1 GiB of user capacity per die (its flash sized from the
// capacity, as the review's quick mode does), with the firmware's TRIM
// backlog and mapping cache scaled alike. scale is the drive's capacity
// over the preset's: run lengths multiplied by it write the same number
// of drive fills.
func tierPreset(t testing.TB, name string) (cfg controller.Config, scale float64) {
	t.Helper()
	cfg, err := controller.Preset(name)
	require.NoError(t, err)
	if testtier.IsLong() {
		return cfg, 1
	}
	full := float64(cfg.Capacity)
	cfg = cfg.Resized(controller.Size(cfg.NAND.Geometry.Dies()*shrunkBytesPerDie), sparePercent(cfg))
	scale = float64(cfg.Capacity) / full
	fw := &cfg.Firmware
	fw.TrimBacklog = controller.Size(float64(fw.TrimBacklog)*scale) / 4096 * 4096
	if fw.MapCache > 0 {
		page := int64(cfg.NAND.Geometry.PageBytes)
		fw.MapCache = controller.Size(max(page, int64(float64(fw.MapCache)*scale)/page*page))
	}
	return cfg, scale
}

// scaled is n seconds (of a full-size preset's run) times scale, in
// nanoseconds.
func scaled(seconds int, scale float64) int64 {
	return int64(math.Round(float64(seconds) * scale * float64(sim.Second)))
}

// consistency runs the reviews' consistency procedure (fill, then 4 KiB
// random writes at QD 32) on a drive, over the first size of the drive,
// and returns the steady-state window's (the last 30 %) per-second IOPS.
func consistency(t *testing.T, cfg controller.Config, size string, runNs int64) []float64 {
	d, err := controller.New(cfg)
	require.NoError(t, err)
	e := sim.New(d)
	e.SecureErase()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionFill, Size: size}))
	j := workload.RandomWriteJob("consistency", runNs)
	require.NoError(t, j.Set("size", size))
	r, err := e.RunJob(j, sim.Hooks{})
	require.NoError(t, err)
	seconds := int(runNs / sim.Second)
	var out []float64
	for _, iv := range r.Intervals.Slice()[seconds*7/10 : seconds] {
		out = append(out, iv.IOPS)
	}
	return out
}

type window struct {
	mean, median, p10       float64
	seconds, zeros, longest int
}

func summarize(iops []float64) window {
	w := window{seconds: len(iops)}
	run := 0
	for _, v := range iops {
		w.mean += v / float64(len(iops))
		if v == 0 {
			w.zeros++
			run++
			w.longest = max(w.longest, run)
		} else {
			run = 0
		}
	}
	s := append([]float64(nil), iops...)
	sort.Float64s(s)
	w.median, w.p10 = s[len(s)/2], s[len(s)/10]
	return w
}

// TestConsistencyTellsBP3FromBP4: the same controller with two firmwares.
// BP3 defers cleanup and stalls to 0 IOPS for seconds at a time; BP4
// cleans as it goes and holds a band. 25 % spare area improves both.
// The long tier runs the 64 GB BP3 and 30 GB BP4 for the reviews' 1500 s
// (2000 s less the time to the cliff); the default tier runs them shrunk to
// 1 GiB per die for the same number of drive fills.
func TestConsistencyTellsBP3FromBP4(t *testing.T) {
	if testing.Short() {
		t.Skip("four consistency runs")
	}
	const secs = 1500
	run := func(name, size string) window {
		cfg, scale := tierPreset(t, name)
		return summarize(consistency(t, cfg, size, scaled(secs, scale)))
	}
	bp3, bp3s := run("bp3-64", "100%"), run("bp3-64", "75%")
	bp4, bp4s := run("bp4-msata-30", "100%"), run("bp4-msata-30", "75%")
	t.Logf("BP3:  mean %.0f median %.0f, %d s of %d at 0 IOPS, longest stall %d s; 25%% spare: mean %.0f, %d s at 0", bp3.mean, bp3.median, bp3.zeros, bp3.seconds, bp3.longest, bp3s.mean, bp3s.zeros)
	t.Logf("BP4:  mean %.0f median %.0f p10 %.0f, %d s at 0; 25%% spare: mean %.0f median %.0f", bp4.mean, bp4.median, bp4.p10, bp4.zeros, bp4s.mean, bp4s.median)
	require.GreaterOrEqual(t, bp3.longest, 5, "BP3 stalls for seconds at a time")
	require.Greater(t, bp3.zeros, bp3.seconds/10, "BP3 spends more than a tenth of the steady state at 0 IOPS")
	require.Zero(t, bp4.zeros, "BP4 never stalls")
	require.Greater(t, bp4.p10, 0.8*bp4.median, "BP4 holds a band")
	require.Greater(t, bp3s.mean, 1.1*bp3.mean, "spare area helps BP3")
	require.Less(t, bp3s.zeros, bp3.zeros)
	require.Greater(t, bp4s.median, 1.5*bp4.median, "spare area helps BP4")
}

// trimValidation runs the reviews' TRIM validation: 128 KiB sequential
// writes at QD 1 for measureNs, measured clean (after a secure erase),
// dirty (after a fill and a torture of 4 KiB random writes over every LBA
// for tortureNs) and after a TRIM of every LBA. It returns the three MB/s
// figures.
func trimValidation(t *testing.T, cfg controller.Config, tortureNs, measureNs int64) (clean, dirty, trimmed float64) {
	d, err := controller.New(cfg)
	require.NoError(t, err)
	e := sim.New(d)
	seqWrite := func() float64 {
		j := workload.NewJob("seq-write")
		for _, kv := range [][2]string{{"rw", "write"}, {"bs", "128k"}, {"runtime", fmt.Sprintf("%dms", measureNs/1e6)}, {"time_based", "1"}} {
			require.NoError(t, j.Set(kv[0], kv[1]))
		}
		r, err := e.RunJob(j, sim.Hooks{})
		require.NoError(t, err)
		return r.Write.BWBytes / 1e6
	}
	e.SecureErase()
	clean = seqWrite()
	require.NoError(t, e.Precondition(workload.Precondition{Kind: workload.PreconditionTorture, TortureNs: tortureNs}))
	dirty = seqWrite()
	trim := workload.NewJob("trim-all")
	require.NoError(t, trim.Set("rw", "trim"))
	require.NoError(t, trim.Set("bs", "64m"))
	_, err = e.RunJob(trim, sim.Hooks{})
	require.NoError(t, err)
	require.NoError(t, d.FTL().CheckInvariants())
	require.NoError(t, e.Idle(30*sim.Second)) // the pause before the next test
	trimmed = seqWrite()
	return
}

// TestTRIMRestoresPerformance: on the Marvell and Phison drives a TRIM of
// the whole drive brings sequential writes back to the clean figure. The
// long tier tortures the presets for 10 minutes and measures for 20 s;
// the default tier shrinks them (tierPreset) and scales both times alike.
func TestTRIMRestoresPerformance(t *testing.T) {
	if testing.Short() {
		t.Skip("tortures two drives")
	}
	for _, name := range []string{"m4-64", "bp4-60"} {
		cfg, scale := tierPreset(t, name)
		clean, dirty, trimmed := trimValidation(t, cfg, scaled(600, scale), scaled(20, scale))
		t.Logf("%s (%s user): clean %.0f MB/s, dirty %.0f MB/s, after TRIM %.0f MB/s", name, cfg.Capacity, clean, dirty, trimmed)
		require.Less(t, dirty, 0.7*clean, "%s: torture leaves the drive slow", name)
		require.InEpsilon(t, clean, trimmed, 0.05, "%s: TRIM restores it", name)
	}
}

// TestTRIMPartialOnSandForce: the SF-2281 records trimmed ranges in a
// backlog it reclaims while idle and drops what does not fit, so a TRIM
// of a whole tortured drive frees only part of it: sequential writes after
// TRIM are faster than dirty but clearly below clean. Without the backlog
// limit (the what-if of a controller that applies every TRIM) the same
// drive (a smaller one, to save time) recovers fully. The long tier runs
// the 240 GB and 120 GB presets; the default tier shrinks them
// (tierPreset, which scales the backlog with the capacity).
func TestTRIMPartialOnSandForce(t *testing.T) {
	if testing.Short() {
		t.Skip("tortures a 240 GB and a 120 GB drive")
	}
	// The review measures for 60 s: how much of that the reclaimed
	// backlog absorbs at the clean speed sets the after-TRIM figure.
	cfg, scale := tierPreset(t, "atlas-240")
	clean, dirty, trimmed := trimValidation(t, cfg, scaled(600, scale), scaled(60, scale))
	t.Logf("atlas-240 (%s user, %s backlog): clean %.0f MB/s, dirty %.0f MB/s, after TRIM %.0f MB/s (%.0f %% of clean)", cfg.Capacity, cfg.Firmware.TrimBacklog, clean, dirty, trimmed, 100*trimmed/clean)
	require.Less(t, dirty, 0.5*clean)
	require.Less(t, trimmed, 0.85*clean, "partial recovery")
	require.Greater(t, trimmed, 2*dirty, "but a recovery")
	cfg, scale = tierPreset(t, "atlas-120")
	cfg.Firmware.TrimBacklog = 0
	clean, _, trimmed = trimValidation(t, cfg, scaled(600, scale), scaled(20, scale))
	t.Logf("atlas-120 (%s user) applying every TRIM: clean %.0f MB/s, after TRIM %.0f MB/s", cfg.Capacity, clean, trimmed)
	require.InEpsilon(t, clean, trimmed, 0.05)
}

// seqWriteMBps measures 128 KiB sequential writes at QD 1 on a fresh drive
// with the named data pattern, returning MB/s and write amplification.
func seqWriteMBps(t *testing.T, cfg controller.Config, data string) (float64, float64) {
	d, err := controller.New(cfg)
	require.NoError(t, err)
	j := workload.NewJob("seq-write")
	for _, kv := range [][2]string{{"rw", "write"}, {"bs", "128k"}, {"runtime", "2"}, {"time_based", "1"}, {"data", data}} {
		require.NoError(t, j.Set(kv[0], kv[1]))
	}
	r, err := sim.New(d).RunJob(j, sim.Hooks{})
	require.NoError(t, err)
	return r.Write.BWBytes / 1e6, r.Device.WriteAmplification
}

// TestSandForceCompressibleDataIsFaster: as AS-SSD against Iometer shows,
// the SF-2281 writes incompressible data clearly slower than compressible
// data, which takes fewer flash pages (write amplification below 1; above
// it for incompressible data where RAISE adds parity); controllers
// without compression write both at the same speed. Fresh
// drives write at a rate set by their dies, so the default tier shrinks
// the presets (tierPreset) and the long tier takes them whole.
func TestSandForceCompressibleDataIsFaster(t *testing.T) {
	for _, name := range []string{"atlas-240", "intel-525-240", "m4-256", "bp4-240"} {
		cfg, _ := tierPreset(t, name)
		comp, waComp := seqWriteMBps(t, cfg, "pseudo-random")
		inc, waInc := seqWriteMBps(t, cfg, "full-random")
		t.Logf("%s: pseudo-random %.0f MB/s (WA %.2f), full-random %.0f MB/s (WA %.2f)", name, comp, waComp, inc, waInc)
		if cfg.Firmware.Compression {
			require.Greater(t, comp, 1.25*inc, name)
			require.Less(t, waComp, 0.7, name)
			if cfg.Firmware.RaiseStripe > 0 {
				require.Greater(t, waInc, 1.0, "%s: incompressible data plus RAISE parity", name)
			} else {
				require.InDelta(t, 1.0, waInc, 0.01, "%s: incompressible data, no parity", name)
			}
		} else {
			require.InEpsilon(t, inc, comp, 0.01, name)
		}
	}
}

// TestMapCacheSlowsLargeDrives: the SF-2281 holds only part of its
// mapping table, so 4 KiB random I/O over the whole drive misses more
// often on a larger drive; the 480 GB Atlas, with twice the dies, is
// slower than the 240 GB one. With the table in DRAM (map_cache 0) the
// larger drive is at least as fast. The default tier shrinks both drives
// and their mapping caches alike (tierPreset), so the cache holds the
// same share of each table.
func TestMapCacheSlowsLargeDrives(t *testing.T) {
	// Long enough for the writes to fill the cache and evict from it: a
	// fresh drive's first touch of a mapping page reads nothing, so a
	// short run on the full-size drives (eight times the mapping pages of
	// the shrunk ones) measures only first touches.
	runtime := "3"
	if testtier.IsLong() {
		runtime = "24"
	}
	run := func(name string, dram bool) (float64, ftl.Counters) {
		cfg, _ := tierPreset(t, name)
		if dram {
			cfg.Firmware.MapCache = 0
		}
		d, err := controller.New(cfg)
		require.NoError(t, err)
		j := workload.NewJob("rand-write")
		for _, kv := range [][2]string{{"rw", "randwrite"}, {"bs", "4k"}, {"iodepth", "32"}, {"runtime", runtime}, {"time_based", "1"}, {"norandommap", "1"}} {
			require.NoError(t, j.Set(kv[0], kv[1]))
		}
		r, err := sim.New(d).RunJob(j, sim.Hooks{})
		require.NoError(t, err)
		return r.Write.IOPS, d.Counters()
	}
	small, k := run("atlas-240", false)
	large, kl := run("atlas-480", false)
	t.Logf("mapping cache: atlas-240 %.0f IOPS (%d mapping-page reads, %d writes), atlas-480 %.0f IOPS (%d, %d)", small, k.Flash[ftl.CauseMap].ReadPages, k.Flash[ftl.CauseMap].ProgramPages, large, kl.Flash[ftl.CauseMap].ReadPages, kl.Flash[ftl.CauseMap].ProgramPages)
	require.Less(t, large, 0.85*small)
	require.Greater(t, kl.Flash[ftl.CauseMap].ProgramPages, k.Flash[ftl.CauseMap].ProgramPages, "more changed mapping pages evicted")
	smallDRAM, k0 := run("atlas-240", true)
	largeDRAM, _ := run("atlas-480", true)
	t.Logf("whole table in DRAM: atlas-240 %.0f IOPS, atlas-480 %.0f IOPS", smallDRAM, largeDRAM)
	require.GreaterOrEqual(t, largeDRAM, 0.99*smallDRAM)
	require.Greater(t, smallDRAM, small)
	require.Zero(t, k0.Flash[ftl.CauseMap].ReadPages)
}

// TestRAISECostsCapacityAndParityWrites: RAISE holds 1/raise_stripe of
// the flash for parity, so the same flash leaves less spare area, and it
// programs one parity page per raise_stripe−1 data pages.
func TestRAISECostsCapacityAndParityWrites(t *testing.T) {
	with, err := controller.Preset("atlas-240")
	require.NoError(t, err)
	require.Greater(t, with.Firmware.RaiseStripe, 1)
	without := with
	without.Firmware.RaiseStripe, without.OPPercent = 0, 0 // the line states the spare its flash leaves beside parity
	for _, c := range []controller.Config{with, without} {
		d, err := controller.New(c)
		require.NoError(t, err)
		// The spare area is what the flash leaves beside the user capacity
		// and, with RAISE, beside the parity share.
		data := float64(c.NAND.Geometry.Bytes())
		if s := c.Firmware.RaiseStripe; s > 0 {
			data *= float64(s-1) / float64(s)
		}
		r, err := c.Resolve()
		require.NoError(t, err)
		t.Logf("atlas-240 spare area with raise_stripe %d: %.1f %%", c.Firmware.RaiseStripe, r.SparePercent)
		require.InDelta(t, 100*(data/float64(c.Capacity)-1), r.SparePercent, 0.001)
		j := workload.NewJob("w")
		for _, kv := range [][2]string{{"rw", "write"}, {"bs", "128k"}, {"size", "4g"}} {
			require.NoError(t, j.Set(kv[0], kv[1]))
		}
		_, err = sim.New(d).RunJob(j, sim.Hooks{})
		require.NoError(t, err)
		k := d.Counters()
		if s := c.Firmware.RaiseStripe; s > 0 {
			require.InEpsilon(t, float64(k.Flash[ftl.CauseHost].ProgramPages)/float64(s-1), float64(k.Flash[ftl.CauseParity].ProgramPages), 0.01)
		} else {
			require.Zero(t, k.Flash[ftl.CauseParity].ProgramPages)
		}
	}
}

// TestCompressionEngineOutputRate: the SF-2281's compression engine takes
// host data in at datapath_write_mbps while it emits what compression
// leaves at compress_out_mbps. Incompressible data leaves all of it, so
// its sequential writes run at no more than the output rate, and the
// engine is what holds them there; compressible data leaves little, and
// loses little speed to the output rate.
func TestCompressionEngineOutputRate(t *testing.T) {
	cfg, _ := tierPreset(t, "atlas-240")
	fw := cfg.Firmware
	require.Positive(t, fw.CompressOutMBps)
	bound := float64(min(fw.DatapathWriteMBps, fw.CompressOutMBps))
	inc, _ := seqWriteMBps(t, cfg, "full-random")
	comp, _ := seqWriteMBps(t, cfg, "pseudo-random")
	cfg.Firmware.CompressOutMBps = 0
	incFree, _ := seqWriteMBps(t, cfg, "full-random")
	compFree, _ := seqWriteMBps(t, cfg, "pseudo-random")
	t.Logf("full-random %.0f MB/s (engine bound %.0f; %.0f without the output rate), pseudo-random %.0f (%.0f without)", inc, bound, incFree, comp, compFree)
	require.LessOrEqual(t, inc, 1.001*bound)
	require.Greater(t, inc, 0.9*bound, "the engine holds incompressible writes")
	require.Less(t, inc, 0.8*incFree)
	require.Greater(t, comp, 0.9*compFree, "compressible data barely notices")
}
