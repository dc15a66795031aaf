package ftl

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/nand"
)

// VictimPolicy chooses the group garbage collection cleans next.
//
// Victim returns a full, not open, group of die (as v.Candidate reports),
// or -1 when there is none. A policy may keep state of its own but must
// draw randomness only from v.Rand so that runs repeat.
type VictimPolicy interface {
	Name() string
	Victim(v View, die int) int
}

// View is the read-only window a VictimPolicy has on the FTL.
type View struct{ f *FTL }

// Groups returns the first group of die d and how many groups each die has.
func (v View) Groups(d int) (first, n int) { return d * v.f.gpd, v.f.gpd }

// Candidate reports whether group g may be cleaned: it is full, not open
// and not already being cleaned.
func (v View) Candidate(g int) bool { return v.f.candidate(int32(g)) }

// State returns the state of group g.
func (v View) State(g int) nand.BlockState { return v.f.dev.State(g * v.f.np) }

// Valid returns the number of valid units in group g.
func (v View) Valid(g int) int { return v.f.Valid(g) }

// Capacity returns the number of units a group holds.
func (v View) Capacity() int { return v.f.upg }

// ClosedAt returns the write clock (units programmed so far) when group g
// was filled.
func (v View) ClosedAt(g int) uint64 { return v.f.closedAt[g] }

// Clock returns the current write clock.
func (v View) Clock() uint64 { return v.f.seq }

// EraseCount returns the erase count of group g.
func (v View) EraseCount(g int) int { return v.f.dev.EraseCount(g * v.f.np) }

// Rand returns the FTL's seeded random source.
func (v View) Rand() *rand.Rand { return v.f.rng }

// Greedy cleans the group with the fewest valid units (the oldest on a tie).
type Greedy struct{}

// Name returns "greedy".
func (Greedy) Name() string { return "greedy" }

// Victim returns the candidate with the fewest valid units.
func (Greedy) Victim(v View, die int) int {
	first, n := v.Groups(die)
	best, bv := -1, 0
	for g := first; g < first+n; g++ {
		if !v.Candidate(g) {
			continue
		}
		if val := v.Valid(g); best < 0 || val < bv || (val == bv && v.ClosedAt(g) < v.ClosedAt(best)) {
			best, bv = g, val
		}
	}
	return best
}

// FIFO cleans the group that was filled longest ago, whatever it holds
// (Desnoyers' LRW policy).
type FIFO struct{}

// Name returns "fifo".
func (FIFO) Name() string { return "fifo" }

// Victim returns the oldest candidate.
func (FIFO) Victim(v View, die int) int {
	first, n := v.Groups(die)
	best := -1
	for g := first; g < first+n; g++ {
		if v.Candidate(g) && (best < 0 || v.ClosedAt(g) < v.ClosedAt(best)) {
			best = g
		}
	}
	return best
}

// CostBenefit cleans the group with the highest (1-u)·age/(1+u), the LFS
// cleaner's benefit-to-cost ratio (Rosenblum and Ousterhout 1992), where u
// is the fraction of valid units and age the writes since it was filled.
type CostBenefit struct{}

// Name returns "cost-benefit".
func (CostBenefit) Name() string { return "cost-benefit" }

// Victim returns the candidate with the best benefit/cost.
func (CostBenefit) Victim(v View, die int) int {
	first, n := v.Groups(die)
	c, now := float64(v.Capacity()), v.Clock()
	best, bs := -1, -1.0
	for g := first; g < first+n; g++ {
		if !v.Candidate(g) {
			continue
		}
		u := float64(v.Valid(g)) / c
		s := (1 - u) * float64(now-v.ClosedAt(g)+1) / (1 + u)
		if s > bs {
			best, bs = g, s
		}
	}
	return best
}

// Random cleans a candidate chosen uniformly at random.
type Random struct{}

// Name returns "random".
func (Random) Name() string { return "random" }

// Victim returns a random candidate.
func (Random) Victim(v View, die int) int {
	first, n := v.Groups(die)
	r := v.Rand()
	for range 64 {
		if g := first + r.IntN(n); v.Candidate(g) {
			return g
		}
	}
	// Few candidates: choose among them exactly.
	k := 0
	for g := first; g < first+n; g++ {
		if v.Candidate(g) {
			k++
		}
	}
	if k == 0 {
		return -1
	}
	k = r.IntN(k)
	for g := first; ; g++ {
		if v.Candidate(g) {
			if k == 0 {
				return g
			}
			k--
		}
	}
}

// DChoices samples D candidates at random and cleans the one with the
// fewest valid units (the d-choices policy of Van Houdt 2013).
type DChoices struct{ D int }

// Name returns "d-choices:D".
func (p DChoices) Name() string { return "d-choices:" + strconv.Itoa(p.D) }

// Victim returns the best of D random candidates.
func (p DChoices) Victim(v View, die int) int {
	best, bv := -1, 0
	for range max(p.D, 1) {
		g := Random{}.Victim(v, die)
		if g < 0 {
			return -1
		}
		if val := v.Valid(g); best < 0 || val < bv {
			best, bv = g, val
		}
	}
	return best
}

// builtinPolicies are the names ParsePolicy and every Registry accept.
var builtinPolicies = [...]string{"cost-benefit", "d-choices:D", "fifo", "greedy", "random"}

// Policies lists the names ParsePolicy accepts.
func Policies() []string { return append([]string(nil), builtinPolicies[:]...) }

// ParsePolicy returns the built-in victim policy named s: greedy, fifo,
// cost-benefit, random or d-choices:D (D from 1 to 1024; "d-choices" alone
// means D = 10). Registry.Parse also knows a user's policies.
func ParsePolicy(s string) (VictimPolicy, error) {
	switch strings.ToLower(s) {
	case "greedy":
		return Greedy{}, nil
	case "fifo", "lrw":
		return FIFO{}, nil
	case "cost-benefit", "costbenefit", "cb":
		return CostBenefit{}, nil
	case "random":
		return Random{}, nil
	case "d-choices", "dchoices":
		return DChoices{D: 10}, nil
	}
	if rest, ok := strings.CutPrefix(strings.ToLower(s), "d-choices:"); ok {
		d, err := strconv.Atoi(rest)
		if err != nil || d < 1 || d > 1024 {
			return nil, fmt.Errorf("%w: gc policy %q: D must be an integer 1..1024", ErrConfig, s)
		}
		return DChoices{D: d}, nil
	}
	return nil, fmt.Errorf("%w: gc policy %q, allowed %s", ErrConfig, s, strings.Join(Policies(), ", "))
}
