package ftl

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpLogMatchesCounters: with RecordOps, the log holds exactly the
// operations the counters count, in an order a controller can book:
// every program of a group's pages is in page order, and a group is
// erased only after its last page was read or it held nothing valid.
func TestOpLogMatchesCounters(t *testing.T) {
	g := geometry(2, 2, 16, 8)
	f := newFTL(t, g, false, Config{UserUnits: g.Units() * 7 / 10, GCPaceWater: 2, RecordOps: true})
	var counted Counters
	r := rand.New(rand.NewPCG(3, 4))
	nextPage := map[int32]int32{}
	for i := range 30000 {
		lba := r.Int64N(f.UserUnits())
		if i%7 == 0 {
			_, err := f.Read(lba)
			require.NoError(t, err)
		} else {
			require.NoError(t, f.Write(lba, 0))
		}
		for _, op := range f.Ready().Ops {
			counted.Count(&op)
			switch op.Kind {
			case OpProgram:
				require.Equal(t, nextPage[op.Block], op.Page, "pages of block %d programmed in order", op.Block)
				nextPage[op.Block] = op.Page + 1
			case OpErase:
				nextPage[op.Block] = 0
			}
		}
		f.Advance()
	}
	require.Empty(t, f.Ready().Ops)
	require.Equal(t, f.Counters().Flash, counted.Flash)
	require.Positive(t, counted.Flash[CauseGC].EraseBlocks)
	require.Positive(t, counted.Flash[CauseHost].ReadPages)
}

// TestReadRunSensesAPageOnce: reading the units of one page in a run
// costs one array read and transfers for the rest; without a run each
// unit senses the page again.
func TestReadRunSensesAPageOnce(t *testing.T) {
	g := geometry(1, 2, 16, 8)
	f := newFTL(t, g, false, Config{UserUnits: g.Units() / 2, RecordOps: true})
	per := int64(g.UnitsPerPage() * g.PlanesPerDie)
	for lba := range 4 * per {
		require.NoError(t, f.Write(lba, 0))
	}
	require.NoError(t, f.Flush())
	f.Advance()
	before := f.Counters()
	var run ReadRun
	for lba := range per {
		_, err := f.ReadFor(lba, CauseHost, &run)
		require.NoError(t, err)
	}
	d := f.Counters().Sub(before)
	// A multi-plane page spans PlanesPerDie single-plane pages.
	require.Equal(t, int64(g.PlanesPerDie), d.Flash[CauseHost].ReadPages)
	require.Equal(t, per, d.Flash[CauseHost].ReadUnits)
	require.Equal(t, per, d.HostReadUnits)
	f.Advance()
	before = f.Counters()
	for lba := range per {
		_, err := f.Read(lba)
		require.NoError(t, err)
	}
	require.Equal(t, per, f.Counters().Sub(before).Flash[CauseHost].ReadPages)
}

// TestWithoutRecordOpsNothingIsKept: an FTL used on its own counts its
// operations but keeps no log.
func TestWithoutRecordOpsNothingIsKept(t *testing.T) {
	g := geometry(2, 1, 16, 8)
	f := newFTL(t, g, false, Config{UserUnits: g.Units() / 2})
	for lba := range f.UserUnits() {
		require.NoError(t, f.Write(lba, 0))
	}
	require.Empty(t, f.Ready().Ops)
	require.Positive(t, f.Counters().Flash[CauseHost].ProgramPages)
}
