package controller_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/controller"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/sim"
	"github.com/ftlsim/ftlsim/workload"
)

func TestPresetsRoundTrip(t *testing.T) {
	// Every capacity point of every product line is a preset, beside the
	// generic drives.
	want := []string{"generic-mlc", "generic-mlc-small", "generic-nvme", "generic-nvme-fdp", "generic-nvme-hmb", "generic-nvme-zns"}
	for _, ln := range controller.Lines() {
		l, err := controller.LoadLine(ln)
		require.NoError(t, err)
		require.NotEmpty(t, l.Variants, ln)
		for _, v := range l.Variants {
			want = append(want, v.Name)
		}
	}
	require.ElementsMatch(t, want, controller.Presets())
	for _, name := range controller.Presets() {
		c, err := controller.Preset(name)
		require.NoError(t, err, name)
		b, err := c.Marshal()
		require.NoError(t, err)
		back, err := controller.ParseConfig(name, b)
		require.NoError(t, err)
		requireSameDescription(t, c, back, name+" does not round-trip:\n"+string(b))
		// The drive as built is a description too, and resolves to itself.
		r, err := c.Resolve()
		require.NoError(t, err, name)
		b, err = r.Config.Marshal()
		require.NoError(t, err)
		back, err = controller.ParseConfig(name, b)
		require.NoError(t, err)
		rb, err := back.Resolve()
		require.NoError(t, err, "%s:\n%s", name, b)
		require.Equal(t, r, rb, name)
	}
}

func TestResolveRoundsToWholeBlocks(t *testing.T) {
	for _, op := range []float64{0, 7, 12, 25, 28} {
		c, err := controller.Preset("generic-mlc")
		require.NoError(t, err)
		c.OPPercent = op
		c.Capacity = 240e9 / 4096 * 4096
		r, err := c.Resolve()
		require.NoError(t, err)
		g := r.Config.NAND.Geometry
		want := float64(c.Capacity) * (1 + op/100)
		row := float64(g.Dies()*g.PlanesPerDie) * float64(g.BlockBytes())
		require.GreaterOrEqual(t, float64(g.Bytes()), want)
		require.Less(t, float64(g.Bytes()), want+row)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		edit  func(*controller.Config)
		field string
	}{
		{func(c *controller.Config) { c.OPPercent = -1 }, "op_percent"},
		{func(c *controller.Config) { c.Capacity = 1000 }, "capacity"},
		{func(c *controller.Config) { c.Capacity = 64 << 40 }, "blocks per plane"}, // no memory bound of its own: the geometry's
		{func(c *controller.Config) { c.NAND.Geometry.Channels = 0 }, "geometry.channels"},
		{func(c *controller.Config) { c.NAND.Geometry.PagesPerBlock = -4 }, "geometry.pages_per_block"},
		{func(c *controller.Config) { c.NAND.Timing.ReadNs = -1 }, "timing.read_ns"},
		{func(c *controller.Config) { c.NAND.Timing.ProgMSBNs = 0 }, "timing.prog_msb_ns"},
		{func(c *controller.Config) { c.Host.LinkMBps = 0 }, "host.link_mbps"},
		{func(c *controller.Config) { c.Host.QueueDepth = 0 }, "host.queue_depth"},
		{func(c *controller.Config) { c.Firmware.WriteBuffer = 4096 }, "firmware.write_buffer"},
		{func(c *controller.Config) { c.Firmware.GCPolicy = "lru" }, "gc_policy"},
		{func(c *controller.Config) { c.Firmware.CommandNs = -1 }, "firmware.command_ns"},
		{func(c *controller.Config) { c.OPPercent = 0.5 }, "op_percent"}, // no spare group per die
	}
	for _, tc := range cases {
		c, err := controller.Preset("generic-mlc-small")
		require.NoError(t, err)
		tc.edit(&c)
		_, err = controller.New(c)
		require.ErrorIs(t, err, controller.ErrConfig, tc.field)
		require.Contains(t, err.Error(), tc.field)
	}
	_, err := controller.ParseConfig("x.yaml", []byte("name: x\nnand:\n  geometry:\n    chanels: 8\n"))
	require.ErrorContains(t, err, "x.yaml:4: ")
	require.ErrorContains(t, err, "chanels")
	_, err = controller.ParseConfig("x.yaml", []byte("capacity: lots\n"))
	require.ErrorContains(t, err, "x.yaml")
	_, err = controller.ParseConfig("x.yaml", []byte("nand:\n  timing:\n    cell: plc\n"))
	require.ErrorContains(t, err, "plc")
}

// drive builds a small drive for behaviour tests.
func drive(t testing.TB, edit func(*controller.Config)) *controller.Controller {
	t.Helper()
	c, err := controller.Preset("generic-mlc")
	require.NoError(t, err)
	c.Capacity = 32 << 30
	if edit != nil {
		edit(&c)
	}
	d, err := controller.New(c)
	require.NoError(t, err)
	return d
}

func runJob(t testing.TB, e *sim.Engine, opts map[string]string) *sim.Result {
	t.Helper()
	j := workload.NewJob("t")
	for k, v := range opts {
		require.NoError(t, j.Set(k, v))
	}
	r, err := e.RunJob(j, sim.Hooks{})
	require.NoError(t, err)
	return r
}

func TestHostLinkLimitsSequential(t *testing.T) {
	d := drive(t, nil)
	e := sim.New(d)
	e.SecureErase()
	runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "2g"})
	r := runJob(t, e, map[string]string{"rw": "read", "bs": "128k", "size": "2g", "iodepth": "32"})
	link := float64(d.Config().Host.LinkMBps) * 1e6
	t.Logf("128 KiB sequential read QD32: %.0f MB/s (link payload %.0f MB/s)", r.Read.BWBytes/1e6, link/1e6)
	require.LessOrEqual(t, r.Read.BWBytes, link)
	require.Greater(t, r.Read.BWBytes, 0.9*link, "32 dies can saturate the link")
}

func TestRandomReadScalesWithQueueDepth(t *testing.T) {
	d := drive(t, nil)
	e := sim.New(d)
	e.SecureErase()
	runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "4g"})
	qd1 := runJob(t, e, map[string]string{"rw": "randread", "size": "4g", "runtime": "1", "time_based": "1"})
	qd32 := runJob(t, e, map[string]string{"rw": "randread", "size": "4g", "runtime": "1", "time_based": "1", "iodepth": "32"})
	t.Logf("4 KiB random read: QD1 %.0f IOPS (mean %.1f us), QD32 %.0f IOPS", qd1.Read.IOPS, qd1.Read.Latency.Mean/1e3, qd32.Read.IOPS)
	cfg := d.Config()
	// QD1 latency is at least firmware + tR + transfers.
	floor := float64(cfg.Firmware.CommandNs + cfg.NAND.Timing.ReadNs + cfg.Host.CommandNs)
	require.Greater(t, qd1.Read.Latency.Mean, floor)
	require.Less(t, qd1.Read.Latency.Mean, 2*floor)
	require.Greater(t, qd32.Read.IOPS, 5*qd1.Read.IOPS)
	// The firmware handles one command at a time.
	require.LessOrEqual(t, qd32.Read.IOPS, 1e9/float64(cfg.Firmware.CommandNs)*1.001)
}

func TestWriteBufferAcknowledgesThenPushesBack(t *testing.T) {
	d := drive(t, nil)
	e := sim.New(d)
	e.SecureErase()
	// A short burst fits in the buffer: QD1 4 KiB writes complete in
	// firmware + link time, far below tPROG.
	r := runJob(t, e, map[string]string{"rw": "randwrite", "number_ios": "200"})
	prog := float64(d.Config().NAND.Timing.ProgLSBNs)
	require.Less(t, r.Write.Latency.Mean, prog/10)
	// On a drive with few dies a long sequential write runs at the flash's
	// program rate, below the link's, because the buffer fills and pushes
	// back.
	c8, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	d, err = controller.New(c8)
	require.NoError(t, err)
	e = sim.New(d)
	e.SecureErase()
	r = runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "4g", "iodepth": "4"})
	c := d.Config()
	g := c.NAND.Geometry
	tm := c.NAND.Timing
	perDie := float64(g.PlanesPerDie*g.PageBytes) / (float64(tm.ProgLSBNs+tm.ProgMSBNs)/2 + float64(tm.TransferNs(g.PlanesPerDie*(g.PageBytes+g.SpareBytes)))) * 1e9
	flash := perDie * float64(g.Dies())
	link := float64(c.Host.LinkMBps) * 1e6
	t.Logf("sequential write: %.0f MB/s; flash program rate %.0f MB/s; link %.0f MB/s", r.Write.BWBytes/1e6, flash/1e6, link/1e6)
	require.LessOrEqual(t, r.Write.BWBytes, min(flash, link)*1.01)
	require.Greater(t, r.Write.BWBytes, min(flash, link)*0.85)
	// Writes wait for buffer space for at least the time the flash takes
	// beyond what the link would, and the firmware takes them one at a
	// time, so the waits do not overlap.
	linkNs := float64(r.Write.Bytes) / link * 1e9
	t.Logf("%.1f s at the link's rate, %.1f s run, %.1f s waiting for the buffer", linkNs/1e9, float64(r.RuntimeNs)/1e9, float64(r.Device.BufferStallNs)/1e9)
	require.GreaterOrEqual(t, float64(r.Device.BufferStallNs), float64(r.RuntimeNs)-linkNs)
	require.LessOrEqual(t, r.Device.BufferStallNs, r.RuntimeNs)
}

func TestPartialWritesReadModifyWrite(t *testing.T) {
	d := drive(t, nil)
	e := sim.New(d)
	e.SecureErase()
	runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "64m"})
	// Flush so the data is on flash, then write 512-byte pieces into it.
	_, err := d.Submit(e.Now(), blockio.Request{Op: blockio.Flush})
	require.NoError(t, err)
	pieces := map[string]string{"rw": "randwrite", "bs": "512", "size": "64m", "number_ios": "1000"}
	// The job's offsets, drawn again from its seed: the units it touches
	// once or more, and the writes that land on a unit touched before.
	j := workload.NewJob("t")
	for k, v := range pieces {
		require.NoError(t, j.Set(k, v))
	}
	require.NoError(t, j.Resolve(d.CapacityBytes()))
	g := workload.NewGenerator(j)
	seen := map[int64]bool{}
	var it workload.Item
	repeats := int64(0)
	for g.Next(&it) {
		u := it.Offset / 4096
		if seen[u] {
			repeats++
		}
		seen[u] = true
	}
	r := runJob(t, e, pieces)
	// Every unit is on flash when first touched, so it is read once; a
	// later write to it reads it again unless it is still in the buffer.
	require.Equal(t, int64(1000), r.Write.IOs)
	require.GreaterOrEqual(t, r.Device.RMWReads, int64(len(seen)))
	require.LessOrEqual(t, r.Device.RMWReads, r.Write.IOs)
	// Unmapped units need no read: after a secure erase only the writes
	// that land on a unit written earlier in the run (and already
	// programmed) read it.
	e.SecureErase()
	r = runJob(t, e, pieces)
	t.Logf("%d writes on %d units (%d repeats): %d RMW reads after a secure erase", r.Write.IOs, len(seen), repeats, r.Device.RMWReads)
	require.LessOrEqual(t, r.Device.RMWReads, repeats)
}

func TestTrimUnmaps(t *testing.T) {
	d := drive(t, nil)
	e := sim.New(d)
	e.SecureErase()
	runJob(t, e, map[string]string{"rw": "write", "bs": "128k", "size": "256m"})
	_, err := d.Submit(e.Now(), blockio.Request{Op: blockio.Trim, Offset: 4096 + 512, Length: 3 * 4096})
	require.NoError(t, err)
	// Only whole units inside the range are unmapped.
	require.True(t, d.FTL().Mapped(1))
	require.False(t, d.FTL().Mapped(2))
	require.False(t, d.FTL().Mapped(3))
	require.True(t, d.FTL().Mapped(4))
	r := runJob(t, e, map[string]string{"rw": "trim", "bs": "1m", "size": "128m"})
	require.Equal(t, int64(128<<20), r.Device.HostTrimBytes)
	require.Equal(t, int64(128), r.Trim.IOs)
	for lba := int64(0); lba < 128<<20/4096; lba += 97 {
		require.False(t, d.FTL().Mapped(lba))
	}
	require.True(t, d.FTL().Mapped(128<<20/4096))
	require.NoError(t, d.FTL().CheckInvariants())
}

func TestRequestValidation(t *testing.T) {
	d := drive(t, nil)
	for _, r := range []blockio.Request{
		{Op: blockio.Read, Offset: -512, Length: 512},
		{Op: blockio.Read, Offset: 100, Length: 512},
		{Op: blockio.Write, Offset: 0, Length: 0},
		{Op: blockio.Write, Offset: 0, Length: 1000},
		{Op: blockio.Write, Offset: d.CapacityBytes(), Length: 512},
		{Op: blockio.Trim, Offset: d.CapacityBytes() - 512, Length: 1024},
		{Op: 9, Offset: 0, Length: 512},
	} {
		_, err := d.Submit(0, r)
		require.ErrorIs(t, err, controller.ErrRequest, "%+v", r)
	}
}

func TestBackgroundGCWhileIdle(t *testing.T) {
	var target int // every die back to gc_high_water
	run := func(bg bool) (before, after int) {
		d := drive(t, func(c *controller.Config) { c.Firmware.BackgroundGC = bg })
		target = d.Config().NAND.Geometry.Dies() * d.Config().Firmware.GCHighWater
		e := sim.New(d)
		e.SecureErase()
		runJob(t, e, map[string]string{"rw": "write", "bs": "128k"})
		runJob(t, e, map[string]string{"rw": "randwrite", "runtime": "20", "time_based": "1", "iodepth": "32", "norandommap": "1"})
		before = d.FTL().FreeGroups()
		require.NoError(t, e.Idle(60*sim.Second))
		// A command after the idle period lets the drive account for it.
		runJob(t, e, map[string]string{"rw": "read", "number_ios": "1"})
		return before, d.FTL().FreeGroups()
	}
	b, a := run(true)
	t.Logf("free groups before idle %d, after %d", b, a)
	require.Greater(t, a, b)
	require.GreaterOrEqual(t, a, target)
	b, a = run(false)
	require.Equal(t, b, a)
}

func TestDescriptionRejectsBadYAMLTypes(t *testing.T) {
	_, err := controller.ParseConfig("d.yaml", []byte("capacity: 16GiB\nop_percent: lots\n"))
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "d.yaml:2: "), err.Error())
}

func FuzzParseConfig(f *testing.F) {
	for _, name := range controller.Presets() {
		c, _ := controller.Preset(name)
		b, _ := c.Marshal()
		f.Add(b)
	}
	f.Add([]byte("capacity: 1GiB\nop_percent: 25\n"))
	f.Add([]byte("base: generic-mlc-small\nname: x\nfirmware: {gc_policy: fifo, read_suspend: ~}\n"))
	f.Add([]byte("a: &a {b: 1}\nnand:\n  <<: *a\n---\nname: y\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := controller.ParseConfig("fuzz", b)
		if err != nil {
			return
		}
		r, err := c.Resolve()
		if err != nil {
			return
		}
		if controller.MemoryEstimate(r.Config.NAND.Geometry) > 4<<20 {
			return // valid, but too large to build in a fuzz loop
		}
		d, err := controller.New(c)
		if err != nil {
			return
		}
		_, _ = d.Submit(0, blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096})
	})
}

// TestForceUnitAccess: a write with FUA completes only once its data is
// programmed (at least a lower-page program after a buffered write's
// completion), a FUA read of data still in the buffer waits for it to be
// programmed, and a FUA read of data on flash costs what a plain read
// does. Each FUA command is counted.
func TestForceUnitAccess(t *testing.T) {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	tProg := cfg.NAND.Timing.ProgLSBNs
	at := int64(0)
	d, err := controller.New(cfg)
	require.NoError(t, err)
	lat := func(r blockio.Request) int64 {
		t.Helper()
		start := at
		done, err := d.Submit(start, r)
		require.NoError(t, err)
		at = done + 1e7 // the next request finds the drive idle
		return done - start
	}
	plain := lat(blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096})
	fua := lat(blockio.Request{Op: blockio.Write, Offset: 1 << 20, Length: 4096, FUA: true})
	require.GreaterOrEqual(t, fua, plain+tProg, "a FUA write waits for its program")

	lat(blockio.Request{Op: blockio.Write, Offset: 2 << 20, Length: 4096})
	fuaBuffered := lat(blockio.Request{Op: blockio.Read, Offset: 2 << 20, Length: 4096, FUA: true})
	require.GreaterOrEqual(t, fuaBuffered, tProg, "the buffered data is committed before the read")
	readPlain := lat(blockio.Request{Op: blockio.Read, Offset: 2 << 20, Length: 4096})
	readFUA := lat(blockio.Request{Op: blockio.Read, Offset: 2 << 20, Length: 4096, FUA: true})
	require.Equal(t, readPlain, readFUA, "data on flash: FUA changes nothing")
	require.Equal(t, int64(3), d.Counters().FUACommands)
}

// TestMultiRangeTrim: one TRIM command of several ranges unmaps each
// range's whole units, and a command whose length is not the ranges'
// total, or that lists a range past the drive, is refused.
func TestMultiRangeTrim(t *testing.T) {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	d, err := controller.New(cfg)
	require.NoError(t, err)
	at := int64(0)
	for i := int64(0); i < 16; i++ {
		at, err = d.Submit(at, blockio.Request{Op: blockio.Write, Offset: i * 4096, Length: 4096})
		require.NoError(t, err)
	}
	rs := []blockio.Range{{Offset: 0, Length: 4096}, {Offset: 8 * 4096, Length: 8192}, {Offset: 15 * 4096, Length: 4096}}
	_, err = d.Submit(at, blockio.Request{Op: blockio.Trim, Offset: 0, Length: 4 * 4096, Ranges: rs})
	require.NoError(t, err)
	require.Equal(t, 4*4096/(d.CapacityBytes()/d.FTL().UserUnits()), d.Counters().TrimUnits)
	require.Error(t, d.Validate(blockio.Request{Op: blockio.Trim, Offset: 0, Length: 4096, Ranges: rs}))
	require.Error(t, d.Validate(blockio.Request{Op: blockio.Trim, Offset: 0, Length: 4096, Ranges: []blockio.Range{{Offset: d.CapacityBytes(), Length: 4096}}}))
	require.Error(t, d.Validate(blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096, Ranges: rs[:1]}))
}

// powerCutDrive is generic-mlc-small at 2 GiB, tracking data, with safe
// erase, as edit changes it.
func powerCutDrive(t *testing.T, edit func(*controller.Config)) controller.Config {
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	cfg = cfg.Resized(2<<30, 25)
	cfg.NAND.TrackData = true
	cfg.Firmware.GCSafeErase = true
	edit(&cfg)
	return cfg
}

// fillThenRandomWrites fills drive d in 128 KiB writes (token 1), flushes
// if asked, then writes n 4 KiB units spread over it (tokens 2…), at
// queue depth one from time 0; it returns when the last completes.
func fillThenRandomWrites(t *testing.T, d *controller.Controller, flush bool, n int) int64 {
	at := int64(0)
	var err error
	for off := int64(0); off < d.CapacityBytes(); off += 1 << 17 {
		at, err = d.Submit(at, blockio.Request{Op: blockio.Write, Offset: off, Length: 1 << 17, Token: 1})
		require.NoError(t, err)
	}
	if flush {
		at, err = d.Submit(at, blockio.Request{Op: blockio.Flush})
		require.NoError(t, err)
	}
	for i := range n {
		off := int64(i*7919) % (d.CapacityBytes() / 4096) * 4096
		at, err = d.Submit(at, blockio.Request{Op: blockio.Write, Offset: off, Length: 4096, Token: uint32(i + 2)})
		require.NoError(t, err)
	}
	return at
}

// TestPowerLoss: without protection, a power cut loses what was
// acknowledged but not yet on flash and, of what was, only the lower pages
// an interrupted upper-page program destroyed (the drive erases a victim
// only once its data is programmed); mounting scans the flash. With
// protection nothing is lost and mounting reads the saved mapping. The
// drive works again after mounting.
func TestPowerLoss(t *testing.T) {
	for _, plp := range []bool{false, true} {
		cfg := powerCutDrive(t, func(c *controller.Config) { c.Firmware.PowerLossProtection = plp })
		d, err := controller.New(cfg)
		require.NoError(t, err)
		// Fill, flush (all durable), then random writes at queue depth
		// one, cut mid-stream.
		at := fillThenRandomWrites(t, d, true, 20000)
		rep, err := d.PowerLoss(at)
		require.NoError(t, err)
		t.Logf("protection %v: %+v", plp, rep)
		pageBytes := int64(cfg.NAND.Geometry.PageBytes * cfg.NAND.Geometry.PlanesPerDie)
		require.LessOrEqual(t, rep.LostProgrammedBytes, int64(rep.CorruptedPages)*pageBytes, "data on flash is lost only with the pages destroyed")
		require.Zero(t, rep.LostFlushedBytes, "the fill was flushed: none of it is lost")
		require.Positive(t, rep.MountNs)
		if plp {
			require.Zero(t, rep.LostVolatileBytes)
		} else {
			require.Positive(t, rep.LostVolatileBytes, "the write buffer's data is gone")
			require.Positive(t, rep.UnfinishedPages)
			require.Greater(t, rep.ScannedPages, int64(0))
		}
		cnt := d.Counters()
		require.Equal(t, int64(1), cnt.PowerLosses)
		require.Equal(t, rep.MountNs, cnt.MountNs)
		require.Equal(t, rep.LostVolatileBytes+rep.LostProgrammedBytes+rep.LostFlushedBytes, cnt.LostUnits*d.UnitBytes())
		// The drive works again after mounting.
		_, err = d.Submit(at+rep.MountNs, blockio.Request{Op: blockio.Write, Offset: 0, Length: 4096, Token: 99})
		require.NoError(t, err)
		tok, ok, err := d.DataToken(0)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, uint32(99), tok)
		require.NoError(t, d.FTL().CheckInvariants())
	}
	plain, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	d, err := controller.New(plain)
	require.NoError(t, err)
	_, err = d.PowerLoss(0)
	require.ErrorIs(t, err, controller.ErrConfig)
}

// TestMapCheckpointsShortenMount: with mapping checkpoints a drive mounts
// by reading the saved mapping (one page per PageBytes/4 entries) and the
// pages programmed since the last checkpoint, not every page; the
// checkpoints cost mapping-page programs; what the rebuild finds is the
// same.
func TestMapCheckpointsShortenMount(t *testing.T) {
	run := func(interval controller.Size) (controller.PowerLossReport, ftl.Counters, []uint32) {
		d, err := controller.New(powerCutDrive(t, func(c *controller.Config) { c.Firmware.MapCheckpoint = interval }))
		require.NoError(t, err)
		at := fillThenRandomWrites(t, d, false, 30000)
		rep, err := d.PowerLoss(at)
		require.NoError(t, err)
		toks := make([]uint32, d.CapacityBytes()/d.UnitBytes())
		for u := range toks {
			toks[u], _, err = d.DataToken(int64(u) * d.UnitBytes())
			require.NoError(t, err)
		}
		return rep, d.Counters(), toks
	}
	full, fullCnt, fullToks := run(0)
	ck, ckCnt, ckToks := run(64 << 20)
	t.Logf("no checkpoint: %d pages scanned, mount %.1f ms; checkpoints every 64 MiB: %d taken (%d mapping pages), mount reads %d mapping pages + %d pages, %.1f ms",
		full.ScannedPages, float64(full.MountNs)/1e6, ckCnt.MapCheckpoints, ckCnt.CheckpointPages, ck.CheckpointPages, ck.ScannedPages, float64(ck.MountNs)/1e6)
	require.Zero(t, fullCnt.MapCheckpoints)
	require.Zero(t, full.CheckpointPages)
	hostBytes := ckCnt.HostWriteBytes
	require.Equal(t, hostBytes/(64<<20), ckCnt.MapCheckpoints, "one checkpoint every 64 MiB written")
	require.Positive(t, ckCnt.Flash[ftl.CauseMap].ProgramPages, "checkpoints program mapping pages")
	cfg, err := controller.Preset("generic-mlc-small")
	require.NoError(t, err)
	g := cfg.Resized(2<<30, 25).NAND.Geometry
	require.Equal(t, (int64(len(fullToks))+int64(g.PageBytes/4)-1)/int64(g.PageBytes/4), ck.CheckpointPages, "the whole saved mapping is read")
	require.Less(t, ck.ScannedPages, full.ScannedPages/4, "only the pages programmed since the checkpoint are scanned")
	require.Less(t, ck.MountNs, full.MountNs/2)
	require.Equal(t, fullToks, ckToks, "the same data reads back either way")
}
