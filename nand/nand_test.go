package nand

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func testConfig() Config {
	return Config{
		Geometry: Geometry{Channels: 2, TargetsPerChannel: 1, DiesPerTarget: 2, PlanesPerDie: 2,
			BlocksPerPlane: 4, PagesPerBlock: 8, PageBytes: 16384, SpareBytes: 1664, UnitBytes: 4096},
		Timing: Timing{Cell: MLC, ReadNs: 50_000, ProgLSBNs: 500_000, ProgMSBNs: 2_000_000,
			EraseNs: 3_000_000, BusMBps: 200, CommandNs: 200, RatedCycles: 3000},
		TrackData: true,
	}
}

func tags(v ...uint32) []uint32 { return v }

func TestGeometryDerived(t *testing.T) {
	g := testConfig().Geometry
	require.Equal(t, 4, g.Dies())
	require.Equal(t, 16, g.Groups())
	require.Equal(t, 32, g.Blocks())
	require.Equal(t, 4, g.UnitsPerPage())
	require.Equal(t, 64, g.UnitsPerGroup())
	require.Equal(t, int64(1024), g.Units())
	require.Equal(t, int64(4<<20), g.Bytes())
}

// TestLargeUnitGeometry: a mapping unit larger than a page spans planes
// of one multi-plane page; the device stores it as page-sized units.
func TestLargeUnitGeometry(t *testing.T) {
	g := testConfig().Geometry // 2 planes of 16 KiB pages
	g.UnitBytes = 32 << 10
	require.NoError(t, g.Validate())
	require.Equal(t, 16<<10, g.DeviceUnitBytes())
	require.Equal(t, 2, g.UnitSpan())
	require.Equal(t, 1, g.UnitsPerPage())
	base := testConfig().Geometry
	require.Equal(t, base.Bytes(), g.Bytes(), "the flash is the same")
	require.Equal(t, 1, base.UnitSpan())
	require.Equal(t, 4096, base.DeviceUnitBytes())
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"zero channels", func(c *Config) { c.Geometry.Channels = 0 }, "geometry.channels"},
		{"negative planes", func(c *Config) { c.Geometry.PlanesPerDie = -1 }, "geometry.planes_per_die"},
		{"unit not sector multiple", func(c *Config) { c.Geometry.UnitBytes = 1000 }, "geometry.unit_bytes"},
		{"page not unit multiple", func(c *Config) { c.Geometry.PageBytes = 6144 }, "geometry.page_bytes"},
		{"unit spans a partial page", func(c *Config) { c.Geometry.UnitBytes = 24 << 10 }, "geometry.unit_bytes"},
		{"unit beyond the multi-plane page", func(c *Config) { c.Geometry.UnitBytes = 64 << 10 }, "geometry.unit_bytes"},
		{"spare too big", func(c *Config) { c.Geometry.SpareBytes = 1 << 20 }, "geometry.spare_bytes"},
		{"too many units", func(c *Config) {
			c.Geometry.Channels, c.Geometry.TargetsPerChannel, c.Geometry.BlocksPerPlane = 64, 16, 1<<20
		}, "mapping units"},
		{"negative read", func(c *Config) { c.Timing.ReadNs = -5 }, "timing.read_ns"},
		{"zero bus", func(c *Config) { c.Timing.BusMBps = 0 }, "timing.bus_mbps"},
		{"bad cell", func(c *Config) { c.Timing.Cell = 7 }, "timing.cell"},
		{"no endurance", func(c *Config) { c.Timing.RatedCycles = 0 }, "timing.rated_cycles"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig()
			tc.edit(&c)
			err := c.Validate()
			require.ErrorIs(t, err, ErrConfig)
			require.Contains(t, err.Error(), tc.field)
		})
	}
	require.NoError(t, testConfig().Validate())
}

func TestProgramRules(t *testing.T) {
	d, err := New(testConfig())
	require.NoError(t, err)
	require.Equal(t, Free, d.State(3))
	require.ErrorIs(t, d.Program(3, 1, tags(1, 2, 3, 4), nil), ErrOutOfOrder)
	require.NoError(t, d.Program(3, 0, tags(1, 2, NoTag, 4), tags(10, 20, 30, 40)))
	require.Equal(t, Open, d.State(3))
	require.Equal(t, 3, d.ValidUnits(3))
	require.ErrorIs(t, d.Program(3, 0, tags(1, 2, 3, 4), nil), ErrNotErased)
	require.ErrorIs(t, d.Program(3, 0, tags(1), nil), ErrRange)
	u := d.Unit(3, 0, 1)
	tag, data, err := d.Read(u)
	require.NoError(t, err)
	require.Equal(t, uint32(2), tag)
	require.Equal(t, uint32(20), data)
	_, _, err = d.Read(d.Unit(3, 0, 2))
	require.ErrorIs(t, err, ErrNotValid)
	_, _, err = d.Read(d.Unit(3, 1, 0))
	require.ErrorIs(t, err, ErrNotProgrammed)
	require.ErrorIs(t, d.Erase(3), ErrEraseValid)
	for s := 0; s < 4; s++ {
		if s != 2 {
			require.NoError(t, d.Invalidate(d.Unit(3, 0, s)))
		}
	}
	require.ErrorIs(t, d.Invalidate(u), ErrNotValid)
	require.Equal(t, Invalid, d.PageState(3, 0))
	require.Equal(t, Erased, d.PageState(3, 1))
	for p := 1; p < 8; p++ {
		require.NoError(t, d.Program(3, p, tags(NoTag, NoTag, NoTag, NoTag), nil))
	}
	require.Equal(t, Full, d.State(3))
	require.ErrorIs(t, d.Program(3, 7, tags(1, 2, 3, 4), nil), ErrBlockFull)
	require.NoError(t, d.Erase(3))
	require.Equal(t, Free, d.State(3))
	require.Equal(t, 1, d.EraseCount(3))
	require.Equal(t, NoTag, d.Tag(u))
}

func TestAddressing(t *testing.T) {
	d, err := New(testConfig())
	require.NoError(t, err)
	g := d.Geometry()
	seen := make(map[int64]bool)
	for pb := 0; pb < g.Blocks(); pb++ {
		for p := 0; p < g.PagesPerBlock; p++ {
			for s := 0; s < g.UnitsPerPage(); s++ {
				u := d.Unit(pb, p, s)
				require.False(t, seen[u])
				seen[u] = true
				b, pg := d.Locate(u)
				require.Equal(t, pb, b)
				require.Equal(t, p, pg)
			}
		}
	}
	require.Len(t, seen, int(g.Units()))
	// Plane group 5 covers blocks 10 and 11, on die 5/BlocksPerPlane = 1.
	require.Equal(t, 1, d.DieOfBlock(10))
	require.Equal(t, 1, d.DieOfBlock(11))
	require.Equal(t, int64(5*64), d.Unit(10, 0, 0))
	require.Equal(t, int64(5*64+4), d.Unit(11, 0, 0))
	require.Equal(t, int64(5*64+8), d.Unit(10, 1, 0))
}

func TestAddressingNotPowerOfTwo(t *testing.T) {
	cfg := testConfig()
	cfg.Geometry.PlanesPerDie, cfg.Geometry.PageBytes, cfg.Geometry.PagesPerBlock = 3, 12288, 5
	d, err := New(cfg)
	require.NoError(t, err)
	require.False(t, d.pow2)
	g := d.Geometry()
	next := int64(0)
	for grp := 0; grp < g.Groups(); grp++ {
		for p := 0; p < g.PagesPerBlock; p++ {
			for pl := 0; pl < 3; pl++ {
				for s := 0; s < 3; s++ {
					pb := d.Block(grp, pl)
					require.Equal(t, next, d.Unit(pb, p, s))
					b, pg := d.Locate(next)
					require.Equal(t, pb, b)
					require.Equal(t, p, pg)
					next++
				}
			}
		}
	}
}

func TestValidMask(t *testing.T) {
	d, err := New(testConfig())
	require.NoError(t, err)
	// Groups 0 and 1 (blocks 0-3) hold units 0..127; every plane-0 page
	// has valid slots 0, 2, 3 and every plane-1 page slots 1, 3.
	for pb := 0; pb < 4; pb += 2 {
		for p := 0; p < 8; p++ {
			require.NoError(t, d.Program(pb, p, tags(1, NoTag, 3, 4), nil))
			require.NoError(t, d.Program(pb+1, p, tags(NoTag, 6, NoTag, 8), nil))
		}
	}
	require.Equal(t, uint64(0b1010_1101), d.ValidMask(0, 8))
	require.Equal(t, uint64(0b1101), d.ValidMask(8, 4))
	// 8 units starting at 60 cross into the next word.
	require.Equal(t, uint64(0b1010_1101), d.ValidMask(56, 8))
	require.Equal(t, uint64(0b1101_1010), d.ValidMask(60, 8))
	require.Equal(t, ^uint64(0)&0xad, d.ValidMask(0, 64)&0xff)
}

func TestInvalidateMask(t *testing.T) {
	d, err := New(testConfig())
	require.NoError(t, err)
	// Group 0: blocks 0 and 1; page 0 holds units 0-3 (block 0), 4-7 (block 1).
	require.NoError(t, d.Program(0, 0, tags(1, 2, 3, 4), nil))
	require.NoError(t, d.Program(1, 0, tags(5, NoTag, 7, 8), nil))
	require.ErrorIs(t, d.InvalidateMask(0, 0b0010_0000), ErrNotValid) // unit 5 was never valid
	require.NoError(t, d.InvalidateMask(0, 0b1001_0110))
	require.Equal(t, 2, d.ValidUnits(0))
	require.Equal(t, 1, d.ValidUnits(1))
	require.Equal(t, uint64(0b0100_1001), d.ValidMask(0, 8))
	require.NoError(t, d.InvalidateMask(0, 0b0100_1001))
	require.Zero(t, d.ValidUnits(0)+d.ValidUnits(1))
	require.NoError(t, d.InvalidateMask(0, 0))
	require.ErrorIs(t, d.InvalidateMask(int64(d.Geometry().Units())-2, 0b111), ErrRange)
}

func TestSecureEraseAndWear(t *testing.T) {
	d, err := New(testConfig())
	require.NoError(t, err)
	require.NoError(t, d.Program(0, 0, tags(1, 2, 3, 4), nil))
	d.SecureErase()
	require.Equal(t, Free, d.State(0))
	require.Equal(t, 0, d.ValidUnits(0))
	w := d.Wear()
	require.Equal(t, 1, w.Min)
	require.Equal(t, 1, w.Max)
	require.InDelta(t, 1.0/3000, w.Life, 1e-12)
}

func TestTimelineDieAndChannel(t *testing.T) {
	cfg := testConfig()
	tl := NewTimeline(cfg)
	tm := cfg.Timing
	x := tm.TransferNs(16384 + 1664)
	// Two dies on different channels program in parallel.
	d0 := tl.Program(0, 0, 1, 0)
	d1 := tl.Program(1, 0, 1, 0)
	require.Equal(t, tm.CommandNs+x+tm.ProgLSBNs, d0)
	require.Equal(t, d0, d1)
	// Dies 0 and 2 share channel 0: the second transfer waits for the bus,
	// but the two programs overlap in the arrays.
	d2 := tl.Program(2, 1, 1, 0)
	require.Equal(t, 2*(tm.CommandNs+x)+tm.ProgMSBNs, d2, "second die waits one transfer")
	// A die is serial: its next operation starts after the previous one.
	e0 := tl.Erase(0, 2, 0)
	require.Equal(t, d0+tm.CommandNs+tm.EraseNs+tm.PlaneNs*1, e0)
	// A read on die 2 waits for its program, then transfers.
	r := tl.Read(2, 1, 4096, 0)
	require.Equal(t, d2+tm.CommandNs+tm.ReadNs+tm.TransferNs(4096), r)
	// Channel 0 carried two programs' commands and data, the erase's
	// command, and the read's command and data; channel 1 one program.
	require.Equal(t, 2*(tm.CommandNs+x)+tm.CommandNs+tm.CommandNs+tm.TransferNs(4096), tl.ChannelBusy(0))
	require.Equal(t, tm.CommandNs+x, tl.ChannelBusy(1))
	require.Equal(t, d0-0+e0-d0, tl.DieBusy(0))
}

func TestTimelineBusInterleaves(t *testing.T) {
	// A die whose array is busy does not hold the bus: a transfer for an
	// idle die on the same channel goes first.
	cfg := testConfig()
	tl := NewTimeline(cfg)
	tm := cfg.Timing
	tl.Erase(0, 1, 0) // die 0 busy ~3 ms
	tl.Program(0, 0, 1, 0)
	d2 := tl.Program(2, 0, 1, 0)
	x := tm.TransferNs(16384 + 1664)
	require.Less(t, d2, int64(2*(tm.CommandNs+x)+tm.ProgLSBNs+slotNs))
}

func TestTimelineAdvance(t *testing.T) {
	tl := NewTimeline(testConfig())
	tl.Advance(10 * ringSize * slotNs)
	r := tl.Read(0, 1, 4096, 0) // an early request is clamped to the calendar start
	require.GreaterOrEqual(t, r, int64(0))
	tl.Advance(10*ringSize*slotNs + 5*slotNs)
	tl.Reset()
	require.Zero(t, tl.DieFree(0))
}

func TestKinds(t *testing.T) {
	tm := testConfig().Timing
	require.Equal(t, LSB, tm.Kind(0))
	require.Equal(t, MSB, tm.Kind(1))
	tm.Cell = TLC
	require.Equal(t, CSB, tm.Kind(4))
	require.Equal(t, (tm.ProgLSBNs+tm.ProgMSBNs)/2, tm.ProgNs(4))
	tm.Cell = SLC
	require.Equal(t, tm.ProgLSBNs, tm.ProgNs(1))
	c, err := ParseCellType("TLC")
	require.NoError(t, err)
	require.Equal(t, "tlc", c.String())
	_, err = ParseCellType("plc")
	require.Error(t, err)
}

func TestReadSuspending(t *testing.T) {
	cfg := testConfig()
	tm := cfg.Timing
	tl := NewTimeline(cfg)
	prog := tl.Program(0, 1, 1, 0) // an upper page: about 2 ms
	r := tl.ReadSuspending(0, 1, 4096, 100_000, 20_000)
	require.Less(t, r, prog, "the read does not wait for the program")
	require.Equal(t, int64(100_000+20_000)+tm.CommandNs+tm.ReadNs+tm.TransferNs(4096), r)
	require.Equal(t, prog+(r-100_000), tl.DieFree(0), "the program finishes later by the read's time")
	idle := tl.ReadSuspending(1, 1, 4096, 0, 20_000)
	require.Equal(t, tm.CommandNs+tm.ReadNs+tm.TransferNs(4096), idle, "an idle die reads without suspending")
	// A second read on die 0 follows the first; it does not suspend it.
	r2 := tl.ReadSuspending(0, 1, 4096, 100_000, 20_000)
	require.Equal(t, r+20_000+tm.CommandNs+tm.ReadNs+tm.TransferNs(4096), r2, "after the first read, still suspending the program")
	more := tl.OutputSuspending(0, 4096, 0)
	require.Equal(t, r2+tm.TransferNs(4096), more)
}

// TestCalendarQueuesBeyondLookAhead: an engine booked further ahead than
// its queueing calendar holds still serves one booking at a time: work
// queued there is not free (a bus calendar takes it as free).
func TestCalendarQueuesBeyondLookAhead(t *testing.T) {
	bus := NewCalendar()
	bus.Book(0, 10e9)
	require.Equal(t, int64(1e9+10e9), bus.Book(10e9, 1e9), "a bus is free beyond its look-ahead")
	c := NewQueueCalendar()
	const n = int64(1e9) // 1 s a booking, far beyond the look-ahead after a few
	var end int64
	for i := range int64(10) {
		end = c.Book(0, n)
		require.Equal(t, (i+1)*n, end, "booking %d", i)
	}
	require.Equal(t, 10*n, c.Busy())
}

// TestFactoryBadBlocks: about the data sheet's share of blocks is bad,
// the same ones for the same seed, and a bad block can be neither
// programmed nor erased.
func TestFactoryBadBlocks(t *testing.T) {
	g := Geometry{Channels: 2, TargetsPerChannel: 1, DiesPerTarget: 2, PlanesPerDie: 2, BlocksPerPlane: 1000, PagesPerBlock: 4, PageBytes: 4096, UnitBytes: 4096}
	tm := Timing{Cell: MLC, ReadNs: 1, ProgLSBNs: 1, ProgMSBNs: 1, EraseNs: 1, BusMBps: 1, RatedCycles: 3000, BadBlockPermille: 20}
	d, err := New(Config{Geometry: g, Timing: tm, Seed: 7})
	require.NoError(t, err)
	n := d.BadBlocks()
	want := float64(g.Blocks()) * 0.02
	require.InDelta(t, want, n, 4*math.Sqrt(want), "binomial spread")
	again, err := New(Config{Geometry: g, Timing: tm, Seed: 7})
	require.NoError(t, err)
	bad := -1
	for pb := range g.Blocks() {
		require.Equal(t, d.IsBad(pb), again.IsBad(pb))
		if d.IsBad(pb) && bad < 0 {
			bad = pb
		}
	}
	require.ErrorIs(t, d.Program(bad, 0, []uint32{1}, nil), ErrBadBlock)
	require.ErrorIs(t, d.Erase(bad), ErrBadBlock)
	tm.BadBlockPermille = 101
	_, err = New(Config{Geometry: g, Timing: tm})
	require.ErrorIs(t, err, ErrConfig)
}

// TestSuspendLimit: with a limit of two, two reads in a row suspend a
// die's program; the third waits for it to finish, and the count starts
// again after it.
func TestSuspendLimit(t *testing.T) {
	cfg := testConfig()
	tm := cfg.Timing
	read := tm.CommandNs + tm.ReadNs + tm.TransferNs(4096)
	tl := NewTimeline(cfg)
	tl.SetSuspendLimit(2)
	tl.Program(0, 1, 1, 0)
	r1 := tl.ReadSuspending(0, 1, 4096, 100_000, 20_000)
	r2 := tl.ReadSuspending(0, 1, 4096, 100_000, 20_000)
	require.Equal(t, r1+20_000+read, r2, "the second read still suspends")
	prog := tl.DieFree(0)
	require.Greater(t, prog, r2)
	r3 := tl.ReadSuspending(0, 1, 4096, 100_000, 20_000)
	require.Equal(t, prog+read, r3, "the third waits for the program")
	tl.Program(0, 3, 1, r3)
	r4 := tl.ReadSuspending(0, 1, 4096, r3, 20_000)
	require.Less(t, r4, tl.DieFree(0), "the count started again")
}

// TestRestoreUndoesAFailedErase: an erase a power cut stopped never ran,
// so it cannot have failed: restoring the block makes it good again, its
// data back and its erase not counted.
func TestRestoreUndoesAFailedErase(t *testing.T) {
	g := Geometry{Channels: 1, TargetsPerChannel: 1, DiesPerTarget: 1, PlanesPerDie: 1, BlocksPerPlane: 4, PagesPerBlock: 2, PageBytes: 4096, UnitBytes: 4096}
	tm := Timing{Cell: MLC, ReadNs: 1, ProgLSBNs: 1, ProgMSBNs: 1, EraseNs: 1, BusMBps: 1, RatedCycles: 3, GrownBadPermille: 999}
	d, err := New(Config{Geometry: g, Timing: tm, Seed: 3, TrackData: true})
	require.NoError(t, err)
	const pb = 1
	tags, seqs, data := make([]uint32, 2), make([]uint32, 2), make([]uint32, 2)
	for i := 1; ; i++ {
		require.Less(t, i, 1000, "the block never went bad")
		require.NoError(t, d.Program(pb, 0, []uint32{7}, []uint32{70}))
		for u := range tags {
			tags[u], seqs[u], data[u] = d.Tag(int64(u)+d.Unit(pb, 0, 0)), d.Seq(d.Unit(pb, 0, 0)+int64(u)), d.Data(d.Unit(pb, 0, 0)+int64(u))
		}
		require.NoError(t, d.SetValid(d.Unit(pb, 0, 0), false))
		wear := d.EraseCount(pb)
		err := d.Erase(pb)
		if err == nil {
			continue
		}
		require.ErrorIs(t, err, ErrEraseFailed)
		require.Equal(t, 1, d.GrownBadBlocks())
		require.NoError(t, d.Restore(pb, 1, false, tags, seqs, data))
		require.False(t, d.IsBad(pb), "restored: the erase never ran")
		require.Equal(t, 0, d.GrownBadBlocks())
		require.Equal(t, wear, d.EraseCount(pb))
		require.Equal(t, uint32(7), d.Tag(d.Unit(pb, 0, 0)))
		return
	}
}
