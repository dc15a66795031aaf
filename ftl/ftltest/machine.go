package ftltest

import (
	"errors"

	"pgregory.net/rapid"

	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// machine is the state of one run: the FTL under test, its device, and
// the model it is checked against.
type machine struct {
	f       *ftl.FTL
	dev     *nand.Device
	g       nand.Geometry
	slots   int  // device units a logical unit spans uncompressed
	safe    bool // Config.SafeErase
	oneShot bool // the part programs a word line's pages in one shot
	wlPages int  // pages a word line

	user    int64
	model   []uint32 // per logical unit, the version of its latest write (0: unmapped)
	version uint32
	// durable[x] is the version of x's latest write made durable by a
	// flush (0: none, or trimmed since); sinceFlush are the flash
	// operations since the last flush, the ones a power cut may leave
	// unfinished.
	durable    []uint32
	sinceFlush []ftl.Op
}

// newMachine draws a small FTL — its device's shape and cell type, bad
// blocks, program failures, an SLC cache, the FTL's thresholds, spare
// area, pacing, wear levelling, safe erase — with the policy newPolicy
// returns.
func newMachine(rt *rapid.T, newPolicy func() ftl.VictimPolicy) *machine {
	m := &machine{slots: rapid.SampledFrom([]int{1, 1, 2, 4}).Draw(rt, "unit_slots")}
	m.g = nand.Geometry{
		Channels:          1,
		TargetsPerChannel: 1,
		DiesPerTarget:     rapid.IntRange(1, 3).Draw(rt, "dies"),
		PlanesPerDie:      rapid.IntRange(1, 2).Draw(rt, "planes"),
		BlocksPerPlane:    rapid.IntRange(8, 20).Draw(rt, "blocks"),
		PagesPerBlock:     rapid.IntRange(2, 8).Draw(rt, "pages"),
		PageBytes:         rapid.SampledFrom([]int{4096, 8192, 16384}).Draw(rt, "PageBytes"),
		UnitBytes:         4096 / m.slots,
	}
	g := m.g
	timing := nand.Timing{Cell: nand.MLC, ReadNs: 1, ProgLSBNs: 1, ProgMSBNs: 1, EraseNs: 1,
		BusMBps: 1, RatedCycles: 3000}
	// Word lines of 2, 3 or 4 pages (safe erase protects them), and on
	// TLC and QLC perhaps one-shot programming: a cut loses a word
	// line's pages until its last is programmed.
	timing.Cell = rapid.SampledFrom([]nand.CellType{nand.MLC, nand.MLC, nand.TLC, nand.QLC}).Draw(rt, "cell")
	m.oneShot = timing.Cell != nand.MLC && rapid.Bool().Draw(rt, "one_shot")
	if m.oneShot {
		timing.Program, timing.ProgWordLineNs, timing.ProgLSBNs, timing.ProgMSBNs = nand.OneShot, 1, 0, 0
	}
	m.wlPages = timing.WordLinePages()
	timing.BadBlockPermille = rapid.SampledFrom([]int{0, 0, 40}).Draw(rt, "BadBlockPermille")
	if rapid.IntRange(0, 3).Draw(rt, "program_failures") == 0 {
		// Blocks that wear out within the run: programs fail, and the
		// drive may end read-only.
		timing.RatedCycles = 20
		timing.ProgramFailPermille = 500
	}
	// An SLC cache, on parts whose blocks hold a page a word line in SLC
	// mode: static groups out of the spare area, dynamic ones borrowed.
	var slcStatic, slcDynamic int
	if g.PagesPerBlock >= m.wlPages && rapid.IntRange(0, 2).Draw(rt, "SLCCache") == 0 {
		timing.SLCReadNs, timing.SLCProgNs, timing.SLCRatedCycles = 1, 1, timing.RatedCycles*10
		slcStatic = rapid.IntRange(0, 1).Draw(rt, "slc_static_groups")
		slcDynamic = rapid.IntRange(0, g.BlocksPerPlane).Draw(rt, "slc_dynamic_groups")
		if slcStatic+slcDynamic == 0 {
			slcDynamic = 1
		}
	}
	dev, err := nand.New(nand.Config{Geometry: g, Timing: timing, TrackData: true, Seed: rapid.Uint64().Draw(rt, "bad_block_seed")})
	if err != nil {
		rt.Fatalf("nand.New: %v", err)
	}
	m.dev = dev
	low := rapid.IntRange(1, 2).Draw(rt, "GCLowWater")
	restore := rapid.IntRange(low+1, min(low+3, g.BlocksPerPlane/2)).Draw(rt, "GCRestoreTo")
	reserved := rapid.IntRange(0, 1).Draw(rt, "reserved_groups")
	m.safe = rapid.Bool().Draw(rt, "safe_erase")
	spare := (ftl.Config{GCLowWater: low, GCRestoreTo: restore}).MinSpareGroups() + 1 + reserved + slcStatic
	if m.safe {
		// Safe erase keeps three groups really free beside the open
		// ones; flushes pad word lines on these few-page blocks, and
		// power cuts undo erases, so it needs them.
		spare = max(spare, 2+3+1+reserved+slcStatic)
	}
	dataGroups := m.dataGroups(reserved, spare)
	if dataGroups < 1 {
		rt.Skip("the bad blocks leave no room for data")
	}
	maxUser := dataGroups * int64(g.UnitsPerGroup()) / int64(m.slots)
	m.user = rapid.Int64Range(max(1, maxUser/3), maxUser).Draw(rt, "user_units")
	wl := rapid.SampledFrom([]int{0, 2, 8}).Draw(rt, "StaticWLSpread")
	pace := rapid.SampledFrom([]int{0, low + 1}).Draw(rt, "GCPaceWater")
	m.f, err = ftl.New(dev, ftl.Config{UserUnits: m.user, GCLowWater: low, GCRestoreTo: restore, GCHighWater: low + 2, GCPaceWater: pace,
		Victim: newPolicy(), StaticWLSpread: wl, UnitSlots: m.slots, ReservedGroups: reserved, SafeErase: m.safe, RecordOps: true, KeepErased: true,
		SLCStaticGroups: slcStatic, SLCDynamicGroups: slcDynamic, SLCDirect: rapid.Bool().Draw(rt, "slc_direct"),
		Seed: rapid.Uint64().Draw(rt, "seed")})
	if err != nil {
		rt.Fatalf("ftl.New: %v", err)
	}
	m.model = make([]uint32, m.user)
	m.durable = make([]uint32, m.user)
	return m
}

// dataGroups is the groups the device's dies have for data, spare groups
// set aside: groups with a bad block on any plane are retired.
func (m *machine) dataGroups(reserved, spare int) int64 {
	g := m.g
	var n int64
	for d := 0; d < g.Dies(); d++ {
		usable := 0
		for grp := d * g.BlocksPerPlane; grp < (d+1)*g.BlocksPerPlane-reserved; grp++ {
			bad := false
			for p := 0; p < g.PlanesPerDie; p++ {
				bad = bad || m.dev.IsBad(grp*g.PlanesPerDie+p)
			}
			if !bad {
				usable++
			}
		}
		n += int64(usable - spare + reserved)
	}
	return n
}

// drain takes the FTL's flash work, keeping its programs and erases for
// a power cut to interrupt.
func (m *machine) drain() {
	for _, op := range m.f.Ready().Ops {
		if op.Kind == ftl.OpProgram || op.Kind == ftl.OpErase {
			m.sinceFlush = append(m.sinceFlush, op)
		}
	}
	m.f.Advance()
}

// lba draws a logical unit, favouring a hot range so that GC sees mixed
// victims.
func (m *machine) lba(t *rapid.T) int64 {
	if rapid.Bool().Draw(t, "hot") {
		return rapid.Int64Range(0, max(0, m.user/8)).Draw(t, "lba")
	}
	return rapid.Int64Range(0, m.user-1).Draw(t, "lba")
}

// check reads logical unit x and fails unless it holds what the model
// says.
func (m *machine) check(t *rapid.T, x int64) {
	loc, err := m.f.Read(x)
	if err != nil {
		t.Fatalf("read %d: %v", x, err)
	}
	if loc.Mapped != (m.model[x] != 0) {
		t.Fatalf("unit %d mapped=%v, model version %d", x, loc.Mapped, m.model[x])
	}
	if loc.Mapped && loc.Token != m.model[x] {
		t.Fatalf("unit %d reads version %d, latest write was %d", x, loc.Token, m.model[x])
	}
}

func (m *machine) write(t *rapid.T) {
	n := rapid.IntRange(1, 64).Draw(t, "count")
	for range n {
		x := m.lba(t)
		m.version++
		var err error
		if m.slots == 1 {
			err = m.f.Write(x, m.version)
		} else {
			err = m.f.WriteSlots(x, m.version, rapid.IntRange(1, m.slots).Draw(t, "slots"))
		}
		if errors.Is(err, ftl.ErrReadOnly) {
			// Refused for want of space after programs failed: the unit
			// holds the new data or the old (checked).
			if loc, rerr := m.f.Read(x); rerr == nil && loc.Mapped && loc.Token == m.version {
				m.model[x] = m.version
			}
			m.check(t, x)
			continue
		}
		if err != nil {
			t.Fatalf("write %d: %v", x, err)
		}
		m.model[x] = m.version
	}
}

func (m *machine) trim(t *rapid.T) {
	x := m.lba(t)
	n := rapid.Int64Range(1, min(64, m.user-x)).Draw(t, "n")
	if err := m.f.Trim(x, n); err != nil {
		t.Fatalf("trim %d+%d: %v", x, n, err)
	}
	for i := x; i < x+n; i++ {
		m.model[i], m.durable[i] = 0, 0 // a trim is not journaled: nothing is claimed after a cut
	}
}

func (m *machine) backgroundGC(t *rapid.T) {
	d := rapid.IntRange(0, m.g.Dies()-1).Draw(t, "die")
	if _, err := m.f.CollectBackground(d); err != nil {
		t.Fatalf("background gc on die %d: %v", d, err)
	}
}

func (m *machine) foldBackground(t *rapid.T) {
	d := rapid.IntRange(0, m.g.Dies()-1).Draw(t, "die")
	if _, err := m.f.FoldBackground(d); err != nil {
		t.Fatalf("background fold on die %d: %v", d, err)
	}
}

func (m *machine) reclaimEmpty(t *rapid.T) {
	d := rapid.IntRange(0, m.g.Dies()-1).Draw(t, "die")
	if _, err := m.f.ReclaimEmpty(d); err != nil {
		t.Fatalf("reclaim on die %d: %v", d, err)
	}
}

func (m *machine) flush(t *rapid.T) {
	if err := m.f.Flush(); errors.Is(err, ftl.ErrReadOnly) {
		return // nothing made durable
	} else if err != nil {
		t.Fatalf("flush: %v", err)
	}
	for _, op := range append(m.sinceFlush, m.f.Ready().Ops...) {
		if op.Kind == ftl.OpErase {
			m.f.ForgetErased(int(op.Block) / m.g.PlanesPerDie)
		}
	}
	m.f.Advance()
	m.sinceFlush = m.sinceFlush[:0]
	copy(m.durable, m.model)
	if wa := m.f.Counters().FTLWriteAmplification(); wa < 1 && m.slots == 1 {
		t.Fatalf("write amplification %v < 1 after flush", wa)
	}
}

func (m *machine) secureErase(t *rapid.T) {
	if rapid.IntRange(0, 9).Draw(t, "rarely") != 0 {
		return
	}
	m.f.SecureErase()
	m.f.Advance()
	m.sinceFlush = m.sinceFlush[:0]
	clear(m.model)
	clear(m.durable)
}

// invariants runs after every step.
func (m *machine) invariants(t *rapid.T) {
	m.drain()
	if err := m.f.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
