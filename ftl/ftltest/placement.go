package ftltest

import (
	"math/bits"
	"testing"

	"pgregory.net/rapid"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// CheckPlacement runs a rapid state machine of flexible data placement
// against the policies newPolicy returns: a small randomly shaped FTL
// with 2 to 5 reclaim unit handles, some persistently isolated, written
// through the handles at random (each handle mostly in its own region, so
// that collection finds several handles' data in its victims), with
// trims, flushes, background and foreground collection, reclaims and
// secure erases. After every step it checks that
//
//   - no group holds valid data of a persistently isolated handle beside
//     another handle's (collection keeps such a handle's data apart; an
//     initially isolated handle's may mix with other initially isolated
//     ones), and the FTL names that handle the group's owner;
//   - the FTL's invariants hold;
//
// and at the end that every unit reads back its latest write and that the
// handles' host and media units add up to the FTL's totals.
func CheckPlacement(t *testing.T, newPolicy func() ftl.VictimPolicy) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) { PlacementMachine(rt, newPolicy) })
}

// PlacementMachine is one run of CheckPlacement's state machine, for
// users who combine it with their own rapid properties.
func PlacementMachine(rt *rapid.T, newPolicy func() ftl.VictimPolicy) {
	g := nand.Geometry{Channels: 1, TargetsPerChannel: 1, DiesPerTarget: rapid.IntRange(1, 2).Draw(rt, "dies"),
		PlanesPerDie: rapid.IntRange(1, 2).Draw(rt, "planes"), BlocksPerPlane: rapid.IntRange(24, 40).Draw(rt, "blocks"),
		PagesPerBlock: rapid.IntRange(4, 8).Draw(rt, "pages"), PageBytes: 4096, UnitBytes: 4096}
	timing := nand.Timing{Cell: nand.MLC, ReadNs: 1, ProgLSBNs: 1, ProgMSBNs: 1, EraseNs: 1, BusMBps: 1, RatedCycles: 3000}
	dev, err := nand.New(nand.Config{Geometry: g, Timing: timing, TrackData: true})
	if err != nil {
		rt.Fatalf("nand.New: %v", err)
	}
	nh := rapid.IntRange(2, 5).Draw(rt, "handles")
	np := rapid.IntRange(0, nh).Draw(rt, "persistent")
	// Each handle keeps a group open on each die: the spare must hold
	// them beside the collection's.
	spare := (nh + 4) * g.Dies()
	user := int64(g.Groups()-spare) * int64(g.UnitsPerGroup()) * int64(rapid.IntRange(60, 95).Draw(rt, "fill_percent")) / 100
	if user < 1 {
		rt.Skip("no room for data beside the handles' open groups")
	}
	f, err := ftl.New(dev, ftl.Config{UserUnits: user, Victim: newPolicy(), Handles: nh, PersistentHandles: np,
		GCLowWater: 1, GCRestoreTo: 2, GCHighWater: 3, Seed: rapid.Uint64().Draw(rt, "seed")})
	if err != nil {
		rt.Fatalf("ftl.New: %v", err)
	}
	writer := make([]int, user) // the handle that last wrote each unit (-1: none)
	token := make([]uint32, user)
	for i := range writer {
		writer[i] = -1
	}
	var version uint32
	forget := func() {
		for lba := range writer {
			writer[lba], token[lba] = -1, 0
		}
	}
	// Filled first, each unit through its region's handle, so that the
	// writes that follow collect.
	for lba := range user {
		h := int(min(lba*int64(nh)/user, int64(nh-1)))
		version++
		if err := f.WriteHandle(h, ftl.AnyDie, lba, version, 1); err != nil {
			rt.Fatalf("fill %d through handle %d: %v", lba, h, err)
		}
		writer[lba], token[lba] = h, version
	}
	rt.Repeat(map[string]func(*rapid.T){
		"write": func(t *rapid.T) {
			// A burst through one handle, mostly in its own region.
			h := rapid.IntRange(0, nh-1).Draw(t, "handle")
			lba := rapid.Int64Range(0, user-1).Draw(t, "lba")
			span := user / int64(nh)
			own := span > 0 && rapid.IntRange(0, 3).Draw(t, "own_region") > 0
			for range rapid.IntRange(1, 512).Draw(t, "burst") {
				lba = (lba*7 + 3) % user
				x := lba
				if own {
					x = int64(h)*span + lba%span
				}
				version++
				if err := f.WriteHandle(h, ftl.AnyDie, x, version, 1); err != nil {
					t.Fatalf("write %d through handle %d: %v", x, h, err)
				}
				writer[x], token[x] = h, version
			}
		},
		"trim": func(t *rapid.T) {
			lba := rapid.Int64Range(0, user-1).Draw(t, "lba")
			if err := f.Trim(lba, 1); err != nil {
				t.Fatalf("trim %d: %v", lba, err)
			}
			writer[lba], token[lba] = -1, 0
		},
		"flush": func(t *rapid.T) {
			if err := f.Flush(); err != nil {
				t.Fatalf("flush: %v", err)
			}
		},
		"background_collect": func(t *rapid.T) {
			if _, err := f.CollectBackground(rapid.IntRange(0, g.Dies()-1).Draw(t, "die")); err != nil {
				t.Fatalf("background collection: %v", err)
			}
		},
		"reclaim_empty": func(t *rapid.T) {
			if _, err := f.ReclaimEmpty(rapid.IntRange(0, g.Dies()-1).Draw(t, "die")); err != nil {
				t.Fatalf("reclaim: %v", err)
			}
		},
		"secure_erase": func(t *rapid.T) {
			if rapid.IntRange(0, 19).Draw(t, "rarely") == 0 {
				f.SecureErase()
				forget()
			}
		},
		"": func(t *rapid.T) {
			f.Advance()
			if err := f.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
			checkIsolation(t, f, writer)
		},
	})
	for lba := range user {
		loc, err := f.Read(lba)
		if err != nil {
			rt.Fatalf("read %d: %v", lba, err)
		}
		if loc.Mapped != (writer[lba] >= 0) || (loc.Mapped && loc.Token != token[lba]) {
			rt.Fatalf("unit %d reads %v (token %d), last written by handle %d with token %d", lba, loc.Mapped, loc.Token, writer[lba], token[lba])
		}
	}
	var host, media int64
	for h := 0; h <= nh; h++ {
		host += f.HandleStats(h).HostUnits
		media += f.HandleStats(h).MediaUnits
	}
	if c := f.Counters(); c.HostWriteUnits != host || c.ProgramUnits != media {
		rt.Fatalf("the handles count %d host and %d media units, the FTL %d and %d", host, media, c.HostWriteUnits, c.ProgramUnits)
	}
}

// checkIsolation fails when a group holds valid data of a persistently
// isolated handle beside another handle's, or a persistent handle's data
// in a group the FTL says another owns.
func checkIsolation(t *rapid.T, f *ftl.FTL, writer []int) {
	dev := f.Device()
	g := dev.Config().Geometry
	upg, upp := int64(g.UnitsPerGroup()), g.UnitsPerPage()*g.PlanesPerDie
	for grp := range g.Groups() {
		seen := -1
		base := int64(grp) * upg
		for pu := base; pu < base+upg; pu += int64(upp) {
			for m := dev.ValidMask(pu, upp); m != 0; m &= m - 1 {
				lba := dev.Tag(pu + int64(bits.TrailingZeros64(m)))
				h := writer[lba]
				if seen >= 0 && h != seen && (f.Persistent(h) || f.Persistent(seen)) {
					t.Fatalf("group %d holds valid data of handles %d and %d (persistently isolated: %v, %v)", grp, seen, h, f.Persistent(seen), f.Persistent(h))
				}
				if f.Persistent(h) && f.Owner(grp) != h {
					t.Fatalf("group %d holds persistently isolated handle %d's data, owned by %d", grp, h, f.Owner(grp))
				}
				seen = h
			}
		}
	}
}
