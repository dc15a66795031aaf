package ftl

import (
	"errors"
	"fmt"

	"github.com/ftlsim/ftlsim/nand"
)

// unmap invalidates the current location of lba, if any: superseded by
// a host write into the host page being filled, or trimmed (a trimmed
// unit needs no newer copy: TRIM is not journaled).
func (f *FTL) unmap(lba int64, trim bool) error {
	u := f.l2p.at(lba)
	if u == Unmapped {
		return nil
	}
	f.l2p.set(lba, Unmapped)
	n := 1
	if f.size != nil {
		n = int(f.size[lba])
	}
	if s := f.stageOf(u); s != nil {
		k := f.slot(u)
		for i := range n {
			s.tags[k+i] = nand.NoTag
		}
		if f.supersededIn != nil && s != &f.host && !trim {
			f.supersedeMoved(int(s.group) / f.gpd)
		}
		return nil
	}
	if f.supersededIn != nil && !trim {
		// The new data goes to the host page being filled.
		g, _ := f.split(u)
		f.supersededIn[g] = f.hostProgs + 1
		f.hostOwes = true
	}
	for i := range n - 1 {
		if err := f.dev.Invalidate(int64(u) + int64(i) + 1); err != nil {
			return err
		}
	}
	return f.dev.Invalidate(int64(u))
}

// Write maps logical unit lba to new data carrying token (an opaque payload
// the device keeps when it tracks data), stored uncompressed; a new host
// page goes to the next die in turn (see WriteOn).
func (f *FTL) Write(lba int64, token uint32) error {
	if f.fdp != nil {
		return f.WriteHandle(0, AnyDie, lba, token, f.k)
	}
	return f.write(lba, token, f.k, AnyDie)
}

// WriteSlots is Write for data that takes n device units once stored
// (compressed), 1 ≤ n ≤ UnitSlots. A unit never straddles two pages: when
// it does not fit in the rest of the page being filled, that rest is
// padded.
func (f *FTL) WriteSlots(lba int64, token uint32, n int) error {
	return f.WriteOn(AnyDie, lba, token, n)
}

// WriteOn is WriteSlots with the die a new host page goes to, if this
// write opens one (OpensPage says whether it will): the caller chooses
// it, from what only it knows (a controller: which die frees up first),
// and AnyDie leaves it to the FTL. A die whose groups all hold valid
// data cannot take the page; it then goes to the next die that can.
func (f *FTL) WriteOn(die int, lba int64, token uint32, n int) error {
	if f.fdp != nil {
		return f.WriteHandle(0, die, lba, token, n)
	}
	return f.write(lba, token, n, die)
}

// badWrite is the error of a write of lba in n slots on die, one of which
// is out of range.
func (f *FTL) badWrite(die int, lba int64, n int) error {
	switch {
	case lba < 0 || lba >= int64(len(f.l2p)):
		return fmt.Errorf("%w: write unit %d, user space has %d", ErrRange, lba, len(f.l2p))
	case n < 1 || n > f.k:
		return fmt.Errorf("%w: unit %d stored in %d slots, allowed 1..%d", ErrRange, lba, n, f.k)
	}
	return fmt.Errorf("%w: host page on die %d, the device has %d", ErrRange, die, f.dies)
}

// OpensPage reports whether a host write of n device units opens a new
// host page, and so needs a die (WriteOn): no host page is being filled,
// or the unit does not fit in the rest of the one that is (the write
// then pads and programs it first; MakeRoom does that alone).
func (f *FTL) OpensPage(n int) bool { return f.host.group < 0 || int(f.host.n)+n > f.pageUnits }

func (f *FTL) write(lba int64, token uint32, n, die int) error {
	if uint64(lba) >= uint64(len(f.l2p)) || uint(n-1) >= uint(f.k) || uint(die+1) > uint(f.dies) {
		return f.badWrite(die, lba, n)
	}
	if f.readOnly {
		return fmt.Errorf("%w: a failed program found no free group", ErrReadOnly)
	}
	if f.lost != nil {
		f.found(lba, 1) // new data replaces what was lost
	}
	if !f.lateUnmap {
		if err := f.unmap(lba, false); err != nil {
			return err
		}
	}
	s := &f.host
	if s.group >= 0 && int(s.n)+n > f.pageUnits {
		if err := f.MakeRoom(n); err != nil {
			return err
		}
	}
	if s.group < 0 {
		if err := f.openHostPage(die); err != nil {
			return err
		}
	}
	if f.lateUnmap {
		// The old copy is let go only now, with the page that takes the
		// new data open: collection run to open it must not erase a
		// victim whose data this write supersedes while the write is not
		// yet in the page (safe erase: it waits for that page to be
		// programmed), and a write refused for want of space (blocks gone
		// bad) leaves the old data readable.
		if err := f.unmap(lba, false); err != nil {
			return err
		}
	}
	if f.slc != nil && f.slc[s.group] {
		f.cnt.SLCHostUnits++
	}
	f.cnt.HostWriteUnits++
	f.cnt.HostRawSlots += int64(f.k)
	f.cnt.HostSlots += int64(n)
	s.host++
	d := int(s.group) / f.gpd
	f.wseq++
	// The unit fills the page: place programs it.
	fills := int(s.n)+n == f.pageUnits
	if err := f.place(s, HostStream, lba, token, f.wseq, n); err != nil || !fills {
		return err
	}
	return f.hostPageDone(d)
}

// hostPageDone paces the SLC cache's folding and collection after a host
// page was programmed on die d.
func (f *FTL) hostPageDone(d int) error {
	if f.slc != nil && !f.cfg.SLCDirect {
		if err := f.paceFold(d); err != nil {
			return err
		}
	}
	if f.cfg.GCPaceWater > 0 {
		return f.pace(d)
	}
	return nil
}

// openHostPage opens the host page on die (AnyDie: the next in turn),
// or on the next die that can take it when die's groups all hold valid
// data (on small drives one die can fill while others have room).
func (f *FTL) openHostPage(die int) error {
	d := die
	if d == AnyDie {
		d = f.nextDie
		if f.nextDie++; f.nextDie == f.dies {
			f.nextDie = 0
		}
	}
	g, err := f.openGroup(HostStream, d)
	if err != nil {
		for i := 1; errors.Is(err, ErrNoVictim) && i < f.dies; i++ {
			d = (d + 1) % f.dies
			g, err = f.openGroup(HostStream, d)
		}
		if errors.Is(err, ErrNoVictim) && (f.cnt.GrownBadGroups > 0 || f.cnt.ProgramFailures > 0) {
			return fmt.Errorf("%w: %d groups retired for blocks gone bad have used up the spare area: %w", ErrReadOnly, f.cnt.GrownBadGroups, err)
		}
		if err != nil {
			return err
		}
	}
	f.host.group, f.host.page = g, int32(f.groupWP(g))
	return nil
}

// place puts lba into the next n slots of stage s, which must have room,
// and programs the page when it is full. Every slot of the unit carries
// its tag; the mapping points at the first.
func (f *FTL) place(s *stage, cause Stream, lba int64, token, seq uint32, n int) error {
	k := s.n
	for i := range int32(n) {
		s.tags[k+i], s.data[k+i], s.seqs[k+i] = uint32(lba), token, seq
	}
	f.l2p.set(lba, uint32(int64(s.group)*int64(f.upg)+int64(s.page)*int64(f.pageUnits)+int64(k)))
	f.mapClean = false
	if f.size != nil {
		f.size[lba] = uint8(n)
	}
	s.n += int32(n)
	if int(s.n) == f.pageUnits {
		return f.program(s, cause)
	}
	return nil
}

// program writes stage s's page to every plane of its group.
func (f *FTL) program(s *stage, cause Stream) error {
	if f.readOnly {
		return ErrReadOnly
	}
	g, page := int(s.group), int(s.page)
	failed := false
	if f.dev.ProgramGroup(g, page, s.tags, s.data) {
		f.dev.SetGroupSeqs(g, page, s.seqs)
		if f.rev != nil {
			f.revProgrammed(g, page, 0, s.tags) // the planes' pages are consecutive units
		}
	} else {
		var err error
		if failed, err = f.programPlanes(s, g, page); err != nil {
			return err
		}
	}
	if failed {
		return f.programFailed(s, cause)
	}
	die := g / f.gpd
	slc := f.slc != nil && f.slc[g]
	if f.fdp != nil {
		f.noteProgram(s)
	}
	f.cnt.ProgramUnits += int64(f.pageUnits)
	f.seq += uint64(f.pageUnits)
	var tag ProgTag
	if f.gcProgs != nil {
		n := &f.hostProgs
		if cause != HostStream {
			n = &f.gcProgs[die]
		} else {
			f.hostOwes = false
		}
		*n++
		if f.wl > 1 && !slc {
			f.trackWordLine(int32(g), page, *n)
		}
		if cause == HostStream {
			tag = progTag(*n, f.wl == 1 || slc || f.wlOpen[g] == 0)
		}
	}
	// Counted here rather than through record: this is the hot path
	// (TestOpLogMatchesCounters checks the two agree).
	f.cnt.Flash[cause].ProgramPages += int64(f.np)
	if f.cfg.RecordOps {
		// Filled in place: an Op literal built on the stack and copied
		// stalls on its own byte stores.
		f.ops = append(f.ops, Op{})
		op := &f.ops[len(f.ops)-1]
		op.Kind, op.Cause, op.Die, op.Block, op.Page, op.Units, op.Planes, op.SLC = OpProgram, Cause(cause), int32(die), int32(g*f.np), int32(page), s.host, uint8(f.np), slc
		op.Prog = tag
	}
	s.n, s.host = 0, 0
	if f.npending > 0 {
		// Cleaned victims waiting for this page can go now.
		if err := f.erasePendingAfter(cause, die); err != nil {
			return err
		}
	}

	if page+1 == f.ppb || (slc && page+1 == f.slcPages) {
		f.closedAt[g] = f.seq
		f.busy[g] = false
		if f.rev != nil {
			f.revClosed(g)
		}
		st := HostStream
		if cause != HostStream {
			st = GCStream
		}
		f.open[st][die] = -1
		s.group = -1
		return nil
	}
	if cause == HostStream {
		s.group = -1 // the next host page may go to another die
	} else {
		s.page++
	}
	return nil
}

// programPlanes programs stage s's page, page of group g, one plane
// after another, and reports whether a plane's program failed
// (nand.ErrProgramFailed: the other planes are still programmed).
func (f *FTL) programPlanes(s *stage, g, page int) (failed bool, err error) {
	for p := 0; p < f.np; p++ {
		lo := p * f.upp
		if err := f.dev.Program(g*f.np+p, page, s.tags[lo:lo+f.upp], s.data[lo:lo+f.upp]); err != nil {
			if errors.Is(err, nand.ErrProgramFailed) {
				failed = true
				continue
			}
			return failed, err
		}
		f.dev.SetSeqs(g*f.np+p, page, s.seqs[lo:lo+f.upp])
		if f.rev != nil {
			f.revProgrammed(g, page, p, s.tags[lo:lo+f.upp])
		}
	}
	return failed, nil
}

// programFailed handles a program of stage s's page that failed on a
// plane (nand.ErrProgramFailed): the attempt is counted, the copies the
// other planes took are let go, the group is retired — no page goes to it
// again, collection moves its valid data out next (retireQ) and it is not
// erased — and the page is programmed again in a free group of the die.
func (f *FTL) programFailed(s *stage, cause Stream) error {
	g, page := s.group, int(s.page)
	d := int(g) / f.gpd
	f.cnt.ProgramFailures++
	f.seq += uint64(f.pageUnits)
	f.cnt.Flash[cause].ProgramPages += int64(f.np)
	if f.cfg.RecordOps {
		f.ops = append(f.ops, Op{Kind: OpProgram, Cause: Cause(cause), Die: int32(d), Block: g * int32(f.np), Page: int32(page), Planes: uint8(f.np), SLC: f.isSLC(g)})
	}
	// The copies the other planes took are let go: the data is in the
	// stage still.
	old := int64(g)*int64(f.upg) + int64(page)*int64(f.pageUnits)
	for k := range int64(f.pageUnits) {
		if f.dev.IsValid(old + k) {
			if err := f.dev.Invalidate(old + k); err != nil {
				return err
			}
		}
	}
	st := HostStream
	if cause != HostStream {
		st = GCStream
	}
	if f.wl > 1 && f.wlOpen[g] != 0 {
		f.wlOpen[g] = 0
		f.nwlOpen--
	}
	if f.failing == nil {
		f.failing = make([]bool, len(f.busy))
		f.retireQ = make([][]int32, f.dies)
	}
	f.failing[g] = true
	f.retireQ[d] = append(f.retireQ[d], g)
	if f.open[st][d] == g {
		f.open[st][d] = -1
	}
	f.busy[g] = false
	f.closedAt[g] = f.seq
	if len(f.free[d]) == 0 {
		// Nowhere to program the page again: the drive turns read-only,
		// the page's data kept in controller memory (it still reads).
		f.readOnly = true
		return fmt.Errorf("%w: die %d: a program failed and no free group is left to program the page again", ErrReadOnly, d)
	}
	// The attempt used flash: counted with the units it took.
	f.cnt.ProgramUnits += int64(f.pageUnits)
	f.cnt.FailedProgramUnits += int64(f.pageUnits)
	ng := f.takeFree(d)
	if f.slc != nil {
		// The page goes to a native group.
		if err := f.setNative(ng); err != nil {
			return err
		}
	}
	f.open[st][d] = ng
	f.busy[ng] = true
	// The page's units now go to the new group's first page.
	nu := int64(ng) * int64(f.upg)
	for k := range int64(f.pageUnits) {
		if t := s.tags[k]; t != nand.NoTag && int64(t) < int64(len(f.l2p)) && int64(f.l2p.at(int64(t))) == old+k {
			f.l2p.set(int64(t), uint32(nu+k))
		}
	}
	s.group, s.page = ng, 0
	return f.program(s, cause)
}

// openGroup returns the open group of stream st on die d, opening a new
// one (after foreground GC for the host stream) when there is none.
func (f *FTL) openGroup(st Stream, d int) (int32, error) {
	if g := f.open[st][d]; g >= 0 && (st != HostStream || f.slc == nil || !f.park(d)) {
		return g, nil
	}
	if st == HostStream && f.slc != nil {
		if g, err := f.openSLC(d); err != nil || g >= 0 {
			return g, err
		}
	}
	if st == HostStream {
		if err := f.collectBlocking(d); err != nil {
			return -1, err
		}
	}
	if len(f.free[d]) == 0 && len(f.pendingErase[d]) > 0 {
		// Cleaned victims wait for the pages being filled: program them
		// (padded).
		if err := f.releasePending(d); err != nil {
			return -1, err
		}
	}
	if len(f.free[d]) == 0 && st == GCStream {
		// Collection may take the host's open group while nothing is
		// programmed in it: an erased group is as good as a free one
		// (padding word lines for safe erase can use the last).
		if g := f.open[HostStream][d]; g >= 0 && f.groupWP(g) == 0 && (f.host.group != g || f.host.n == 0) {
			f.open[HostStream][d] = -1
			if f.host.group == g {
				f.host.group = -1
			}
			if f.isSLC(g) {
				f.slc[g] = false
				f.slcCount[d]--
				if err := f.setNative(g); err != nil {
					return -1, err
				}
			}
			f.open[st][d] = g
			return g, nil
		}
	}
	if len(f.free[d]) == 0 {
		if f.cnt.GrownBadGroups > 0 || f.cnt.ProgramFailures > 0 {
			// Blocks gone bad have used up the spare area.
			f.readOnly = true
			return -1, fmt.Errorf("%w: die %d has no free group left after %d groups went bad", ErrReadOnly, d, f.cnt.GrownBadGroups+f.cnt.ProgramFailures)
		}
		return -1, f.noFreeGroup(d)
	}
	g := f.takeFree(d)
	if f.slc != nil {
		if err := f.setNative(g); err != nil {
			return -1, err
		}
	}
	f.open[st][d] = g
	f.busy[g] = true
	if st == GCStream && len(f.free[d]) < f.realFreeNeeded(d) && len(f.pendingErase[d]) > 0 {
		// Collection took a group the die cannot spare while victims
		// wait for their erase: program what they wait for and erase
		// them, as blocking collection would (a power cut now could
		// leave the die no group to collect into).
		if err := f.releasePending(d); err != nil {
			return g, err
		}
	}
	return g, nil
}

// noFreeGroup is the error for die d having no free group to open. With
// no group open for collection either and live data in every full group,
// nothing can make one: there is nowhere to move the data to.
func (f *FTL) noFreeGroup(d int) error {
	full, least := 0, f.upg
	for g := int32(d * f.gpd); g < int32((d+1)*f.gpd); g++ {
		if f.candidate(g) {
			full++
			least = min(least, f.Valid(int(g)))
		}
	}
	if f.open[GCStream][d] >= 0 || least == 0 {
		return fmt.Errorf("%w: die %d has no free group", ErrNoVictim, d)
	}
	return fmt.Errorf("%w: die %d has no free group and no group open for collection to copy into: its %d full groups all hold live data (the least %d of %d units), so no victim can be cleaned to make room",
		ErrNoVictim, d, full, least, f.upg)
}

// takeFree takes die d's least-worn free group (dynamic wear levelling);
// there must be one.
func (f *FTL) takeFree(d int) int32 {
	fl := f.free[d]
	best := len(fl) - 1
	be := f.dev.EraseCount(int(fl[best]) * f.np)
	for i := len(fl) - 2; i >= 0; i-- {
		if e := f.dev.EraseCount(int(fl[i]) * f.np); e < be {
			best, be = i, e
		}
	}
	g := fl[best]
	fl[best] = fl[len(fl)-1]
	f.free[d] = fl[:len(fl)-1]
	f.nfree--
	f.freeMin = min(f.freeMin, f.nfree+f.npending)
	return g
}

// HostRoom returns the device units still free in the host page being
// filled (0 when none is open).
func (f *FTL) HostRoom() int {
	if f.host.group < 0 {
		return 0
	}
	return f.pageUnits - int(f.host.n)
}

// MakeRoom pads and programs the host page being filled when a unit of n
// device units would not fit in it, as WriteOn would: a caller that
// chooses the die of the next host page from the flash work under way
// carries out the padded page's (Ready) before it chooses.
func (f *FTL) MakeRoom(n int) error {
	s := &f.host
	if s.group < 0 || int(s.n)+n <= f.pageUnits {
		return nil
	}
	d := int(s.group) / f.gpd
	if err := f.pad(s, HostStream); err != nil {
		return err
	}
	if f.cfg.GCPaceWater > 0 {
		return f.pace(d)
	}
	return nil
}
