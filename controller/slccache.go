package controller

import (
	"fmt"

	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/nand"
)

// SLCCache describes the SLC cache of a drive whose flash stores two or
// more bits per cell: host writes go to blocks written in SLC mode (one
// bit per cell, the part's slc_* times) while the cache has room, and the
// firmware later folds their data into native blocks, in the background
// once the drive has been idle for Firmware.IdleNs, and in the foreground
// when the cache is full. Sizes are of the host data the cache holds; a
// block holds 1/bits of its native capacity in SLC mode. Both sizes 0: no
// cache.
type SLCCache struct {
	// Static is the cache that is always there, taken out of the spare
	// area (the description's op_percent must leave room for it).
	Static Size `yaml:"static,omitempty"`
	// DynamicMax is the most the dynamic region adds beyond Static. It
	// borrows free blocks: a die lends one only while enough stay free to
	// fold everything the cache holds and keep gc_high_water, so the
	// region shrinks as the drive fills, to nothing on a full drive.
	DynamicMax Size `yaml:"dynamic_max,omitempty"`
	// DynamicReserve is free space, in native capacity, the dynamic
	// region never borrows: with it the cache shrinks to Static while
	// that much is still free, as firmware that keeps free space for
	// itself does (linearly in the data stored, from DynamicMax down).
	DynamicReserve Size `yaml:"dynamic_reserve,omitempty"`
	// WhenFull is what host writes do once the cache is full: "fold"
	// (the default) keeps writing in SLC mode, so every unit is
	// programmed twice, while the die folds its oldest SLC block a little
	// after each host page (from one block of room left; a whole block
	// while the host waits if that does not keep up); "direct" writes
	// them straight to native blocks.
	WhenFull string `yaml:"when_full,omitempty"`
}

// slcGroupBytes is the host data one plane group holds in SLC mode.
func (c *Config) slcGroupBytes() int64 {
	g := c.NAND.Geometry
	return int64(g.PagesPerBlock/c.NAND.Timing.WordLinePages()) * int64(g.PageBytes) * int64(g.PlanesPerDie)
}

// nativeGroups is the groups per die that hold size bytes in native mode
// (rounded up).
func (c *Config) nativeGroups(size Size) int {
	if size <= 0 {
		return 0
	}
	g := c.NAND.Geometry
	per := int64(g.PagesPerBlock) * int64(g.PageBytes) * int64(g.PlanesPerDie) * int64(g.Dies())
	return int((int64(size) + per - 1) / per)
}

// slcGroups is the groups per die that hold size bytes of host data in
// SLC mode, the cache spread evenly over the dies (rounded up).
func (c *Config) slcGroups(size Size) int {
	if size <= 0 {
		return 0
	}
	total := (int64(size) + c.slcGroupBytes() - 1) / c.slcGroupBytes()
	dies := int64(c.NAND.Geometry.Dies())
	return int((total + dies - 1) / dies)
}

// validateSLCCache checks the SLC cache against the part and the
// geometry.
func (c *Config) validateSLCCache() error {
	s := c.Firmware.SLCCache
	switch s.WhenFull {
	case "", "fold", "direct":
	default:
		return fmt.Errorf("%w: firmware.slc_cache.when_full = %q, allowed fold, direct", ErrConfig, s.WhenFull)
	}
	if s.Static == 0 && s.DynamicMax == 0 {
		if s.WhenFull != "" || s.DynamicReserve != 0 {
			return fmt.Errorf("%w: firmware.slc_cache.when_full and dynamic_reserve need a cache (static or dynamic_max)", ErrConfig)
		}
		return nil
	}
	t := c.NAND.Timing
	if _, ok := t.SLCMode(); !ok || t.Cell == nand.SLC {
		return fmt.Errorf("%w: firmware.slc_cache needs a part with an SLC mode: nand.timing.cell mlc, tlc or qlc with slc_read_ns, slc_prog_ns and slc_rated_cycles", ErrConfig)
	}
	g := c.NAND.Geometry
	per := c.slcGroupBytes() * int64(g.Dies())
	for _, f := range []struct {
		name, why string
		v         Size
		max       int64
	}{
		{"static", "half the blocks in SLC mode", s.Static, int64(g.BlocksPerPlane/2) * per},
		{"dynamic_max", "every block in SLC mode", s.DynamicMax, int64(g.BlocksPerPlane) * per},
		{"dynamic_reserve", "every block in native mode", s.DynamicReserve, int64(g.BlocksPerPlane) * per * int64(t.WordLinePages())},
	} {
		if f.v < 0 || int64(f.v) > f.max {
			return fmt.Errorf("%w: firmware.slc_cache.%s = %s, allowed 0..%s (%s)", ErrConfig, f.name, units.FormatBytes(int64(f.v)), units.FormatBytes(f.max), f.why)
		}
	}
	return nil
}
