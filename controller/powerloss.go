package controller

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// flightOp is a program or erase booked on the timeline, kept until it is
// known to be over, so that a power cut knows what it interrupted.
type flightOp struct {
	kind        ftl.OpKind
	block, page int32 // first plane's block
	planes      uint8
	slc         bool // a block in SLC mode: a page a word line
	start, done int64
}

// fly records a program or erase booked to end at done, on a drive that
// can lose power; it started its array time before.
func (c *Controller) fly(op *ftl.Op, done int64) {
	tm := c.cfg.NAND.Timing
	if op.SLC {
		tm, _ = tm.SLCMode()
	}
	start := done - tm.EraseNs
	switch {
	case op.Kind == ftl.OpProgram && op.SLC:
		start = done - tm.ProgLSBNs
	case op.Kind == ftl.OpProgram:
		start = done - c.tl.ProgNs(int(op.Page))
	}
	c.flight = append(c.flight, flightOp{kind: op.Kind, block: op.Block, page: op.Page, planes: op.Planes, slc: op.SLC, start: start, done: done})
}

// flushMark is a flush: the FTL's write number it makes durable, and
// when the host sees it complete.
type flushMark struct {
	seq  uint32
	done int64
}

// settleFlushes moves the flushes acknowledged by now into durable.
func (c *Controller) settleFlushes(now int64) {
	k := 0
	for _, m := range c.flushes {
		if m.done <= now {
			c.durable = m.seq // flushes complete in the order they were taken
			continue
		}
		c.flushes[k] = m
		k++
	}
	c.flushes = c.flushes[:k]
}

// settleFlight forgets the operations over by now: a power cut at now or
// later cannot interrupt them (an erase over no longer keeps what its
// group held).
func (c *Controller) settleFlight(now int64) {
	if len(c.flight) < 256 {
		return
	}
	k := 0
	for _, f := range c.flight {
		if f.done > now {
			c.flight[k] = f
			k++
			continue
		}
		if f.kind == ftl.OpErase {
			c.ftl.ForgetErased(int(f.block) / c.cfg.NAND.Geometry.PlanesPerDie)
		}
	}
	c.flight = c.flight[:k]
}

// PowerLossReport is what a power cut did to a drive and what mounting it
// again took.
type PowerLossReport struct {
	AtNs int64 `json:"at_ns"`
	// Protected: the drive has power-loss protection and lost nothing.
	Protected bool `json:"protected"`
	// UnfinishedPages are the multi-plane pages whose program the cut
	// stopped or kept from starting (UnstartedPages of them had not
	// started: their cells are still erased), CorruptedPages the
	// finished lower pages an interrupted program on their word line
	// destroyed (on a one-shot part: the pages of word lines not yet
	// programmed whole, which were only in the dies' latches),
	// UnerasedGroups the groups whose erase had not started (they hold
	// what they held before it again), and FreedGroups the groups none
	// of whose programs since their last erase that ran had started:
	// still erased, they are free again.
	UnfinishedPages int `json:"unfinished_pages"`
	UnstartedPages  int `json:"unstarted_pages"`
	CorruptedPages  int `json:"corrupted_pages"`
	UnerasedGroups  int `json:"unerased_groups"`
	FreedGroups     int `json:"freed_groups"`
	// The acknowledged data lost: LostFlushedBytes had been made durable
	// by a FLUSH or a FUA write (the firmware's promise: with
	// gc_safe_erase none is lost), LostProgrammedBytes had not been
	// flushed but was programmed (destroyed with its word line, or with
	// a victim erased too soon), LostVolatileBytes was only in the
	// drive's memory or on its way to the flash. RevertedBytes of the
	// lost read an older version; ResurrectedBytes are trimmed data
	// that reads again (TRIM is not journaled).
	LostFlushedBytes    int64 `json:"lost_flushed_bytes"`
	LostProgrammedBytes int64 `json:"lost_programmed_bytes"`
	LostVolatileBytes   int64 `json:"lost_volatile_bytes"`
	RevertedBytes       int64 `json:"reverted_bytes"`
	ResurrectedBytes    int64 `json:"resurrected_bytes"`
	// Entries is the mapping entries rebuilt, CheckpointPages the pages
	// of the last mapping checkpoint read (firmware.map_checkpoint),
	// ScannedPages the pages read for newer entries (all of them with no
	// checkpoint) and MountNs the time mounting took: the reads, spread
	// over the dies (with protection, reading the saved mapping).
	Entries         int64 `json:"entries"`
	CheckpointPages int64 `json:"checkpoint_pages"`
	ScannedPages    int64 `json:"scanned_pages"`
	MountNs         int64 `json:"mount_ns"`
	// On a zoned namespace: ZonesClosed is the open zones the power
	// cycle closed (or emptied: no zone is open after one),
	// ZonesRolledBack the zones whose write pointer moved back to what
	// the drive kept, over ZoneRollbackBytes in all.
	ZonesClosed       int   `json:"zones_closed,omitempty"`
	ZonesRolledBack   int   `json:"zones_rolled_back,omitempty"`
	ZoneRollbackBytes int64 `json:"zone_rollback_bytes,omitempty"`
}

// PowerLoss cuts the drive's power at time at and powers it up again. A
// drive with power-loss protection finishes what is under way and
// programs its write buffer on its capacitors, saves its mapping, and
// mounts by reading it back. Without, the programs the cut stopped or kept
// from starting are void, an interrupted program of an upper page also
// destroys the finished lower pages of its word line (on a one-shot part
// the pages of a word line whose program has not finished are all lost:
// they were in the die's latches), erases not started
// leave their groups as they were, everything in controller memory (the
// write buffer, read-ahead, the mapping cache, the TRIM backlog) is gone,
// and the FTL rebuilds its mapping by scanning the flash. The drive takes
// commands again at at + MountNs. It needs a drive that tracks data
// (NAND.TrackData).
func (c *Controller) PowerLoss(at int64) (PowerLossReport, error) {
	rep := PowerLossReport{AtNs: at}
	if !c.cfg.NAND.TrackData {
		return rep, fmt.Errorf("%w: power loss needs a drive built to track data (nand.Config.TrackData)", ErrConfig)
	}
	g := c.cfg.NAND.Geometry
	tm := c.cfg.NAND.Timing
	if c.cfg.Firmware.PowerLossProtection {
		rep.Protected = true
		if err := c.ftl.Flush(); err != nil {
			return rep, err
		}
		c.drain(at)
		for _, f := range c.flight {
			if f.kind == ftl.OpErase {
				c.ftl.ForgetErased(int(f.block) / g.PlanesPerDie)
			}
		}
		// The saved mapping: 4 bytes a logical unit, read on every die.
		mapPages := (c.ftl.UserUnits()*4 + int64(g.PageBytes) - 1) / int64(g.PageBytes)
		rep.MountNs = (mapPages + int64(g.Dies()) - 1) / int64(g.Dies()) * tm.ReadNs
		rep.Entries = c.ftl.UserUnits() - c.unmappedUnits()
		if c.zones != nil {
			if err := c.zonesPowerUp(ftl.Recovery{}, &rep); err != nil {
				return rep, err
			}
		}
		c.cnt.PowerLosses++
		c.cnt.MountNs += rep.MountNs
		c.powerUp(at + rep.MountNs)
		return rep, nil
	}
	c.settleFlushes(at)
	cut := ftl.PowerCut{Flushed: c.durable, FlushedKnown: true}
	oneShot := tm.Program == nand.OneShot
	// unrun marks the groups whose erase had not started, from that erase
	// on in booking order (c.flight keeps it): the FTL puts back what they
	// held before it, so the programs booked later into them never were.
	unrun := make([]bool, g.Groups())
	for _, f := range c.flight {
		grp := int(f.block) / g.PlanesPerDie
		if f.done <= at {
			if f.kind == ftl.OpErase {
				c.ftl.ForgetErased(grp)
			}
			continue
		}
		if f.kind == ftl.OpErase {
			if f.start >= at {
				if !unrun[grp] { // once: a later unrun erase of it changes nothing
					cut.Unerased = append(cut.Unerased, grp)
					unrun[grp] = true
				}
			} else {
				c.ftl.ForgetErased(grp) // under way: erased enough
			}
			continue
		}
		rep.UnfinishedPages++
		if f.start >= at {
			rep.UnstartedPages++
		}
		if unrun[grp] {
			continue // after an erase not started: not in what the group holds again
		}
		for p := range int(f.planes) {
			ref := ftl.PageRef{Block: int(f.block) + p, Page: int(f.page)}
			cut.Unfinished = append(cut.Unfinished, ref)
			if f.start >= at {
				cut.Unstarted = append(cut.Unstarted, ref) // its cells still erased
			}
		}
		if !oneShot && !f.slc && f.start < at && tm.Kind(int(f.page)) != nand.LSB {
			// An upper page's program under way destroys the lower pages
			// of its word line programmed before it.
			for q := wordLineStart(tm, int(f.page)); q < int(f.page); q++ {
				rep.CorruptedPages++
				for p := range int(f.planes) {
					cut.Corrupted = append(cut.Corrupted, ftl.PageRef{Block: int(f.block) + p, Page: q})
				}
			}
		}
	}
	if oneShot {
		rep.CorruptedPages += c.latchedPages(&cut, unrun)
	}
	rep.UnerasedGroups = len(cut.Unerased)
	c.flight = c.flight[:0]
	c.ftl.Advance() // what the cut stopped: nothing more of it is carried out
	rec, err := c.ftl.PowerLoss(cut)
	if err != nil {
		return rep, err
	}
	unit := c.unit
	rep.LostFlushedBytes = rec.LostFlushedUnits * unit
	rep.LostProgrammedBytes = rec.LostProgrammedUnits * unit
	rep.LostVolatileBytes = (rec.LostUnits - rec.LostProgrammedUnits - rec.LostFlushedUnits) * unit
	rep.RevertedBytes = rec.RevertedUnits * unit
	rep.ResurrectedBytes = rec.ResurrectedUnits * unit
	rep.Entries = rec.Entries
	rep.FreedGroups = int(rec.FreedGroups)
	if c.zones != nil {
		if err := c.zonesPowerUp(rec, &rep); err != nil {
			return rep, err
		}
		rep.Entries = c.ftl.UserUnits() - c.unmappedUnits()
	}
	// Every page holding data is read once, the dies in parallel — or,
	// with a mapping checkpoint, the saved mapping (one-plane pages) and
	// the pages programmed since.
	rep.CheckpointPages, rep.ScannedPages = c.mountPages(rec.ScannedPages)
	dies := int64(g.Dies())
	rep.MountNs = ((rep.CheckpointPages+dies-1)/dies + (rep.ScannedPages+dies-1)/dies) * tm.ReadNs
	c.cnt.MountScanPages += rep.ScannedPages - rec.ScannedPages // the FTL counted a full scan
	c.ftl.Advance()                                             // the erases done while mounting are part of the mount
	c.cnt.MountNs += rep.MountNs
	c.powerUp(at + rep.MountNs)
	return rep, nil
}

// wordLineStart returns the first page of page p's word line: MLC pairs a
// lower and an upper page, TLC three pages, QLC four (as
// Timing.PageType lays them).
func wordLineStart(t nand.Timing, p int) int { return p - t.PageType(p) }

// latchedPages adds to cut, on a one-shot part, the pages that were only
// in the dies' latches: those before the last page of a word line whose
// last page's program had not finished — cut short, not started, or not
// sent yet (Timeline.Program); a group retired for a failed program keeps
// what it holds (ftl.FTL.Retired). A group whose erase had not started
// (unrun) is taken as it will be again: what it held before that erase
// (ftl.FTL.KeptImage). It returns the multi-plane pages so lost that cut
// does not already list as unfinished.
func (c *Controller) latchedPages(cut *ftl.PowerCut, unrun []bool) int {
	g := c.cfg.NAND.Geometry
	wl, np := c.cfg.NAND.Timing.WordLinePages(), g.PlanesPerDie
	// wp and slc return what block b holds pages up to, and its mode, as
	// the FTL will have it.
	wp := func(b int) (int, bool) {
		if unrun[b/np] {
			if w, slc, ok := c.ftl.KeptImage(b / np); ok {
				return w, slc
			}
			return 0, false
		}
		return c.dev.WritePointer(b), c.dev.IsSLC(b)
	}
	type ref struct{ block, page int } // a group's first block
	unfinished := map[ref]bool{}
	lines := map[ref]bool{} // word lines, by their first page
	for _, r := range cut.Unfinished {
		b := r.Block - r.Block%np
		unfinished[ref{b, r.Page}] = true
		if _, slc := wp(b); !slc { // in SLC mode a page is its word line
			lines[ref{b, r.Page - r.Page%wl}] = true
		}
	}
	for grp := range g.Groups() {
		b := grp * np
		if w, slc := wp(b); w%wl != 0 && w != g.PagesPerBlock && !c.ftl.Retired(grp) && !slc {
			lines[ref{b, w - w%wl}] = true
		}
	}
	keys := slices.SortedFunc(maps.Keys(lines), func(x, y ref) int {
		return cmp.Or(cmp.Compare(x.block, y.block), cmp.Compare(x.page, y.page))
	})
	n := 0
	for _, l := range keys {
		w, _ := wp(l.block)
		end := min(l.page+wl, w)
		for q := l.page; q < end; q++ {
			if unfinished[ref{l.block, q}] {
				continue
			}
			n++
			for p := range np {
				cut.Corrupted = append(cut.Corrupted, ftl.PageRef{Block: l.block + p, Page: q})
			}
		}
	}
	return n
}

// unmappedUnits counts the logical units that hold no data.
func (c *Controller) unmappedUnits() int64 {
	var n int64
	for lba := range c.ftl.UserUnits() {
		if loc, err := c.ftl.Lookup(lba); err == nil && !loc.Mapped {
			n++
		}
	}
	return n
}

// powerUp resets what the controller keeps in memory and on its clocks:
// the drive starts again, idle, at t.
func (c *Controller) powerUp(t int64) {
	cfg := c.cfg
	c.tl = nand.NewTimeline(cfg.NAND)
	c.tl.SetSuspendLimit(cfg.Firmware.SuspendLimit)
	c.tl.SetReadFirst(cfg.Firmware.ReadPriority)
	c.tl.Advance(t)
	c.newLinks(t)
	c.fwFree = t
	c.buf.reset()
	c.buf.at = t
	c.dp = datapath{readFree: t, writeFree: t}
	c.ra.reset()
	c.ra.last = -1
	c.gc = newGCPath(cfg.NAND.Geometry.Dies(), cfg.Firmware.GCStreams, cfg.Firmware.Cores, cfg.Firmware.ECCMBps)
	c.trimQ = 0
	c.programsDone = t
	if c.rest != nil {
		c.rest.reset(t)
	}
	c.flight = c.flight[:0]
	c.ckpt.remount()
	c.flushes = c.flushes[:0]
	c.durable = c.ftl.WriteSeq() // what survived is durable
	if c.mc != nil {
		c.mc.reset()
	}
	if c.hmb != nil {
		c.hmb.reset()
	}
}
