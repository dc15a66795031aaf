package ftl

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/nand"
)

// TestWriteOnTakesTheCallersDie: a write that opens a host page puts it
// on the die the caller names; one that does not ignores the die; AnyDie
// takes the dies in turn, and a die the device does not have is refused.
func TestWriteOnTakesTheCallersDie(t *testing.T) {
	g := geometry(3, 1, 16, 4)
	f := newFTL(t, g, false, Config{UserUnits: g.Units() / 2, RecordOps: true})
	per := int64(g.UnitsPerPage())
	lba := int64(0)
	page := func(die int) []Op {
		for i := range per {
			require.Equal(t, i == 0, f.OpensPage(1), "only the page's first unit opens it")
			require.NoError(t, f.WriteOn(die, lba, 0, 1))
			lba++
			die = (die + 1) % 3 // ignored once the page is open
		}
		ops := f.Ready().Ops
		f.Advance()
		return ops
	}
	for _, die := range []int{2, 2, 0, 1, 1} {
		ops := page(die)
		require.Len(t, ops, 1)
		require.Equal(t, OpProgram, ops[0].Kind)
		require.Equal(t, int32(die), ops[0].Die)
	}
	for _, want := range []int32{0, 1, 2, 0} {
		ops := page(AnyDie)
		require.Equal(t, want, ops[0].Die, "AnyDie: the dies in turn")
	}
	require.ErrorIs(t, f.WriteOn(3, 0, 0, 1), ErrRange)
	require.ErrorIs(t, f.WriteOn(-2, 0, 0, 1), ErrRange)
	require.ErrorIs(t, f.WriteOn(0, 0, 0, 2), ErrRange, "one slot a unit uncompressed")
	require.NoError(t, f.CheckInvariants())
}

// TestOpensPageWithCompression: a compressed unit that does not fit in
// the rest of the host page opens a new one; MakeRoom programs the old
// one first, padded, so that the caller can book it before choosing the
// new page's die.
func TestOpensPageWithCompression(t *testing.T) {
	g := geometry(2, 1, 16, 4)
	f := newFTL(t, g, false, Config{UserUnits: g.Units() / 4, UnitSlots: 2, RecordOps: true})
	require.True(t, f.OpensPage(1))
	require.NoError(t, f.WriteOn(1, 0, 0, 2))
	require.NoError(t, f.WriteOn(0, 1, 0, 1))
	require.Equal(t, 1, f.HostRoom())
	require.False(t, f.OpensPage(1))
	require.True(t, f.OpensPage(2))
	require.NoError(t, f.MakeRoom(2))
	ops := f.Ready().Ops
	require.Len(t, ops, 1)
	require.Equal(t, int32(1), ops[0].Die, "the padded page is the one die 1 was filling")
	f.Advance()
	require.Equal(t, int64(1), f.Counters().PaddedUnits)
	require.True(t, f.OpensPage(2))
	require.NoError(t, f.WriteOn(0, 2, 0, 2))
	require.Equal(t, 2, f.HostRoom(), "the new page, on die 0, holds the unit")
}

// TestReportUnreadableLosesTheMovedUnits: a garbage-collection read the
// caller reports undecodable loses the units moved out of its page, and
// only those: they read as lost until written or trimmed; a secure erase
// forgets them all, and each is counted once.
func TestReportUnreadableLosesTheMovedUnits(t *testing.T) {
	g := geometry(1, 1, 16, 4)
	f := newFTL(t, g, true, Config{UserUnits: g.Units() / 2, RecordOps: true, RecordMoves: true})
	// Fill, then overwrite until collection moves something: the first
	// page it reads is reported unreadable.
	user := f.UserUnits()
	var moved []int64
	rng := rand.New(rand.NewPCG(1, 2))
	for i := int64(0); len(moved) == 0; i++ {
		require.Less(t, i, 100*user, "collection moved nothing")
		lba := i
		if i >= user {
			lba = rng.Int64N(user)
		}
		require.NoError(t, f.Write(lba, uint32(i)))
		ops := f.Ready().Ops
		first := slices.IndexFunc(ops, func(op Op) bool { return op.Kind == OpRead && op.Cause.Moves() })
		if first < 0 {
			f.Advance()
			continue
		}
		for _, op := range ops[first+1:] {
			if op.Kind == OpRead && op.Cause.Moves() {
				break // the next page's
			}
			if op.Kind == OpMoved {
				moved = append(moved, op.LBA)
			}
		}
		require.NotEmpty(t, moved)
		require.Equal(t, len(moved), f.ReportUnreadable(first))
		require.Zero(t, f.ReportUnreadable(first), "already lost")
		f.Advance()
	}
	require.Equal(t, int64(len(moved)), f.Counters().UnreadableUnits)
	isLost := func(lba int64) bool {
		loc, err := f.Lookup(lba)
		require.NoError(t, err)
		return loc.Lost
	}
	for _, lba := range moved {
		require.True(t, isLost(lba), "unit %d moved out of the unreadable page", lba)
	}
	lost := 0
	for lba := range user {
		if isLost(lba) {
			lost++
		}
	}
	require.Equal(t, len(moved), lost, "no other unit is lost")
	require.NoError(t, f.Write(moved[0], 1))
	require.False(t, isLost(moved[0]), "written again")
	if len(moved) > 1 {
		require.NoError(t, f.Trim(moved[1], 1))
		require.False(t, f.isLost(moved[1]), "trimmed")
	}
	require.True(t, f.ReportLost(moved[0]))
	require.True(t, isLost(moved[0]))
	require.False(t, f.ReportLost(user), "a unit outside the user space")
	f.SecureErase()
	for lba := range user {
		require.False(t, f.isLost(lba))
	}
}

// TestReportsReachTheDevice: the times and senses the caller reports are
// kept by the device, the FTL's to write.
func TestReportsReachTheDevice(t *testing.T) {
	g := geometry(1, 2, 16, 4)
	dev, err := nand.New(nand.Config{Geometry: g, Timing: timing, TrackAge: true})
	require.NoError(t, err)
	f, err := New(dev, Config{UserUnits: g.Units() / 2, RecordOps: true})
	require.NoError(t, err)
	for lba := range int64(g.UnitsPerPage() * g.PlanesPerDie) {
		require.NoError(t, f.Write(lba, 0))
	}
	prog := f.Ready().Ops[0]
	require.Equal(t, OpProgram, prog.Kind)
	f.ReportProgrammed(&prog, 12345)
	f.Advance()
	for p := range g.PlanesPerDie {
		require.Equal(t, int64(12345), dev.ProgramTime(int(prog.Block)+p))
	}
	_, err = f.Read(0)
	require.NoError(t, err)
	read := f.Ready().Ops[0]
	f.ReportSensed(&read)
	f.ReportSensed(&read) // a read-retry step
	f.ReportSensed(&prog) // not a read: ignored
	f.Advance()
	require.Equal(t, uint32(2), dev.ReadsSinceErase(int(read.Block)))
	f.Bake(345)
	require.Equal(t, int64(12000), dev.ProgramTime(int(prog.Block)))
	require.NoError(t, f.PreWear(7))
	require.NoError(t, f.AddWear(2))
	require.Equal(t, 9, dev.EraseCount(int(prog.Block)+1))
}
