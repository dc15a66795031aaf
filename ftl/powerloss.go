package ftl

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ftlsim/ftlsim/nand"
)

// PageRef names one page of one physical block.
type PageRef struct{ Block, Page int }

// PowerCut is what a loss of power did to the flash, as the controller,
// which knows when each operation ran, tells it.
type PowerCut struct {
	// Unfinished are the pages whose program had not finished: their
	// data never reached the cells. They are the pages of the flash as
	// the rebuild finds it: a group in Unerased holds again what it held
	// before its first erase that did not start, so of its unfinished
	// pages only those programmed before that erase are listed (they are
	// in what it holds again; those programmed after it never were).
	Unfinished []PageRef
	// Unstarted are those of Unfinished whose program had not started:
	// their cells are still erased (the others' cells are disturbed). A
	// group every page of which, since its last erase that ran, is
	// unstarted is erased flash: it is free again.
	Unstarted []PageRef
	// Corrupted are programmed pages whose data an interrupted program
	// destroyed (the lower pages sharing a word line with an interrupted
	// upper page of MLC, TLC or QLC flash), or that never reached the
	// cells (the pages of a one-shot part's word line whose program had
	// not finished, held in the die's latches).
	Corrupted []PageRef
	// Unerased are the groups whose erase had not started: they still
	// hold what they held (Config.KeepErased), and pages programmed into
	// them since never were.
	Unerased []int
	// Flushed, when FlushedKnown, is the write number (WriteSeq) up to
	// which the host has seen a flush complete: a controller that takes
	// a flush (Flush) before it completes says which were acknowledged
	// before the cut. Otherwise the last Flush made its writes durable.
	Flushed      uint32
	FlushedKnown bool
}

// erasedGroup is what a group held when the FTL erased it: per unit, the
// OOB tag, write sequence and payload token, and each plane's write
// pointer.
type erasedGroup struct {
	tags, seqs, data []uint32
	wp               int
	slc              bool // in SLC mode
}

// keepErased records what group g holds before its erase.
func (f *FTL) keepErased(g int32) {
	if !f.cfg.KeepErased {
		return
	}
	if f.erased == nil {
		f.erased = map[int32][]*erasedGroup{}
	}
	n := f.upg
	e := &erasedGroup{tags: make([]uint32, n), seqs: make([]uint32, n), data: make([]uint32, n), wp: f.groupWP(g), slc: f.dev.IsSLC(int(g) * f.np)}
	base := int64(g) * int64(f.upg)
	for i := range n {
		u := base + int64(i)
		e.tags[i], e.seqs[i], e.data[i] = f.dev.Tag(u), f.dev.Seq(u), f.dev.Data(u)
	}
	f.erased[g] = append(f.erased[g], e)
}

// ForgetErased drops what group g held before its oldest erase still
// kept: that erase has run, and a power cut can no longer find it.
func (f *FTL) ForgetErased(g int) {
	if k := f.erased[int32(g)]; len(k) > 1 {
		f.erased[int32(g)] = k[1:]
	} else {
		delete(f.erased, int32(g))
	}
}

// KeptImage returns the write pointer and mode (SLC or not) of what group
// g held before its oldest erase still kept (Config.KeepErased): the one
// a power cut now would undo, once ForgetErased has dropped those that
// ran. ok is false when nothing is kept.
func (f *FTL) KeptImage(g int) (wp int, slc, ok bool) {
	k := f.erased[int32(g)]
	if len(k) == 0 {
		return 0, false, false
	}
	return k[0].wp, k[0].slc, true
}

// Recovery is what the FTL found when power came back.
type Recovery struct {
	// StagedUnits is the logical units that waited in controller memory
	// (the pages being filled) and were lost with it.
	StagedUnits int64
	// LostUnits is the logical units whose newest data is gone: they now
	// read an older version (Reverted of them) or nothing.
	LostUnits, RevertedUnits int64
	// LostFlushedUnits is those of LostUnits whose newest data a flush
	// had made durable (FTL.Flush): the firmware's promise broken. With
	// SafeErase there are none. LostProgrammedUnits is those, not
	// flushed, whose newest data had been programmed (a finished page):
	// lost with a page an interrupted program destroyed, or with a
	// victim erased before the copy of its data was programmed. The rest
	// was in controller memory or on its way to the flash.
	LostFlushedUnits, LostProgrammedUnits int64
	// Lost lists the logical units of LostUnits, ascending: a zoned
	// namespace moves each zone's write pointer back to its first.
	Lost []int64
	// ResurrectedUnits is the logical units trimmed (or never written)
	// before the cut that read old data again: TRIM is not journaled, and
	// a stale copy not yet erased is the newest the rebuild finds.
	ResurrectedUnits int64
	// Resurrected lists those units, ascending: a zoned namespace
	// deallocates them again (its zone table knows their zone was reset).
	Resurrected []int64
	// ErasedGroups is the groups that hold no live data after the
	// rebuild, which the firmware erases while it mounts. FreedGroups is
	// the groups none of whose programs since their last erase had
	// started (PowerCut.Unstarted): still erased, they are free again
	// without an erase.
	ErasedGroups, FreedGroups int64
	// Entries is the mapping entries the rebuild found (logical units
	// holding data); ScannedPages the multi-plane pages it read to find
	// them.
	Entries, ScannedPages int64
}

// PowerLoss applies a power cut to the FTL and rebuilds its mapping from
// what is on flash, as firmware does at power-up: the pages being filled
// in controller memory are gone, the unfinished and corrupted pages of
// cut hold nothing, and every logical unit maps to its newest surviving
// copy, known by the write sequence each unit's OOB area carries (a
// moved copy keeps its data's number). Victims half cleaned go back to
// being full groups, and those waiting for their erase stay unerased: the
// rebuild may find the only copy of some data there. Groups whose erase
// did not start hold again what they held before it, less their pages
// unfinished; groups with no program started since their last erase are
// free again (Recovery.FreedGroups). A group with a program started keeps
// its pages (the unfinished ones unreadable): an open one is filled on
// after them, a full one collected. The device must track data
// (nand.Config.TrackData), since the sequence numbers live there.
func (f *FTL) PowerLoss(cut PowerCut) (rec Recovery, err error) {
	if !f.dev.Config().TrackData {
		return rec, fmt.Errorf("%w: a power-loss rebuild needs the device to track data (nand.Config.TrackData)", ErrConfig)
	}
	flushed := f.flushSeq
	if cut.FlushedKnown {
		flushed = cut.Flushed
	}
	// What the host last wrote to each unit, and whether it was on
	// flash already (durable), to count what was lost.
	before := make([]uint32, len(f.l2p))
	unfinished := map[PageRef]bool{}
	for _, ref := range cut.Unfinished {
		unfinished[ref] = true
	}
	unerased := map[int]bool{}
	for _, g := range cut.Unerased {
		unerased[g] = true
	}
	onFlash := make([]bool, len(f.l2p))
	for lba := range f.l2p {
		if u := f.l2p.at(int64(lba)); u != Unmapped {
			before[lba] = f.seqOf(u)
			if f.stageOf(u) == nil {
				// (In a group whose erase did not start, nothing
				// programmed since it was.)
				pb, page := f.dev.Locate(int64(u))
				onFlash[lba] = !unfinished[PageRef{pb, page}] && !unerased[pb/f.np]
			}
		}
	}
	f.dropStaged(&rec)
	// The groups whose erase did not start hold their old data again;
	// then the pages the cut left unfinished or destroyed (of the flash as
	// it now is: those of a group unerased that were programmed before
	// its erase) hold nothing.
	for _, g := range cut.Unerased {
		if !unerased[g] {
			continue // listed twice
		}
		delete(unerased, g)
		if err := f.unerase(int32(g)); err != nil {
			return rec, err
		}
	}
	for _, refs := range [][]PageRef{cut.Unfinished, cut.Corrupted} {
		for _, ref := range refs {
			if err := f.dev.Corrupt(ref.Block, ref.Page); err != nil {
				return rec, err
			}
		}
	}
	for d := range f.clean {
		if g := f.clean[d].group; g >= 0 {
			f.busy[g] = false
			f.clean[d] = cleaning{group: -1}
		}
		for _, g := range f.pendingErase[d] {
			f.busy[g] = false
		}
		f.npending -= len(f.pendingErase[d])
		f.pendingErase[d] = f.pendingErase[d][:0]
		f.pendingDep[d] = f.pendingDep[d][:0]
	}
	if rec.FreedGroups, err = f.freeUnstarted(cut.Unstarted); err != nil {
		return rec, err
	}
	f.rebuild(&rec)
	for g, h := range f.supersededIn {
		// The host page being filled is gone: what it superseded reads
		// again, and every host program done is at rest once the host's
		// word lines are closed (below).
		f.supersededIn[g] = min(h, f.hostProgs)
	}
	if err := f.closeAtMount(); err != nil {
		return rec, err
	}
	// Full groups left with no live data (stale copies, victims that
	// waited for their erase) are erased while mounting.
	for g := int32(0); g < int32(f.dies*f.gpd); g++ {
		if f.candidate(g) && f.Valid(int(g)) == 0 {
			if err := f.eraseVictim(f.dieOf(g), g, GCStream, 0); err != nil {
				return rec, err
			}
			f.ForgetErased(int(g)) // done while mounting: nothing to keep
			rec.ErasedGroups++
		}
	}
	for lba, s := range before {
		if s == 0 {
			if f.l2p.at(int64(lba)) != Unmapped {
				rec.ResurrectedUnits++
				rec.Resurrected = append(rec.Resurrected, int64(lba))
			}
			continue
		}
		lost := false
		switch u := f.l2p.at(int64(lba)); {
		case u == Unmapped:
			lost = true
		case f.seqOf(u) != s:
			lost = true
			rec.RevertedUnits++
		}
		if lost {
			rec.LostUnits++
			rec.Lost = append(rec.Lost, int64(lba))
			switch {
			case !newer(s, flushed):
				rec.LostFlushedUnits++
			case onFlash[lba]:
				rec.LostProgrammedUnits++
			}
		}
	}
	// What survived is on flash, its word lines closed: as durable as
	// a flush would make it.
	f.flushSeq = f.wseq
	f.cnt.PowerLosses++
	f.cnt.LostUnits += rec.LostUnits
	f.cnt.LostFlushedUnits += rec.LostFlushedUnits
	f.cnt.LostProgrammedUnits += rec.LostProgrammedUnits
	f.cnt.ResurrectedUnits += rec.ResurrectedUnits
	f.cnt.RebuiltEntries += rec.Entries
	f.cnt.MountScanPages += rec.ScannedPages
	return rec, nil
}

// dropStaged empties every stage for a power cut: controller memory is
// gone (counted as discarded, as a secure erase counts what it drops).
func (f *FTL) dropStaged(rec *Recovery) {
	rec.StagedUnits = int64(f.host.host)
	f.cnt.DiscardedUnits += int64(f.host.host)
	f.cnt.DiscardedSlots += int64(f.host.n)
	f.cnt.DiscardedMoved += f.gcStaged()
	if f.fdp != nil {
		// The handles not being served lose theirs too; their open
		// groups stay theirs, filled on after what survived (the
		// drive's metadata names each group's handle).
		for h := range f.fdp.host {
			if s := &f.fdp.host[h]; h != f.fdp.active {
				rec.StagedUnits += int64(s.host)
				f.cnt.DiscardedUnits += int64(s.host)
				f.cnt.DiscardedSlots += int64(s.n)
			}
		}
		f.cnt.DiscardedMoved += f.idleGCStaged()
	}
	f.hostOwes = false
	for _, s := range f.stages() {
		// The stages start again at their open group's write pointer (a
		// GC stage may still name a group retired for a failed program).
		s.n, s.host, s.group = 0, 0, -1
	}
}

// freeUnstarted puts back on its die's free list each group every page of
// which, since its last erase that ran, is listed in unstarted (on every
// plane): its cells are still erased, and no erase is counted (the one
// that ran was). It is neither open nor parked any more. A group retired
// (Retired) stays so. It returns how many groups it freed.
func (f *FTL) freeUnstarted(unstarted []PageRef) (int64, error) {
	pages := make(map[PageRef]bool, len(unstarted))
	perBlock := map[int]int{}
	for _, r := range unstarted {
		if !pages[r] {
			pages[r] = true
			perBlock[r.Block]++
		}
	}
	groups := map[int32]bool{}
	for b := range perBlock {
		groups[int32(b/f.np)] = true
	}
	var n int64
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		if f.bad[g] || f.isFailing(g) {
			continue
		}
		all := true
		for p := 0; p < f.np && all; p++ {
			b := int(g)*f.np + p
			wp := f.dev.WritePointer(b)
			all = wp > 0 && perBlock[b] == wp
		}
		if !all {
			continue
		}
		for p := 0; p < f.np; p++ {
			if err := f.dev.Unprogram(int(g)*f.np + p); err != nil {
				return n, err
			}
		}
		if f.rev != nil {
			f.revErased(int(g))
		}
		d := f.dieOf(g)
		if f.isSLC(g) {
			f.slc[g] = false
			f.slcCount[d]--
		}
		f.forgetGroup(d, g)
		f.free[d] = append(f.free[d], g)
		f.nfree++
		n++
	}
	return n, nil
}

// forgetGroup makes group g of die d no stream's open or parked group,
// nor that of a stage, with no half programmed word line, and not busy.
func (f *FTL) forgetGroup(d int, g int32) {
	for st := range f.open {
		if f.open[st][d] == g {
			f.open[st][d] = -1
		}
	}
	if f.parked != nil && f.parked[d] == g {
		f.parked[d] = -1
	}
	if f.host.group == g {
		f.host.group = -1
	}
	if f.gc[d].group == g {
		f.gc[d].group = -1
	}
	if p := f.fdp; p != nil {
		for h := range p.host {
			if p.hostOpen[h][d] == g {
				p.hostOpen[h][d] = -1
			}
			if p.host[h].group == g {
				p.host[h].group = -1
			}
		}
		for o := range p.gc {
			if p.gc[o] == nil {
				continue
			}
			if pt := &p.gc[o][d]; pt.open == g {
				pt.open = -1
			}
			if pt := &p.gc[o][d]; pt.st.group == g {
				pt.st.group = -1
			}
		}
	}
	if f.wlOpen != nil && f.wlOpen[g] != 0 {
		f.wlOpen[g] = 0
		f.nwlOpen--
	}
	f.busy[g] = false
}

// unerase puts back what group g held before an erase that never ran:
// its pages as they were (every unit invalid until the rebuild decides),
// the group full again, not free, open or being cleaned.
func (f *FTL) unerase(g int32) error {
	k := f.erased[g]
	if len(k) == 0 {
		return fmt.Errorf("ftl: group %d: its erase did not run, but what it held was not kept (Config.KeepErased)", g)
	}
	e := k[0] // before the first erase that did not run
	d := f.dieOf(g)
	for p := 0; p < f.np; p++ {
		if err := f.dev.Restore(int(g)*f.np+p, e.wp, e.slc, e.tags, e.seqs, e.data); err != nil {
			return err
		}
	}
	if f.slc != nil && f.slc[g] != e.slc {
		f.slc[g] = e.slc
		if e.slc {
			f.slcCount[d]++
		} else {
			f.slcCount[d]--
		}
	}
	if i := slices.Index(f.free[d], g); i >= 0 {
		f.free[d] = slices.Delete(f.free[d], i, i+1)
		f.nfree--
	}
	f.forgetGroup(d, g)
	if f.bad[g] {
		// The erase went bad in the model, but it never ran: the group
		// is good again (nand.Device.Restore clears the block's mark).
		f.bad[g] = false
		f.nbadUsable--
		f.cnt.GrownBadGroups--
	}
	f.closedAt[g] = f.seq
	delete(f.erased, g)
	return nil
}

// stages returns every stage: the host's and each die's GC stage.
func (f *FTL) stages() []*stage {
	out := []*stage{&f.host}
	for d := range f.gc {
		out = append(out, &f.gc[d])
	}
	if p := f.fdp; p != nil {
		// With handles, the write points not being served too.
		for h := range p.host {
			if h != p.active {
				out = append(out, &p.host[h])
			}
		}
		for o := range p.gc {
			for d := range p.gc[o] {
				if o != p.gcActive[d] {
					out = append(out, &p.gc[o][d].st)
				}
			}
		}
	}
	return out
}

// seqOf returns the write sequence of the data physical unit u holds (or
// will hold, when it waits in a stage).
func (f *FTL) seqOf(u uint32) uint32 {
	if s := f.stageOf(u); s != nil {
		return s.seqs[f.slot(u)]
	}
	return f.dev.Seq(int64(u))
}

// newer reports whether write sequence a is later than b, in serial
// number arithmetic (the counter wraps).
func newer(a, b uint32) bool { return int32(a-b) > 0 }

// onOpenWordLine reports whether unit u is on a word line not yet
// complete, which a later program can destroy (SafeErase on MLC, TLC,
// QLC).
func (f *FTL) onOpenWordLine(u uint32) bool {
	if f.wl == 1 {
		return false
	}
	g := int32(int64(u) / int64(f.upg))
	if f.isSLC(g) {
		return false // one page a word line
	}
	wp := f.groupWP(g)
	if wp%f.wl == 0 || wp == f.ppb {
		return false
	}
	page := int(int64(u)%int64(f.upg)) / f.pageUnits
	return page >= wp-wp%f.wl
}

// rebuild scans every programmed page and maps each logical unit to its
// newest copy; every other unit becomes invalid.
func (f *FTL) rebuild(rec *Recovery) {
	clear(f.l2p)
	f.mapClean = false
	for g := 0; g < f.dies*f.gpd; g++ {
		wp := f.groupWP(int32(g))
		rec.ScannedPages += int64(wp)
		for page := 0; page < wp; page++ {
			base := int64(g)*int64(f.upg) + int64(page)*int64(f.pageUnits)
			for s := 0; s < f.pageUnits; {
				u := base + int64(s)
				tag := f.dev.Tag(u)
				n := 1
				if f.k > 1 && tag != nand.NoTag {
					// A compressed unit's slots follow one another in the
					// page, all with its tag and number.
					for s+n < f.pageUnits && n < f.k && f.dev.Tag(u+int64(n)) == tag && f.dev.Seq(u+int64(n)) == f.dev.Seq(u) {
						n++
					}
				}
				s += n
				if tag == nand.NoTag || int64(tag) >= int64(len(f.l2p)) {
					continue
				}
				if cur := f.l2p.at(int64(tag)); cur == Unmapped || newer(f.dev.Seq(u), f.dev.Seq(int64(cur))) ||
					(f.dev.Seq(u) == f.dev.Seq(int64(cur)) && f.onOpenWordLine(cur) && !f.onOpenWordLine(uint32(u))) {
					// (Of two copies of the same data, the one on a
					// complete word line: no program can destroy it.)
					f.l2p.set(int64(tag), uint32(u))
					if f.size != nil {
						f.size[tag] = uint8(n)
					}
				}
			}
		}
	}
	// Validity follows the new mapping.
	for g := 0; g < f.dies*f.gpd; g++ {
		wp := f.groupWP(int32(g))
		for page := 0; page < wp; page++ {
			base := int64(g)*int64(f.upg) + int64(page)*int64(f.pageUnits)
			for s := 0; s < f.pageUnits; s++ {
				_ = f.dev.SetValid(base+int64(s), false)
			}
		}
	}
	for lba := range f.l2p {
		u := f.l2p.at(int64(lba))
		if u == Unmapped {
			continue
		}
		rec.Entries++
		n := 1
		if f.size != nil {
			n = int(f.size[lba])
		}
		for i := range n {
			_ = f.dev.SetValid(int64(u)+int64(i), true)
		}
	}
}
