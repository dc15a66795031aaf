package ftl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ftlsim/ftlsim/nand"
)

// slcTiming is TLC flash with an SLC mode.
var slcTiming = nand.Timing{Cell: nand.TLC, ReadNs: 60_000, ProgLSBNs: 500_000, ProgMSBNs: 2_000_000,
	EraseNs: 3_000_000, BusMBps: 400, CommandNs: 200, RatedCycles: 3000,
	SLCReadNs: 30_000, SLCProgNs: 200_000, SLCRatedCycles: 30_000}

// slcFTL is an FTL on 2 dies of 64 groups of 48-page TLC blocks (16
// pages in SLC mode) with 12 % spare and the SLC cache of cfg.
func slcFTL(t *testing.T, cfg Config) *FTL {
	t.Helper()
	g := geometry(2, 1, 64, 48)
	cfg.UserUnits = userUnitsFor(g, 0.12)
	return newFTLOn(t, g, slcTiming, true, cfg)
}

// cacheTheory is the SLC groups a die may hold, from the rule the
// description documents: static ones always; beyond them, k in all while
// k + ⌈k/bits⌉ ≤ free + held − high water − reserve (enough free groups
// stay to fold everything and keep collection's high water and the
// reserve), at most static + dynamic.
func cacheTheory(cfg Config, free, held, bits int) int {
	k := 0
	for k+1+(k+1+bits-1)/bits <= free+held-cfg.GCHighWater-cfg.SLCDynamicReserve {
		k++
	}
	return max(cfg.SLCStaticGroups, min(k, cfg.SLCStaticGroups+cfg.SLCDynamicGroups))
}

// TestSLCCacheSizeFollowsFreeSpace: host writes go to SLC groups (16
// pages, a third of a TLC block's 48) until the cache is as large as the
// rule allows — the size it reports before the first write — and only
// then does folding start; on a drive 80 % full the cache is smaller,
// as the free space it borrows shrinks, but never below the static
// region.
func TestSLCCacheSizeFollowsFreeSpace(t *testing.T) {
	for _, reserve := range []int{0, 12} {
		t.Run(fmt.Sprintf("reserve %d", reserve), func(t *testing.T) {
			testSLCCacheSize(t, Config{SLCStaticGroups: 2, SLCDynamicGroups: 64, GCHighWater: 4, SLCDynamicReserve: reserve, SLCDirect: true})
		})
	}
}

func testSLCCacheSize(t *testing.T, cfg Config) {
	f := slcFTL(t, cfg)
	cfg = f.Config()
	slcUnits := f.slcPages * f.pageUnits
	require.Equal(t, 16, f.slcPages)

	empty := f.SLCCacheUnits()
	want := int64(f.dies*cacheTheory(cfg, f.gpd, 0, 3)) * int64(slcUnits)
	require.Equal(t, want, empty, "the cache of an empty drive")
	// Sequential host writes: all in SLC mode until the cache is full
	// (then, SLCDirect, to native groups).
	lba := int64(0)
	for lba == f.Counters().SLCHostUnits {
		require.NoError(t, f.Write(lba, uint32(lba)))
		lba++
	}
	c := f.Counters()
	require.Equal(t, empty, c.SLCHostUnits, "host units written in SLC mode")
	require.Zero(t, c.FoldRuns)
	require.NoError(t, f.CheckInvariants())

	// Fill to 80 %, then let the drive fold everything while idle.
	for ; lba < f.UserUnits()*8/10; lba++ {
		require.NoError(t, f.Write(lba, uint32(lba)))
	}
	require.NoError(t, f.Flush())
	for d := 0; d < f.dies; d++ {
		for f.NeedsFold(d) {
			_, err := f.FoldBackground(d)
			require.NoError(t, err)
		}
	}
	require.NoError(t, f.CheckInvariants())
	full := f.SLCCacheUnits()
	var want80 int64
	for d := 0; d < f.dies; d++ {
		want80 += int64(cacheTheory(cfg, f.FreeGroupsOn(d), f.SLCGroups(d), 3)-f.SLCGroups(d)) * int64(slcUnits)
	}
	require.Equal(t, want80, full, "the cache of a drive 80 %% full")
	require.Less(t, full, empty/2, "the dynamic region shrinks with free space")
	require.GreaterOrEqual(t, full, int64(f.dies*(cfg.SLCStaticGroups-1))*int64(slcUnits), "the static region stays")
	t.Logf("SLC cache: %d units empty, %d at 80 %% full (static %d)", empty, full, f.dies*cfg.SLCStaticGroups*slcUnits)
}

// TestSLCFoldSkipsTrimmedAndOverwritten: folding moves only the units
// still valid in an SLC group — trimmed and overwritten ones stay
// behind — and an SLC group left with none is erased without a copy.
func TestSLCFoldSkipsTrimmedAndOverwritten(t *testing.T) {
	f := slcFTL(t, Config{SLCDynamicGroups: 8})
	n := int64(f.dies * 4 * f.slcPages * f.pageUnits) // four full SLC groups a die
	for lba := range n {
		require.NoError(t, f.Write(lba, uint32(lba)))
	}
	require.Equal(t, n, f.Counters().SLCHostUnits)
	for lba := int64(0); lba < n; lba += 2 {
		require.NoError(t, f.Trim(lba, 1))
	}
	for lba := int64(1); lba < n/2; lba += 4 {
		require.NoError(t, f.Write(lba, 7)) // overwritten: the new copy is in an open SLC group
	}
	before := f.Counters()
	for d := 0; d < f.dies; d++ {
		for f.NeedsFold(d) {
			_, err := f.FoldBackground(d)
			require.NoError(t, err)
		}
	}
	c := f.Counters()
	overwritten := (n/2 + 2) / 4
	require.Equal(t, n/2-overwritten, c.FoldedUnits-before.FoldedUnits, "units folded")
	require.Equal(t, int64(f.dies*4), c.FoldRuns-before.FoldRuns, "SLC groups folded")
	require.NoError(t, f.CheckInvariants())
	for lba := range n {
		loc, err := f.Lookup(lba)
		require.NoError(t, err)
		switch {
		case lba%2 == 0:
			require.False(t, loc.Mapped, "trimmed unit %d", lba)
		case lba < n/2 && lba%4 == 1:
			require.Equal(t, uint32(7), loc.Token, "overwritten unit %d", lba)
		default:
			require.Equal(t, uint32(lba), loc.Token, "unit %d", lba)
		}
	}
}

// TestSLCModeOnTheDevice: SLC groups hold a page a word line, are timed
// in SLC mode (every op on them says so) and wear the block by
// RatedCycles/SLCRatedCycles of a cycle an erase.
func TestSLCModeOnTheDevice(t *testing.T) {
	f := slcFTL(t, Config{SLCDynamicGroups: 4, RecordOps: true, SLCDirect: true})
	per := int64(f.slcPages * f.pageUnits)
	for lba := range per * int64(f.dies) * 3 {
		require.NoError(t, f.Write(lba, 0))
	}
	slcOps := 0
	for _, op := range f.Ready().Ops {
		require.True(t, op.SLC, "%v", op)
		slcOps++
	}
	require.Positive(t, slcOps)
	f.Advance()
	for d := 0; d < f.dies; d++ {
		for f.NeedsFold(d) {
			_, err := f.FoldBackground(d)
			require.NoError(t, err)
		}
	}
	kinds := map[OpKind][2]int{}
	for _, op := range f.Ready().Ops {
		k := kinds[op.Kind]
		if op.SLC {
			k[1]++
		} else {
			k[0]++
		}
		kinds[op.Kind] = k
		if op.Kind == OpProgram {
			require.False(t, op.SLC, "folded data goes to native groups: %v", op)
		}
		if op.Kind == OpRead || op.Kind == OpErase {
			require.True(t, op.SLC, "folding reads and erases SLC groups: %v", op)
		}
	}
	require.Equal(t, 3*f.dies, kinds[OpErase][1], "SLC groups erased")
	dev := f.Device()
	worn := 0
	for pb := 0; pb < dev.Geometry().Blocks(); pb++ {
		if dev.SLCEraseCount(pb) > 0 {
			worn++
			require.Equal(t, 0, dev.EraseCount(pb), "one SLC erase wears a tenth of a cycle: rounded down")
		}
	}
	require.Equal(t, 3*f.dies, worn)
}
