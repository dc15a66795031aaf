package ftl

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/internal/testtier"
)

// compressedWA fills a drive whose logical units span k slots, storing
// every unit in n slots, then writes uniformly random units (drives
// drive writes) and returns
// the write amplification (slots programmed per uncompressed slot written)
// and the effective α over the second half, in uncompressed terms.
func compressedWA(t *testing.T, k, n int, op float64, drives int) (wa, alpha, ratio float64) {
	g := geometry(2, 1, 256, 64)
	g.UnitBytes = 4096 / k
	user := int64(float64(g.Units()/int64(k)) / (1 + op))
	f := newFTL(t, g, false, Config{UserUnits: user, UnitSlots: k, Victim: FIFO{}, Seed: 1})
	for lba := int64(0); lba < user; lba++ {
		require.NoError(t, f.WriteSlots(lba, 0, n))
	}
	r := rand.New(rand.NewPCG(3, 5))
	total := int64(drives) * user
	var c0 Counters
	for i := int64(0); i < total; i++ {
		if i == total/2 {
			c0 = f.Counters()
			f.ResetStats()
		}
		require.NoError(t, f.WriteSlots(r.Int64N(user), 0, n))
	}
	require.NoError(t, f.CheckInvariants())
	c := f.Counters()
	wa = float64(c.ProgramUnits-c0.ProgramUnits) / float64((c.HostWriteUnits-c0.HostWriteUnits)*int64(k))
	return wa, f.Stats().EffectiveAlpha, c.CompressionRatio()
}

// TestCompressionMatchesTheory: data stored at a fraction n/k of its size
// behaves like uncompressed data on a drive with k/n times the physical
// space per user byte, so FIFO cleaning must follow Desnoyers' model at
// α' = α·k/n, with write amplification (per uncompressed byte) scaled by
// n/k (with the padding of pages that n does not divide counted as
// stored). Without compression (n = k) this is the plain model. The long
// tier writes 8 drive writes, the default tier 4.
func TestCompressionMatchesTheory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs millions of FTL writes")
	}
	for _, tc := range []struct{ k, n int }{{4, 4}, {4, 3}, {2, 1}, {4, 2}} {
		wa, alpha, ratio := compressedWA(t, tc.k, tc.n, 0.07, testtier.Pick(4, 8))
		// Units do not straddle pages: a page of p slots holds ⌊p/n⌋
		// units, the rest is padding.
		p := 16384 / (4096 / tc.k)
		frac := float64(p) / float64(p/tc.n) / float64(tc.k)
		want := frac * FIFOWriteAmplification(alpha/frac)
		t.Logf("stored at %d/%d: α %.4f, α' %.4f, WA %.3f theory %.3f (%+.2f%%), ratio %.3f",
			tc.n, tc.k, alpha, alpha/frac, wa, want, 100*(wa/want-1), ratio)
		require.InEpsilon(t, want, wa, theoryTolerance)
		require.InDelta(t, float64(tc.n)/float64(tc.k), ratio, 1e-9)
	}
}

func TestWriteSlotsPadsRatherThanStraddles(t *testing.T) {
	g := geometry(1, 1, 16, 8)
	g.UnitBytes = 1024 // 16 slots a page, 4 a logical unit
	f := newFTL(t, g, true, Config{UserUnits: 100, UnitSlots: 4})
	// 3 + 3 + 3 + 3 = 12 slots, then a 3-slot unit fits (15), then a
	// 4-slot unit does not: one slot is padded and a new page starts.
	for lba := int64(0); lba < 5; lba++ {
		require.NoError(t, f.WriteSlots(lba, uint32(lba+1), 3))
	}
	require.NoError(t, f.WriteSlots(5, 6, 4))
	c := f.Counters()
	require.Equal(t, int64(1), c.PaddedUnits)
	require.Equal(t, int64(16), c.ProgramUnits)
	require.Equal(t, int64(19), c.HostSlots)
	for lba := int64(0); lba < 6; lba++ {
		loc, err := f.Read(lba)
		require.NoError(t, err)
		require.Equal(t, uint32(lba+1), loc.Token)
		require.Equal(t, map[bool]int{true: 4, false: 3}[lba == 5], loc.Units)
	}
	require.NoError(t, f.CheckInvariants())
	require.ErrorIs(t, f.WriteSlots(1, 0, 5), ErrRange)
	require.ErrorIs(t, f.WriteSlots(1, 0, 0), ErrRange)
}

func TestReservedGroupsStayOutOfUse(t *testing.T) {
	g := geometry(2, 1, 32, 8)
	f := newFTL(t, g, false, Config{UserUnits: userUnitsFor(g, 0.4), ReservedGroups: 4})
	require.Equal(t, 2*(32-4), f.FreeGroups())
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 50000; i++ {
		require.NoError(t, f.Write(r.Int64N(f.UserUnits()), 0))
	}
	require.NoError(t, f.CheckInvariants())
	for d := 0; d < 2; d++ {
		for grp := 32 - 4; grp < 32; grp++ {
			require.Equal(t, 0, f.Device().WritePointer(d*32+grp))
		}
	}
	// A drive whose reserve leaves no room for the data is refused.
	dev := f.Device()
	_, err := New(dev, Config{UserUnits: userUnitsFor(g, 0.07), ReservedGroups: 8})
	require.ErrorIs(t, err, ErrConfig)
}

// TestMovesAreRecordedOnce: with RecordMoves, each logical unit GC moves
// is recorded once in the op log, whatever the number of slots it takes.
func TestMovesAreRecordedOnce(t *testing.T) {
	g := geometry(2, 1, 32, 8)
	g.UnitBytes = 2048
	f := newFTL(t, g, false, Config{UserUnits: g.Units() / 2 / 5 * 4, UnitSlots: 2, RecordOps: true, RecordMoves: true})
	r := rand.New(rand.NewPCG(1, 2))
	var slots, moved, movedSlots int64
	size := map[int64]int64{} // the slots each unit was last written with
	for i := 0; i < 40000; i++ {
		n, lba := 1+r.IntN(2), r.Int64N(f.UserUnits())
		require.NoError(t, f.WriteSlots(lba, 0, n))
		for _, op := range f.Ready().Ops {
			if op.Kind == OpMoved {
				moved++
				movedSlots += size[op.LBA]
			}
		}
		f.Advance()
		size[lba] = int64(n)
		slots += int64(n)
	}
	c := f.Counters()
	require.Equal(t, moved, c.MovedUnits)
	require.Equal(t, c.GCCopiedUnits, movedSlots, "the slots of the units recorded moved are the slots GC copied")
	require.Less(t, moved, c.GCCopiedUnits, "units of two slots are recorded once")
	require.Equal(t, slots, c.HostSlots)
}
