package ftl

import (
	"fmt"
	"math"
)

// Victim selection. Every collection path asks one function,
// chooseVictim, for die d's next victim; it runs that path's stages in
// order, each a small function below that either decides or passes:
//
//	blocking    fold-first, fruitless, retired, policy, no-room
//	paced       retired, policy, no-room, worth, fold-cheaper
//	background  retired, policy, no-room, worth, fold-cheaper
//	fold        fold-oldest
//	wear        coldest
//	reclaim     empty
//
// A victim is a full native group (a candidate) cleaned into the die's
// GC group, or an SLC group folded into it (victimChoice.fold).

// victimPath is why a die needs a victim: the collection path asking.
type victimPath uint8

// Collection paths.
const (
	pathBlocking   victimPath = iota // the host waits for free groups (collectBlocking)
	pathPaced                        // a little after each host page (pace)
	pathBackground                   // the drive is idle (CollectBackground)
	pathFold                         // the SLC cache folds itself (fold, paceFold)
	pathWear                         // static wear levelling (levelWear)
	pathReclaim                      // an idle drive erases groups holding nothing (ReclaimEmpty)
	numPaths
)

var pathNames = [numPaths]string{"blocking", "paced", "background", "fold", "wear", "reclaim"}

// String returns the path's name.
func (p victimPath) String() string {
	if p < numPaths {
		return pathNames[p]
	}
	return fmt.Sprintf("victimPath(%d)", int(p))
}

// victimStage names a stage of victim selection.
type victimStage uint8

// Stages, in no particular order (each path has its own; see above).
const (
	stageNone victimStage = iota
	// stageFoldFirst: blocking collection folds the SLC group next in
	// line when it holds no more valid units than greedy's native victim:
	// folding frees a group for less copying, and is the only way to
	// reclaim what overwritten units take in the cache.
	stageFoldFirst
	// stageFruitless: after a die's worth of rounds without reaching
	// GCRestoreTo (a policy such as FIFO or Random cleaning groups of
	// only valid data), blocking collection takes greedy's victim, and if
	// even that frees nothing the spare area is exhausted.
	stageFruitless
	// stageRetired: a group retired for a failed program still holding
	// data is cleaned before any other (the die's retire queue).
	stageRetired
	// stagePolicy: the VictimPolicy's answer, asked once a victim.
	stagePolicy
	// stageNoRoom: on a die left with no free group (a power cut can
	// undo erases), a victim whose valid units do not fit the room left
	// in the GC group cannot be cleaned: greedy's, the emptiest, is.
	stageNoRoom
	// stageWorth: paced and background collection leave a victim of
	// only valid data, which frees nothing, to the blocking path.
	stageWorth
	// stageFoldCheaper: paced and background collection fold the SLC
	// group next in line instead when it holds no more valid units than
	// their victim (or they have none).
	stageFoldCheaper
	// stageFoldOldest: the cache's own folding takes an SLC group that
	// holds no valid data (only its erase), else the one filled first.
	stageFoldOldest
	// stageColdest: static wear levelling moves the least-worn candidate
	// once the die's erase counts spread wider than StaticWLSpread.
	stageColdest
	// stageEmpty: an idle drive erases a full group that holds no valid
	// data (trimmed or overwritten space): no copying.
	stageEmpty
	numStages
)

var stageNames = [numStages]string{"none", "fold-first", "fruitless", "retired", "policy", "no-room", "worth", "fold-cheaper", "fold-oldest", "coldest", "empty"}

// String returns the stage's name.
func (s victimStage) String() string {
	if s < numStages {
		return stageNames[s]
	}
	return fmt.Sprintf("victimStage(%d)", int(s))
}

// victimChoice is what victim selection decided for a die.
type victimChoice struct {
	group int         // the victim; -1: none
	stage victimStage // the stage that decided (stageNone: no stage had a victim)
	// fold: group is an SLC group to fold (FoldStream), not a collection
	// victim.
	fold bool
	// other is the group the deciding stage weighed against group: the
	// native victim a fold stage compared with, the policy's victim that
	// no-room replaced or kept, the victim worth dropped (-1: none).
	other int
}

// none is a choice of no victim by stage s.
func none(s victimStage) victimChoice { return victimChoice{group: -1, stage: s, other: -1} }

// chooseVictim returns die d's next victim for path, the pipeline of
// stages that path runs; round is blocking collection's count of rounds
// on the die so far (stageFruitless). A policy that answers a group that
// is not one of the die's candidates is an error, on the paths that
// check the answer before cleaning (paced, background; blocking
// collection's startVictim checks it).
func (f *FTL) chooseVictim(d int, path victimPath, round int) (victimChoice, error) {
	switch path {
	case pathFold:
		return f.foldOldest(d), nil
	case pathWear:
		return f.coldest(d), nil
	case pathReclaim:
		return f.emptyGroup(d), nil
	case pathBlocking:
		if c := f.foldFirst(d); c.group >= 0 {
			return c, nil
		}
		if round >= f.gpd {
			return f.fruitless(d), nil
		}
		return f.native(d), nil
	}
	// Paced and background collection.
	c := f.native(d)
	if c.group != -1 {
		if err := f.checkVictim(d, c.group); err != nil {
			return c, err
		}
	}
	c = f.worth(c)
	if fc := f.foldCheaper(d, c.group); fc.group >= 0 {
		return fc, nil
	}
	return c, nil
}

// native runs the stages that choose a native victim: retired, policy
// and no-room.
func (f *FTL) native(d int) victimChoice {
	if c := f.retired(d); c.group >= 0 {
		return c
	}
	g := f.cfg.Victim.Victim(View{f}, d)
	return f.noRoom(d, victimChoice{group: g, stage: stagePolicy, other: -1})
}

// retired is stageRetired: the first group of die d's retire queue that
// is still a candidate, taken off the queue.
func (f *FTL) retired(d int) victimChoice {
	if f.retireQ == nil {
		return none(stageNone)
	}
	for len(f.retireQ[d]) > 0 {
		g := f.retireQ[d][0]
		f.retireQ[d] = f.retireQ[d][1:]
		if f.candidate(g) {
			return victimChoice{group: int(g), stage: stageRetired, other: -1}
		}
	}
	return none(stageNone)
}

// noRoom is stageNoRoom, after the policy chose c: on a die with no free
// group, greedy's victim when c's valid units do not fit the GC group's
// room (counted in GCFallbacks).
func (f *FTL) noRoom(d int, c victimChoice) victimChoice {
	if len(f.free[d]) > 0 || (c.group >= 0 && f.Valid(c.group) <= f.gcRoom(d)) {
		return c
	}
	if b := (Greedy{}).Victim(View{f}, d); b >= 0 && b != c.group {
		f.cnt.GCFallbacks++
		return victimChoice{group: b, stage: stageNoRoom, other: c.group}
	}
	return c
}

// gcRoom is the units die d's GC group can still take.
func (f *FTL) gcRoom(d int) int {
	g := f.open[GCStream][d]
	if g < 0 {
		return 0
	}
	return (f.ppb-f.groupWP(g))*f.pageUnits - int(f.gc[d].n)
}

// worth is stageWorth: no victim instead of c when c holds only valid
// data.
func (f *FTL) worth(c victimChoice) victimChoice {
	if c.group >= 0 && f.Valid(c.group) == f.upg {
		return victimChoice{group: -1, stage: stageWorth, other: c.group}
	}
	return c
}

// fruitless is stageFruitless: greedy's victim on die d (counted in
// GCFallbacks), or none when it would free nothing.
func (f *FTL) fruitless(d int) victimChoice {
	g := Greedy{}.Victim(View{f}, d)
	if g < 0 || f.Valid(g) == f.upg {
		return victimChoice{group: -1, stage: stageFruitless, other: g}
	}
	f.cnt.GCFallbacks++
	return victimChoice{group: g, stage: stageFruitless, other: -1}
}

// foldFirst is stageFoldFirst: die d's next SLC group to fold when it
// holds no more valid units than greedy's native victim.
func (f *FTL) foldFirst(d int) victimChoice {
	if f.slc == nil {
		return none(stageNone)
	}
	g := f.foldVictim(d)
	if g < 0 {
		return none(stageNone)
	}
	return f.foldAgainst(g, Greedy{}.Victim(View{f}, d), stageFoldFirst)
}

// foldCheaper is stageFoldCheaper: die d's next SLC group to fold when it
// holds no more valid units than native victim n (-1: none).
func (f *FTL) foldCheaper(d, n int) victimChoice {
	if f.slc == nil {
		return none(stageNone)
	}
	return f.foldAgainst(f.foldVictim(d), n, stageFoldCheaper)
}

// foldAgainst returns, as stage s's choice, SLC group g (-1: none) to
// fold if it holds no more valid units than native group n (or n is -1),
// else none. Either frees one group for the units it moves, so the one
// with fewer valid units frees more space for less copying; a full SLC
// group holds 1/bits of a native one's units, so folding wins unless the
// native group is mostly invalid.
func (f *FTL) foldAgainst(g int32, n int, s victimStage) victimChoice {
	if g < 0 || (n >= 0 && f.Valid(int(g)) > f.Valid(n)) {
		return none(stageNone)
	}
	return victimChoice{group: int(g), stage: s, fold: true, other: n}
}

// foldOldest is stageFoldOldest, the cache's own folding: die d's next
// SLC group to fold (foldVictim).
func (f *FTL) foldOldest(d int) victimChoice {
	if f.slc == nil {
		return none(stageFoldOldest)
	}
	if g := f.foldVictim(d); g >= 0 {
		return victimChoice{group: int(g), stage: stageFoldOldest, fold: true, other: -1}
	}
	return none(stageFoldOldest)
}

// foldVictim returns die d's next SLC group to fold: one that holds no
// valid data if any (it costs only its erase), else the one filled
// first; -1 when no full SLC group waits.
func (f *FTL) foldVictim(d int) int32 {
	best, at := int32(-1), uint64(math.MaxUint64)
	for g := int32(d * f.gpd); g < int32((d+1)*f.gpd); g++ {
		if !f.slc[g] || f.busy[g] || f.groupWP(g) != f.slcPages {
			continue
		}
		if f.Valid(int(g)) == 0 {
			return g
		}
		if f.closedAt[g] < at {
			best, at = g, f.closedAt[g]
		}
	}
	return best
}

// coldest is stageColdest: the least-worn candidate of die d when the
// erase counts of its groups spread wider than StaticWLSpread (the most
// worn of any group against the least worn candidate), else none.
func (f *FTL) coldest(d int) victimChoice {
	best, lo, hi := -1, 0, 0
	for g := d * f.gpd; g < (d+1)*f.gpd; g++ {
		e := f.dev.EraseCount(g * f.np)
		hi = max(hi, e)
		if f.candidate(int32(g)) && (best < 0 || e < lo) {
			best, lo = g, e
		}
	}
	if best < 0 || hi-lo <= f.cfg.StaticWLSpread {
		return victimChoice{group: -1, stage: stageColdest, other: best}
	}
	return victimChoice{group: best, stage: stageColdest, other: -1}
}

// emptyGroup is stageEmpty: the first full group of die d that holds no
// valid data, or none.
func (f *FTL) emptyGroup(d int) victimChoice {
	for g := d * f.gpd; g < (d+1)*f.gpd; g++ {
		if f.candidate(int32(g)) && f.Valid(g) == 0 {
			return victimChoice{group: g, stage: stageEmpty, other: -1}
		}
	}
	return none(stageEmpty)
}
