package ftl

import "fmt"

// The SLC cache. A group taken for host data in SLC mode holds one page
// per word line (nand.Device.SLCPages) programmed in the part's fast SLC
// time. It is never a garbage-collection candidate: the FTL folds it
// instead, moving its valid units (those neither overwritten nor trimmed
// since) into the die's native GC group, then erasing it. Folding runs
// while the host waits when the cache is full (unless Config.SLCDirect),
// when collection needs space and an SLC group is the cheaper to reclaim
// (the fold stages of victim selection, pipeline.go), and in the
// background when the drive is idle (FoldBackground).

// validateSLC checks the SLC cache's sizes against the die.
func (f *FTL) validateSLC() error {
	c := f.cfg
	if c.SLCStaticGroups < 0 || c.SLCStaticGroups > f.gpd/2 {
		return fieldErr("SLCStaticGroups", c.SLCStaticGroups, fmt.Sprintf("0..%d", f.gpd/2), "groups per die: half the groups of a die")
	}
	if c.SLCDynamicGroups < 0 || c.SLCDynamicGroups > f.gpd {
		return fieldErr("SLCDynamicGroups", c.SLCDynamicGroups, fmt.Sprintf("0..%d", f.gpd), "groups per die: the groups of a die")
	}
	if c.SLCDynamicReserve < 0 || c.SLCDynamicReserve > f.gpd {
		return fieldErr("SLCDynamicReserve", c.SLCDynamicReserve, fmt.Sprintf("0..%d", f.gpd), "groups per die: the groups of a die")
	}
	return nil
}

// HasSLCCache reports whether the FTL has an SLC cache.
func (f *FTL) HasSLCCache() bool { return f.slc != nil }

// isSLC reports whether group g is in SLC mode.
func (f *FTL) isSLC(g int32) bool { return f.slc != nil && f.slc[g] }

// pagesIn returns the pages group g holds in its mode.
func (f *FTL) pagesIn(g int32) int {
	if f.slc != nil && f.slc[g] {
		return f.slcPages
	}
	return f.ppb
}

// SLCGroups returns the groups of die d in SLC mode (open, full or being
// folded).
func (f *FTL) SLCGroups(d int) int {
	if f.slc == nil {
		return 0
	}
	return int(f.slcCount[d])
}

// SLCCacheUnits returns the device units the SLC cache could take on
// every die now, beyond what its open groups still take: its room
// (static and dynamic) at the drive's current free space, less what it
// holds.
func (f *FTL) SLCCacheUnits() int64 {
	if f.slc == nil {
		return 0
	}
	var n int64
	for d := 0; d < f.dies; d++ {
		n += int64(f.slcRoom(d)) * int64(f.slcPages*f.pageUnits)
	}
	return n
}

// slcRoom returns how many more groups die d may take in SLC mode now.
func (f *FTL) slcRoom(d int) int {
	c := f.cfg
	n := int(f.slcCount[d])
	room := max(c.SLCStaticGroups-n, 0)
	// The dynamic region: groups beyond the static ones, while enough
	// free groups stay to fold everything the cache would then hold
	// (each native group takes the units of bits SLC groups) and keep
	// collection's high water.
	// With k groups in SLC mode, the die keeps free+n−k groups free and
	// needs ⌈k/bits⌉ of them to fold: k + ⌈k/bits⌉ ≤ free + n − high
	// (− the reserve).
	b := f.ppb / f.slcPages
	x := f.freeOrErasing(d) + n - c.GCHighWater - c.SLCDynamicReserve
	k := max(x*b/(b+1), 0)
	for k > 0 && k+(k+b-1)/b > x {
		k--
	}
	for k+1+(k+b)/b <= x {
		k++
	}
	k = min(k, c.SLCStaticGroups+c.SLCDynamicGroups)
	return max(room, k-n)
}

// park sets aside the native group the host is filling on die d when
// the SLC cache has room again (folded while the drive was idle) and
// nothing of the group waits in the host's stage or on a half programmed
// word line: the next host page then opens an SLC group, and the native
// group takes host pages again once the cache is full (unpark).
func (f *FTL) park(d int) bool {
	g := f.open[HostStream][d]
	if f.parked[d] >= 0 || f.slc[g] || (f.host.group == g && f.host.n > 0) || f.slcRoom(d) == 0 {
		return false
	}
	wp := f.groupWP(g)
	if (f.wlOpen != nil && f.wlOpen[g] != 0) || (f.latchWL > 0 && wp%f.latchWL != 0) {
		return false
	}
	f.open[HostStream][d] = -1
	if f.host.group == g {
		f.host.group = -1
	}
	f.parked[d] = g
	return true
}

// unpark makes die d's parked native group, if any, the host's open
// group again and returns it (-1 when there is none).
func (f *FTL) unpark(d int) int32 {
	g := f.parked[d]
	if g >= 0 {
		f.parked[d] = -1
		f.open[HostStream][d] = g
	}
	return g
}

// openSLC opens a host group on die d in SLC mode if the cache has room,
// folding in the foreground (unless Config.SLCDirect) while it has none.
// It returns -1 when the host page should go to a native group.
func (f *FTL) openSLC(d int) (int32, error) {
	for f.slcRoom(d) == 0 {
		if f.cfg.SLCDirect {
			return f.unpark(d), nil
		}
		did, err := f.fold(d)
		if err != nil {
			return -1, err
		}
		if !did {
			return f.unpark(d), nil
		}
	}
	if f.freeOrErasing(d) <= f.cfg.GCLowWater || len(f.free[d]) < max(f.realFreeNeeded(d), 1) {
		// A static group the die has no free group for: collect first.
		if err := f.collectBlocking(d); err != nil {
			return -1, err
		}
		if len(f.free[d]) == 0 {
			return f.unpark(d), nil
		}
	}
	g := f.takeFree(d)
	for p := 0; p < f.np; p++ {
		if err := f.dev.SetSLC(int(g)*f.np+p, true); err != nil {
			return -1, err
		}
	}
	f.slc[g] = true
	f.slcCount[d]++
	f.open[HostStream][d] = g
	f.busy[g] = true
	return g, nil
}

// setNative puts group g's blocks back in their native mode, for a group
// opened for native data.
func (f *FTL) setNative(g int32) error {
	for p := 0; p < f.np; p++ {
		if err := f.dev.SetSLC(int(g)*f.np+p, false); err != nil {
			return err
		}
	}
	return nil
}

// fold folds one SLC group of die d — or finishes the victim the die is
// cleaning, if any — and reports whether there was one.
func (f *FTL) fold(d int) (bool, error) {
	if f.readOnly {
		return false, ErrReadOnly
	}
	if f.clean[d].group >= 0 {
		_, err := f.copyPages(d, -1)
		return true, err
	}
	c, _ := f.chooseVictim(d, pathFold, 0)
	if c.group < 0 {
		return false, nil
	}
	f.startFold(d, int32(c.group))
	_, err := f.copyPages(d, -1)
	return true, err
}

// paceFold, after a host page on die d of a drive that folds while the
// host waits (not Config.SLCDirect), folds the die's oldest SLC group a
// little at a time once the cache has at most one group of room left:
// the host then waits for small steps rather than for a whole group's
// fold each time the cache fills. It copies v/S of a unit a host unit
// (v valid units of the S an SLC group holds), which frees SLC groups
// as fast as the host fills them, times (bits+1)/bits, as the cache
// also shrinks by a bits+1-th of what is folded into native groups.
func (f *FTL) paceFold(d int) error {
	c := &f.clean[d]
	if c.group < 0 {
		if f.slcRoom(d) > 1 {
			return nil
		}
		v, _ := f.chooseVictim(d, pathFold, 0)
		if v.group < 0 {
			return nil
		}
		f.startFold(d, int32(v.group))
		b := float64(f.ppb / f.slcPages)
		c.ratio = float64(f.Valid(v.group)) / float64(f.slcPages*f.pageUnits) * (b + 1) / b
		c.slcPaced = true
	}
	if !c.slcPaced {
		return nil // a collection victim: pace and the blocking path see to it
	}
	return f.payCredit(d, c.ratio*float64(f.pageUnits))
}

// startFold makes SLC group g die d's folding target (paced as a
// collection victim: v/(U−v) units a host unit, for v valid units and U a
// native group's, the space folding it frees).
func (f *FTL) startFold(d int, g int32) {
	f.cnt.FoldRuns++
	v := float64(f.Valid(int(g)))
	f.clean[d] = cleaning{group: g, cause: FoldStream, ratio: v / (float64(f.upg) - v)}
	f.busy[g] = true
	f.record(Op{Kind: OpVictim, Cause: CauseFold, Die: int32(d), Block: g * int32(f.np), Planes: uint8(f.np), SLC: true})
}

// NeedsFold reports whether die d has SLC groups waiting to be folded (or
// a fold in progress): while the drive is idle the firmware folds them
// all (FoldBackground), so that the whole cache is available to the
// next burst of writes.
func (f *FTL) NeedsFold(d int) bool {
	if f.slc == nil || f.readOnly {
		return false
	}
	if c := f.clean[d]; c.group >= 0 {
		return c.cause == FoldStream
	}
	return f.foldVictim(d) >= 0
}

// FoldBackground folds one SLC group of die d while the drive is idle
// and reports whether it did any work.
func (f *FTL) FoldBackground(d int) (bool, error) {
	if !f.NeedsFold(d) {
		return false, nil
	}
	f.cnt.BackgroundFoldRuns++
	did, err := f.fold(d)
	if err == ErrReadOnly {
		return did, nil
	}
	return did, err
}

// checkSLC checks the SLC cache's invariants: the per-die counts match
// the groups in SLC mode; a group in SLC mode is not free, is in SLC mode
// on the device, and is cleaned only by folding; the native groups
// holding data are native on the device; the GC group is native.
func (f *FTL) checkSLC(isFree []bool) error {
	if f.slc == nil {
		return nil
	}
	for d := 0; d < f.dies; d++ {
		n := int32(0)
		for g := int32(d * f.gpd); g < int32((d+1)*f.gpd); g++ {
			wp := f.groupWP(g)
			switch {
			case f.slc[g]:
				n++
				if isFree[g] {
					return fmt.Errorf("ftl invariant: group %d is free but counted in the SLC cache", g)
				}
				if !f.dev.IsSLC(int(g) * f.np) {
					return fmt.Errorf("ftl invariant: SLC group %d is native on the device", g)
				}
				if f.clean[d].group == g && f.clean[d].cause != FoldStream && !f.isFailing(g) {
					return fmt.Errorf("ftl invariant: SLC group %d is being cleaned by %s", g, f.clean[d].cause)
				}
				if f.open[GCStream][d] == g {
					return fmt.Errorf("ftl invariant: SLC group %d is the GC group", g)
				}
			case wp > 0 && f.dev.IsSLC(int(g)*f.np) && !f.bad[g]:
				return fmt.Errorf("ftl invariant: group %d holds %d pages in SLC mode but is not counted in the cache", g, wp)
			}
		}
		if n != f.slcCount[d] {
			return fmt.Errorf("ftl invariant: die %d has %d SLC groups, counted %d", d, n, f.slcCount[d])
		}
		if c := f.clean[d]; c.cause == FoldStream && c.group >= 0 && !f.slc[c.group] {
			return fmt.Errorf("ftl invariant: die %d folds native group %d", d, c.group)
		}
	}
	return nil
}
