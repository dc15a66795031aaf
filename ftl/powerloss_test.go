package ftl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// powerCutFTL is a one-die FTL that keeps what it erases, on 2 planes of
// 16 groups of 8 pages of 16 KiB: 8 units a page, 64 a group; the user
// space is half the flash.
func powerCutFTL(t *testing.T) *FTL {
	t.Helper()
	g := geometry(1, 2, 16, 8)
	return newFTL(t, g, true, Config{UserUnits: int64(g.Units() / 2), KeepErased: true, RecordOps: true, GCLowWater: 2, GCRestoreTo: 3})
}

// eraseCount is the erases of every block of f's device.
func eraseCount(f *FTL) int {
	n := 0
	for pb := range f.dev.Geometry().Blocks() {
		n += f.dev.EraseCount(pb)
	}
	return n
}

// refs lists the pages [from, to) of group g on every plane.
func refs(f *FTL, g, from, to int) []PageRef {
	var out []PageRef
	for page := from; page < to; page++ {
		for p := range f.np {
			out = append(out, PageRef{Block: g*f.np + p, Page: page})
		}
	}
	return out
}

// TestPowerCutFreesGroupNeverProgrammed cuts power when the host has
// opened a group and booked one program into it: if the program had not
// started, the group is still erased and comes back free, its erase not
// counted again; if it was under way, the group keeps the page it
// disturbed and stays taken.
func TestPowerCutFreesGroupNeverProgrammed(t *testing.T) {
	for _, started := range []bool{false, true} {
		name := map[bool]string{false: "not started", true: "under way"}[started]
		t.Run(name, func(t *testing.T) {
			f := powerCutFTL(t)
			upg, pu, gpd := int64(f.upg), int64(f.pageUnits), f.gpd
			const full = 4 // groups the first writes fill
			for lba := range full * upg {
				require.NoError(t, f.Write(lba, uint32(lba+1)))
			}
			require.NoError(t, f.Flush())
			f.Advance()
			require.Equal(t, gpd-full, f.FreeGroups(), "the groups filled are taken, the rest free")
			erases := eraseCount(f)

			// One page of host data: a group opened for it.
			for lba := full * upg; lba < full*upg+pu; lba++ {
				require.NoError(t, f.Write(lba, uint32(lba+1)))
			}
			require.Equal(t, gpd-full-1, f.FreeGroups())
			ops := f.Ready().Ops
			require.Len(t, ops, 1, "one program, into the group opened")
			g := int(ops[0].Block) / f.np
			cut := PowerCut{Unfinished: refs(f, g, 0, 1)}
			if !started {
				cut.Unstarted = cut.Unfinished
			}
			rec, err := f.PowerLoss(cut)
			require.NoError(t, err)
			f.Advance()
			require.NoError(t, f.CheckInvariants())

			require.Equal(t, pu, rec.LostUnits, "the page's data never reached the cells")
			require.Zero(t, rec.LostFlushedUnits)
			require.Zero(t, rec.LostProgrammedUnits)
			require.Equal(t, erases, eraseCount(f), "no erase counted")
			if started {
				require.Zero(t, rec.FreedGroups)
				require.Equal(t, gpd-full-1, f.FreeGroups(), "the disturbed page keeps its group")
				require.Equal(t, 1, f.groupWP(int32(g)))
			} else {
				require.Equal(t, int64(1), rec.FreedGroups)
				require.Equal(t, gpd-full, f.FreeGroups(), "the group opened is free again")
				require.Zero(t, f.groupWP(int32(g)))
			}
			for lba := range full * upg {
				loc, err := f.Read(lba)
				require.NoError(t, err)
				require.True(t, loc.Mapped)
				require.Equal(t, uint32(lba+1), loc.Token, "unit %d", lba)
			}
			// The drive takes writes again, into the group freed or another.
			for lba := full * upg; lba < full*upg+upg; lba++ {
				require.NoError(t, f.Write(lba, uint32(lba+1)))
			}
			require.NoError(t, f.CheckInvariants())
		})
	}
}

// TestPowerCutRestoredGroupLosesUnfinishedPages cuts power when a group
// was filled, its data all overwritten elsewhere and the group erased —
// all booked, none of it carried out but the group's first page. The
// erase did not run, so the group holds again what it held before it;
// but of that only the first page ever reached the cells: the units on
// the other pages must not come back from the restored group.
func TestPowerCutRestoredGroupLosesUnfinishedPages(t *testing.T) {
	f := powerCutFTL(t)
	upg, pu := int64(f.upg), int64(f.pageUnits)
	for lba := range pu {
		require.NoError(t, f.Write(lba, uint32(lba+1)))
	}
	require.NoError(t, f.Flush())
	f.Advance() // the first page is programmed
	for lba := pu; lba < upg; lba++ {
		require.NoError(t, f.Write(lba, uint32(lba+1)))
	}
	for lba := range upg {
		require.NoError(t, f.Write(lba, uint32(1000+lba)))
	}
	d := 0
	ok, err := f.ReclaimEmpty(d)
	require.NoError(t, err)
	require.True(t, ok, "the first group holds no live data: it is erased")
	ops := f.Ready().Ops
	last := ops[len(ops)-1]
	require.Equal(t, OpErase, last.Kind)
	g0 := int(last.Block) / f.np
	var g1 = -1
	for _, op := range ops {
		if op.Kind == OpProgram && int(op.Block)/f.np != g0 {
			g1 = int(op.Block) / f.np
		}
	}
	require.GreaterOrEqual(t, g1, 0, "the overwrite went to another group")
	require.Equal(t, f.gpd-1, f.FreeGroups(), "the overwrite's group taken, the first erased")

	// Nothing since the flush ran: the erase is undone, and what the
	// group holds again lists its unfinished pages; the overwrite's
	// group had nothing started.
	unfinished := append(refs(f, g0, 1, f.ppb), refs(f, g1, 0, f.ppb)...)
	rec, err := f.PowerLoss(PowerCut{Unfinished: unfinished, Unstarted: unfinished, Unerased: []int{g0}})
	require.NoError(t, err)
	f.Advance()
	require.NoError(t, f.CheckInvariants())
	for lba := range upg {
		loc, err := f.Read(lba)
		require.NoError(t, err)
		if lba < pu {
			require.True(t, loc.Mapped, "unit %d: flushed, on the page that was programmed", lba)
			require.Equal(t, uint32(lba+1), loc.Token, "unit %d", lba)
		} else {
			require.False(t, loc.Mapped, "unit %d: on a page never programmed, it holds nothing (read %d)", lba, loc.Token)
		}
	}
	require.Equal(t, upg, rec.LostUnits, "every unit's last write is lost")
	require.Equal(t, pu, rec.RevertedUnits, "the first page's units read their flushed version")
	require.Zero(t, rec.LostFlushedUnits)
	require.Equal(t, int64(1), rec.FreedGroups, "the overwrite's group is still erased; the restored one has its first page")
	require.Equal(t, 0, f.groupWP(int32(g1)))
	require.Equal(t, f.gpd-1, f.FreeGroups(), "only the restored group holds data")
}

// TestNoRoomSaysWhy checks the error a die gives when it has no free
// group, none open for collection and live data in every full group: it
// names the die and why nothing can make room (the state is set by hand;
// a power cut that left a die so would give the same).
func TestNoRoomSaysWhy(t *testing.T) {
	f := powerCutFTL(t)
	upg := int64(f.upg)
	for lba := range 4 * upg {
		require.NoError(t, f.Write(lba, uint32(lba+1)))
	}
	f.Advance()
	require.Equal(t, int32(-1), f.open[GCStream][0])
	f.nfree -= len(f.free[0])
	f.free[0] = f.free[0][:0]
	_, err := f.openGroup(GCStream, 0)
	require.ErrorIs(t, err, ErrNoVictim)
	require.ErrorContains(t, err, "die 0 has no free group and no group open for collection to copy into: its 4 full groups all hold live data (the least 64 of 64 units)")
}
