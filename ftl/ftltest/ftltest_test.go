package ftltest_test

import (
	"strings"
	"testing"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/ftl/ftltest"
)

func TestGreedy(t *testing.T) { ftltest.Check(t, func() ftl.VictimPolicy { return ftl.Greedy{} }) }
func TestFIFO(t *testing.T)   { ftltest.Check(t, func() ftl.VictimPolicy { return ftl.FIFO{} }) }
func TestCostBenefit(t *testing.T) {
	ftltest.Check(t, func() ftl.VictimPolicy { return ftl.CostBenefit{} })
}
func TestRandom(t *testing.T) { ftltest.Check(t, func() ftl.VictimPolicy { return ftl.Random{} }) }
func TestDChoices(t *testing.T) {
	ftltest.Check(t, func() ftl.VictimPolicy { return ftl.DChoices{D: 3} })
}

// newestGreedy is a user-written policy (fewest valid units, the newest
// group on a tie): the kit checks it like the built-in ones. A policy
// that always took the lowest-numbered candidate, even one holding only
// valid data, livelocks garbage collection, and the kit reports it.
type newestGreedy struct{}

func (newestGreedy) Name() string { return "newest-greedy" }
func (newestGreedy) Victim(v ftl.View, die int) int {
	first, n := v.Groups(die)
	best := -1
	for g := first; g < first+n; g++ {
		if !v.Candidate(g) {
			continue
		}
		if best < 0 || v.Valid(g) < v.Valid(best) || (v.Valid(g) == v.Valid(best) && v.ClosedAt(g) > v.ClosedAt(best)) {
			best = g
		}
	}
	return best
}

func TestUserPolicy(t *testing.T) {
	ftltest.Check(t, func() ftl.VictimPolicy { return newestGreedy{} })
}

// Flexible data placement's isolation under every built-in victim
// policy, and under a user's.
func TestPlacement(t *testing.T) {
	for _, name := range ftl.Policies() {
		name = strings.Replace(name, ":D", ":4", 1) // d-choices:D with D = 4
		t.Run(name, func(t *testing.T) {
			ftltest.CheckPlacement(t, func() ftl.VictimPolicy {
				p, err := ftl.ParsePolicy(name)
				if err != nil {
					t.Fatal(err)
				}
				return p
			})
		})
	}
	t.Run("newest-greedy", func(t *testing.T) { ftltest.CheckPlacement(t, func() ftl.VictimPolicy { return newestGreedy{} }) })
}
