package ftl

import (
	"errors"
	"math"

	"github.com/ftlsim/ftlsim/nand"
)

// realFreeNeeded is the groups of die d blocking collection keeps really
// free, whatever waits for its erase: with SafeErase three (the one the
// host is about to take, one for collection to copy into, and one more
// for when a power cut has left a victim unerased and collection's group
// full), else none beyond the thresholds.
func (f *FTL) realFreeNeeded(d int) int {
	if !f.cfg.SafeErase {
		return 0
	}
	return 3
}

// freeOrErasing is the free groups of die d, counting the cleaned victims
// that wait for their erase: collection's thresholds count them as free,
// since they are as good as erased.
func (f *FTL) freeOrErasing(d int) int { return len(f.free[d]) + len(f.pendingErase[d]) }

// eraseVictim erases cleaned group g of die d and frees it; after is the
// host program whose rest the erase waits for (Op.Prog; 0: none).
func (f *FTL) eraseVictim(d int, g int32, cause Stream, after uint64) error {
	if f.rev != nil {
		f.revErased(int(g)) // its data has moved
	}
	slc := f.isSLC(g)
	if slc {
		f.slc[g] = false
		f.slcCount[d]--
	}
	if f.isFailing(g) {
		// Retired for a failed program, its data now moved: it is not
		// erased again.
		f.failing[g] = false
		f.busy[g] = false
		f.bad[g] = true
		f.nbadUsable++
		f.cnt.GrownBadGroups++
		return nil
	}
	f.keepErased(g)
	if f.fdp != nil {
		f.noteErase(g)
	}
	failed := false
	for p := 0; p < f.np; p++ {
		err := f.dev.Erase(int(g)*f.np + p)
		if errors.Is(err, nand.ErrEraseFailed) {
			failed = true // the block has gone bad: the group is retired
			continue
		}
		if err != nil {
			return err
		}
	}
	f.record(Op{Kind: OpErase, Cause: Cause(cause), Die: int32(d), Block: g * int32(f.np), Planes: uint8(f.np), SLC: slc, Prog: progTag(after, after != 0)})
	f.busy[g] = false
	if failed {
		f.bad[g] = true
		f.nbadUsable++
		f.cnt.GrownBadGroups++
		return nil
	}
	f.free[d] = append(f.free[d], g)
	f.nfree++
	return nil
}

// eraseDep is what the erase of a cleaned victim waits for (SafeErase):
// the programs holding the newer copies of the data it holds, which the
// erase would leave as the only ones. host is the number of the host
// stage's program (hostProgs) with the latest host write that superseded
// one of its units, or the host data that superseded a unit moved out of
// it while the moved copy was still staged; gc is the number of its die's
// GC stage program (gcProgs) with the last unit moved out of it (0: none
// moved). The victim may be erased once those programs are done and, on
// MLC, TLC and QLC flash, the word lines they are on are closed (a
// program interrupted on a word line's later page destroys its earlier
// ones). Nothing else holds it back: real firmware orders an erase after
// the programs whose data it would otherwise destroy, and no others.
type eraseDep struct{ host, gc uint64 }

// hostRest returns the number of the oldest host program whose word line
// is still half programmed (MaxUint64 when none is): every host program
// numbered below it is at rest. (A half programmed word line is started
// at or before each of its programs, and the host's are all on its open
// groups: a group is parked, given to collection or closed only with no
// word line half programmed, and one retired for a failed program is
// never programmed again.)
func (f *FTL) hostRest() uint64 {
	m := uint64(math.MaxUint64)
	if f.nwlOpen == 0 {
		return m
	}
	for _, g := range f.open[HostStream] {
		if g >= 0 && f.wlOpen[g] != 0 {
			m = min(m, f.wlOpen[g])
		}
	}
	if f.fdp != nil {
		// The handles not being served have their open groups too.
		for h, open := range f.fdp.hostOpen {
			if h == f.fdp.active {
				continue
			}
			for _, g := range open {
				if g >= 0 && f.wlOpen[g] != 0 {
					m = min(m, f.wlOpen[g])
				}
			}
		}
	}
	return m
}

// gcRest is hostRest for die d's GC stage: the number of the program that
// started the half programmed word line of its open GC group.
func (f *FTL) gcRest(d int) uint64 {
	if g := f.open[GCStream][d]; g >= 0 && f.wlOpen[g] != 0 {
		return f.wlOpen[g]
	}
	return math.MaxUint64
}

// eraseReady reports whether a cleaned victim of die d waiting for dep
// may be erased, given hostRest.
func (f *FTL) eraseReady(d int, dep eraseDep, hostRest uint64) bool {
	if dep.host > f.hostProgs || dep.host >= hostRest {
		return false
	}
	return dep.gc == 0 || (dep.gc <= f.gcProgs[d] && dep.gc < f.gcRest(d))
}

// finishVictim erases cleaned victim g of die d, or, with SafeErase while
// the newer copies of its data are not at rest (dep), sets it aside until
// they are (pendingErase).
func (f *FTL) finishVictim(d int, g int32, dep eraseDep, cause Stream) error {
	if f.cfg.SafeErase {
		dep.host = max(dep.host, f.supersededIn[g])
		if !f.eraseReady(d, dep, f.hostRest()) {
			f.pendingErase[d] = append(f.pendingErase[d], g)
			f.pendingDep[d] = append(f.pendingDep[d], dep)
			f.npending++
			if dep.host > 0 {
				f.pendHost = min(f.pendHost, dep.host)
			}
			return nil
		}
	}
	return f.eraseVictim(d, g, cause, dep.host)
}

// supersedeMoved is for a host write (or trim) that superseded a unit
// waiting in die d's GC stage, moved there out of a victim: the victims
// whose last moved units are in that stage now also wait for the host
// program that holds the new data (else a power cut could find neither
// the moved copy, never programmed, nor the new one, nor the source).
func (f *FTL) supersedeMoved(d int) {
	cur, h := f.gcProgs[d]+1, f.hostProgs+1
	f.hostOwes = true
	if c := &f.clean[d]; c.group >= 0 && c.dep.gc == cur {
		c.dep.host = max(c.dep.host, h)
	}
	for i := range f.pendingDep[d] {
		if dep := &f.pendingDep[d][i]; dep.gc == cur {
			dep.host = max(dep.host, h)
			f.pendHost = min(f.pendHost, h)
		}
	}
}

// erasePendingReady erases the cleaned victims waiting for their erase
// whose data's newer copies are now at rest (eraseDep).
func (f *FTL) erasePendingReady() error {
	if f.npending == 0 {
		return nil
	}
	rest := f.hostRest()
	low := uint64(math.MaxUint64)
	for d := range f.pendingErase {
		if len(f.pendingErase[d]) == 0 {
			continue
		}
		if err := f.erasePendingOn(d, rest); err != nil {
			return err
		}
		for _, dep := range f.pendingDep[d] {
			if dep.host > f.hostProgs || dep.host >= rest {
				low = min(low, dep.host)
			}
		}
	}
	f.pendHost = low
	return nil
}

// erasePendingAfter erases the cleaned victims a program of stream st on
// die d may have made ready, as erasePendingReady would after it: a
// program of collection (or any stream but the host's) changes only what
// die d's victims wait for; a host program, only what the victims whose
// host programs were not yet at rest wait for, and none of those can be
// ready while the earliest of their programs (pendHost) is beyond the
// host's programs or not at rest.
func (f *FTL) erasePendingAfter(st Stream, d int) error {
	if st != HostStream {
		if len(f.pendingErase[d]) == 0 {
			return nil
		}
		return f.erasePendingOn(d, f.hostRest())
	}
	if f.pendHost > f.hostProgs || f.pendHost >= f.hostRest() {
		return nil
	}
	return f.erasePendingReady()
}

// erasePendingOn erases die d's cleaned victims that may be erased, given
// hostRest.
func (f *FTL) erasePendingOn(d int, hostRest uint64) error {
	pe, pd := f.pendingErase[d], f.pendingDep[d]
	k := 0
	for i, g := range pe {
		if f.eraseReady(d, pd[i], hostRest) {
			if err := f.eraseVictim(d, g, GCStream, pd[i].host); err != nil {
				return err
			}
			f.npending--
			continue
		}
		pe[k], pd[k] = g, pd[i]
		k++
	}
	f.pendingErase[d], f.pendingDep[d] = pe[:k], pd[:k]
	return nil
}

// releasePending programs what die d's cleaned victims wait for, so that
// they can be erased: for when a die needs a free group and has too few.
// It pads the host page and die d's GC page if they hold what the victims
// wait for, and closes (padded) the word lines half programmed that hold
// it: die d's GC group's, and the host's on the dies whose word lines
// were started before or with the host program awaited. The rest of the
// drive's word lines are left to fill.
func (f *FTL) releasePending(d int) error {
	var need eraseDep
	for _, dep := range f.pendingDep[d] {
		need.host, need.gc = max(need.host, dep.host), max(need.gc, dep.gc)
	}
	if need.gc > f.gcProgs[d] {
		if err := f.pad(&f.gc[d], GCStream); err != nil {
			return err
		}
	}
	if need.host > f.hostProgs {
		// (With handles, the program awaited is the served handle's
		// next: hostOwes.)
		if err := f.pad(&f.host, HostStream); err != nil {
			return err
		}
	}
	if f.wl > 1 {
		if need.gc != 0 && need.gc >= f.gcRest(d) {
			if err := f.closeWordLine(GCStream, d); err != nil {
				return err
			}
		}
		err := f.eachHost(func() error {
			for e, g := range f.open[HostStream] {
				if g >= 0 && f.wlOpen[g] != 0 && f.wlOpen[g] <= need.host {
					if err := f.closeWordLine(HostStream, e); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return f.erasePendingReady()
}
