package ftl

import (
	"fmt"
	"slices"

	"github.com/ftlsim/ftlsim/nand"
)

// CheckInvariants verifies the FTL's state against the device's, and
// returns the first inconsistency found:
//   - every mapped logical unit points at a unit that is valid (or staged
//     in controller memory) and tagged with that logical unit;
//   - each group's valid units equal the logical units mapped to it;
//   - every group is exactly one of free (listed, erased), open (written
//     by one stream) or full, and all planes of a group agree;
//   - units programmed plus units staged cover every unit the host wrote.
//
// It walks the whole mapping, so it costs O(user units + groups).
func (f *FTL) CheckInvariants() error {
	groups := f.dies * f.gpd
	mapped := make([]int32, groups)
	units := f.dev.Geometry().Units() // not in the loop: it is products of the geometry's fields
	for lba := range f.l2p {
		u := f.l2p.at(int64(lba))
		if u == Unmapped {
			continue
		}
		if int64(u) >= units {
			return fmt.Errorf("ftl invariant: unit %d maps to %d, past the device", lba, u)
		}
		g, _ := f.split(u)
		n := 1
		if f.size != nil {
			n = int(f.size[lba])
			if n < 1 || n > f.k {
				return fmt.Errorf("ftl invariant: unit %d takes %d slots, allowed 1..%d", lba, n, f.k)
			}
			if k := f.slot(u); k+n > f.pageUnits {
				return fmt.Errorf("ftl invariant: unit %d at slot %d of %d straddles a page", lba, k, n)
			}
		}
		if s := f.stageOf(u); s != nil {
			k := f.slot(u)
			for i := k; i < k+n; i++ {
				if i >= int(s.n) || s.tags[i] != uint32(lba) {
					return fmt.Errorf("ftl invariant: unit %d maps to staged slot %d, which holds %d", lba, i, s.tags[i])
				}
			}
			continue
		}
		if f.rev != nil && (uint32(lba) < f.rev.lo[g] || uint32(lba) > f.rev.hi[g]) {
			return fmt.Errorf("ftl invariant: unit %d maps to group %d, whose range of programmed units is %d..%d", lba, g, f.rev.lo[g], f.rev.hi[g])
		}
		for i := int64(u); i < int64(u)+int64(n); i++ {
			if t := f.tagOf(i); !f.dev.IsValid(i) || (t != uint32(lba) && (f.rev == nil || t != nand.NoTag)) {
				return fmt.Errorf("ftl invariant: unit %d maps to physical unit %d (valid %v, tag %d)", lba, i, f.dev.IsValid(i), t)
			}
		}
		mapped[g] += int32(n)
	}
	isFree := make([]bool, groups)
	nfree := 0
	for d, fl := range f.free {
		for _, g := range fl {
			if f.dieOf(g) != d || isFree[g] {
				return fmt.Errorf("ftl invariant: free list of die %d holds group %d wrongly", d, g)
			}
			isFree[g] = true
			nfree++
		}
	}
	if nfree != f.nfree {
		return fmt.Errorf("ftl invariant: %d free groups listed, counter says %d", nfree, f.nfree)
	}
	var nFree, nOpen, nFull int
	for g := 0; g < groups; g++ {
		wp := f.groupWP(int32(g))
		for p := 1; p < f.np; p++ {
			if w := f.dev.WritePointer(g*f.np + p); w != wp {
				return fmt.Errorf("ftl invariant: group %d planes disagree: write pointers %d and %d", g, wp, w)
			}
		}
		if v := f.Valid(g); v != int(mapped[g]) {
			return fmt.Errorf("ftl invariant: group %d has %d valid units but %d logical units map to it", g, v, mapped[g])
		}
		switch {
		case f.bad[g]:
			if isFree[g] || f.isOpen(int32(g)) {
				return fmt.Errorf("ftl invariant: group %d, retired for a bad block, is in use", g)
			}
			nFree++
		case g%f.gpd >= f.gpd-f.reserved:
			if wp != 0 || isFree[g] || f.isOpen(int32(g)) {
				return fmt.Errorf("ftl invariant: reserved group %d is in use (%d pages programmed)", g, wp)
			}
			nFree++
		case isFree[g]:
			if wp != 0 {
				return fmt.Errorf("ftl invariant: free group %d has %d pages programmed", g, wp)
			}
			nFree++
		case f.isOpen(int32(g)):
			if wp == f.pagesIn(int32(g)) {
				return fmt.Errorf("ftl invariant: open group %d is full", g)
			}
			nOpen++
		case f.isFailing(int32(g)):
			nFull++ // retired for a failed program, its data not yet moved
		default:
			if wp != f.pagesIn(int32(g)) {
				return fmt.Errorf("ftl invariant: group %d is neither free, open nor full (%d of %d pages)", g, wp, f.pagesIn(int32(g)))
			}
			if f.dev.State(g*f.np) != nand.Full {
				return fmt.Errorf("ftl invariant: group %d not full on the device", g)
			}
			nFull++
		}
	}
	if nFree+nOpen+nFull != groups {
		return fmt.Errorf("ftl invariant: free %d + open %d + full %d != %d groups", nFree, nOpen, nFull, groups)
	}
	// Every unit the host wrote is either programmed or staged.
	moved := f.cnt.GCCopiedUnits + f.cnt.WLCopiedUnits + f.cnt.FoldedUnits - f.gcStaged() - f.cnt.DiscardedMoved
	hostProgrammed := f.cnt.ProgramUnits - f.cnt.PaddedUnits - moved - f.cnt.FailedProgramUnits
	if staged := f.hostStaged(); hostProgrammed+staged+f.cnt.DiscardedSlots != f.cnt.HostSlots {
		return fmt.Errorf("ftl invariant: %d host slots written, %d programmed, %d staged and %d discarded",
			f.cnt.HostSlots, hostProgrammed, staged, f.cnt.DiscardedSlots)
	}
	for g := 0; g < groups; g++ {
		want := f.isOpen(int32(g)) || f.clean[f.dieOf(int32(g))].group == int32(g) || slices.Contains(f.pendingErase[f.dieOf(int32(g))], int32(g))
		if f.busy[g] != want {
			return fmt.Errorf("ftl invariant: group %d busy flag %v, but open, cleaning or waiting to be erased is %v", g, f.busy[g], want)
		}
	}
	if err := f.checkSLC(isFree); err != nil {
		return err
	}
	for d, c := range f.clean {
		if c.group >= 0 && (f.dieOf(c.group) != d || (f.groupWP(c.group) != f.pagesIn(c.group) && !f.isFailing(c.group)) || f.isOpen(c.group)) {
			return fmt.Errorf("ftl invariant: die %d cleans group %d, which is not a full group of that die", d, c.group)
		}
	}
	return nil
}

// gcStaged counts units moved by GC that wait in a stage; they are
// counted as copied but not yet programmed.
func (f *FTL) gcStaged() int64 {
	var n int64
	for d := range f.gc {
		n += int64(f.gc[d].n)
	}
	if f.fdp != nil {
		n += f.idleGCStaged()
	}
	return n
}
