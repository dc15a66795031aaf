package ftl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// pipeline runs victim selection for die on each path the victim command
// names and prints, a line each, what it chose:
//
//	PATH: gN by STAGE: WHY
//	PATH: fold gN by STAGE: WHY      (an SLC group to fold)
//	PATH: none by STAGE: WHY         (no victim; "none by none": no stage had one)
//
// followed by "a fallback" when the choice counts in GCFallbacks, and by
// what is left of the die's retire queue when the case had one. Each path
// runs on a freshly built FTL.
func (c *victimCase) pipeline(t *testing.T, td *datadriven.TestData, die int) string {
	round := 0
	td.MaybeScanArgs(t, "round", &round)
	name := "greedy"
	td.MaybeScanArgs(t, "policy", &name)
	p, err := ParsePolicy(name)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	paths, _ := td.Arg("path")
	var b strings.Builder
	for _, pn := range paths.Vals {
		path := victimPath(0)
		for path < numPaths && path.String() != pn {
			path++
		}
		if path == numPaths {
			td.Fatalf(t, "path %q, allowed %s", pn, strings.Join(pathNames[:], ", "))
		}
		f := c.buildWith(t, c.seed, p)
		ch, err := f.chooseVictim(die, path, round)
		fmt.Fprintf(&b, "%s: ", path)
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		if ch.fold {
			b.WriteString("fold ")
		}
		if ch.group < 0 {
			b.WriteString("none")
		} else {
			fmt.Fprintf(&b, "g%d", ch.group)
		}
		fmt.Fprintf(&b, " by %s: %s", ch.stage, c.why(f, ch, die, round, p))
		if f.cnt.GCFallbacks > 0 {
			b.WriteString("; a fallback")
		}
		if len(c.queue) > 0 {
			var left []string
			for _, g := range f.retireQ[die] {
				left = append(left, fmt.Sprintf("g%d", g))
			}
			fmt.Fprintf(&b, "; retire queue left: [%s]", strings.Join(left, " "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// why explains choice ch of die d's victim from the FTL's state: the
// stage's reason and the figures it weighed.
func (c *victimCase) why(f *FTL, ch victimChoice, d, round int, p VictimPolicy) string {
	valid := func(g int) string {
		if g < 0 {
			return "no victim"
		}
		return fmt.Sprintf("g%d with %d valid units", g, f.Valid(g))
	}
	switch ch.stage {
	case stageFoldFirst, stageFoldCheaper:
		against := "greedy's native victim"
		if ch.stage == stageFoldCheaper {
			against = "the native victim"
		}
		return fmt.Sprintf("SLC group with %d valid units, no more than %s (%s)", f.Valid(ch.group), against, valid(ch.other))
	case stageFoldOldest:
		if ch.group < 0 {
			return "no full SLC group waits"
		}
		if f.Valid(ch.group) == 0 {
			return "SLC group holding no valid data: only its erase"
		}
		return fmt.Sprintf("SLC group filled first (closed=%d), %d valid units", f.closedAt[ch.group], f.Valid(ch.group))
	case stageFruitless:
		if ch.group < 0 {
			return fmt.Sprintf("round %d, a die's worth (%d groups): greedy's %s frees nothing: the spare area is exhausted", round, f.gpd, valid(ch.other))
		}
		return fmt.Sprintf("round %d, a die's worth (%d groups): greedy's, %d valid units", round, f.gpd, f.Valid(ch.group))
	case stageRetired:
		return fmt.Sprintf("retired for a failed program, %d valid units to move out first", f.Valid(ch.group))
	case stagePolicy:
		s := fmt.Sprintf("%s's answer", p.Name())
		if ch.group < 0 {
			return s + ", no candidate"
		}
		s += fmt.Sprintf(", %d valid units", f.Valid(ch.group))
		switch {
		case len(f.free[d]) > 0:
		case f.Valid(ch.group) <= f.gcRoom(d):
			s += fmt.Sprintf(", which fit the GC group's room (%d) on a die with no free group", f.gcRoom(d))
		default:
			s += fmt.Sprintf(", more than the GC group's room (%d) on a die with no free group, and greedy has none emptier", f.gcRoom(d))
		}
		return s
	case stageNoRoom:
		return fmt.Sprintf("no free group, and %s's %s do not fit the GC group's room (%d): greedy's, %d valid units",
			p.Name(), valid(ch.other), f.gcRoom(d), f.Valid(ch.group))
	case stageWorth:
		return fmt.Sprintf("%s holds only valid data: cleaning it frees nothing, left to blocking collection", valid(ch.other))
	case stageColdest:
		hi := 0
		for g := d * f.gpd; g < (d+1)*f.gpd; g++ {
			hi = max(hi, f.dev.EraseCount(g*f.np))
		}
		if ch.group < 0 {
			if ch.other < 0 {
				return "no candidate"
			}
			return fmt.Sprintf("erase counts spread %d (g%d, least worn candidate, %d; most worn %d), within %d",
				hi-f.dev.EraseCount(ch.other*f.np), ch.other, f.dev.EraseCount(ch.other*f.np), hi, f.cfg.StaticWLSpread)
		}
		e := f.dev.EraseCount(ch.group * f.np)
		return fmt.Sprintf("least worn candidate (%d erases; most worn %d): spread %d above %d", e, hi, hi-e, f.cfg.StaticWLSpread)
	case stageEmpty:
		if ch.group < 0 {
			return "no full group without valid data"
		}
		return "full, no valid data: only its erase"
	}
	return "no stage had a victim"
}
