package controller

// mapCache is the part of the mapping table a DRAM-less controller holds
// on chip: whole mapping pages (one flash page of 4-byte entries each),
// replaced by the CLOCK algorithm (an approximation of LRU with one
// reference bit per frame). A miss reads the mapping page from flash; a
// dirty page leaving the cache is programmed back first. State is flat
// slices indexed by mapping page and frame: no maps, no allocation per
// access.
type mapCache struct {
	perPage int64   // mapping entries (units) per mapping page
	frameOf []int32 // per mapping page: its frame, or -1
	stored  []bool  // per mapping page: written to flash since the last secure erase
	page    []int32 // per frame: the mapping page held, or -1
	ref     []bool  // per frame: used since the hand last passed
	dirty   []bool  // per frame: changed since it was read
	hand    int
	hits    int64
	misses  int64
}

func newMapCache(units, perPage, frames int64) *mapCache {
	pages := (units + perPage - 1) / perPage
	frames = max(1, min(frames, pages))
	m := &mapCache{perPage: perPage, frameOf: make([]int32, pages), stored: make([]bool, pages),
		page: make([]int32, frames), ref: make([]bool, frames), dirty: make([]bool, frames)}
	m.reset()
	return m
}

// reset empties the cache (the drive was secure-erased: every entry is
// unmapped and need not be read).
func (m *mapCache) reset() {
	for i := range m.frameOf {
		m.frameOf[i] = -1
	}
	clear(m.stored)
	for i := range m.page {
		m.page[i], m.ref[i], m.dirty[i] = -1, false, false
	}
	m.hand = 0
}

// access touches mapping page mp (write: to change it). On a miss it
// returns the frame's previous page (-1 for none) and whether that page
// was dirty; hit reports a hit.
func (m *mapCache) access(mp int64, write bool) (hit bool, evicted int32, wasDirty bool) {
	if f := m.frameOf[mp]; f >= 0 {
		m.ref[f] = true
		m.dirty[f] = m.dirty[f] || write
		m.hits++
		return true, -1, false
	}
	m.misses++
	for m.ref[m.hand] {
		m.ref[m.hand] = false
		m.hand = (m.hand + 1) % len(m.page)
	}
	f := m.hand
	m.hand = (m.hand + 1) % len(m.page)
	evicted, wasDirty = m.page[f], m.dirty[f]
	if evicted >= 0 {
		m.frameOf[evicted] = -1
	}
	m.page[f], m.ref[f], m.dirty[f] = int32(mp), true, write
	m.frameOf[mp] = int32(f)
	return false, evicted, wasDirty && evicted >= 0
}

// memoryBytes is the simulator memory the cache state takes.
func (m *mapCache) memoryBytes() int64 { return int64(len(m.frameOf))*5 + int64(len(m.page))*6 }

// mapLookup makes the mapping entry of unit lba available to the firmware
// from time at and returns when it is: at once on a hit; on a miss after
// the firmware's miss handling (MapMissNs, which delays its next command
// too), a dirty page evicted for it is programmed back and the mapping
// page is read from its die (mapping pages are spread over the dies). A
// page never written since the last secure erase holds only unmapped
// entries and needs no read.
func (c *Controller) mapLookup(lba int64, write bool, at int64) int64 {
	mp := lba / c.mc.perPage
	hit, ev, dirty := c.mc.access(mp, write)
	if hit {
		return at
	}
	dies := int64(c.cfg.NAND.Geometry.Dies())
	if m := c.cfg.Firmware.MapMissNs; m > 0 {
		at = max(at, c.fwFree) + m
		c.fwFree = at
	}
	if dirty {
		c.cnt.MapWrites++
		c.mc.stored[ev] = true
		c.note(c.maps.program(c, int(int64(ev)%dies), 1, at))
	}
	if !c.mc.stored[mp] {
		return at
	}
	c.cnt.MapReads++
	c.cnt.ChannelReadBytes += int64(c.cfg.NAND.Geometry.PageBytes)
	t := c.tl.Read(int(mp%dies), 1, c.cfg.NAND.Geometry.PageBytes, at)
	c.note(t)
	return t
}

// mapMover updates the mapping entry of each unit garbage collection
// moves: with part of the table on chip, that may read a mapping page and
// later write one back, like a host write.
type mapMover struct{ c *Controller }

func (m mapMover) Moved(lba int64) { m.c.mapLookup(lba, true, m.c.at) }

// region is flash the firmware writes outside the FTL's mapping — RAISE
// parity and mapping pages — as a log of blocks on each die: each page
// goes to the next page of the die's current block, and a block is
// erased before it is written again. The space it takes is held out of
// the FTL (parity) or counted in the spare area (mapping pages).
type region struct {
	n   []int64 // per die: pages written
	ppb int64
}

func newRegion(dies, pagesPerBlock int) region {
	return region{n: make([]int64, dies), ppb: int64(pagesPerBlock)}
}

// program books a page program on die (all planes) from at, erasing the
// die's region block first when it wraps, and returns when it is done.
func (r *region) program(c *Controller, die, planes int, at int64) int64 {
	p := r.n[die] % r.ppb
	if p == 0 && r.n[die] > 0 {
		c.cnt.RegionErases += int64(planes)
		at = c.tl.Erase(die, planes, at)
	}
	r.n[die]++
	return c.tl.Program(die, int(p), planes, at)
}
