// Package ftltest is a test kit for users who write their own garbage
// collection victim policies: Check runs a rapid state machine that drives
// a small randomly shaped FTL with random mixes of writes, trims, reads,
// background and foreground garbage collection, flushes and secure erases,
// with data stored whole or compressed (logical units taking 1 to
// UnitSlots device units), with groups reserved or not and factory bad
// blocks or not, and after every
// step checks the FTL's invariants against a trivial model
// (logical unit → version of its latest write), with paced garbage
// collection on or off:
//
//   - every mapped logical unit reads back its latest write;
//   - trimmed and never-written units read as unmapped;
//   - valid-unit counts equal the units mapped to each group;
//   - free + open + full groups make up every group;
//   - write amplification is at least 1 once buffered data is flushed
//     (without compression);
//   - no page is programmed twice between erases (the nand package
//     refuses such a program, and any error fails the check);
//   - after a power cut at a random point among the latest flash
//     operations (programs unfinished, an erase per die not started,
//     and the program under way perhaps destroying the lower pages of its
//     word line — of 2, 3 or 4 pages, on MLC, TLC or QLC flash; on a
//     one-shot part every word line not programmed to its last page
//     loses its pages), the rebuilt mapping holds each unit's newest surviving
//     copy, the loss the rebuild reports is what reads show, and, with
//     safe erase, every write a flush made durable reads back (or a
//     later one).
//
// CheckPlacement does the same for flexible data placement: writes
// through reclaim unit handles of both isolation types, with collection
// keeping a persistently isolated handle's data apart from every other's.
//
// A policy that returns a group that is not a candidate, or that leads
// the FTL into an error, fails the check with a shrunk counterexample.
package ftltest

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ftlsim/ftlsim/ftl"
)

// Check runs the invariant state machine against the policies that
// newPolicy returns (one per generated FTL).
func Check(t *testing.T, newPolicy func() ftl.VictimPolicy) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) { Machine(rt, newPolicy) })
}

// Machine is one run of the state machine; Check calls it under
// rapid.Check. It is exported for users who want to combine it with their
// own rapid properties.
func Machine(rt *rapid.T, newPolicy func() ftl.VictimPolicy) {
	m := newMachine(rt, newPolicy)
	rt.Repeat(map[string]func(*rapid.T){
		"write":              m.write,
		"trim":               m.trim,
		"power_cut":          m.powerCut,
		"read":               func(t *rapid.T) { m.check(t, m.lba(t)) },
		"background_collect": m.backgroundGC,
		"fold_background":    m.foldBackground,
		"reclaim_empty":      m.reclaimEmpty,
		"flush":              m.flush,
		"secure_erase":       m.secureErase,
		"":                   m.invariants,
	})
	for x := range m.model {
		m.check(rt, int64(x))
	}
}
