package ftl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/nand"
)

// TestSafeEraseSequentialOverwrite checks safe erase against theory: a
// sequential overwrite of a full drive invalidates whole groups in the
// order they were written, so collection finds empty victims and moves
// nothing, and the write amplification is 1 (the only extra programs are
// the padding a released word line takes). Safe erase must not change
// that on drives of many dies, where a victim's data was superseded on
// every die long before it is cleaned: its erase waits only for the
// programs that hold the newer copies, and those are at rest.
func TestSafeEraseSequentialOverwrite(t *testing.T) {
	tlc := timing
	tlc.Cell = nand.TLC
	for _, tc := range []struct {
		dies, pace int
		tm         nand.Timing
	}{
		{dies: 4, tm: timing},
		{dies: 10, tm: timing},
		{dies: 40, tm: timing},
		{dies: 40, pace: 4, tm: timing},
		{dies: 32, pace: 4, tm: tlc},
	} {
		t.Run(fmt.Sprintf("%d dies %v pace %d", tc.dies, tc.tm.Cell, tc.pace), func(t *testing.T) {
			// 4 KiB units, 16 KiB pages on 2 planes, 32 pages a block:
			// 256 units a group, 128 groups a die, 7 % spare.
			g := geometry(4, 2, 128, 32)
			g.Channels = tc.dies / 4
			cfg := Config{UserUnits: userUnitsFor(g, 0.07), Victim: Greedy{}, Seed: 1, SafeErase: true,
				GCLowWater: 2, GCRestoreTo: 3, GCPaceWater: tc.pace, GCHighWater: 8}
			f := newFTLOn(t, g, tc.tm, false, cfg)
			n := f.UserUnits()
			for pass := range 3 {
				c0 := f.Counters()
				for lba := range n {
					require.NoError(t, f.Write(lba, uint32(pass)))
				}
				c := f.Counters().Sub(c0)
				wa := float64(c.ProgramUnits) / float64(c.HostWriteUnits)
				t.Logf("pass %d: WA %.4f (moved %d, padded %d of %d host units)", pass, wa, c.GCCopiedUnits, c.PaddedUnits, c.HostWriteUnits)
				if pass > 0 {
					require.InDelta(t, 1, wa, 0.02, "pass %d: a sequential overwrite has WA 1", pass)
				}
			}
			require.NoError(t, f.CheckInvariants())
		})
	}
}
