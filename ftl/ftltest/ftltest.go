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
// A policy that returns a group that is not a candidate, or that leads
// the FTL into an error, fails the check with a shrunk counterexample.
package ftltest

import (
	"errors"
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
	// Word lines of 2, 3 or 4 pages (safe erase protects them), and on
	// TLC and QLC perhaps one-shot programming: a cut loses a word
	// line's pages until its last is programmed.
	timing.Cell = rapid.SampledFrom([]nand.CellType{nand.MLC, nand.MLC, nand.TLC, nand.QLC}).Draw(rt, "cell")
	oneShot := timing.Cell != nand.MLC && rapid.Bool().Draw(rt, "one_shot")
	if oneShot {
		timing.Program, timing.ProgWordLineNs, timing.ProgLSBNs, timing.ProgMSBNs = nand.OneShot, 1, 0, 0
	}
	wlPages := timing.WordLinePages()
	timing.BadBlockPermille = rapid.SampledFrom([]int{0, 0, 40}).Draw(rt, "bad_block_permille")
	if rapid.IntRange(0, 3).Draw(rt, "program_failures") == 0 {
		// Blocks that wear out within the run: programs fail, and the
		// drive may end read-only.
		timing.RatedCycles = 20
		timing.ProgramFailPermille = 500
	}
	// An SLC cache, on parts whose blocks hold a page a word line in SLC
	// mode: static groups out of the spare area, dynamic ones borrowed.
	var slcStatic, slcDynamic int
	if g.PagesPerBlock >= wlPages && rapid.IntRange(0, 2).Draw(rt, "slc_cache") == 0 {
		timing.SLCReadNs, timing.SLCProgNs, timing.SLCRatedCycles = 1, 1, timing.RatedCycles*10
		slcStatic = rapid.IntRange(0, 1).Draw(rt, "slc_static_groups")
		slcDynamic = rapid.IntRange(0, g.BlocksPerPlane).Draw(rt, "slc_dynamic_groups")
		if slcStatic+slcDynamic == 0 {
			slcDynamic = 1
		}
	}
	dev, err := nand.New(nand.Config{Geometry: g, Timing: timing, TrackData: true, Seed: rapid.Uint64().Draw(rt, "bad_block_seed")})
	if err != nil {
		rt.Fatalf("nand.New: %v", err)
	}
	low := rapid.IntRange(1, 2).Draw(rt, "gc_low_water")
	restore := rapid.IntRange(low+1, min(low+3, g.BlocksPerPlane/2)).Draw(rt, "gc_restore_to")
	reserved := rapid.IntRange(0, 1).Draw(rt, "reserved_groups")
	safe := rapid.Bool().Draw(rt, "safe_erase")
	spare := (ftl.Config{GCLowWater: low, GCRestoreTo: restore}).MinSpareGroups() + 1 + reserved + slcStatic
	if safe {
		// Safe erase keeps three groups really free beside the open
		// ones; flushes pad word lines on these few-page blocks, and
		// power cuts undo erases, so it needs them.
		spare = max(spare, 2+3+1+reserved+slcStatic)
	}
	// Groups with a bad block on any plane are retired.
	var dataGroups int64
	for d := 0; d < g.Dies(); d++ {
		usable := 0
		for grp := d * g.BlocksPerPlane; grp < (d+1)*g.BlocksPerPlane-reserved; grp++ {
			bad := false
			for p := 0; p < g.PlanesPerDie; p++ {
				bad = bad || dev.IsBad(grp*g.PlanesPerDie+p)
			}
			if !bad {
				usable++
			}
		}
		dataGroups += int64(usable - spare + reserved)
	}
	if dataGroups < 1 {
		rt.Skip("the bad blocks leave no room for data")
	}
	maxUser := dataGroups * int64(g.UnitsPerGroup()) / int64(slots)
	user := rapid.Int64Range(max(1, maxUser/3), maxUser).Draw(rt, "user_units")
	wl := rapid.SampledFrom([]int{0, 2, 8}).Draw(rt, "static_wl_spread")
	pace := rapid.SampledFrom([]int{0, low + 1}).Draw(rt, "gc_pace_water")
	f, err := ftl.New(dev, ftl.Config{UserUnits: user, GCLowWater: low, GCRestoreTo: restore, GCHighWater: low + 2, GCPaceWater: pace,
		Victim: newPolicy(), StaticWLSpread: wl, UnitSlots: slots, ReservedGroups: reserved, SafeErase: safe, RecordOps: true, KeepErased: true,
		SLCStaticGroups: slcStatic, SLCDynamicGroups: slcDynamic, SLCDirect: rapid.Bool().Draw(rt, "slc_direct"),
		Seed: rapid.Uint64().Draw(rt, "seed")})
	if err != nil {
		rt.Fatalf("ftl.New: %v", err)
	}
	model := make([]uint32, user) // 0: unmapped
	version := uint32(0)
	// Power cuts: durable[x] is the version of x's latest write made
	// durable by a flush (0: none, or trimmed since); the flash operations
	// since the last flush are the ones a cut may leave unfinished.
	durable := make([]uint32, user)
	var sinceFlush []ftl.Op
	drain := func() {
		for _, op := range f.Ready().Ops {
			if op.Kind == ftl.OpProgram || op.Kind == ftl.OpErase {
				sinceFlush = append(sinceFlush, op)
			}
		}
		f.Advance()
	}
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
				if errors.Is(err, ftl.ErrReadOnly) {
					// Refused for want of space after programs failed:
					// the unit holds the new data or the old (checked).
					if loc, rerr := f.Read(x); rerr == nil && loc.Mapped && loc.Token == version {
						model[x] = version
					}
					check(t, x)
					continue
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
				model[i], durable[i] = 0, 0 // a trim is not journaled: nothing is claimed after a cut
			}
		},
		"power_cut": func(t *rapid.T) {
			drain()
			// The cut falls among the latest flash operations since the
			// last flush: those decided before it have run, the rest have
			// not — programs unfinished, erases not started (a controller
			// starts an erase only once the programs decided before it
			// have finished: safe erase relies on that).
			// At most one erase a die is under way or queued at a cut (a
			// controller issues an erase only after the programs before it).
			var cut ftl.PowerCut
			first := len(sinceFlush)
			erases := map[int32]bool{}
			for first > 0 {
				op := sinceFlush[first-1]
				if op.Kind == ftl.OpErase {
					if erases[op.Die] {
						break
					}
					erases[op.Die] = true
				}
				first--
			}
			at := rapid.IntRange(first, len(sinceFlush)).Draw(t, "cut_at")
			for _, op := range sinceFlush[:at] {
				if op.Kind == ftl.OpErase {
					f.ForgetErased(int(op.Block) / g.PlanesPerDie)
				}
			}
			// A program into a group erased later (and so done, without
			// safe erase) went with the erase.
			erasedLater := make([]bool, len(sinceFlush))
			gone := map[int32]bool{}
			for i := len(sinceFlush) - 1; i >= at; i-- {
				op := sinceFlush[i]
				grp := op.Block / int32(g.PlanesPerDie)
				if op.Kind == ftl.OpErase && !safe {
					gone[grp] = true
				}
				erasedLater[i] = op.Kind == ftl.OpProgram && gone[grp]
			}
			// The first program the cut stops may be under way: an upper
			// page's then destroys the pages programmed before it on its
			// word line. On a one-shot part every program the cut stops
			// loses the pages before it on its word line (they wait in
			// the die's latches), and so do the word lines whose last
			// page was never sent.
			underWay := rapid.Bool().Draw(t, "under_way")
			if oneShot {
				for pb := 0; pb < g.Blocks(); pb++ {
					if wp := dev.WritePointer(pb); wp%wlPages != 0 && wp != g.PagesPerBlock && !f.Retired(pb/g.PlanesPerDie) && !dev.IsSLC(pb) {
						for q := wp - wp%wlPages; q < wp; q++ {
							cut.Corrupted = append(cut.Corrupted, ftl.PageRef{Block: pb, Page: q})
						}
					}
				}
			}
			for i, op := range sinceFlush[at:] {
				if erasedLater[at+i] {
					continue
				}
				if op.Kind == ftl.OpProgram && op.SLC {
					underWay = false // a page a word line: it takes no other with it
				} else if op.Kind == ftl.OpProgram && (underWay || oneShot) {
					underWay = false
					for q := int(op.Page) - int(op.Page)%wlPages; q < int(op.Page); q++ {
						for p := 0; p < int(op.Planes); p++ {
							cut.Corrupted = append(cut.Corrupted, ftl.PageRef{Block: int(op.Block) + p, Page: q})
						}
					}
				}
				switch {
				case op.Kind == ftl.OpErase && !safe:
					// Without safe erase a controller issues an erase at
					// once: here it has run, before programs decided
					// earlier (the hazard safe erase removes).
					f.ForgetErased(int(op.Block) / g.PlanesPerDie)
					continue
				case op.Kind == ftl.OpErase:
					cut.Unerased = append(cut.Unerased, int(op.Block)/g.PlanesPerDie)
					continue
				}
				for p := 0; p < int(op.Planes); p++ {
					cut.Unfinished = append(cut.Unfinished, ftl.PageRef{Block: int(op.Block) + p, Page: int(op.Page)})
				}
			}
			rec, err := f.PowerLoss(cut)
			if err != nil {
				t.Fatalf("power loss: %v", err)
			}
			f.Advance()
			sinceFlush = sinceFlush[:0]
			// The rebuilt mapping is the newest surviving copy of each
			// unit, found here by a scan of the device's OOB areas.
			want := make([]int64, user)
			for i := range want {
				want[i] = -1
			}
			for u := int64(0); u < int64(g.Units()); u++ {
				pb, page := dev.Locate(u)
				tag := dev.Tag(u)
				if page >= dev.WritePointer(pb) || tag == nand.NoTag || int64(tag) >= user {
					continue
				}
				if w := want[tag]; w < 0 || int32(dev.Seq(u)-dev.Seq(w)) > 0 {
					want[tag] = u
				}
			}
			var lost, lostFlushed, resurrected int64
			for x := int64(0); x < user; x++ {
				loc, err := f.Read(x)
				if err != nil {
					t.Fatalf("read %d after the cut: %v", x, err)
				}
				if want[x] < 0 {
					if loc.Mapped {
						t.Fatalf("unit %d mapped after the rebuild, but no copy survives", x)
					}
				} else if !loc.Mapped || dev.Data(want[x]) != loc.Token {
					t.Fatalf("unit %d reads version %d (mapped %v); its newest surviving copy holds %d", x, loc.Token, loc.Mapped, dev.Data(want[x]))
				}
				// Every write that was durable reads back (with safe
				// erase: otherwise moved data can be lost with its source
				// erased), or a later one of the same unit.
				if safe && durable[x] != 0 && (!loc.Mapped || loc.Token < durable[x] || loc.Token > model[x]) {
					t.Fatalf("unit %d: durable version %d, latest %d, reads %d after the cut (mapped %v)", x, durable[x], model[x], loc.Token, loc.Mapped)
				}
				switch {
				case model[x] != 0 && loc.Token != model[x]:
					lost++
					if durable[x] == model[x] {
						lostFlushed++
					}
				case model[x] == 0 && loc.Mapped:
					resurrected++
				}
				model[x], durable[x] = loc.Token, loc.Token
			}
			if lostFlushed != rec.LostFlushedUnits {
				t.Fatalf("the rebuild reports %d flushed units lost; %d read other than their flushed latest write", rec.LostFlushedUnits, lostFlushed)
			}
			if lost != rec.LostUnits || resurrected != rec.ResurrectedUnits {
				t.Fatalf("the rebuild reports %d units lost and %d resurrected; %d read other than their latest write and %d trimmed read data",
					rec.LostUnits, rec.ResurrectedUnits, lost, resurrected)
			}
		},
		"read": func(t *rapid.T) { check(t, lba(t)) },
		"background_gc": func(t *rapid.T) {
			d := rapid.IntRange(0, g.Dies()-1).Draw(t, "die")
			if _, err := f.CollectBackground(d); err != nil {
				t.Fatalf("background gc on die %d: %v", d, err)
			}
		},
		"fold_background": func(t *rapid.T) {
			d := rapid.IntRange(0, g.Dies()-1).Draw(t, "die")
			if _, err := f.FoldBackground(d); err != nil {
				t.Fatalf("background fold on die %d: %v", d, err)
			}
		},
		"reclaim_empty": func(t *rapid.T) {
			d := rapid.IntRange(0, g.Dies()-1).Draw(t, "die")
			if _, err := f.ReclaimEmpty(d); err != nil {
				t.Fatalf("reclaim on die %d: %v", d, err)
			}
		},
		"flush": func(t *rapid.T) {
			if err := f.Flush(); errors.Is(err, ftl.ErrReadOnly) {
				return // nothing made durable
			} else if err != nil {
				t.Fatalf("flush: %v", err)
			}
			for _, op := range append(sinceFlush, f.Ready().Ops...) {
				if op.Kind == ftl.OpErase {
					f.ForgetErased(int(op.Block) / g.PlanesPerDie)
				}
			}
			f.Advance()
			sinceFlush = sinceFlush[:0]
			copy(durable, model)
			if wa := f.Counters().FTLWriteAmplification(); wa < 1 && slots == 1 {
				t.Fatalf("write amplification %v < 1 after flush", wa)
			}
		},
		"secure_erase": func(t *rapid.T) {
			if rapid.IntRange(0, 9).Draw(t, "rarely") != 0 {
				return
			}
			f.SecureErase()
			f.Advance()
			sinceFlush = sinceFlush[:0]
			clear(model)
			clear(durable)
		},
		"": func(t *rapid.T) {
			drain()
			if err := f.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		},
	})
	for x := range model {
		check(rt, int64(x))
	}
}
