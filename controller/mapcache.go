package controller

import "github.com/ftlsim/ftlsim/ftl"

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
// entries and needs no read. With a host memory buffer, the evicted page
// goes to it, and a page it holds costs HMBNs instead of a flash read.
func (c *Controller) mapLookup(lba int64, write bool, at int64) int64 {
	mp := lba / c.mc.perPage
	hit, ev, dirty := c.mc.access(mp, write)
	c.cnt.MapLookups++
	if hit {
		return at
	}
	c.cnt.MapMisses++
	if m := c.cfg.Firmware.MapMissNs; m > 0 {
		at = max(at, c.fwFree) + m
		c.fwFree = at
	}
	if c.hmb != nil {
		return c.hmbLookup(mp, ev, dirty, at)
	}
	if dirty {
		c.mapWriteBack(ev, at)
	}
	return c.mapRead(mp, at)
}

// mapWriteBack programs changed mapping page mp, evicted at at, to flash.
func (c *Controller) mapWriteBack(mp int32, at int64) {
	c.mc.stored[mp] = true
	c.maps.program(c, ftl.CauseMap, int(int64(mp)%int64(c.cfg.NAND.Geometry.Dies())), 1, at)
}

// hmbLookup fetches mapping page mp, which the controller's cache missed,
// from the host memory buffer, or from flash into both when the buffer
// does not hold it; ev is the page the controller's cache evicted for it
// (dirty: changed), which moves to the buffer. A changed page the buffer
// evicts is programmed to flash. The writes into host memory are posted:
// no command waits for them.
func (c *Controller) hmbLookup(mp int64, ev int32, dirty bool, at int64) int64 {
	if dirty {
		if _, old, oldDirty := c.hmb.access(int64(ev), true); oldDirty {
			c.mapWriteBack(old, at)
		}
	}
	hit, old, oldDirty := c.hmb.access(mp, false)
	if hit {
		c.cnt.HMBHits++
		return at + c.cfg.Firmware.HMBNs
	}
	c.cnt.HMBMisses++
	if oldDirty {
		c.mapWriteBack(old, at)
	}
	return c.mapRead(mp, at)
}

// mapRead reads mapping page mp from its die from at, if it was ever
// stored there, and returns when it is in.
func (c *Controller) mapRead(mp, at int64) int64 {
	if !c.mc.stored[mp] {
		return at
	}
	dies := int64(c.cfg.NAND.Geometry.Dies())
	g := c.cfg.NAND.Geometry
	c.cnt.Count(&ftl.Op{Kind: ftl.OpRead, Cause: ftl.CauseMap, Die: int32(mp % dies), Units: int32(int64(g.PageBytes) / c.slot), Planes: 1})
	return c.tl.Read(int(mp%dies), 1, g.PageBytes, at)
}
