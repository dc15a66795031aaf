package controller

import (
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
	Static Size `yaml:"static,omitempty" layer:"firmware" unit:"bytes" range:"0.." default:"0: none" doc:"SLC cache always there, taken out of the spare area; at most half the blocks"`
	// DynamicMax is the most the dynamic region adds beyond Static. It
	// borrows free blocks: a die lends one only while enough stay free to
	// fold everything the cache holds and keep gc_high_water, so the
	// region shrinks as the drive fills, to nothing on a full drive.
	DynamicMax Size `yaml:"dynamic_max,omitempty" layer:"firmware" unit:"bytes" range:"0.." default:"0: none" doc:"most the dynamic region adds, borrowing free blocks"`
	// DynamicReserve is free space, in native capacity, the dynamic
	// region never borrows: with it the cache shrinks to Static while
	// that much is still free, as firmware that keeps free space for
	// itself does (linearly in the data stored, from DynamicMax down).
	DynamicReserve Size `yaml:"dynamic_reserve,omitempty" layer:"firmware" unit:"bytes" range:"0.." default:"0: none" doc:"free native space the dynamic region never borrows"`
	// WhenFull is what host writes do once the cache is full: "fold"
	// (the default) keeps writing in SLC mode, so every unit is
	// programmed twice, while the die folds its oldest SLC block a little
	// after each host page (from one block of room left; a whole block
	// while the host waits if that does not keep up); "direct" writes
	// them straight to native blocks.
	WhenFull string `yaml:"when_full,omitempty" layer:"firmware" range:"fold|direct" default:"fold" doc:"what host writes do once the cache is full"`
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
	s := &c.Firmware.SLCCache
	if s.Static == 0 && s.DynamicMax == 0 {
		if s.WhenFull != "" || s.DynamicReserve != 0 {
			return c.errAt(s, "%s.%s and %s need a cache (%s or %s)", c.FieldPath(s), fieldName(s, &s.WhenFull),
				fieldName(s, &s.DynamicReserve), fieldName(s, &s.Static), fieldName(s, &s.DynamicMax))
		}
		return nil
	}
	t := c.NAND.Timing
	if _, ok := t.SLCMode(); !ok || t.Cell == nand.SLC {
		return c.errAt(s, "%s needs a part with an SLC mode: %s mlc, tlc or qlc with %s, %s and %s", c.FieldPath(s),
			c.FieldPath(&c.NAND.Timing.Cell), fieldName(&t, &t.SLCReadNs), fieldName(&t, &t.SLCProgNs), fieldName(&t, &t.SLCRatedCycles))
	}
	g := c.NAND.Geometry
	per := c.slcGroupBytes() * int64(g.Dies())
	for _, f := range []struct {
		v   *Size
		why string
		max int64
	}{
		{&s.Static, "half the blocks in SLC mode", int64(g.BlocksPerPlane/2) * per},
		{&s.DynamicMax, "every block in SLC mode", int64(g.BlocksPerPlane) * per},
		{&s.DynamicReserve, "every block in native mode", int64(g.BlocksPerPlane) * per * int64(t.WordLinePages())},
	} {
		if int64(*f.v) > f.max {
			return c.errAt(f.v, "%s = %s, allowed 0..%s (%s)", c.FieldPath(f.v), units.FormatBytes(int64(*f.v)), units.FormatBytes(f.max), f.why)
		}
	}
	return nil
}
