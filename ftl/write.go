package ftl

import (
	"errors"
	"fmt"
	"math"

	"github.com/ftlsim/ftlsim/nand"
)

// unmap invalidates the current location of lba, if any.
func (f *FTL) unmap(lba int64) error {
	u := f.l2p[lba]
	if u == Unmapped {
		return nil
	}
	f.l2p[lba] = Unmapped
	n := 1
	if f.size != nil {
		n = int(f.size[lba])
	}
	if s := f.stageOf(u); s != nil {
		k := f.slot(u)
		for i := range n {
			s.tags[k+i] = nand.NoTag
		}
		return nil
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
func (f *FTL) Write(lba int64, token uint32) error { return f.write(lba, token, f.k, AnyDie) }

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
	if n < 1 || n > f.k {
		return fmt.Errorf("%w: unit %d stored in %d slots, allowed 1..%d", ErrRange, lba, n, f.k)
	}
	if die < AnyDie || die >= f.dies {
		return fmt.Errorf("%w: host page on die %d, the device has %d", ErrRange, die, f.dies)
	}
	return f.write(lba, token, n, die)
}

// OpensPage reports whether a host write of n device units opens a new
// host page, and so needs a die (WriteOn): no host page is being filled,
// or the unit does not fit in the rest of the one that is (the write
// then pads and programs it first; MakeRoom does that alone).
func (f *FTL) OpensPage(n int) bool { return f.host.group < 0 || int(f.host.n)+n > f.pageUnits }

func (f *FTL) write(lba int64, token uint32, n, die int) error {
	if lba < 0 || lba >= int64(len(f.l2p)) {
		return fmt.Errorf("%w: write unit %d, user space has %d", ErrRange, lba, len(f.l2p))
	}
	if f.readOnly {
		return fmt.Errorf("%w: a failed program found no free group", ErrReadOnly)
	}
	if f.lost != nil {
		f.found(lba, 1) // new data replaces what was lost
	}
	if !f.lateUnmap {
		if err := f.unmap(lba); err != nil {
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
		if err := f.unmap(lba); err != nil {
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
	programmed, err := f.place(s, HostStream, lba, token, f.wseq, n)
	if err != nil || !programmed {
		return err
	}
	// A host page was just programmed on die d.
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
	f.host.group, f.host.page = g, int32(f.groupWP(g))
	return nil
}

// place puts lba into the next n slots of stage s, which must have room,
// and programs the page when it is full; it reports whether it did.
// Every slot of the unit carries its tag; the mapping points at the
// first.
func (f *FTL) place(s *stage, cause Stream, lba int64, token, seq uint32, n int) (bool, error) {
	k := s.n
	for i := range int32(n) {
		s.tags[k+i], s.data[k+i], s.seqs[k+i] = uint32(lba), token, seq
	}
	f.l2p[lba] = uint32(int64(s.group)*int64(f.upg) + int64(s.page)*int64(f.pageUnits) + int64(k))
	if f.size != nil {
		f.size[lba] = uint8(n)
	}
	s.n += int32(n)
	if int(s.n) == f.pageUnits {
		return true, f.program(s, cause)
	}
	return false, nil
}

// program writes stage s's page to every plane of its group.
func (f *FTL) program(s *stage, cause Stream) error {
	if f.readOnly {
		return ErrReadOnly
	}
	g, page := int(s.group), int(s.page)
	failed := false
	for p := 0; p < f.np; p++ {
		lo := p * f.upp
		if err := f.dev.Program(g*f.np+p, page, s.tags[lo:lo+f.upp], s.data[lo:lo+f.upp]); err != nil {
			if errors.Is(err, nand.ErrProgramFailed) {
				failed = true
				continue
			}
			return err
		}
		f.dev.SetSeqs(g*f.np+p, page, s.seqs[lo:lo+f.upp])
	}
	if failed {
		return f.programFailed(s, cause)
	}
	die := g / f.gpd
	slc := f.slc != nil && f.slc[g]
	f.cnt.ProgramUnits += int64(f.pageUnits)
	f.seq += uint64(f.pageUnits)
	if f.wl > 1 && !slc {
		f.trackWordLine(int32(g), page)
	}
	// Counted here rather than through record: this is the hot path
	// (TestOpLogMatchesCounters checks the two agree).
	f.cnt.Flash[cause].ProgramPages += int64(f.np)
	if f.cfg.RecordOps {
		f.ops = append(f.ops, Op{Kind: OpProgram, Cause: Cause(cause), Die: int32(die), Block: int32(g * f.np), Page: int32(page), Units: s.host, Planes: uint8(f.np), SLC: slc})
	}
	s.n, s.host = 0, 0
	if f.npending > 0 {
		// Cleaned victims waiting for this page can go now.
		if err := f.erasePendingReady(); err != nil {
			return err
		}
	}

	if page+1 == f.ppb || (slc && page+1 == f.slcPages) {
		f.closedAt[g] = f.seq
		f.busy[g] = false
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
		if t := s.tags[k]; t != nand.NoTag && int64(t) < int64(len(f.l2p)) && int64(f.l2p[t]) == old+k {
			f.l2p[t] = uint32(nu + k)
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
		return -1, fmt.Errorf("%w: die %d has no free group", ErrNoVictim, d)
	}
	g := f.takeFree(d)
	if f.slc != nil {
		if err := f.setNative(g); err != nil {
			return -1, err
		}
	}
	f.open[st][d] = g
	f.busy[g] = true
	if st == GCStream && f.wl > 1 && len(f.free[d]) < f.realFreeNeeded(d) && len(f.pendingErase[d]) > 0 {
		// Collection took a group the die cannot spare while victims
		// wait for word lines to close: close them and erase the
		// victims, as blocking collection would (a power cut now could
		// leave the die no group to collect into).
		if err := f.releasePending(d); err != nil {
			return g, err
		}
	}
	return g, nil
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

// Flush programs every partly filled page, padding it, as a controller
// does on a cache flush or before power-off: every host write before it
// is durable. With SafeErase it also closes every half programmed word
// line of the host's groups, padding its remaining pages, so that no
// later program can destroy what the flush made durable.
func (f *FTL) Flush() error {
	if f.readOnly {
		// Nothing can be programmed: what is staged stays in controller
		// memory, and on a one-shot part the pages of a half programmed
		// word line stay in the die's latches: not durable. The rest is
		// on flash.
		if f.host.n > 0 || f.gcStaged() > 0 {
			return fmt.Errorf("%w: the flush cannot program what is staged", ErrReadOnly)
		}
		if f.latchedHost() {
			return fmt.Errorf("%w: the flush cannot program the last page of a half programmed word line", ErrReadOnly)
		}
		f.flushSeq = f.wseq
		return nil
	}
	if err := f.pad(&f.host, HostStream); err != nil {
		return err
	}
	for d := range f.gc {
		if err := f.pad(&f.gc[d], GCStream); err != nil {
			return err
		}
	}
	if f.wl > 1 {
		// The host's word lines only: the units moved into the GC
		// groups' still have their old copies, which wait for those
		// lines to close (pendingStamp).
		if err := f.closeHostWordLines(); err != nil {
			return err
		}
	}
	f.flushSeq = f.wseq
	return nil
}

// latchedHost reports, on a one-shot part, whether an open host group
// has a half programmed word line: its pages wait in the die's latches
// for the word line's last page, which programs them all.
func (f *FTL) latchedHost() bool {
	if f.latchWL == 0 {
		return false
	}
	for _, g := range f.open[HostStream] {
		if g < 0 || f.isSLC(g) {
			continue
		}
		if wp := f.groupWP(g); wp%f.latchWL != 0 && wp != f.ppb {
			return true
		}
	}
	return false
}

// WriteSeq returns the number of the latest host write (each write's
// data carries its number into the OOB area); a flush makes every write
// up to it durable.
func (f *FTL) WriteSeq() uint32 { return f.wseq }

// trackWordLine notes that page of group g was just programmed: the
// first page of a word line opens it, the last closes it.
func (f *FTL) trackWordLine(g int32, page int) {
	switch {
	case (page+1)%f.wl == 0 || page+1 == f.ppb:
		if f.wlOpen[g] != 0 {
			f.wlOpen[g] = 0
			f.nwlOpen--
		}
	case page%f.wl == 0:
		f.wlOpen[g] = f.seq
		f.nwlOpen++
	}
}

// hostOpenWordLine returns the program clock at which the oldest half
// programmed word line of the host's open groups was started (MaxUint64
// when none is).
func (f *FTL) hostOpenWordLine() uint64 {
	m := uint64(math.MaxUint64)
	if f.nwlOpen == 0 {
		return m
	}
	for _, g := range f.open[HostStream] {
		if g >= 0 && f.wlOpen[g] != 0 {
			m = min(m, f.wlOpen[g])
		}
	}
	return m
}

// openWordLine returns the program clock at which the oldest half
// programmed word line that may hold data of a victim of die d was
// started, given the host's (hostOpenWordLine): the host's groups (data
// that superseded the victim's units) and die d's GC group (the units
// moved out of it).
func (f *FTL) openWordLine(d int, host uint64) uint64 {
	if g := f.open[GCStream][d]; g >= 0 && f.wlOpen[g] != 0 {
		return min(host, f.wlOpen[g])
	}
	return host
}

// closeWordLines pads every half programmed word line of the open groups
// to its end (SafeErase on MLC, TLC and QLC flash), programming first the
// pages being filled.
func (f *FTL) closeWordLines() error {
	if f.nwlOpen == 0 {
		return nil
	}
	for st := range f.open {
		for d := range f.open[st] {
			if err := f.closeWordLine(Stream(st), d); err != nil {
				return err
			}
		}
	}
	return nil
}

// SettlePending is for a drive gone idle, with SafeErase: when cleaned
// victims wait for their erase, it programs the pages being filled
// (padded), closes the half programmed word lines, and erases them. It
// reports whether there were any.
func (f *FTL) SettlePending() (bool, error) {
	if f.npending == 0 || f.readOnly {
		return false, nil
	}
	if err := f.pad(&f.host, HostStream); err != nil {
		return true, err
	}
	for d := range f.gc {
		if err := f.pad(&f.gc[d], GCStream); err != nil {
			return true, err
		}
	}
	if err := f.closeWordLines(); err != nil {
		return true, err
	}
	return true, f.erasePendingReady()
}

// closeHostWordLines closes the half programmed word lines of the host's
// open groups on every die (closeWordLine).
func (f *FTL) closeHostWordLines() error {
	for d := range f.open[HostStream] {
		if err := f.closeWordLine(HostStream, d); err != nil {
			return err
		}
	}
	return nil
}

// closeWordLine programs the page stream st is filling on die d, padded,
// and pads the half programmed word line of its open group there, if any.
func (f *FTL) closeWordLine(st Stream, d int) error {
	s := &f.host
	if st == GCStream {
		s = &f.gc[d]
	}
	for g := f.open[st][d]; g >= 0 && f.wlOpen[g] != 0; g = f.open[st][d] {
		if s.n > 0 {
			if err := f.pad(s, st); err != nil {
				return err
			}
			continue
		}
		s.group, s.page = g, int32(f.groupWP(g))
		for s.n < int32(f.pageUnits) {
			s.tags[s.n], s.data[s.n] = nand.NoTag, 0
			s.n++
		}
		f.cnt.PaddedUnits += int64(f.pageUnits)
		if err := f.program(s, st); err != nil {
			return err
		}
	}
	return nil
}

// pad fills the rest of stage s's page with empty units and programs it.
func (f *FTL) pad(s *stage, cause Stream) error {
	if s.group < 0 || s.n == 0 {
		return nil
	}
	for s.n < int32(f.pageUnits) {
		s.tags[s.n], s.data[s.n] = nand.NoTag, 0
		s.n++
		f.cnt.PaddedUnits++
	}
	return f.program(s, cause)
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
