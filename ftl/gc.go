package ftl

import (
	"errors"
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/ftlsim/ftlsim/internal/prefetch"
)

// collectBlocking, once die d has no more than GCLowWater free groups,
// cleans it until it has GCRestoreTo, finishing any victim in progress
// first. Each round asks victim selection (chooseVictim, path blocking)
// for a victim and cleans it whatever it holds: cleaning a group that
// holds only valid data gains nothing but moves on (FIFO does that, and
// Random may), so that a policy cannot livelock a die, after a die's
// worth of rounds the victim is greedy's, and if even that gains nothing
// the spare area is exhausted.
func (f *FTL) collectBlocking(d int) error {
	if f.readOnly {
		return ErrReadOnly
	}
	// Victims waiting for their erase count as free, but some groups must
	// really be free (realFreeNeeded).
	if f.freeOrErasing(d) > f.cfg.GCLowWater && len(f.free[d]) >= f.realFreeNeeded(d) {
		return nil
	}
	// (The groups really free are sought for a die's worth of victims at
	// most: with blocks retired, a die may not have them to give.)
	for i := 0; f.freeOrErasing(d) < f.cfg.GCRestoreTo || (len(f.free[d]) < f.realFreeNeeded(d) && i < f.gpd); i++ {
		if f.clean[d].group < 0 && len(f.pendingErase[d]) > 0 && f.freeOrErasing(d) >= f.cfg.GCRestoreTo {
			// Enough groups are as good as free, but too few really are:
			// the victims waiting for their erase are erased (what they
			// wait for programmed, padded) rather than more victims
			// cleaned.
			if err := f.releasePending(d); err != nil {
				return err
			}
			continue
		}
		if f.clean[d].group < 0 {
			c, err := f.chooseVictim(d, pathBlocking, i)
			switch {
			case err != nil:
				return err
			case c.fold:
				f.startFold(d, int32(c.group))
			case c.group < 0 && len(f.pendingErase[d]) > 0:
				// Cleaned victims wait for the pages being filled:
				// program them now (padded) and take the victims.
				if err := f.releasePending(d); err != nil {
					return err
				}
				continue
			case c.group < 0 && c.stage == stageFruitless:
				if f.cnt.GrownBadGroups > 0 || f.cnt.ProgramFailures > 0 {
					return fmt.Errorf("%w: die %d: %d groups retired for blocks gone bad have used up its spare area", ErrReadOnly, d, f.cnt.GrownBadGroups)
				}
				return fmt.Errorf("%w: die %d: every group holds only valid data; the spare area is exhausted", ErrNoVictim, d)
			default:
				if err := f.startVictim(d, c.group, GCStream); err != nil {
					return err
				}
			}
		}
		if _, err := f.copyPages(d, -1); err != nil {
			return err
		}
	}
	return nil
}

// cleaning is the victim a die is collecting.
type cleaning struct {
	group  int32 // -1 when none
	page   int32 // next page to copy
	cause  Stream
	ratio  float64 // units to copy per host unit written (paced GC)
	credit float64 // units the pacer may still copy
	// slcPaced: a fold paced to the host's writes into a full SLC cache
	// (paceFold), not to its use of free groups (pace).
	slcPaced bool
	// dep is what the victim's erase waits for, so far (SafeErase).
	dep eraseDep
}

// checkVictim reports whether group g, a victim policy's answer for die
// d, may be cleaned; -1 (no victim) is an ErrNoVictim error, and a group
// that is not a candidate of die d is a policy error.
func (f *FTL) checkVictim(d, g int) error {
	if g == -1 {
		return fmt.Errorf("%w: die %d (policy %s)", ErrNoVictim, d, f.cfg.Victim.Name())
	}
	if g < d*f.gpd || g >= (d+1)*f.gpd || !f.candidate(int32(g)) {
		return fmt.Errorf("ftl: victim policy %s chose group %d, not a full group of die %d", f.cfg.Victim.Name(), g, d)
	}
	return nil
}

// startVictim makes group g, chosen once by the caller, die d's cleaning
// target.
func (f *FTL) startVictim(d, g int, cause Stream) error {
	if err := f.checkVictim(d, g); err != nil {
		return err
	}
	f.sampleAlpha()
	f.cnt.GCRuns++
	v := float64(f.Valid(g))
	ratio := float64(f.upg) // a victim of only valid data is copied at once
	if v < float64(f.upg) {
		ratio = v / (float64(f.upg) - v)
	}
	f.clean[d] = cleaning{group: int32(g), cause: cause, ratio: ratio}
	f.busy[g] = true
	f.record(Op{Kind: OpVictim, Cause: Cause(cause), Die: int32(d), Block: int32(g * f.np), Planes: uint8(f.np)})
	return nil
}

// startChosen asks victim selection for die d's next victim on path
// (paced or background collection) and starts cleaning or folding it;
// it reports whether there was one.
func (f *FTL) startChosen(d int, path victimPath) (bool, error) {
	c, err := f.chooseVictim(d, path, 0)
	switch {
	case err != nil || c.group < 0:
		return false, err
	case c.fold:
		f.startFold(d, int32(c.group))
		return true, nil
	}
	return true, f.startVictim(d, c.group, GCStream)
}

// abandonMove is for a move of page pu's units that stopped (a program
// failed and left the drive read-only): the placed units moved count as
// copied, and the units of mask not yet moved stay where they were.
func (f *FTL) abandonMove(cause Stream, pu int64, mask uint64, placed int) {
	f.countCopied(cause, placed)
	for ; mask != 0; mask &= mask - 1 {
		v := pu + int64(bits.TrailingZeros64(mask))
		if t := f.tagOf(v); int64(t) < int64(len(f.l2p)) {
			if w := int64(f.l2p.at(int64(t))); w >= pu && w < pu+int64(f.pageUnits) {
				_ = f.dev.SetValid(v, true)
			}
		}
	}
}

// countCopied counts n units moved by collection of cause.
func (f *FTL) countCopied(cause Stream, n int) {
	switch cause {
	case WLStream:
		f.cnt.WLCopiedUnits += int64(n)
	case FoldStream:
		f.cnt.FoldedUnits += int64(n)
	default:
		f.cnt.GCCopiedUnits += int64(n)
	}
}

// copyPages moves the valid units of die d's victim, page by page, until
// at least budget units have moved (all of them for budget < 0); when the
// victim is empty it is erased and freed. It returns the units moved.
func (f *FTL) copyPages(d int, budget float64) (float64, error) {
	c := &f.clean[d]
	g := int(c.group)
	if f.fdp != nil && g >= 0 {
		f.useGC(d, f.gcOwner(f.fdp.owner[g]))
	}
	gs := &f.gc[d]
	base := int64(g) * int64(f.upg)
	moved := 0.0
	slc := f.slc != nil && f.slc[g]
	last := int32(f.pagesIn(c.group))
	f.revEnsure(g)
	for ; c.page < last && (budget < 0 || moved < budget); c.page++ {
		pu := base + int64(int(c.page)*f.pageUnits)
		mask := f.dev.ValidMask(pu, f.pageUnits)
		if mask == 0 {
			continue
		}
		if c.page+1 < last {
			// Start loading the mapping entries the next page's moves
			// will update (and, with units of several slots, their
			// sizes), so that they arrive while this page moves.
			nu := pu + int64(f.pageUnits)
			if c.page+2 < last {
				// And the valid bits and tags of the page after it,
				// which that loop reads.
				f.dev.PrefetchUnit(nu+int64(f.pageUnits), f.rev == nil)
			}
			for m := f.dev.ValidMask(nu, f.pageUnits); m != 0; m &= m - 1 {
				if t := f.tagOf(nu + int64(bits.TrailingZeros64(m))); int64(t) < int64(len(f.l2p)) {
					prefetch.Load(unsafe.Pointer(&f.l2p[t]))
					if f.size != nil {
						prefetch.Load(unsafe.Pointer(&f.size[t]))
					}
				}
			}
		}
		n := bits.OnesCount64(mask)
		fc := &f.cnt.Flash[c.cause] // counted here: the hot path (see record)
		fc.ReadPages += int64(f.np)
		fc.ReadUnits += int64(n)
		if f.cfg.RecordOps {
			f.ops = append(f.ops, Op{Kind: OpRead, Cause: Cause(c.cause), Die: int32(d), Block: int32(g * f.np), Page: c.page, Units: int32(n), Planes: uint8(f.np), SLC: slc})
		}
		if gs.group < 0 {
			// Open the group the page's units go to before letting go of
			// them: a die with no free group must fail with its data
			// where it was.
			og, err := f.openGroup(GCStream, d)
			if err != nil {
				return moved, err
			}
			gs.group, gs.page = og, int32(f.groupWP(og))
		}
		if err := f.dev.InvalidateMask(pu, mask); err != nil {
			return moved, err
		}
		placed := 0
		for ; mask != 0; mask &= mask - 1 {
			u := pu + int64(bits.TrailingZeros64(mask))
			lba := int64(f.tagOf(u))
			n := 1
			if f.size != nil {
				if f.l2p.at(lba) != uint32(u) {
					continue // a later slot of a unit moved with its first
				}
				n = int(f.size[lba])
				if gs.group >= 0 && int(gs.n)+n > f.pageUnits {
					if err := f.pad(gs, c.cause); err != nil {
						f.abandonMove(c.cause, pu, mask, placed)
						return moved, err
					}
				}
			}
			tok := f.dev.Data(u)
			if gs.group < 0 {
				og, err := f.openGroup(GCStream, d)
				if err != nil {
					f.abandonMove(c.cause, pu, mask, placed)
					return moved, err
				}
				gs.group, gs.page = og, int32(f.groupWP(og))
			}
			if err := f.place(gs, c.cause, lba, tok, f.dev.Seq(u), n); err != nil {
				// The unit just placed waits in the stage.
				f.abandonMove(c.cause, pu, mask&(mask-1), placed+n)
				return moved, err
			}
			placed += n
			if f.cfg.RecordMoves {
				f.record(Op{Kind: OpMoved, Cause: Cause(c.cause), Die: int32(d), LBA: lba})
			}
		}
		if placed > 0 && f.gcProgs != nil {
			// The last unit moved is in the page being filled, or in
			// the one it just filled.
			c.dep.gc = f.gcProgs[d]
			if gs.n > 0 {
				c.dep.gc++
			}
		}
		f.countCopied(c.cause, n)
		moved += float64(n)
	}
	if c.page < last {
		return moved, nil
	}
	// Every unit has moved (or was overwritten meanwhile): erase — with
	// SafeErase, once the newer copies of its data are at rest (the units
	// moved out of it, and the host writes that superseded its units,
	// programmed and their word lines closed: eraseDep), so that a power
	// cut loses no data at rest.
	cause, dep := c.cause, c.dep
	*c = cleaning{group: -1}
	if err := f.finishVictim(d, int32(g), dep, cause); err != nil {
		return moved, err
	}
	if f.cfg.StaticWLSpread > 0 && cause != WLStream {
		return moved, f.levelWear(d)
	}
	return moved, nil
}

// pace runs paced garbage collection on die d after the host programmed
// a page there: below GCPaceWater free groups the die cleans a victim a
// little at a time, moving about v/(U−v) units per host unit written (v
// valid of U units in the victim), which frees space as fast as the host
// consumes it and spreads the cost of cleaning over the host's writes
// (GCPacePercent scales that rate).
func (f *FTL) pace(d int) error {
	c := &f.clean[d]
	if c.group < 0 {
		if f.freeOrErasing(d) > f.cfg.GCPaceWater {
			return nil
		}
		did, err := f.startChosen(d, pathPaced)
		if err != nil || !did {
			return err // nothing worth cleaning: the blocking path decides
		}
	}
	if (c.cause != GCStream && c.cause != FoldStream) || c.slcPaced {
		return nil
	}
	return f.payCredit(d, c.ratio*f.paceGain*float64(f.pageUnits))
}

// payCredit adds units to the copying credit of die d's victim and
// copies that many units of it (paced collection and folding).
func (f *FTL) payCredit(d int, units float64) error {
	c := &f.clean[d]
	c.credit += units
	if c.credit <= 0 {
		return nil
	}
	moved, err := f.copyPages(d, c.credit)
	if c.group >= 0 {
		c.credit -= moved
	}
	return err
}

// isOpen reports whether g is a stream's open group.
func (f *FTL) isOpen(g int32) bool {
	d := f.dieOf(g)
	return f.open[HostStream][d] == g || f.open[GCStream][d] == g || (f.parked != nil && f.parked[d] == g) || (f.fdp != nil && f.idleOpen(d, g))
}

// candidate reports whether g may become a victim: full, not open and not
// already being cleaned.
func (f *FTL) candidate(g int32) bool {
	return !f.busy[g] && ((f.groupWP(g) == f.ppb && !f.bad[g]) || f.isFailing(g))
}

// isFailing reports whether group g was retired for a failed program and
// still holds data to move out.
func (f *FTL) isFailing(g int32) bool { return f.failing != nil && f.failing[g] }

// Retired reports whether group g is out of use: bad (from the factory,
// or for a failed erase or program) or retired for a failed program with
// data that collection moves out next. It is never programmed again, so
// a word line it left half programmed is never completed; the pages
// programmed on it before a failure hold their data (the device fails
// single pages, not word lines), also on a one-shot part.
func (f *FTL) Retired(g int) bool { return f.bad[g] || f.isFailing(int32(g)) }

// CollectBackground cleans one victim on die d — finishing one in progress
// or starting one that frees space — if the die has fewer than GCHighWater
// free groups. It reports whether it did any work.
func (f *FTL) CollectBackground(d int) (bool, error) {
	if f.readOnly {
		return false, nil
	}
	if f.freeOrErasing(d) >= f.cfg.GCHighWater && f.clean[d].group < 0 {
		return false, nil
	}
	if f.clean[d].group < 0 {
		did, err := f.startChosen(d, pathBackground)
		if err != nil || !did {
			return false, err
		}
	}
	f.cnt.BackgroundGCRuns++
	_, err := f.copyPages(d, -1)
	if errors.Is(err, ErrReadOnly) {
		return true, nil // the drive has turned read-only: collection stops
	}
	return true, err
}

// ReclaimEmpty erases one full group of die d that holds no valid data
// (trimmed or overwritten space), whatever the die's free count, and
// reports whether there was one. Erasing costs no copying; firmware does
// it while the host is idle so that later writes find erased blocks.
func (f *FTL) ReclaimEmpty(d int) (bool, error) {
	if f.readOnly {
		return false, nil
	}
	if f.clean[d].group >= 0 {
		return false, nil
	}
	c, _ := f.chooseVictim(d, pathReclaim, 0)
	if c.group < 0 {
		return false, nil
	}
	g := c.group
	f.clean[d] = cleaning{group: int32(g), cause: GCStream}
	f.busy[g] = true
	f.record(Op{Kind: OpVictim, Cause: CauseGC, Die: int32(d), Block: int32(g * f.np), Planes: uint8(f.np)})
	f.cnt.GCRuns++
	f.cnt.BackgroundGCRuns++
	_, err := f.copyPages(d, -1)
	return true, err
}

// NeedsBackground reports whether die d is below its background target or
// has a victim half cleaned.
func (f *FTL) NeedsBackground(d int) bool {
	return f.freeOrErasing(d) < f.cfg.GCHighWater || f.clean[d].group >= 0
}
