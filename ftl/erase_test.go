package ftl

import (
	"fmt"
	"math/rand/v2"
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

// TestSafeEraseOpsNameTheirPrograms checks what the op log tells a
// controller about the order of erases (Op.Prog): host programs are
// numbered one by one, a program says it completes its group's word line
// exactly when its page is a word line's last (or the block's), and an
// erase names a host program only once that program and every one
// before it are at rest — ended, and their word lines completed by a
// later program of their die — in the log's order, which is the order a
// controller books them.
func TestSafeEraseOpsNameTheirPrograms(t *testing.T) {
	tlc := timing
	tlc.Cell = nand.TLC
	for _, tm := range []nand.Timing{timing, tlc} {
		t.Run(tm.Cell.String(), func(t *testing.T) {
			g := geometry(4, 2, 64, 24)
			g.Channels = 2
			cfg := Config{UserUnits: userUnitsFor(g, 0.1), Victim: Greedy{}, Seed: 1, SafeErase: true, RecordOps: true,
				GCLowWater: 2, GCRestoreTo: 3, GCHighWater: 8}
			f := newFTLOn(t, g, tm, false, cfg)
			wl := int(tm.Cell)
			var (
				n        uint32 // host programs seen
				settled  uint32 // every program up to it is at rest
				rested   = map[uint32]bool{}
				pend     = map[int32][]uint32{}
				erasesOn int
			)
			rng := rand.New(rand.NewPCG(1, 2))
			users := f.UserUnits()
			for i := range 6 * users {
				lba := int64(i)
				if i >= users {
					lba = rng.Int64N(users)
				}
				require.NoError(t, f.Write(lba, uint32(i)))
				for _, op := range f.Ready().Ops {
					switch {
					case op.Kind == OpProgram && op.Cause == CauseHost:
						n++
						require.Equal(t, n, op.Prog.N(), "host programs are numbered in order")
						last := (int(op.Page)+1)%wl == 0 || int(op.Page)+1 == int(g.PagesPerBlock)
						require.Equal(t, op.SLC || last, op.Prog.Rests(), "op %v: rests", op)
						pend[op.Die] = append(pend[op.Die], n)
						if op.Prog.Rests() {
							for _, p := range pend[op.Die] {
								rested[p] = true
							}
							pend[op.Die] = pend[op.Die][:0]
						}
						for rested[settled+1] {
							settled++
						}
					case op.Kind == OpErase && op.Prog != 0:
						erasesOn++
						require.LessOrEqual(t, op.Prog.N(), settled, "op %v: erase after host program %d, at rest only up to %d", op, op.Prog.N(), settled)
					}
				}
				f.Advance()
			}
			require.Positive(t, erasesOn, "erases waited for host programs")
			t.Logf("%d host programs, %d erases after one", n, erasesOn)
		})
	}
}
