package ftl

import (
	"errors"
	"fmt"
)

// Flexible data placement (NVMe FDP): the host tags each write with a
// reclaim unit handle, and the FTL keeps a write point per handle — a
// host stage and an open group per die — so that data written through
// different handles never shares a group (this FTL's reclaim unit).
// Collection moves the data of a persistently isolated handle only into
// groups that hold that handle's data (a GC write point of its own per
// die); the data of initially isolated handles moves into one shared GC
// write point, where it may mix, as the specification allows.
//
// The write points not in use wait in fdpState; the FTL's own host stage,
// host open groups and per-die GC stage and GC open group are those of
// the handle being served (swapped in by useHost and useGC), so that the
// conventional paths, which know nothing of handles, run unchanged.

// ErrPlacement is returned for a placement request the FTL cannot serve:
// a handle out of range, or an operation not supported with handles.
var ErrPlacement = errors.New("ftl: placement")

// MixedOwner is the owner (Owner) of a group that may hold the data of
// several initially isolated handles: the shared GC write point's groups.
const MixedOwner = 255

// MaxHandles is the most reclaim unit handles an FTL takes (a group's
// owner is a byte, MixedOwner excluded).
const MaxHandles = 128

// HandleStats is one reclaim unit handle's share of the FDP statistics
// (NVMe FDP Statistics log, 22h), in device units: what the host wrote
// through the handle, and what was programmed and erased in groups
// holding its data (MixedOwner groups are counted apart).
type HandleStats struct {
	HostUnits   int64 // logical units the host wrote through the handle
	MediaUnits  int64 // device units programmed in the handle's groups (host, moved and padding)
	ErasedUnits int64 // device units of the handle's groups erased
}

// gcPoint is a GC write point of one owner on one die.
type gcPoint struct {
	st   stage
	open int32
}

// fdpState holds the write points of the handles not being served.
type fdpState struct {
	persistent []bool    // per handle: persistently isolated
	owner      []uint8   // per group: the handle whose data it holds, or MixedOwner
	host       []stage   // per handle: its host stage (the served one's is in FTL.host)
	hostOpen   [][]int32 // per handle: its open host group per die (the served one's is FTL.open[HostStream])
	active     int       // handle served by FTL.host
	// nextDie is, per handle, the die its next host page goes to (the
	// served one's is FTL.nextDie): each handle stripes its pages over
	// the dies on its own, as a reclaim unit spans them, so that the
	// dies hold even shares of every handle's data.
	nextDie []int
	// gc is, per GC owner (0: the shared point; 1+h: persistently
	// isolated handle h), per die, its GC write point; gcActive is, per
	// die, the owner whose point is in FTL.gc[d] and FTL.open[GCStream][d].
	gc       [][]gcPoint
	gcActive []int
	stats    []HandleStats // per handle, then the mixed groups last
}

// newFDP sets up handles write points for the FTL (after reset).
func (f *FTL) newFDP() error {
	n, np := f.cfg.Handles, f.cfg.PersistentHandles
	if n == 0 {
		if np != 0 {
			return fieldErr("PersistentHandles", np, "0 without Handles", "")
		}
		return nil
	}
	if n < 1 || n > MaxHandles {
		return fieldErr("Handles", n, fmt.Sprintf("0..%d", MaxHandles), "")
	}
	if np < 0 || np > n {
		return fieldErr("PersistentHandles", np, fmt.Sprintf("0..%d", n), "at most Handles")
	}
	if f.slc != nil {
		return fmt.Errorf("%w: placement handles with an SLC cache are not supported", ErrConfig)
	}
	if f.cfg.SafeErase && np > 0 {
		// Each die's GC programs are numbered in one sequence, which a
		// victim's erase waits on (eraseDep): with a GC write point per
		// persistently isolated handle a die would have several.
		return fmt.Errorf("%w: persistently isolated handles with SafeErase are not supported", ErrConfig)
	}
	p := &fdpState{persistent: make([]bool, n), owner: make([]uint8, len(f.busy)),
		host: make([]stage, n), hostOpen: make([][]int32, n), nextDie: make([]int, n), gcActive: make([]int, f.dies),
		stats: make([]HandleStats, n+1)}
	for h := range n {
		p.persistent[h] = h < np
		p.host[h] = newStage(f.pageUnits)
		p.hostOpen[h] = make([]int32, f.dies)
		for d := range p.hostOpen[h] {
			p.hostOpen[h][d] = -1
		}
	}
	p.gc = make([][]gcPoint, 1+n)
	for o := range p.gc {
		if o > 0 && !p.persistent[o-1] {
			continue
		}
		p.gc[o] = make([]gcPoint, f.dies)
		for d := range p.gc[o] {
			p.gc[o][d] = gcPoint{st: newStage(f.pageUnits), open: -1}
		}
	}
	for i := range p.owner {
		p.owner[i] = MixedOwner
	}
	f.fdp = p
	return nil
}

// Handles returns the number of reclaim unit handles (0: no placement).
func (f *FTL) Handles() int {
	if f.fdp == nil {
		return 0
	}
	return len(f.fdp.host)
}

// Persistent reports whether handle h is persistently isolated.
func (f *FTL) Persistent(h int) bool {
	return f.fdp != nil && h < len(f.fdp.persistent) && f.fdp.persistent[h]
}

// Owner returns the handle whose data group holds, MixedOwner for a
// group of the shared GC write point (or when there are no handles).
func (f *FTL) Owner(group int) int {
	if f.fdp == nil {
		return MixedOwner
	}
	return int(f.fdp.owner[group])
}

// HandleStats returns handle h's FDP statistics; h = Handles() gives the
// groups of the shared GC write point.
func (f *FTL) HandleStats(h int) HandleStats {
	if f.fdp == nil || h < 0 || h >= len(f.fdp.stats) {
		return HandleStats{}
	}
	return f.fdp.stats[h]
}

// WriteHandle is WriteOn through reclaim unit handle h: the data goes to
// h's own write point. Without handles, h must be 0 and it is WriteOn.
func (f *FTL) WriteHandle(h, die int, lba int64, token uint32, n int) error {
	if f.fdp == nil {
		if h != 0 {
			return fmt.Errorf("%w: handle %d, the drive has no placement handles", ErrPlacement, h)
		}
		return f.write(lba, token, n, die)
	}
	if uint(h) >= uint(len(f.fdp.host)) {
		return fmt.Errorf("%w: handle %d, the drive has %d", ErrPlacement, h, len(f.fdp.host))
	}
	if err := f.useHost(h); err != nil {
		return err
	}
	before := f.cnt.HostWriteUnits
	err := f.write(lba, token, n, die)
	f.fdp.stats[h].HostUnits += f.cnt.HostWriteUnits - before
	return err
}

// OpensPageHandle is OpensPage for a write through handle h.
func (f *FTL) OpensPageHandle(h, n int) bool {
	if f.fdp == nil || h == f.fdp.active || uint(h) >= uint(len(f.fdp.host)) {
		return f.OpensPage(n)
	}
	s := &f.fdp.host[h]
	return s.group < 0 || int(s.n)+n > f.pageUnits
}

// useHost makes handle h's write point the FTL's host write point. With
// SafeErase, a host stage whose program a victim's erase waits for
// (hostOwes) is programmed, padded, before it is set aside: host programs
// are numbered in one sequence, and the number the victim waits on is the
// next one of the stage that holds the newer data.
func (f *FTL) useHost(h int) error {
	p := f.fdp
	if p.active == h {
		return nil
	}
	if f.hostOwes && f.host.n > 0 {
		if err := f.pad(&f.host, HostStream); err != nil {
			return err
		}
	}
	f.hostOwes = false
	p.host[p.active], p.hostOpen[p.active], p.nextDie[p.active] = f.host, f.open[HostStream], f.nextDie
	f.host, f.open[HostStream], f.nextDie = p.host[h], p.hostOpen[h], p.nextDie[h]
	p.active = h
	return nil
}

// eachHost calls fn with every handle's host write point swapped in, in
// turn, then restores the one being served; without handles it calls fn
// once.
func (f *FTL) eachHost(fn func() error) error {
	if f.fdp == nil {
		return fn()
	}
	h0 := f.fdp.active
	var err error
	for h := range f.fdp.host {
		if err = f.useHost(h); err == nil {
			err = fn()
		}
		if err != nil {
			break
		}
	}
	if e := f.useHost(h0); err == nil {
		err = e
	}
	return err
}

// gcOwner is the GC write point (0 shared, 1+h persistent handle h) the
// data of a victim of owner o moves to.
func (f *FTL) gcOwner(o uint8) int {
	if int(o) < len(f.fdp.persistent) && f.fdp.persistent[o] {
		return 1 + int(o)
	}
	return 0
}

// useGC makes GC owner o's write point die d's GC write point.
func (f *FTL) useGC(d, o int) {
	p := f.fdp
	a := p.gcActive[d]
	if a == o {
		return
	}
	p.gc[a][d] = gcPoint{st: f.gc[d], open: f.open[GCStream][d]}
	f.gc[d], f.open[GCStream][d] = p.gc[o][d].st, p.gc[o][d].open
	p.gcActive[d] = o
}

// ownerOf is the owner of the data of stage s, which is being programmed.
func (f *FTL) stageOwner(s *stage) uint8 {
	if s == &f.host {
		return uint8(f.fdp.active)
	}
	if o := f.fdp.gcActive[f.dieOf(s.group)]; o > 0 {
		return uint8(o - 1)
	}
	return MixedOwner
}

// noteProgram records, with handles, that stage s's page is being
// programmed into its group: the group's owner and its media bytes.
func (f *FTL) noteProgram(s *stage) {
	p := f.fdp
	o := f.stageOwner(s)
	p.owner[s.group] = o
	i := int(o)
	if o == MixedOwner {
		i = len(p.stats) - 1
	}
	p.stats[i].MediaUnits += int64(f.pageUnits)
}

// noteErase records, with handles, the erase of group g.
func (f *FTL) noteErase(g int32) {
	p := f.fdp
	i := int(p.owner[g])
	if p.owner[g] == MixedOwner {
		i = len(p.stats) - 1
	}
	p.stats[i].ErasedUnits += int64(f.upg)
}

// idleStageOf is stageOf over the write points not being served.
func (f *FTL) idleStageOf(g, page int32) *stage {
	p := f.fdp
	for h := range p.host {
		if s := &p.host[h]; h != p.active && s.group == g && s.page == page {
			return s
		}
	}
	d := f.dieOf(g)
	for o := range p.gc {
		if p.gc[o] == nil || o == p.gcActive[d] {
			continue
		}
		if s := &p.gc[o][d].st; s.group == g && s.page == page {
			return s
		}
	}
	return nil
}

// eachPoint calls fn with every handle's host write point and every GC
// owner's write points swapped in, in turn, then restores the ones being
// served; without handles it calls fn once.
func (f *FTL) eachPoint(fn func() error) error {
	if f.fdp == nil {
		return fn()
	}
	p := f.fdp
	g0 := append([]int(nil), p.gcActive...)
	err := f.eachHost(func() error {
		for o := range p.gc {
			if p.gc[o] == nil {
				continue
			}
			for d := range g0 {
				f.useGC(d, o)
			}
			if err := fn(); err != nil {
				return err
			}
		}
		return nil
	})
	for d, o := range g0 {
		f.useGC(d, o)
	}
	return err
}

// dropIdle counts the data staged in the write points not being served
// as discarded, and empties them (secure erase).
func (f *FTL) dropIdle() {
	p := f.fdp
	for h := range p.host {
		if s := &p.host[h]; h != p.active {
			f.cnt.DiscardedUnits += int64(s.host)
			f.cnt.DiscardedSlots += int64(s.n)
			s.group, s.n, s.host = -1, 0, 0
		}
		for d := range p.hostOpen[h] {
			if h != p.active {
				p.hostOpen[h][d] = -1
			}
		}
	}
	for o := range p.gc {
		for d := range p.gc[o] {
			if o != p.gcActive[d] {
				pt := &p.gc[o][d]
				f.cnt.DiscardedMoved += int64(pt.st.n)
				pt.st.group, pt.st.n, pt.st.host, pt.open = -1, 0, 0, -1
			}
		}
	}
}

// idleOpen reports whether g is the open group of a write point of die d
// not being served.
func (f *FTL) idleOpen(d int, g int32) bool {
	p := f.fdp
	for h := range p.hostOpen {
		if h != p.active && p.hostOpen[h][d] == g {
			return true
		}
	}
	for o := range p.gc {
		if p.gc[o] != nil && o != p.gcActive[d] && p.gc[o][d].open == g {
			return true
		}
	}
	return false
}

// hostStaged counts the host's slots waiting in the host stages.
func (f *FTL) hostStaged() int64 {
	n := int64(f.host.n)
	if f.fdp != nil {
		for h := range f.fdp.host {
			if h != f.fdp.active {
				n += int64(f.fdp.host[h].n)
			}
		}
	}
	return n
}

// idleGCStaged counts the moved units waiting in the GC stages not being
// served.
func (f *FTL) idleGCStaged() int64 {
	var n int64
	p := f.fdp
	for o := range p.gc {
		for d := range p.gc[o] {
			if o != p.gcActive[d] {
				n += int64(p.gc[o][d].st.n)
			}
		}
	}
	return n
}
