package ftl

import (
	"errors"

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

// eraseVictim erases cleaned group g of die d and frees it.
func (f *FTL) eraseVictim(d int, g int32, cause Stream) error {
	if f.rev != nil {
		f.revDrop(int(g)) // its data has moved
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
	f.record(Op{Kind: OpErase, Cause: Cause(cause), Die: int32(d), Block: g * int32(f.np), Planes: uint8(f.np), SLC: slc})
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

// erasePendingReady erases the cleaned groups waiting for their erase on
// every die whose GC page holds nothing, once the host page holds nothing
// either (just programmed), and, with word lines to protect, once the
// word lines half programmed then are closed.
func (f *FTL) erasePendingReady() error {
	if f.npending == 0 || (f.host.n > 0 && f.wl == 1) {
		return nil
	}
	host := f.hostOpenWordLine()
	for d := range f.pendingErase {
		if len(f.pendingErase[d]) == 0 {
			continue
		}
		staged := f.gc[d].n == 0 && f.host.n == 0
		if f.wl == 1 {
			if staged {
				if err := f.erasePending(d, GCStream); err != nil {
					return err
				}
			}
			continue
		}
		if err := f.erasePendingStamped(d, staged, f.openWordLine(d, host)); err != nil {
			return err
		}
	}
	return nil
}

// erasePendingStamped erases the cleaned groups of die d whose moved and
// superseding units were programmed (stamped; staged: they are now)
// before every word line still half programmed was started (lim).
func (f *FTL) erasePendingStamped(d int, staged bool, lim uint64) error {
	pe, ps := f.pendingErase[d], f.pendingStamp[d]
	k := 0
	for i, g := range pe {
		st := ps[i]
		if st == 0 && staged {
			st = f.seq
		}
		if st != 0 && st < lim {
			if err := f.eraseVictim(d, g, GCStream); err != nil {
				return err
			}
			f.npending--
			continue
		}
		pe[k], ps[k] = g, st
		k++
	}
	f.pendingErase[d], f.pendingStamp[d] = pe[:k], ps[:k]
	return nil
}

// releasePending programs, padded, the host page and die d's GC page
// (and closes the word lines half programmed that die d's victims wait
// for: its GC group's and the host's), so that the cleaned groups
// waiting for them can be erased: for when a die needs a free group and
// has none.
func (f *FTL) releasePending(d int) error {
	if err := f.pad(&f.gc[d], GCStream); err != nil {
		return err
	}
	if err := f.pad(&f.host, HostStream); err != nil {
		return err
	}
	if f.wl > 1 {
		if err := f.closeWordLine(GCStream, d); err != nil {
			return err
		}
		if err := f.closeHostWordLines(); err != nil {
			return err
		}
	}
	return f.erasePendingReady()
}

// erasePending erases the cleaned groups of die d that waited for their
// moved units to be programmed.
func (f *FTL) erasePending(d int, cause Stream) error {
	for _, g := range f.pendingErase[d] {
		if err := f.eraseVictim(d, g, cause); err != nil {
			return err
		}
	}
	f.npending -= len(f.pendingErase[d])
	f.pendingErase[d] = f.pendingErase[d][:0]
	f.pendingStamp[d] = f.pendingStamp[d][:0]
	return nil
}
