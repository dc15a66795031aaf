// Package ftltest is a test kit for users who write their own garbage
// collection victim policies: Check runs a rapid state machine that drives
// a small randomly shaped FTL with random mixes of writes, trims, reads,
// background and foreground garbage collection, flushes and secure erases,
// with data stored whole or compressed (logical units taking 1 to
// UnitSlots device units) and with groups reserved or not, and after every
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
//     refuses such a program, and any error fails the check).
//
// A policy that returns a group that is not a candidate, or that leads
// the FTL into an error, fails the check with a shrunk counterexample.
package ftltest

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
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
	slots := rapid.SampledFrom([]int{1, 1, 2, 4}).Draw(rt, "unit_slots")
	g := nand.Geometry{
		Channels:          1,
		TargetsPerChannel: 1,
		DiesPerTarget:     rapid.IntRange(1, 3).Draw(rt, "dies"),
		PlanesPerDie:      rapid.IntRange(1, 2).Draw(rt, "planes"),
		BlocksPerPlane:    rapid.IntRange(8, 20).Draw(rt, "blocks"),
		PagesPerBlock:     rapid.IntRange(2, 8).Draw(rt, "pages"),
		PageBytes:         rapid.SampledFrom([]int{4096, 8192, 16384}).Draw(rt, "page_bytes"),
		UnitBytes:         4096 / slots,
	}
	timing := nand.Timing{Cell: nand.MLC, ReadNs: 1, ProgLSBNs: 1, ProgMSBNs: 1, EraseNs: 1,
		BusMBps: 1, RatedCycles: 3000}
	dev, err := nand.New(nand.Config{Geometry: g, Timing: timing, TrackData: true})
	if err != nil {
		rt.Fatalf("nand.New: %v", err)
	}
	low := rapid.IntRange(1, 2).Draw(rt, "gc_low_water")
	restore := rapid.IntRange(low+1, min(low+3, g.BlocksPerPlane/2)).Draw(rt, "gc_restore_to")
	reserved := rapid.IntRange(0, 1).Draw(rt, "reserved_groups")
	spare := (ftl.Config{GCLowWater: low, GCRestoreTo: restore}).MinSpareGroups() + 1 + reserved
	maxUser := int64(g.Dies()*(g.BlocksPerPlane-spare)) * int64(g.UnitsPerGroup()) / int64(slots)
	user := rapid.Int64Range(max(1, maxUser/3), maxUser).Draw(rt, "user_units")
	wl := rapid.SampledFrom([]int{0, 2, 8}).Draw(rt, "static_wl_spread")
	pace := rapid.SampledFrom([]int{0, low + 1}).Draw(rt, "gc_pace_water")
	f, err := ftl.New(dev, ftl.Config{UserUnits: user, GCLowWater: low, GCRestoreTo: restore, GCHighWater: low + 2, GCPaceWater: pace,
		Victim: newPolicy(), StaticWLSpread: wl, UnitSlots: slots, ReservedGroups: reserved,
		Seed: rapid.Uint64().Draw(rt, "seed")})
	if err != nil {
		rt.Fatalf("ftl.New: %v", err)
	}
	model := make([]uint32, user) // 0: unmapped
	version := uint32(0)
	// Writes favour a hot range so that GC sees mixed victims.
	lba := func(t *rapid.T) int64 {
		if rapid.Bool().Draw(t, "hot") {
			return rapid.Int64Range(0, max(0, user/8)).Draw(t, "lba")
		}
		return rapid.Int64Range(0, user-1).Draw(t, "lba")
	}
	check := func(t *rapid.T, x int64) {
		loc, err := f.Read(x)
		if err != nil {
			t.Fatalf("read %d: %v", x, err)
		}
		if loc.Mapped != (model[x] != 0) {
			t.Fatalf("unit %d mapped=%v, model version %d", x, loc.Mapped, model[x])
		}
		if loc.Mapped && loc.Token != model[x] {
			t.Fatalf("unit %d reads version %d, latest write was %d", x, loc.Token, model[x])
		}
	}
	rt.Repeat(map[string]func(*rapid.T){
		"write": func(t *rapid.T) {
			n := rapid.IntRange(1, 64).Draw(t, "count")
			for range n {
				x := lba(t)
				version++
				if slots == 1 {
					err = f.Write(x, version)
				} else {
					err = f.WriteSlots(x, version, rapid.IntRange(1, slots).Draw(t, "slots"))
				}
				if err != nil {
					t.Fatalf("write %d: %v", x, err)
				}
				model[x] = version
			}
		},
		"trim": func(t *rapid.T) {
			x := lba(t)
			n := rapid.Int64Range(1, min(64, user-x)).Draw(t, "n")
			if err := f.Trim(x, n); err != nil {
				t.Fatalf("trim %d+%d: %v", x, n, err)
			}
			for i := x; i < x+n; i++ {
				model[i] = 0
			}
		},
		"read": func(t *rapid.T) { check(t, lba(t)) },
		"background_gc": func(t *rapid.T) {
			d := rapid.IntRange(0, g.Dies()-1).Draw(t, "die")
			if _, err := f.CollectBackground(d); err != nil {
				t.Fatalf("background gc on die %d: %v", d, err)
			}
		},
		"reclaim_empty": func(t *rapid.T) {
			d := rapid.IntRange(0, g.Dies()-1).Draw(t, "die")
			if _, err := f.ReclaimEmpty(d); err != nil {
				t.Fatalf("reclaim on die %d: %v", d, err)
			}
		},
		"flush": func(t *rapid.T) {
			if err := f.Flush(); err != nil {
				t.Fatalf("flush: %v", err)
			}
			if wa := f.Counters().FTLWriteAmplification(); wa < 1 && slots == 1 {
				t.Fatalf("write amplification %v < 1 after flush", wa)
			}
		},
		"secure_erase": func(t *rapid.T) {
			if rapid.IntRange(0, 9).Draw(t, "rarely") != 0 {
				return
			}
			f.SecureErase()
			clear(model)
		},
		"": func(t *rapid.T) {
			if err := f.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		},
	})
	for x := range model {
		check(rt, int64(x))
	}
}
