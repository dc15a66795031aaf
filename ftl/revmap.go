package ftl

import (
	"runtime"
	"slices"
	"sync"

	"github.com/ftlsim/ftlsim/nand"
)

// The reverse map on a device that keeps no OOB tags
// (nand.Config.DropTags). Collection needs the logical unit of every
// valid unit of its victim; the device's tags give it for every unit of
// the array, 4 bytes a unit beside the mapping table's 4 bytes a logical
// unit. Without them the FTL keeps the reverse map of a few groups only,
// the closed groups likeliest to be collected soon. A victim without
// one gets its map, and the lowest-valid closed groups theirs, from one
// pass over the mapping table (a valid unit is the unit its logical unit
// maps to). Each group also keeps the range of the logical units
// programmed into it since its erase (8 bytes a group): a victim whose
// range costs less to scan than a pass has cost a victim lately — a
// sequential stream's group, written over a few dies' worth of logical
// units — gets its map from a scan of that range of the table alone.
// The choices of the FTL do not depend on any of it: only its memory and
// the time of those passes and scans do.

// revShare is the share of the groups that hold a reverse map at most
// (one tenth: 0.4 bytes a unit), beside the victims being collected.
const revShare = 10

// passCost is what a pass costs an entry of the mapping table, in entries
// a scan of a victim's range reads for the same: the pass stores every
// entry where its group says, the scan only compares. Measured on the
// MQSim job (32 GiB, fill, 1 M random writes, compact map, one goroutine
// a pass): 31 passes over 8.4 M entries took 27 % of the samples, 506
// scans of 65 K entries 1.45 %: 2.4 times less an entry.
const passCost = 2.5

// revMap is the FTL's reverse map of some groups.
type revMap struct {
	tags   [][]uint32 // per group: the logical unit of each unit (nand.NoTag: none or not valid), nil when not held
	free   [][]uint32 // maps let go of, for reuse
	held   int        // groups holding one
	budget int        // closed groups a pass gives one to, at most
	target []bool     // per group: being given one by the pass under way
	// The pass's workspace (not state: a saved state holds none of it):
	// per worker, per group, where the worker stores the group's logical
	// units during a pass (its map, or the worker's scratch, a group's
	// worth of units no map keeps); nil between passes.
	dst     [][][]uint32 `snapshot:"-"`
	scratch [][]uint32   `snapshot:"-"`
	workers int          `snapshot:"-"` // the most goroutines a pass uses (0: passWorkers, no more than Go's processors)
	part    int          `snapshot:"-"` // the fewest logical units one of them passes (passPart)
	lo, hi  []uint32     // per group: the lowest and highest logical unit programmed since its erase (lo > hi: none)
	served  float64      // victims a pass has served lately (a moving average of the collections between passes)
	lastGC  int64        // the collection count at the last pass
	passes  int64        // passes over the mapping table
	scans   int64        // scans of a victim's range of it
}

func newRevMap(groups, dies int) *revMap {
	r := &revMap{tags: make([][]uint32, groups), target: make([]bool, groups), budget: max(groups/revShare, 2*dies),
		part: passPart, lo: make([]uint32, groups), hi: make([]uint32, groups)}
	r.served = float64(r.budget) // at best, a pass serves as many victims as it gives maps
	for g := range r.lo {
		r.lo[g] = nand.NoTag
	}
	return r
}

// tagOf returns the logical unit physical unit u holds (nand.NoTag when
// it holds none, or, on a device without tags, when it is not valid or
// its group holds no reverse map).
func (f *FTL) tagOf(u int64) uint32 {
	if f.rev == nil {
		return f.dev.Tag(u)
	}
	var g int64
	if f.pow2 {
		g = u >> f.upgShift
	} else {
		g = u / int64(f.upg)
	}
	t := f.rev.tags[g]
	if t == nil {
		return nand.NoTag
	}
	return t[u-g*int64(f.upg)]
}

// revAttach gives group g a reverse map of no units.
func (f *FTL) revAttach(g int) []uint32 {
	r := f.rev
	var t []uint32
	if n := len(r.free); n > 0 {
		t, r.free = r.free[n-1], r.free[:n-1]
	} else {
		t = make([]uint32, f.upg)
	}
	for i := range t {
		t[i] = nand.NoTag
	}
	r.tags[g] = t
	r.held++
	return t
}

// revProgrammed records the range of the tags of plane p's page of group
// g, just programmed (of the planes from p on, when tags holds theirs
// too), and the tags themselves when the group holds a reverse map (a
// pass gave it one): a map, when held, is whole. A group being
// programmed gets none of its own: it closes, and lets a map go, before
// a collection could want it (one that did would get its map as any
// victim does).
func (f *FTL) revProgrammed(g, page, p int, tags []uint32) {
	r := f.rev
	if t := r.tags[g]; t != nil {
		copy(t[(page*f.np+p)*f.upp:], tags)
	}
	lo, hi := r.lo[g], r.hi[g]
	for _, tag := range tags {
		if tag != nand.NoTag {
			lo, hi = min(lo, tag), max(hi, tag)
		}
	}
	r.lo[g], r.hi[g] = lo, hi
}

// revClosed lets go of the reverse map of group g, just filled: it holds
// the newest data, the last a greedy collection wants; a pass gives it
// one again when it is among the lowest-valid groups.
func (f *FTL) revClosed(g int) { f.revDrop(g) }

// revErased lets go of group g's reverse map and of its range of
// logical units: it was erased, or its pages forgotten.
func (f *FTL) revErased(g int) {
	f.revDrop(g)
	f.rev.lo[g], f.rev.hi[g] = nand.NoTag, 0
}

// revDrop lets go of group g's reverse map.
func (f *FTL) revDrop(g int) {
	r := f.rev
	if t := r.tags[g]; t != nil {
		r.free = append(r.free, t)
		r.tags[g] = nil
		r.held--
	}
}

// revEnsure gives victim g its reverse map, if it holds none: one pass
// over the mapping table builds it, and those of the closed groups with
// the fewest valid units on each die (each die collects its own
// victims), up to the budget.
func (f *FTL) revEnsure(g int) {
	r := f.rev
	if r == nil || r.tags[g] != nil {
		return
	}
	if lo, hi := r.lo[g], r.hi[g]; lo <= hi && float64(hi-lo) < passCost*float64(len(f.l2p))/r.served {
		r.scans++
		f.revScan(g, f.revAttach(g), int64(lo), int64(hi))
		return
	}
	// The collections since the last pass are what it served.
	r.served = 0.75*r.served + 0.25*float64(max(f.cnt.GCRuns-r.lastGC, 1))
	r.lastGC = f.cnt.GCRuns
	r.passes++
	f.revAttach(g)
	r.target[g] = true
	quota := max(1, r.budget/f.dies)
	type cand struct{ valid, group int32 }
	var cs []cand
	for d := range f.dies {
		cs = cs[:0]
		held := 0 // closed groups of the die holding one from an earlier pass
		for grp := d * f.gpd; grp < (d+1)*f.gpd; grp++ {
			switch {
			case r.tags[grp] != nil:
				if !f.busy[grp] {
					held++
				}
			case f.groupWP(int32(grp)) > 0:
				if v := f.Valid(grp); v > 0 {
					cs = append(cs, cand{int32(v), int32(grp)})
				}
			}
		}
		n := min(len(cs), max(0, quota-held))
		if n == 0 {
			continue
		}
		slices.SortFunc(cs, func(a, b cand) int {
			if a.valid != b.valid {
				return int(a.valid - b.valid)
			}
			return int(a.group - b.group)
		})
		for _, c := range cs[:n] {
			f.revAttach(int(c.group))
			r.target[c.group] = true
		}
	}
	if f.size == nil && f.pow2 {
		f.revPass()
		return
	}
	upg := int64(f.upg)
	for lba := range f.l2p {
		u := f.l2p.at(int64(lba))
		if u == Unmapped {
			continue
		}
		var grp int64
		if f.pow2 {
			grp = int64(u) >> f.upgShift
		} else {
			grp = int64(u) / upg
		}
		if !r.target[grp] {
			continue
		}
		t, off := r.tags[grp], int64(u)-grp*upg
		n := int64(1)
		if f.size != nil {
			n = int64(f.size[lba]) // every slot of the unit carries its tag
		}
		for i := range n {
			t[off+i] = uint32(lba)
		}
	}
	clear(r.target)
}

// revPass is the pass of revEnsure over the mapping table when every
// logical unit takes one device unit and a group's units are a power of
// two: without a branch on whether an entry's group is a target (which
// the processor cannot predict, a tenth of the groups being targets),
// every mapped entry stores its logical unit, a target's into its map and
// any other's into a scratch group's worth of units no map keeps. A large
// table is cut into contiguous parts passed at once by up to
// passWorkers goroutines, each with its own scratch: a device unit is
// mapped by one logical unit at most, so no two of them store to one
// place, and the maps are those one pass would build.
func (f *FTL) revPass() {
	r := f.rev
	w := r.workers
	if w == 0 {
		w = min(runtime.GOMAXPROCS(0), passWorkers)
	}
	w = max(1, min(w, len(f.l2p)/r.part))
	if len(r.dst) != w {
		r.dst, r.scratch = make([][][]uint32, w), make([][]uint32, w)
		for k := range w {
			r.dst[k], r.scratch[k] = make([][]uint32, len(r.tags)), make([]uint32, f.upg)
		}
	}
	for k := range w {
		dst, scratch := r.dst[k], r.scratch[k]
		for grp := range dst {
			dst[grp] = scratch
			if r.target[grp] {
				dst[grp] = r.tags[grp]
			}
		}
	}
	n := len(f.l2p)
	var wg sync.WaitGroup
	for k := 1; k < w; k++ {
		wg.Go(func() { f.revPassPart(r.dst[k], k*n/w, (k+1)*n/w) })
	}
	f.revPassPart(r.dst[0], 0, n/w)
	wg.Wait()
	clear(r.target)
	for k := range w {
		clear(r.dst[k]) // nothing aliases the maps between passes
	}
}

// passWorkers is the most goroutines a pass over the mapping table uses
// (no more than the processors Go runs on), and passPart the fewest
// logical units one of them passes (a million: a few milliseconds, the
// cost of starting one is a few microseconds).
const (
	passWorkers = 4
	passPart    = 1 << 20
)

// revPassPart stores the logical units lo to hi-1 where dst says (see
// revPass).
func (f *FTL) revPassPart(dst [][]uint32, lo, hi int) {
	mask, shift := uint32(f.upg-1), f.upgShift
	seg := f.l2p[lo:hi]
	for i := range seg {
		if u := seg.at(int64(i)); u != Unmapped {
			dst[u>>shift][u&mask] = uint32(lo + i)
		}
	}
}

// revScan fills t, group g's reverse map, from the mapping entries of
// logical units lo to hi, the range of those programmed into it.
func (f *FTL) revScan(g int, t []uint32, lo, hi int64) {
	base := int64(g) * int64(f.upg)
	if f.size == nil {
		// One unsigned comparison an entry: an entry is the group's when
		// its offset from the group's first unit is below the group's
		// size (Unmapped's is not).
		b, n, seg := uint32(base), uint32(f.upg), f.l2p[lo:hi+1]
		for i := range seg {
			if off := seg.at(int64(i)) - b; off < n {
				t[off] = uint32(lo) + uint32(i)
			}
		}
		return
	}
	end := base + int64(f.upg)
	for lba := lo; lba <= hi; lba++ {
		u := int64(f.l2p.at(lba))
		if u < base || u >= end { // Unmapped among them
			continue
		}
		for i := range int64(f.size[lba]) { // every slot of the unit carries its tag
			t[u-base+i] = uint32(lba)
		}
	}
}

// revReset lets go of every reverse map (the device was erased).
func (f *FTL) revReset() {
	if f.rev == nil {
		return
	}
	for g := range f.rev.tags {
		f.revErased(g)
	}
}

// ReverseMapPasses is the number of passes over the mapping table made
// to find the logical units of victims on a device that keeps no tags
// (nand.Config.DropTags); 0 on one that does.
func (f *FTL) ReverseMapPasses() int64 {
	if f.rev == nil {
		return 0
	}
	return f.rev.passes
}

// ReverseMapScans is the number of victims whose logical units were found
// by a scan of their own range of the mapping table instead (a range
// that costs less to scan than a pass has lately cost a victim); 0 on a
// device that keeps tags.
func (f *FTL) ReverseMapScans() int64 {
	if f.rev == nil {
		return 0
	}
	return f.rev.scans
}
