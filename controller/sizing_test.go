package controller_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/controller"
)

func preset(t *testing.T, name string, edit func(*controller.Config)) controller.Config {
	t.Helper()
	c, err := controller.Preset(name)
	require.NoError(t, err)
	if edit != nil {
		edit(&c)
	}
	return c
}

// lineFlash returns the raw flash of a product line's capacity point and
// the blocks per plane of its NAND part.
func lineFlash(t *testing.T, line, name string) (raw int64, blocksPerPlane int) {
	t.Helper()
	l, err := controller.LoadLine(line)
	require.NoError(t, err)
	p, err := controller.Part(l.NAND)
	require.NoError(t, err)
	for _, v := range l.Variants {
		if v.Name == name {
			return int64(v.Raw), p.Die.BlocksPerPlane
		}
	}
	t.Fatalf("%s has no capacity point %s", line, name)
	return 0, 0
}

func sandForce(c *controller.Config) {
	fw := &c.Firmware
	fw.Compression, fw.CompressionSlot, fw.RaiseStripe = true, 1024, 16
	fw.MapCache, fw.MapMissNs = 2<<20, 20000
}

// TestResolveDoesNotMutate: Resolve (and New, which calls it) leaves the
// description it is given as it was, whether it succeeds or fails.
func TestResolveDoesNotMutate(t *testing.T) {
	cases := []struct {
		name, preset string
		edit         func(*controller.Config)
	}{
		{"flash", "generic-mlc-small", nil},
		{"flash with RAISE and compression", "generic-mlc-small", sandForce},
		{"flash, capacity not whole units", "generic-mlc-small", func(c *controller.Config) { c.Capacity = 10e9 + 512 }},
		{"spare", "m4-256", nil},
		{"spare with RAISE, op unstated", "atlas-240", func(c *controller.Config) { c.OPPercent = 0 }},
		{"capacity", "m4-256", func(c *controller.Config) {
			c.Sizing, c.Capacity, c.OPPercent = controller.SizeCapacity, 0, 25
		}},
		{"resized line", "bp4-240", func(c *controller.Config) { *c = c.Resized(120e9, 25) }},
		{"error: op mismatch", "m4-256", func(c *controller.Config) { c.OPPercent = 25 }},
		{"error: flash with a geometry", "m4-256", func(c *controller.Config) { c.Sizing = controller.SizeFlash }},
		{"error: firmware", "generic-mlc-small", func(c *controller.Config) { c.Firmware.GCPolicy = "lru" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := preset(t, tc.preset, tc.edit)
			before := c
			_, err := c.Resolve()
			require.Equal(t, before, c, "Resolve changed its receiver")
			if err == nil {
				_, err = controller.New(c)
				require.NoError(t, err)
				require.Equal(t, before, c, "New changed its argument")
			}
		})
	}
}

// TestSizingModes: each sizing derives its size from the other two by the
// arithmetic the description states: flash = capacity × (1 + OP) rounded
// up to whole rows of blocks (one block on every plane of every die),
// RAISE parity taking one page in raise_stripe; capacity = flash / (1 +
// OP) rounded down to whole mapping units; spare = flash / capacity − 1.
func TestSizingModes(t *testing.T) {
	const unit = 4096
	m4Raw, m4Blocks := lineFlash(t, "m4", "m4-256")
	atlasRaw, atlasBlocks := lineFlash(t, "mushkin-atlas", "atlas-240")
	// row is the bytes of one block on every plane of every die.
	row := func(c controller.Config) int64 {
		g := c.NAND.Geometry
		return int64(g.Dies()*g.PlanesPerDie) * int64(g.PagesPerBlock) * int64(g.PageBytes)
	}
	// share is the part of the flash that holds data: all of it, or
	// (stripe − 1) / stripe with RAISE.
	share := func(c controller.Config) (num, den int64) {
		if s := int64(c.Firmware.RaiseStripe); s > 1 {
			return s - 1, s
		}
		return 1, 1
	}
	// flashBlocks is ⌈capacity × (100 + op) / 100 / share / row⌉ in
	// integers (op a whole percentage).
	flashBlocks := func(c controller.Config) int {
		sn, sd := share(c)
		num := int64(c.Capacity) * (100 + int64(c.OPPercent)) * sd
		den := 100 * sn * row(c)
		return int((num + den - 1) / den)
	}
	cases := []struct {
		name, preset string
		edit         func(*controller.Config)
		blocks       func(controller.Config) int              // blocks per plane, from the inputs
		capacity     func(c controller.Config, bpp int) int64 // user bytes, from the inputs
	}{
		{"flash", "generic-mlc-small", func(c *controller.Config) { c.Capacity, c.OPPercent = 4<<30, 25 }, flashBlocks,
			func(c controller.Config, _ int) int64 { return int64(c.Capacity) }},
		{"flash, 240 GB at 12 %", "generic-mlc", func(c *controller.Config) { c.Capacity, c.OPPercent = 240e9/unit*unit, 12 }, flashBlocks,
			func(c controller.Config, _ int) int64 { return int64(c.Capacity) }},
		{"flash with RAISE", "generic-mlc-small", func(c *controller.Config) { sandForce(c); c.OPPercent = 7 }, flashBlocks,
			func(c controller.Config, _ int) int64 { return int64(c.Capacity) }},
		{"flash, capacity rounded down to whole units", "generic-mlc-small", func(c *controller.Config) { c.Capacity = 10e9 + 512 }, flashBlocks,
			func(c controller.Config, _ int) int64 { return int64(c.Capacity) / unit * unit }},
		{"spare", "m4-256", nil, func(controller.Config) int { return m4Blocks },
			func(c controller.Config, _ int) int64 { return int64(c.Capacity) }},
		{"spare with RAISE", "atlas-240", nil, func(controller.Config) int { return atlasBlocks },
			func(c controller.Config, _ int) int64 { return int64(c.Capacity) }},
		{"spare, op_percent unstated", "m4-256", func(c *controller.Config) { c.OPPercent = 0 }, func(controller.Config) int { return m4Blocks },
			func(c controller.Config, _ int) int64 { return int64(c.Capacity) }},
		{"capacity", "m4-256", func(c *controller.Config) { c.Sizing, c.Capacity, c.OPPercent = controller.SizeCapacity, 0, 25 },
			func(controller.Config) int { return m4Blocks },
			func(controller.Config, int) int64 { return m4Raw * 100 / 125 / unit * unit }},
		{"capacity with RAISE", "atlas-240", func(c *controller.Config) { c.Sizing, c.Capacity, c.OPPercent = controller.SizeCapacity, 0, 10 },
			func(controller.Config) int { return atlasBlocks },
			func(controller.Config, int) int64 { return atlasRaw * 15 / 16 * 100 / 110 / unit * unit }},
		{"resized line keeps its dies", "m4-256", func(c *controller.Config) { *c = c.Resized(120e9, 25) }, flashBlocks,
			func(c controller.Config, _ int) int64 { return int64(c.Capacity) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := preset(t, tc.preset, tc.edit)
			r, err := c.Resolve()
			require.NoError(t, err)
			got := r.Config.NAND.Geometry
			wantBlocks := tc.blocks(c)
			require.Equal(t, wantBlocks, got.BlocksPerPlane, "blocks per plane")
			require.Equal(t, tc.capacity(c, wantBlocks), int64(r.Config.Capacity), "capacity")
			// Only the derived sizes change; what was given stays.
			in := c.NAND.Geometry
			in.BlocksPerPlane = got.BlocksPerPlane
			require.Equal(t, in, got)
			require.Equal(t, c.OPPercent, r.Config.OPPercent, "op_percent is the spare area asked for")
			require.Equal(t, c.Firmware, r.Config.Firmware)
			sn, sd := share(c)
			data := float64(int64(wantBlocks)*row(c)) * float64(sn) / float64(sd)
			user := float64(r.Config.Capacity)
			require.InDelta(t, 100*(data-user)/user, r.SparePercent, 1e-6, "spare area of the rounded geometry")
			if c.Sizing != controller.SizeSpare {
				require.GreaterOrEqual(t, r.SparePercent, c.OPPercent-1e-9, "at least the spare asked for")
			}
			// The drive as built states every size and resolves to itself.
			require.Equal(t, controller.SizeSpare, r.Config.Sizing)
			again, err := r.Config.Resolve()
			require.NoError(t, err)
			require.Equal(t, r, again)
		})
	}
}

// TestResolveErrorsNameTheField: a bad description is an ErrConfig that
// names the field, its value and what is allowed.
func TestResolveErrorsNameTheField(t *testing.T) {
	cases := []struct {
		preset string
		edit   func(*controller.Config)
		want   string
	}{
		{"generic-mlc-small", func(c *controller.Config) { c.Sizing = "blocks" }, `sizing = "blocks", allowed flash, spare or capacity`},
		{"generic-mlc-small", func(c *controller.Config) { c.OPPercent = math.NaN() }, "op_percent = NaN, allowed a finite number"},
		{"generic-mlc-small", func(c *controller.Config) { c.OPPercent = 401 }, "op_percent = 401, allowed 0..400"},
		{"generic-mlc-small", func(c *controller.Config) { c.Capacity = -512 }, "capacity = -512, allowed at least 0"},
		{"generic-mlc-small", func(c *controller.Config) { c.Capacity = 1000 }, "capacity = 1000 bytes, must be a multiple of 512"},
		{"generic-mlc-small", func(c *controller.Config) { c.Capacity = 0 }, "capacity = 0: sizing: flash"},
		{"generic-mlc-small", func(c *controller.Config) { c.Capacity = 512 }, "capacity = 512 bytes is less than one mapping unit"},
		{"generic-mlc-small", func(c *controller.Config) { c.NAND.Geometry.BlocksPerPlane = 512 }, "nand.geometry.blocks_per_plane = 512: sizing: flash derives it"},
		{"generic-mlc-small", func(c *controller.Config) { c.NAND.Geometry.Channels = 0 }, "geometry.channels = 0, allowed 1..64"},
		{"m4-256", func(c *controller.Config) { c.Sizing = "" }, "nand.geometry.blocks_per_plane = 2048: sizing: flash derives it"},
		{"m4-256", func(c *controller.Config) { c.Capacity = 0 }, "capacity = 0: sizing: spare"},
		{"m4-256", func(c *controller.Config) { c.NAND.Geometry.Channels = 0 }, "geometry.channels = 0, allowed 1..64"},
		{"m4-256", func(c *controller.Config) { c.OPPercent = 25 }, "op_percent = 25 does not match the geometry"},
		{"m4-256", func(c *controller.Config) { c.Capacity = 300e9 }, "capacity = 279.4 GiB does not fit the geometry"},
		{"m4-256", func(c *controller.Config) { c.Sizing = controller.SizeCapacity }, "capacity = 256GB: sizing: capacity derives it"},
		{"m4-256", func(c *controller.Config) { c.Firmware.RaiseStripe = 1 }, "firmware.raise_stripe = 1, allowed 0 (off) or 2..1024"},
	}
	for _, tc := range cases {
		t.Run(tc.preset+": "+tc.want, func(t *testing.T) {
			_, err := preset(t, tc.preset, tc.edit).Resolve()
			require.ErrorIs(t, err, controller.ErrConfig)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := controller.ParseConfig("x.yaml", []byte("name: x\nsizing: blocks\n"))
	require.ErrorIs(t, err, controller.ErrConfig)
	require.ErrorContains(t, err, "x.yaml")
	require.ErrorContains(t, err, `x.yaml:2: invalid drive description: sizing = blocks, allowed flash, spare or capacity`)
}

// TestResized: resizing keeps the drive and its dies and sizes the flash
// from the new capacity and spare area, without changing the receiver.
func TestResized(t *testing.T) {
	c := preset(t, "bp4-240", nil)
	before := c
	r := c.Resized(120e9, 25)
	require.Equal(t, before, c)
	require.Equal(t, controller.SizeFlash, r.Sizing)
	require.Equal(t, controller.Size(120e9), r.Capacity)
	require.Equal(t, 25.0, r.OPPercent)
	require.Zero(t, r.NAND.Geometry.BlocksPerPlane)
	g, rg := c.NAND.Geometry, r.NAND.Geometry
	require.Equal(t, g.Dies(), rg.Dies())
	require.Equal(t, c.Firmware, r.Firmware)
	require.Equal(t, c.NAND.Timing, r.NAND.Timing)
}
