package ftl

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/nand"
)

// Unmapped is the mapping entry of a logical unit that holds no data.
const Unmapped = ^uint32(0)

// mapTable is the mapping table: each logical unit's device unit, stored
// complemented, so that Unmapped (all ones) is stored as 0 and a table
// fresh from make, or cleared, is all Unmapped without a pass that sets
// it (256 MiB to write on a 256 GiB drive of 4 KiB units).
type mapTable []uint32

// at returns logical unit i's device unit, or Unmapped.
func (m mapTable) at(i int64) uint32 { return ^m[i] }

// set maps logical unit i to device unit u (Unmapped unmaps it).
func (m mapTable) set(i int64, u uint32) { m[i] = ^u }

// ErrReadOnly is returned by writes once blocks gone bad have used up a
// die's spare area: as a real drive does, it takes no more writes; reads
// still work.
var ErrReadOnly = errors.New("ftl: the drive is read-only")

// ErrNoVictim is returned when garbage collection finds nothing to clean
// on a die that has run out of free groups.
var ErrNoVictim = errors.New("ftl: garbage collection found no victim")

// stage collects the units of one multi-plane page until it is full.
type stage struct {
	group int32 // plane group being filled, -1 when none
	page  int32 // page index within the group
	n     int32 // units placed
	host  int32 // units placed by the host (for buffer accounting)
	tags  []uint32
	data  []uint32
	seqs  []uint32 // write sequence of each unit's data (see FTL.wseq)
}

// FTL is a page-mapped flash translation layer over one nand.Device.
//
// An FTL is not safe for concurrent use, its read-only methods included
// (they may load mapping state): one goroutine drives it.
type FTL struct {
	dev *nand.Device
	cfg Config
	rng *rand.Rand
	ops []Op // the op log (Config.RecordOps)

	dies, np, upp, ppb, upg, gpd int // dies, planes, units/page, pages/block, units/group, groups/die
	pageUnits                    int // units in a multi-plane page
	k                            int // device units per logical unit, uncompressed
	reserved                     int // groups per die held out of use
	pow2                         bool
	unitBytes                    int  // the device unit
	upgShift, puShift            uint // log2 of upg and pageUnits when pow2

	l2p        mapTable
	mapClean   bool     // every entry of l2p is Unmapped (nothing mapped since the last reset)
	size       []uint8  // per logical unit: device units it takes (only when k > 1)
	closedAt   []uint64 // per group: units programmed when it filled
	busy       []bool   // per group: open for writing or being cleaned (not a candidate)
	bad        []bool   // per group: holds a bad block, retired
	nbadUsable int      // retired groups outside the reserved ones
	// lateUnmap lets go of a unit's old copy only once the page for its
	// new data is open (SafeErase, or blocks that can go bad).
	lateUnmap bool
	free      [][]int32
	nfree     int
	open      [2][]int32 // [host|gc][die] open group, -1 when none
	host      stage
	gc        []stage    // per die
	clean     []cleaning // per die: the victim being collected
	// pendingErase holds, per die, cleaned victims that wait for their
	// erase (SafeErase) until the newer copies of their data are at rest:
	// pendingDep is, per victim, the programs those copies are in.
	pendingErase [][]int32
	npending     int
	// pendHost is no more than the host program any victim waiting for
	// its erase depends on, of those whose host programs are not yet at
	// rest: after a host program, no victim can have become ready while
	// pendHost is beyond it or not yet at rest (erasePendingAfter).
	pendHost   uint64
	pendingDep [][]eraseDep
	// hostProgs counts the host stage's programs and gcProgs each die's
	// GC stage's (SafeErase): a program's number names the page that
	// holds what was staged for it.
	hostProgs uint64
	gcProgs   []uint64
	// supersededIn is, per group, the number of the host program that
	// holds (or will hold: hostProgs+1) the latest host write that
	// superseded one of its units on flash (0: none) (SafeErase).
	supersededIn []uint64
	// hostOwes is set while the host stage being filled holds data that
	// supersedes units on flash (a victim's erase waits for its program,
	// hostProgs+1): with placement handles, the stage is programmed before
	// another handle's is served, so that the number stays its own.
	hostOwes bool
	// wl is the pages of a word line SafeErase protects together: 2 on
	// MLC, 3 on TLC, 4 on QLC (1: none). Programming the last page of a word line
	// can destroy the pages programmed before it if power fails; data
	// is at rest only once its word line is complete.
	wl int
	// wlOpen is, per group, the number of the program (hostProgs, or
	// its die's gcProgs) that started its half programmed word line (0:
	// none); nwlOpen counts them.
	wlOpen  []uint64
	nwlOpen int
	// latchWL is the pages of a word line of a one-shot part, which
	// stores none of them until its last is programmed (0: multi-pass).
	latchWL int
	// failing marks, per group, the groups retired for a failed program
	// that still hold data; retireQ lists them per die, for collection
	// to clean first (both nil until a program fails).
	failing []bool
	retireQ [][]int32
	// readOnly: a failed program found no group to program its page
	// again; nothing is programmed any more.
	readOnly bool
	// flushSeq is the write number of the last host write made durable
	// by Flush.
	flushSeq uint32
	erased   map[int32][]*erasedGroup // Config.KeepErased: what erased groups held, oldest erase first
	// nextDie is the die the next host page goes to when the caller
	// leaves the choice to the FTL (AnyDie): the dies in turn.
	nextDie int
	// lost marks, per logical unit, data the controller reported it could
	// not read when the FTL moved it or merged a partial write into it
	// (ReportUnreadable, ReportLost): reads of it fail until the host
	// writes or trims it. Nil until the first report.
	lost []uint64
	seq  uint64 // units programmed, a clock for ages
	// wseq numbers host writes; each unit's data carries the number of
	// the write that made it (moved copies keep it) into the device's
	// OOB area, so that a rebuild after power loss knows the newest copy.
	wseq    uint32
	cnt     Counters
	freeMin int // fewest free groups seen since ResetFreeGroupsMin

	// SLC cache (Config.SLCStaticGroups, SLCDynamicGroups): per group,
	// whether it is in SLC mode holding (or taking) data (nil: no
	// cache); per die, how many are; the pages an SLC group holds.
	slc      []bool
	slcCount []int32
	slcPages int
	// parked is, per die, the native group the host was filling when the
	// cache had room again (-1: none); see park.
	parked []int32

	// rev is the reverse map of some groups on a device that keeps no
	// tags (nil on one that does; see revmap.go).
	rev *revMap

	// Spare-area accounting for the theory comparison, and the budget
	// the thresholds were sized to (reserve.go).
	alphaSum, alphaN float64
	budget           SpareBudget
	paceGain         float64 // GCPacePercent/100

	fdp *fdpState // placement handles' write points (Config.Handles; nil: none)
}

// New builds an FTL over dev, which it secure-erases; dev must not be nil.
func New(dev *nand.Device, cfg Config) (*FTL, error) {
	if dev == nil {
		return nil, errors.New("ftl: New: nil device (build one with nand.New)")
	}
	cfg.setDefaults()
	g := dev.Geometry()
	f := &FTL{
		dev:  dev,
		cfg:  cfg,
		dies: g.Dies(), np: g.PlanesPerDie, upp: g.UnitsPerPage(), ppb: g.PagesPerBlock,
		upg: g.UnitsPerGroup(), gpd: g.BlocksPerPlane, unitBytes: g.UnitBytes,
	}
	f.pageUnits = f.np * f.upp
	f.k, f.reserved = cfg.UnitSlots, cfg.ReservedGroups
	f.paceGain = float64(cfg.GCPacePercent) / 100
	f.lateUnmap = cfg.SafeErase || dev.Config().Timing.GrownBadPermille > 0 || dev.Config().Timing.ProgramFailPermille > 0
	f.upgShift, f.puShift = log2(f.upg), log2(f.pageUnits)
	f.pow2 = 1<<f.upgShift == f.upg && 1<<f.puShift == f.pageUnits
	// A group with a bad block on any plane is retired: it never holds
	// data (the spare area shrinks by it).
	f.bad = make([]bool, g.Groups())
	for grp := range f.bad {
		for p := 0; p < f.np; p++ {
			f.bad[grp] = f.bad[grp] || dev.IsBad(grp*f.np+p)
		}
	}
	for d := 0; d < f.dies; d++ {
		f.nbadUsable += f.gpd - f.reserved - f.usableGroups(d)
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	if cfg.SLCStaticGroups+cfg.SLCDynamicGroups > 0 && dev.SLCPages() == 0 {
		return nil, fmt.Errorf("%w: an SLC cache (%d static and %d dynamic groups per die) needs a part with an SLC mode (nand timing.slc_*)", ErrConfig, cfg.SLCStaticGroups, cfg.SLCDynamicGroups)
	}
	f.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	f.l2p = make(mapTable, cfg.UserUnits)
	f.mapClean = true // a new table is all Unmapped (stored as 0)
	if f.k > 1 {
		f.size = make([]uint8, cfg.UserUnits)
	}
	f.closedAt = make([]uint64, g.Groups())
	f.busy = make([]bool, g.Groups())
	if dev.Config().DropTags {
		f.rev = newRevMap(g.Groups(), f.dies)
	}
	f.free = make([][]int32, f.dies)
	for i := range f.free {
		f.free[i] = make([]int32, 0, f.gpd)
	}
	for s := range f.open {
		f.open[s] = make([]int32, f.dies)
	}
	f.host = newStage(f.pageUnits)
	f.clean = make([]cleaning, f.dies)
	f.pendingErase = make([][]int32, f.dies)
	f.pendingDep = make([][]eraseDep, f.dies)
	if tm := dev.Config().Timing; tm.Program == nand.OneShot {
		f.latchWL = tm.WordLinePages()
	}
	f.wl = 1
	if cfg.SafeErase {
		f.wl = dev.Config().Timing.WordLinePages()
		f.wlOpen = make([]uint64, g.Groups())
		f.gcProgs = make([]uint64, f.dies)
		f.supersededIn = make([]uint64, g.Groups())
	}
	f.gc = make([]stage, f.dies)
	for i := range f.gc {
		f.gc[i] = newStage(f.pageUnits)
	}
	if cfg.SLCStaticGroups+cfg.SLCDynamicGroups > 0 {
		f.slc = make([]bool, g.Groups())
		f.slcCount = make([]int32, f.dies)
		f.slcPages = dev.SLCPages()
		f.parked = make([]int32, f.dies)
	}
	f.reset()
	if err := f.newFDP(); err != nil {
		return nil, err
	}
	return f, nil
}

func newStage(n int) stage {
	return stage{group: -1, tags: make([]uint32, n), data: make([]uint32, n), seqs: make([]uint32, n)}
}

// usableGroups is the groups of die d that may hold data: neither
// reserved nor retired for a bad block.
func (f *FTL) usableGroups(d int) int {
	n := 0
	for g := d * f.gpd; g < d*f.gpd+f.gpd-f.reserved; g++ {
		if !f.bad[g] {
			n++
		}
	}
	return n
}

// BadGroups counts the groups retired because one of their blocks is bad.
func (f *FTL) BadGroups() int {
	n := 0
	for _, b := range f.bad {
		if b {
			n++
		}
	}
	return n
}

// MinSpareGroups is the number of groups per die that are never available
// to hold data: the host and GC open groups and the free groups blocking
// collection keeps (its low water, or what it restores, less one).
func (c Config) MinSpareGroups() int { return 2 + max(c.GCLowWater, c.GCRestoreTo-1, 1) }

// Validate makes the checks New makes of cfg, for a device of geometry g
// with no bad blocks, without building anything: a description can be
// checked before the memory of its drive is spent (a sweep checks every
// point before it runs any). A device with bad blocks may still be
// refused by New.
func (cfg Config) Validate(g nand.Geometry) error {
	cfg.setDefaults()
	return lightFTL(cfg, g).validate()
}

// lightFTL is an FTL of configuration cfg (defaults set) on geometry g
// with no bad blocks and nothing allocated beyond the bad-block map: for
// the checks New makes, without the memory of a drive.
func lightFTL(cfg Config, g nand.Geometry) *FTL {
	f := &FTL{cfg: cfg, dies: g.Dies(), np: g.PlanesPerDie, upp: g.UnitsPerPage(), ppb: g.PagesPerBlock,
		upg: g.UnitsPerGroup(), gpd: g.BlocksPerPlane, unitBytes: g.UnitBytes}
	f.pageUnits = f.np * f.upp
	f.k, f.reserved = cfg.UnitSlots, cfg.ReservedGroups
	f.bad = make([]bool, g.Groups())
	return f
}

func (f *FTL) validate() error {
	c := f.cfg
	if c.GCLowWater < 1 || c.GCLowWater > f.gpd/2 {
		return fieldErr("GCLowWater", c.GCLowWater, fmt.Sprintf("1..%d", f.gpd/2), "half the groups of a die")
	}
	if c.GCHighWater < c.GCLowWater || c.GCHighWater > f.gpd/2 {
		return fieldErr("GCHighWater", c.GCHighWater, fmt.Sprintf("%d..%d", c.GCLowWater, f.gpd/2), "from GCLowWater to half the groups of a die")
	}
	if c.GCRestoreTo <= c.GCLowWater || c.GCRestoreTo > f.gpd/2 {
		return fieldErr("GCRestoreTo", c.GCRestoreTo, fmt.Sprintf("%d..%d", c.GCLowWater+1, f.gpd/2), "above GCLowWater")
	}
	if c.GCPacePercent < 1 || c.GCPacePercent > 10000 {
		return fieldErr("GCPacePercent", c.GCPacePercent, "1..10000", "")
	}
	if c.GCPaceWater < 0 || c.GCPaceWater > f.gpd/2 {
		return fieldErr("GCPaceWater", c.GCPaceWater, fmt.Sprintf("0 (off)..%d", f.gpd/2), "half the groups of a die")
	}
	if c.StaticWLSpread < 0 {
		return fieldErr("StaticWLSpread", c.StaticWLSpread, "0 (off) or more", "")
	}
	if c.UnitSlots < 1 || c.UnitSlots > min(f.pageUnits, 255) {
		return fieldErr("UnitSlots", c.UnitSlots, fmt.Sprintf("1..%d", min(f.pageUnits, 255)), "device units in a multi-plane page")
	}
	if c.ReservedGroups < 0 || c.ReservedGroups > f.gpd/2 {
		return fieldErr("ReservedGroups", c.ReservedGroups, fmt.Sprintf("0..%d", f.gpd/2), "half the groups of a die")
	}
	if err := f.validateSLC(); err != nil {
		return err
	}
	if c.Reserve > ReserveSpare {
		return fieldErr("Reserve", int(c.Reserve), "ReserveFixed or ReserveSpare", "")
	}
	// The thresholds as collection runs them (sized from the spare
	// under ReserveSpare).
	f.sizeReserve()
	c = f.cfg
	// Every die must keep, beyond its share of user data (stored
	// uncompressed in the worst case), its reserved groups, its open
	// groups, its GC reserve, its static SLC cache and at least one more
	// group to clean with.
	dataGroups := int64(0)
	for d := 0; d < f.dies; d++ {
		dataGroups += int64(f.usableGroups(d) - c.MinSpareGroups() - 1 - c.SLCStaticGroups)
	}
	maxUser := dataGroups * int64(f.upg) / int64(c.UnitSlots)
	if c.UserUnits < 1 || c.UserUnits > maxUser {
		ub := int64(f.unitBytes) * int64(c.UnitSlots)
		slcText := ""
		if c.SLCStaticGroups > 0 {
			slcText = fmt.Sprintf(", the static SLC cache (%d)", c.SLCStaticGroups)
		}
		return &FieldError{Field: "UserUnits", Value: fmt.Sprintf("%d units (%s)", c.UserUnits, units.FormatBytes(c.UserUnits*ub)),
			Allowed: fmt.Sprintf("1..%d units (%s)", maxUser, units.FormatBytes(maxUser*ub)),
			Why: fmt.Sprintf("each of the %d dies keeps %d of its %d groups for reserved data, open groups, the GC reserve%s and cleaning, and %d groups are retired for bad blocks: raise the spare area or lower GCLowWater",
				f.dies, c.ReservedGroups+c.MinSpareGroups()+1+c.SLCStaticGroups, f.gpd, slcText, f.BadGroups())}
	}
	if c.UserUnits >= int64(Unmapped) {
		return fieldErr("UserUnits", c.UserUnits, fmt.Sprintf("below %d", int64(Unmapped)), "32-bit mapping entries")
	}
	return nil
}

// Device returns the underlying device.
func (f *FTL) Device() *nand.Device { return f.dev }

// Config returns the configuration with defaults filled in.
func (f *FTL) Config() Config { return f.cfg }

// UserUnits is the size of the logical space in units.
func (f *FTL) UserUnits() int64 { return int64(len(f.l2p)) }

// Counters returns the cumulative counters.
func (f *FTL) Counters() Counters { return f.cnt }

// FreeGroups returns the number of free groups on all dies, counting the
// cleaned ones that wait for their erase.
func (f *FTL) FreeGroups() int { return f.nfree + f.npending }

// FreeGroupsOn returns the number of free groups on die d, counting the
// cleaned ones that wait for their erase.
func (f *FTL) FreeGroupsOn(d int) int { return f.freeOrErasing(d) }

// MemoryBytes is the memory held by the mapping and FTL metadata.
func (f *FTL) MemoryBytes() int64 {
	n := int64(len(f.l2p))*4 + int64(len(f.size)) + int64(len(f.closedAt))*8 + int64(f.dies*f.gpd)*4
	if f.rev != nil {
		n += int64(f.rev.held+len(f.rev.free)) * int64(f.upg) * 4
	}
	return n
}

// UnitSlots is the number of device units a logical unit spans
// uncompressed.
func (f *FTL) UnitSlots() int { return f.k }

func (f *FTL) reset() {
	for g, x := range f.failing {
		if x { // retired for a failed program: bad from now on
			f.bad[g] = true
			f.nbadUsable++
			f.cnt.GrownBadGroups++
		}
	}
	if !f.mapClean {
		clear(f.l2p)
		f.mapClean = true
	}
	f.revReset()
	clear(f.closedAt)
	clear(f.busy)
	f.nfree = 0
	for d := range f.free {
		f.free[d] = f.free[d][:0]
		for g := d*f.gpd + f.gpd - 1 - f.reserved; g >= d*f.gpd; g-- {
			if !f.bad[g] {
				f.free[d] = append(f.free[d], int32(g))
			}
		}
		f.nfree += f.usableGroups(d)
		f.open[HostStream][d] = -1
		f.open[GCStream][d] = -1
		f.gc[d].group, f.gc[d].n, f.gc[d].host = -1, 0, 0
		f.clean[d] = cleaning{group: -1}
		f.pendingErase[d] = f.pendingErase[d][:0]
		f.pendingDep[d] = f.pendingDep[d][:0]
	}
	f.npending = 0
	clear(f.supersededIn)
	f.readOnly = false
	clear(f.failing)
	for d := range f.retireQ {
		f.retireQ[d] = f.retireQ[d][:0]
	}
	clear(f.wlOpen)
	f.nwlOpen = 0
	f.flushSeq = f.wseq
	f.host.group, f.host.n, f.host.host = -1, 0, 0
	f.freeMin = f.nfree + f.npending
	clear(f.slc)
	clear(f.slcCount)
	for d := range f.parked {
		f.parked[d] = -1
	}
}

// SecureErase erases every block and forgets every mapping. Staged data
// is dropped (counted in DiscardedUnits).
func (f *FTL) SecureErase() {
	if f.fdp != nil {
		f.dropIdle()
	}
	f.cnt.DiscardedUnits += int64(f.host.host)
	f.cnt.DiscardedSlots += int64(f.host.n)
	f.cnt.DiscardedMoved += f.gcStaged()
	f.dev.SecureErase()
	clear(f.erased)
	clear(f.lost) // nothing is stored any more: nothing is lost either
	for d := 0; d < f.dies; d++ {
		// One entry per die for all its groups (Units of them), so that
		// the log stays small on large drives.
		f.record(Op{Kind: OpErase, Cause: CauseHost, Die: int32(d), Block: int32(d * f.gpd * f.np), Units: int32(f.gpd), Planes: uint8(f.np)})
	}
	f.reset()
}

func (f *FTL) dieOf(group int32) int { return int(group) / f.gpd }

// groupWP returns the next page to program in a group.
func (f *FTL) groupWP(group int32) int { return f.dev.WritePointer(int(group) * f.np) }

// Valid returns the number of valid units programmed in a group.
func (f *FTL) Valid(group int) int {
	v := 0
	for p := 0; p < f.np; p++ {
		v += f.dev.ValidUnits(group*f.np + p)
	}
	return v
}

func log2(n int) uint {
	s := uint(0)
	for 1<<s < n {
		s++
	}
	return s
}

// split returns the group of unit u and the index of its multi-plane page
// within the group.
func (f *FTL) split(u uint32) (group int32, page int32) {
	if f.pow2 {
		return int32(u >> f.upgShift), int32(u&uint32(f.upg-1)) >> f.puShift
	}
	return int32(int64(u) / int64(f.upg)), int32(int64(u)%int64(f.upg)) / int32(f.pageUnits)
}

// stageOf returns the stage that holds unit u's page if it is not yet
// programmed, or nil.
func (f *FTL) stageOf(u uint32) *stage {
	g, page := f.split(u)
	if f.host.group == g && f.host.page == page {
		return &f.host
	}
	if s := &f.gc[int(g)/f.gpd]; s.group == g && s.page == page {
		return s
	}
	if f.fdp != nil {
		return f.idleStageOf(g, page)
	}
	return nil
}

// slot returns the index of unit u within its multi-plane page.
func (f *FTL) slot(u uint32) int {
	if f.pow2 {
		return int(u & uint32(f.pageUnits-1))
	}
	return int(u % uint32(f.pageUnits))
}
