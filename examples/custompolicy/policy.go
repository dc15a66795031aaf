package main

import (
	"fmt"
	"strconv"

	"github.com/ftlsim/ftlsim/ftl"
)

// WearGreedy is a user-written victim policy: greedy, but a group that has
// been erased more often than the least-worn candidate of its die pays
// Weight valid units per extra erase, so that cleaning (and the erase it
// ends with) drifts towards less-worn blocks. Weight 0 is greedy.
type WearGreedy struct{ Weight int }

// Name returns "wear-greedy:W".
func (p WearGreedy) Name() string { return "wear-greedy:" + strconv.Itoa(p.Weight) }

// Victim returns the candidate with the lowest valid count plus wear
// penalty (the oldest on a tie).
func (p WearGreedy) Victim(v ftl.View, die int) int {
	first, n := v.Groups(die)
	least := -1
	for g := first; g < first+n; g++ {
		if v.Candidate(g) {
			if e := v.EraseCount(g); least < 0 || e < least {
				least = e
			}
		}
	}
	best, bs := -1, 0
	for g := first; g < first+n; g++ {
		if !v.Candidate(g) {
			continue
		}
		s := v.Valid(g) + p.Weight*(v.EraseCount(g)-least)
		if best < 0 || s < bs || (s == bs && v.ClosedAt(g) < v.ClosedAt(best)) {
			best, bs = g, s
		}
	}
	return best
}

// newWearGreedy is the policy's factory for a registry: "wear-greedy"
// (weight 4) or "wear-greedy:W".
func newWearGreedy(arg string) (ftl.VictimPolicy, error) {
	if arg == "" {
		return WearGreedy{Weight: 4}, nil
	}
	w, err := strconv.Atoi(arg)
	if err != nil || w < 0 || w > 1<<20 {
		return nil, fmt.Errorf("weight %q: must be an integer 0..1048576", arg)
	}
	return WearGreedy{Weight: w}, nil
}

// Registry returns the built-in policies plus wear-greedy.
func Registry() (*ftl.Registry, error) {
	reg := ftl.NewRegistry()
	if err := reg.Register("wear-greedy", newWearGreedy); err != nil {
		return nil, err
	}
	return reg, nil
}
