package ftl

import (
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/ftlsim/ftlsim/nand"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// checkIsolation fails when a group holds valid data of two handles one
// of which is persistently isolated, or a persistent handle's data sits in
// a group the FTL says another owns. writer is, per logical unit, the
// handle that last wrote it (-1: none; -2: not known, an older copy a
// power cut brought back).
func checkIsolation(t require.TestingT, f *FTL, writer []int) {
	for g := 0; g < len(f.busy); g++ {
		seen := -1
		base := int64(g) * int64(f.upg)
		for pu := base; pu < base+int64(f.upg); pu += int64(f.pageUnits) {
			for m := f.dev.ValidMask(pu, f.pageUnits); m != 0; m &= m - 1 {
				lba := f.dev.Tag(pu + int64(bits.TrailingZeros64(m)))
				h := writer[lba]
				if h < 0 {
					continue // an older copy a power cut brought back: writer not known
				}
				if seen >= 0 && h != seen && (f.Persistent(h) || f.Persistent(seen)) {
					require.Failf(t, "isolation", "group %d holds data of handles %d and %d", g, seen, h)
				}
				if f.Persistent(h) {
					require.Equal(t, h, f.Owner(g), "owner of group %d", g)
				}
				seen = h
			}
		}
	}
}

// TestPlacementIsolationProperty writes, trims, flushes, cuts the power
// and secure-erases at random through handles of both isolation types
// (initially isolated ones with SafeErase or without), under every victim
// policy, and checks every 256 steps and at the end that no group mixes a
// persistently isolated handle's data with another handle's and that the
// FTL's invariants hold, and at the end that every unit reads back the
// data last written.
func TestPlacementIsolationProperty(t *testing.T) {
	for _, name := range Policies() {
		name = strings.Replace(name, ":D", ":4", 1) // d-choices:D with D = 4
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				pol, err := ParsePolicy(name)
				require.NoError(rt, err)
				g := geometry(2, 2, 40, 8)
				nh := rapid.IntRange(2, 5).Draw(rt, "handles")
				np := rapid.IntRange(0, nh).Draw(rt, "persistent")
				// SafeErase takes initially isolated handles only.
				safe := np == 0 && rapid.Bool().Draw(rt, "safe_erase")
				dev, err := nand.New(nand.Config{Geometry: g, Timing: timing, TrackData: true})
				require.NoError(rt, err)
				f, err := New(dev, Config{UserUnits: userUnitsFor(g, 0.6), Victim: pol, SafeErase: safe,
					Handles: nh, PersistentHandles: np, Seed: uint64(rapid.IntRange(0, 99).Draw(rt, "seed"))})
				require.NoError(rt, err)
				n := f.UserUnits()
				writer := make([]int, n)
				token := make([]uint32, n)
				for i := range writer {
					writer[i] = -1
				}
				steps := rapid.IntRange(200, 3000).Draw(rt, "steps")
				for i := range steps {
					switch op := rapid.IntRange(0, 99).Draw(rt, "op"); {
					case op < 90:
						h := rapid.IntRange(0, nh-1).Draw(rt, "h")
						// Each handle writes its own region most of the time, so
						// that collection finds handles' data in victims.
						lba := rapid.Int64Range(0, n-1).Draw(rt, "lba")
						if rapid.IntRange(0, 3).Draw(rt, "own") > 0 {
							span := n / int64(nh)
							lba = int64(h)*span + lba%span
						}
						require.NoError(rt, f.WriteHandle(h, AnyDie, lba, uint32(i+1), 1))
						writer[lba], token[lba] = h, uint32(i+1)
					case op < 97:
						lba := rapid.Int64Range(0, n-1).Draw(rt, "trim")
						require.NoError(rt, f.Trim(lba, 1))
						writer[lba], token[lba] = -1, 0
					case op < 98:
						require.NoError(rt, f.Flush())
					case op < 99:
						// A power cut between operations: the staged pages of
						// every handle are lost, nothing flushed is, and the
						// rest reads what the rebuild found.
						rec, err := f.PowerLoss(PowerCut{})
						require.NoError(rt, err)
						require.Zero(rt, rec.LostFlushedUnits, "flushed units lost")
						for _, lba := range rec.Lost {
							writer[lba], token[lba] = -1, 0
							if loc, err := f.Read(lba); err == nil && loc.Mapped {
								// An older copy: its writer is not known.
								writer[lba], token[lba] = -2, loc.Token
							}
						}
						for _, lba := range rec.Resurrected {
							loc, err := f.Read(lba)
							require.NoError(rt, err)
							writer[lba], token[lba] = -2, loc.Token
						}
					default:
						f.SecureErase()
						for lba := range writer {
							writer[lba], token[lba] = -1, 0
						}
					}
					if i%256 == 0 {
						require.NoError(rt, f.CheckInvariants())
						checkIsolation(rt, f, writer)
					}
				}
				require.NoError(rt, f.CheckInvariants())
				checkIsolation(rt, f, writer)
				for lba := range n {
					loc, err := f.Read(lba)
					require.NoError(rt, err)
					require.Equal(rt, writer[lba] != -1, loc.Mapped, "unit %d mapped", lba)
					if loc.Mapped {
						require.Equal(rt, token[lba], loc.Token, "unit %d", lba)
					}
				}
				var host, media int64
				for h := 0; h <= nh; h++ {
					host += f.HandleStats(h).HostUnits
					media += f.HandleStats(h).MediaUnits
				}
				c := f.Counters()
				require.Equal(rt, c.HostWriteUnits, host, "host units over the handles")
				require.Equal(rt, c.ProgramUnits, media, "media units over the handles")
			})
		})
	}
}

// TestPlacementHandleErrors checks the handle range and its errors.
func TestPlacementHandleErrors(t *testing.T) {
	g := geometry(2, 2, 40, 8)
	f := newFTL(t, g, false, Config{UserUnits: userUnitsFor(g, 0.3), Handles: 2, PersistentHandles: 1})
	require.ErrorIs(t, f.WriteHandle(2, AnyDie, 0, 1, 1), ErrPlacement)
	require.ErrorIs(t, f.WriteHandle(-1, AnyDie, 0, 1, 1), ErrPlacement)
	plain := newFTL(t, g, false, Config{UserUnits: userUnitsFor(g, 0.3)})
	require.ErrorIs(t, plain.WriteHandle(1, AnyDie, 0, 1, 1), ErrPlacement)
	require.NoError(t, plain.WriteHandle(0, AnyDie, 0, 1, 1))
	for _, c := range []Config{{Handles: MaxHandles + 1}, {Handles: 2, PersistentHandles: 3}, {PersistentHandles: 1}} {
		c.UserUnits = userUnitsFor(g, 0.3)
		dev := newFTL(t, g, false, Config{UserUnits: 1}).Device()
		_, err := New(dev, c)
		require.ErrorIs(t, err, ErrConfig, fmt.Sprint(c.Handles, c.PersistentHandles))
	}
}
