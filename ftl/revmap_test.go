package ftl

import (
	"cmp"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/nand"
)

// TestReverseMapOnDeviceWithoutTags runs the same writes, trims and
// reads on two FTLs, one over a device that keeps its OOB tags and one
// over a device that keeps none (nand.Config.DropTags), which keeps its
// own reverse map of a few groups: every decision, counter and mapping
// entry is the same. A small budget makes the second pass over its
// mapping table often; a sequential fill first makes victims whose
// range of logical units is narrow, found by scans of their own range.
func TestReverseMapOnDeviceWithoutTags(t *testing.T) {
	cases := []struct {
		name    string
		cfg     Config
		slots   int  // device units a write takes, at most (compression)
		budget  int  // groups a pass gives a reverse map to
		fill    bool // every logical unit written in order first
		blocks  int  // per plane (0: 32)
		workers int  // goroutines of a pass (0: one)
	}{
		{"greedy", Config{Victim: Greedy{}}, 1, 0, false, 0, 0},
		{"greedy, budget of one", Config{Victim: Greedy{}}, 1, 1, false, 0, 0},
		{"greedy after a sequential fill", Config{Victim: Greedy{}}, 1, 1, true, 0, 0},
		{"greedy, passes by three goroutines", Config{Victim: Greedy{}}, 1, 1, false, 0, 3},
		{"fifo, safe erase", Config{Victim: FIFO{}, SafeErase: true}, 1, 3, false, 0, 0},
		{"cost-benefit, compressed units", Config{Victim: CostBenefit{}, UnitSlots: 2}, 2, 2, false, 0, 0},
		{"cost-benefit, compressed units after a fill", Config{Victim: CostBenefit{}, UnitSlots: 2}, 2, 2, true, 64, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := geometry(2, 2, cmp.Or(tc.blocks, 32), 8)
			tc.cfg.UserUnits = userUnitsFor(g, 0.15) / int64(max(tc.cfg.UnitSlots, 1))
			tc.cfg.Seed = 3
			var fs [2]*FTL
			for i, drop := range []bool{false, true} {
				dev, err := nand.New(nand.Config{Geometry: g, Timing: timing, DropTags: drop})
				require.NoError(t, err)
				fs[i], err = New(dev, tc.cfg)
				require.NoError(t, err)
			}
			tagged, untagged := fs[0], fs[1]
			require.Nil(t, tagged.rev)
			require.NotNil(t, untagged.rev)
			if tc.budget > 0 {
				untagged.rev.budget = tc.budget
			}
			untagged.rev.workers, untagged.rev.part = max(1, tc.workers), 1 // parts of whatever size

			n := tagged.UserUnits()
			if tc.fill {
				for lba := range n {
					require.NoError(t, tagged.WriteOn(AnyDie, lba, uint32(lba), 1))
					require.NoError(t, untagged.WriteOn(AnyDie, lba, uint32(lba), 1))
				}
			}
			r := rand.New(rand.NewPCG(5, 9))
			for i := range 20 * n {
				lba := r.Int64N(n)
				switch x := r.IntN(100); {
				case x < 3:
					k := min(1+r.Int64N(8), n-lba)
					require.Equal(t, tagged.Trim(lba, k), untagged.Trim(lba, k))
				case x < 10:
					a, errA := tagged.Read(lba)
					b, errB := untagged.Read(lba)
					require.Equal(t, errA, errB)
					require.Equal(t, a, b)
				default:
					slots := 1 + r.IntN(tc.slots)
					require.NoError(t, tagged.WriteOn(AnyDie, lba, uint32(i), slots))
					require.NoError(t, untagged.WriteOn(AnyDie, lba, uint32(i), slots))
				}
			}
			require.Equal(t, tagged.Counters(), untagged.Counters())
			require.Equal(t, tagged.l2p, untagged.l2p)
			require.NoError(t, untagged.CheckInvariants())
			require.Positive(t, tagged.Counters().GCCopiedUnits, "collection ran")
			require.Positive(t, untagged.ReverseMapPasses())
			if tc.fill {
				require.Positive(t, untagged.ReverseMapScans(), "victims of the fill found by scans of their range")
			}
			t.Logf("%d GC runs, %d passes over the mapping table, %d scans of a victim's range, %d groups hold a reverse map (budget %d)",
				untagged.Counters().GCRuns, untagged.ReverseMapPasses(), untagged.ReverseMapScans(), untagged.rev.held, untagged.rev.budget)
			require.LessOrEqual(t, untagged.rev.held, untagged.rev.budget+4*g.Dies(), "beside the budget, only the victims being collected")
		})
	}
}
