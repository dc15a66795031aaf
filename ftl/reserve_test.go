package ftl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The spare budget from first principles: one group a die for the two
// write points (each half written on average), the reserve at the level
// collection keeps, and the warning exactly above a quarter of the spare.
func TestSpareBudgetWarnsAboveAQuarter(t *testing.T) {
	const upg = 4 * 64 // units a group: 16 KiB pages of 4 KiB units, 64 pages
	cases := []struct {
		name          string
		spare         int // spare groups a die
		low, restore  int
		pace          int
		safe          bool
		mode          ReserveMode
		wantHeld      float64 // groups a die
		wantWarn      bool
		wantScaledLow int
	}{
		// Level halfway between low water 1 and restore 2: 1.5 + 1 open.
		{name: "exactly a quarter", spare: 10, low: 1, restore: 2, wantHeld: 2.5, wantScaledLow: 1},
		{name: "just above", spare: 9, low: 1, restore: 2, wantHeld: 2.5, wantWarn: true, wantScaledLow: 1},
		// Paced collection holds the pace water.
		{name: "pace water", spare: 28, low: 2, restore: 3, pace: 6, wantHeld: 7, wantScaledLow: 2},
		{name: "pace water above", spare: 27, low: 2, restore: 3, pace: 6, wantHeld: 7, wantWarn: true, wantScaledLow: 2},
		// SafeErase keeps three groups really free.
		{name: "safe erase floor", spare: 16, low: 1, restore: 2, safe: true, wantHeld: 4, wantScaledLow: 1},
		{name: "safe erase above", spare: 15, low: 1, restore: 2, safe: true, wantHeld: 4, wantWarn: true, wantScaledLow: 1},
		// Sized from the spare: low 4 restore 8 (level 6, held 7 of 20)
		// scaled by (5−1)/6 to 2 and 5 (level 3.5, held 4.5 ≤ 5).
		{name: "spare mode scales", spare: 20, low: 4, restore: 8, mode: ReserveSpare, wantHeld: 4.5, wantScaledLow: 2},
		{name: "fixed mode does not", spare: 20, low: 4, restore: 8, wantHeld: 7, wantWarn: true, wantScaledLow: 4},
		// Too small to scale below the floors: held stays above a quarter.
		{name: "spare mode at its floors", spare: 6, low: 2, restore: 4, mode: ReserveSpare, wantHeld: 2.5, wantWarn: true, wantScaledLow: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const dies, user = 4, 200 // groups of user data a die
			g := geometry(dies, 1, user+tc.spare, 64)
			cfg := Config{UserUnits: int64(dies * user * upg), GCLowWater: tc.low, GCRestoreTo: tc.restore,
				GCHighWater: max(tc.restore, tc.pace), GCPaceWater: tc.pace, SafeErase: tc.safe, Reserve: tc.mode}
			b, err := cfg.SpareBudget(g)
			require.NoError(t, err)
			assert.InDelta(t, float64(tc.spare), b.SpareGroups, 1e-9)
			assert.InDelta(t, tc.wantHeld, b.Held(), 1e-9)
			assert.InDelta(t, tc.wantHeld/float64(tc.spare), b.HeldShare(), 1e-9)
			assert.Equal(t, tc.wantWarn, b.Warning() != "", b.Warning())
			assert.Equal(t, tc.wantScaledLow, b.GCLowWater)
			assert.InDelta(t, 100*(float64(tc.spare)-tc.wantHeld)/user, b.EffectivePercent(), 1e-9)
			// New sizes the thresholds as SpareBudget says.
			f := newFTL(t, g, false, cfg)
			assert.Equal(t, b, f.SpareBudget())
			assert.Equal(t, b.GCLowWater, f.Config().GCLowWater)
			assert.Equal(t, b.GCRestoreTo, f.Config().GCRestoreTo)
		})
	}
}

// Under ReserveSpare the held share stays at or below the limit whenever
// the floors allow, across die counts at a fixed capacity.
func TestReserveSpareHoldsAtMostAQuarter(t *testing.T) {
	const units = 64 << 10 // user units: 256 MiB of 4 KiB
	for _, dies := range []int{1, 2, 4, 8, 16, 32} {
		blocks := int(float64(units)/float64(dies)/256*1.15) + 1
		g := geometry(dies, 1, blocks, 64)
		cfg := Config{UserUnits: units, GCLowWater: 2, GCRestoreTo: 4, GCHighWater: 8, GCPaceWater: 6, Reserve: ReserveSpare}
		b, err := cfg.SpareBudget(g)
		if err != nil {
			continue // too few groups a die even at the floors
		}
		atFloor := b.GCLowWater == 1 && b.GCRestoreTo == 2
		if !atFloor {
			assert.LessOrEqual(t, b.HeldShare(), HeldShareLimit+1e-9, "dies %d: %+v", dies, b)
		}
		assert.Equal(t, b.HeldShare() > HeldShareLimit, b.Warning() != "", "dies %d", dies)
	}
}
