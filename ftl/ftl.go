package ftl

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"unsafe"

	"github.com/ftlsim/ftlsim/internal/prefetch"
	"github.com/ftlsim/ftlsim/internal/units"
	"github.com/ftlsim/ftlsim/nand"
)

// Unmapped is the mapping entry of a logical unit that holds no data.
const Unmapped = ^uint32(0)

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
}

// Counters are cumulative totals since the FTL was built.
type Counters struct {
	HostWriteUnits int64 // units written by the host
	HostReadUnits  int64 // units read by the host
	TrimUnits      int64 // mapped units discarded by TRIM
	ProgramPages   int64 // physical pages programmed (each plane counts)
	ReadPages      int64 // physical pages read (each plane counts)
	ProgramUnits   int64 // units programmed, padding included
	GCCopiedUnits  int64 // units moved by garbage collection
	WLCopiedUnits  int64 // units moved by static wear levelling
	Erases         int64 // physical blocks erased
	GCRuns         int64 // victims cleaned by garbage collection
	BackgroundRuns int64 // of GCRuns, those run while the host was idle
	FreeGroupsMin  int   // fewest free groups seen at once
	PaddedUnits    int64 // units programmed empty by Flush
	GCFallbacks    int64 // victims chosen greedily because the policy's choices freed nothing
	DiscardedUnits int64 // staged host units dropped by SecureErase
	// HostSlots is the device units the host's data took once stored
	// (after compression); HostWriteUnits×UnitSlots without compression.
	HostSlots int64
	// UnitSlots is the device units a logical unit spans uncompressed
	// (Config.UnitSlots).
	UnitSlots int64

	discardedMoved int64 // staged GC/WL units dropped by SecureErase
	discardedSlots int64 // staged host slots dropped by SecureErase
}

// WriteAmplification is device units programmed per device unit of data
// the host wrote (uncompressed), not counting host units a secure erase
// dropped from the write buffer before they reached flash (1 when nothing
// was written). With compression it falls below 1 for compressible data.
func (c Counters) WriteAmplification() float64 {
	h := (c.HostWriteUnits - c.DiscardedUnits) * max(c.UnitSlots, 1)
	if h <= 0 {
		return 1
	}
	return float64(c.ProgramUnits) / float64(h)
}

// CompressionRatio is the share of its uncompressed size the host's data
// took once stored (1 without compression, 0 before any write).
func (c Counters) CompressionRatio() float64 {
	if c.HostWriteUnits == 0 {
		return 0
	}
	return float64(c.HostSlots) / float64(c.HostWriteUnits*max(c.UnitSlots, 1))
}

// FTL is a page-mapped flash translation layer over one nand.Device.
type FTL struct {
	dev   *nand.Device
	cfg   Config
	sink  OpSink
	moves MoveSink // nil: moves need no mapping work beyond the FTL's
	rng   *rand.Rand

	dies, np, upp, ppb, upg, gpd int // dies, planes, units/page, pages/block, units/group, groups/die
	pageUnits                    int // units in a multi-plane page
	k                            int // device units per logical unit, uncompressed
	reserved                     int // groups per die held out of use
	pow2                         bool
	upgShift, puShift            uint // log2 of upg and pageUnits when pow2

	l2p      []uint32
	size     []uint8  // per logical unit: device units it takes (only when k > 1)
	closedAt []uint64 // per group: units programmed when it filled
	busy     []bool   // per group: open for writing or being cleaned (not a candidate)
	free     [][]int32
	nfree    int
	open     [2][]int32 // [host|gc][die] open group, -1 when none
	host     stage
	gc       []stage    // per die
	clean    []cleaning // per die: the victim being collected
	alloc    Allocator
	seq      uint64 // units programmed, a clock for ages
	cnt      Counters

	// Spare-area accounting for the theory comparison.
	alphaSum, alphaN float64
}

// New builds an FTL over dev, which it secure-erases.
func New(dev *nand.Device, cfg Config) (*FTL, error) {
	cfg.setDefaults()
	g := dev.Geometry()
	f := &FTL{
		dev:  dev,
		cfg:  cfg,
		dies: g.Dies(), np: g.PlanesPerDie, upp: g.UnitsPerPage(), ppb: g.PagesPerBlock,
		upg: g.UnitsPerGroup(), gpd: g.BlocksPerPlane,
	}
	f.pageUnits = f.np * f.upp
	f.k, f.reserved = cfg.UnitSlots, cfg.ReservedGroups
	f.upgShift, f.puShift = log2(f.upg), log2(f.pageUnits)
	f.pow2 = 1<<f.upgShift == f.upg && 1<<f.puShift == f.pageUnits
	if err := f.validate(); err != nil {
		return nil, err
	}
	f.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	f.alloc = cfg.Allocator
	if f.alloc == nil {
		f.alloc = &RoundRobin{Dies: f.dies}
	}
	f.l2p = make([]uint32, cfg.UserUnits)
	if f.k > 1 {
		f.size = make([]uint8, cfg.UserUnits)
	}
	f.closedAt = make([]uint64, g.Groups())
	f.busy = make([]bool, g.Groups())
	f.free = make([][]int32, f.dies)
	for i := range f.free {
		f.free[i] = make([]int32, 0, f.gpd)
	}
	for s := range f.open {
		f.open[s] = make([]int32, f.dies)
	}
	f.host = newStage(f.pageUnits)
	f.clean = make([]cleaning, f.dies)
	f.gc = make([]stage, f.dies)
	for i := range f.gc {
		f.gc[i] = newStage(f.pageUnits)
	}
	f.reset()
	return f, nil
}

func newStage(n int) stage {
	return stage{group: -1, tags: make([]uint32, n), data: make([]uint32, n)}
}

// MinSpareGroups is the number of groups per die that are never available
// to hold data: the host and GC open groups and the free groups blocking
// collection keeps (its low water, or what it restores, less one).
func (c Config) MinSpareGroups() int { return 2 + max(c.GCLowWater, c.GCRestoreTo-1, 1) }

func (f *FTL) validate() error {
	c := f.cfg
	if c.GCLowWater < 1 || c.GCLowWater > f.gpd/2 {
		return fmt.Errorf("%w: gc_low_water = %d, allowed 1..%d (half the groups of a die)", ErrConfig, c.GCLowWater, f.gpd/2)
	}
	if c.GCHighWater < c.GCLowWater || c.GCHighWater > f.gpd/2 {
		return fmt.Errorf("%w: gc_high_water = %d, allowed %d..%d", ErrConfig, c.GCHighWater, c.GCLowWater, f.gpd/2)
	}
	if c.GCRestoreTo <= c.GCLowWater || c.GCRestoreTo > f.gpd/2 {
		return fmt.Errorf("%w: gc_restore_to = %d, allowed %d..%d (above gc_low_water)", ErrConfig, c.GCRestoreTo, c.GCLowWater+1, f.gpd/2)
	}
	if c.GCPaceWater < 0 || c.GCPaceWater > f.gpd/2 {
		return fmt.Errorf("%w: gc_pace_water = %d, allowed 0 (off)..%d", ErrConfig, c.GCPaceWater, f.gpd/2)
	}
	if c.StaticWLSpread < 0 {
		return fmt.Errorf("%w: static_wl_spread = %d, allowed 0 (off) or more", ErrConfig, c.StaticWLSpread)
	}
	if c.UnitSlots < 1 || c.UnitSlots > min(f.pageUnits, 255) {
		return fmt.Errorf("%w: unit_slots = %d, allowed 1..%d (device units in a multi-plane page)", ErrConfig, c.UnitSlots, min(f.pageUnits, 255))
	}
	if c.ReservedGroups < 0 || c.ReservedGroups > f.gpd/2 {
		return fmt.Errorf("%w: reserved groups = %d per die, allowed 0..%d", ErrConfig, c.ReservedGroups, f.gpd/2)
	}
	// Every die must keep, beyond its share of user data (stored
	// uncompressed in the worst case), its reserved groups, its open
	// groups, its GC reserve and at least one more group to clean with.
	dataGroups := int64(f.dies) * int64(f.gpd-c.ReservedGroups-c.MinSpareGroups()-1)
	maxUser := dataGroups * int64(f.upg) / int64(c.UnitSlots)
	if c.UserUnits < 1 || c.UserUnits > maxUser {
		ub := int64(f.dev.Geometry().UnitBytes) * int64(c.UnitSlots)
		return fmt.Errorf("%w: user capacity = %d units (%s), allowed 1..%d units (%s): each of the %d dies keeps %d of its %d groups for reserved data, open groups, the GC reserve and cleaning; raise op_percent or lower gc_low_water",
			ErrConfig, c.UserUnits, units.FormatBytes(c.UserUnits*ub), maxUser, units.FormatBytes(maxUser*ub),
			f.dies, c.ReservedGroups+c.MinSpareGroups()+1, f.gpd)
	}
	if c.UserUnits >= int64(Unmapped) {
		return fmt.Errorf("%w: user capacity = %d units, allowed below %d", ErrConfig, c.UserUnits, int64(Unmapped))
	}
	return nil
}

// SetSink sets the receiver of flash operations (nil for none).
func (f *FTL) SetSink(s OpSink) { f.sink = s }

// SetMoveSink sets the receiver of the logical units that garbage
// collection and wear levelling move (nil for none).
func (f *FTL) SetMoveSink(m MoveSink) { f.moves = m }

// Device returns the underlying device.
func (f *FTL) Device() *nand.Device { return f.dev }

// Config returns the configuration with defaults filled in.
func (f *FTL) Config() Config { return f.cfg }

// UserUnits is the size of the logical space in units.
func (f *FTL) UserUnits() int64 { return int64(len(f.l2p)) }

// Counters returns the cumulative counters.
func (f *FTL) Counters() Counters { return f.cnt }

// FreeGroups returns the number of free groups on all dies.
func (f *FTL) FreeGroups() int { return f.nfree }

// FreeGroupsOn returns the number of free groups on die d.
func (f *FTL) FreeGroupsOn(d int) int { return len(f.free[d]) }

// MemoryBytes is the memory held by the mapping and FTL metadata.
func (f *FTL) MemoryBytes() int64 {
	return int64(len(f.l2p))*4 + int64(len(f.size)) + int64(len(f.closedAt))*8 + int64(f.dies*f.gpd)*4
}

// UnitSlots is the number of device units a logical unit spans
// uncompressed.
func (f *FTL) UnitSlots() int { return f.k }

func (f *FTL) reset() {
	for i := range f.l2p {
		f.l2p[i] = Unmapped
	}
	clear(f.closedAt)
	clear(f.busy)
	f.nfree = 0
	for d := range f.free {
		f.free[d] = f.free[d][:0]
		for g := d*f.gpd + f.gpd - 1 - f.reserved; g >= d*f.gpd; g-- {
			f.free[d] = append(f.free[d], int32(g))
		}
		f.nfree += f.gpd - f.reserved
		f.open[HostStream][d] = -1
		f.open[GCStream][d] = -1
		f.gc[d].group, f.gc[d].n, f.gc[d].host = -1, 0, 0
		f.clean[d] = cleaning{group: -1}
	}
	f.host.group, f.host.n, f.host.host = -1, 0, 0
	f.cnt.FreeGroupsMin = f.nfree
	f.cnt.UnitSlots = int64(f.k)
}

// SecureErase erases every block and forgets every mapping.
func (f *FTL) SecureErase() {
	f.cnt.DiscardedUnits += int64(f.host.host)
	f.cnt.discardedSlots += int64(f.host.n)
	f.cnt.discardedMoved += f.gcStaged()
	f.dev.SecureErase()
	f.cnt.Erases += int64(f.dies * f.gpd * f.np)
	if f.sink != nil {
		for d := 0; d < f.dies; d++ {
			for g := 0; g < f.gpd; g++ {
				f.sink.EraseGroup(d, f.np, HostStream)
			}
		}
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
	return nil
}

// slot returns the index of unit u within its multi-plane page.
func (f *FTL) slot(u uint32) int {
	if f.pow2 {
		return int(u & uint32(f.pageUnits-1))
	}
	return int(u % uint32(f.pageUnits))
}

// unmap invalidates the current location of lba, if any.
func (f *FTL) unmap(lba int64) error {
	u := f.l2p[lba]
	if u == Unmapped {
		return nil
	}
	f.l2p[lba] = Unmapped
	n := 1
	if f.size != nil {
		n = int(f.size[lba])
	}
	if s := f.stageOf(u); s != nil {
		k := f.slot(u)
		for i := range n {
			s.tags[k+i] = nand.NoTag
		}
		return nil
	}
	for i := range n - 1 {
		if err := f.dev.Invalidate(int64(u) + int64(i) + 1); err != nil {
			return err
		}
	}
	return f.dev.Invalidate(int64(u))
}

// Write maps logical unit lba to new data carrying token (an opaque payload
// the device keeps when it tracks data), stored uncompressed.
func (f *FTL) Write(lba int64, token uint32) error { return f.write(lba, token, f.k) }

// WriteSlots is Write for data that takes n device units once stored
// (compressed), 1 ≤ n ≤ UnitSlots. A unit never straddles two pages: when
// it does not fit in the rest of the page being filled, that rest is
// padded.
func (f *FTL) WriteSlots(lba int64, token uint32, n int) error {
	if n < 1 || n > f.k {
		return fmt.Errorf("%w: unit %d stored in %d slots, allowed 1..%d", ErrRange, lba, n, f.k)
	}
	return f.write(lba, token, n)
}

func (f *FTL) write(lba int64, token uint32, n int) error {
	if lba < 0 || lba >= int64(len(f.l2p)) {
		return fmt.Errorf("%w: write unit %d, user space has %d", ErrRange, lba, len(f.l2p))
	}
	if err := f.unmap(lba); err != nil {
		return err
	}
	f.cnt.HostWriteUnits++
	f.cnt.HostSlots += int64(n)
	s := &f.host
	if s.group >= 0 && int(s.n)+n > f.pageUnits {
		d := int(s.group) / f.gpd
		if err := f.pad(s, HostStream); err != nil {
			return err
		}
		if f.cfg.GCPaceWater > 0 {
			if err := f.pace(d); err != nil {
				return err
			}
		}
	}
	if s.group < 0 {
		// A die whose groups all hold valid data cannot take the page
		// (on small drives one die can fill while others have room); the
		// page then goes to the next die that can.
		d := f.alloc.NextDie()
		g, err := f.openGroup(HostStream, d)
		for i := 1; errors.Is(err, ErrNoVictim) && i < f.dies; i++ {
			d = (d + 1) % f.dies
			g, err = f.openGroup(HostStream, d)
		}
		if err != nil {
			return err
		}
		s.group, s.page = g, int32(f.groupWP(g))
	}
	s.host++
	d := int(s.group) / f.gpd
	if err := f.place(s, HostStream, lba, token, n); err != nil {
		return err
	}
	if s.group < 0 && f.cfg.GCPaceWater > 0 {
		return f.pace(d) // a host page was just programmed on die d
	}
	return nil
}

// place puts lba into the next n slots of stage s, which must have room,
// and programs the page when it is full. Every slot of the unit carries
// its tag; the mapping points at the first.
func (f *FTL) place(s *stage, cause Stream, lba int64, token uint32, n int) error {
	k := s.n
	for i := range int32(n) {
		s.tags[k+i], s.data[k+i] = uint32(lba), token
	}
	f.l2p[lba] = uint32(int64(s.group)*int64(f.upg) + int64(s.page)*int64(f.pageUnits) + int64(k))
	if f.size != nil {
		f.size[lba] = uint8(n)
	}
	s.n += int32(n)
	if int(s.n) == f.pageUnits {
		return f.program(s, cause)
	}
	return nil
}

// program writes stage s's page to every plane of its group.
func (f *FTL) program(s *stage, cause Stream) error {
	g, page := int(s.group), int(s.page)
	for p := 0; p < f.np; p++ {
		lo := p * f.upp
		if err := f.dev.Program(g*f.np+p, page, s.tags[lo:lo+f.upp], s.data[lo:lo+f.upp]); err != nil {
			return err
		}
	}
	die := g / f.gpd
	f.cnt.ProgramPages += int64(f.np)
	f.cnt.ProgramUnits += int64(f.pageUnits)
	f.seq += uint64(f.pageUnits)
	if f.sink != nil {
		f.sink.ProgramPage(die, page, f.np, int(s.host), cause)
	}
	s.n, s.host = 0, 0
	if page+1 == f.ppb {
		f.closedAt[g] = f.seq
		f.busy[g] = false
		st := HostStream
		if cause != HostStream {
			st = GCStream
		}
		f.open[st][die] = -1
		s.group = -1
		return nil
	}
	if cause == HostStream {
		s.group = -1 // the next host page may go to another die
	} else {
		s.page++
	}
	return nil
}

// openGroup returns the open group of stream st on die d, opening a new
// one (after foreground GC for the host stream) when there is none.
func (f *FTL) openGroup(st Stream, d int) (int32, error) {
	if g := f.open[st][d]; g >= 0 {
		return g, nil
	}
	if st == HostStream {
		if err := f.collectBlocking(d); err != nil {
			return -1, err
		}
	}
	if len(f.free[d]) == 0 {
		return -1, fmt.Errorf("%w: die %d has no free group", ErrNoVictim, d)
	}
	// Dynamic wear levelling: open the least-worn free group.
	fl := f.free[d]
	best := len(fl) - 1
	be := f.dev.EraseCount(int(fl[best]) * f.np)
	for i := len(fl) - 2; i >= 0; i-- {
		if e := f.dev.EraseCount(int(fl[i]) * f.np); e < be {
			best, be = i, e
		}
	}
	g := fl[best]
	fl[best] = fl[len(fl)-1]
	f.free[d] = fl[:len(fl)-1]
	f.nfree--
	if f.nfree < f.cnt.FreeGroupsMin {
		f.cnt.FreeGroupsMin = f.nfree
	}
	f.open[st][d] = g
	f.busy[g] = true
	return g, nil
}

// collectBlocking, once die d has no more than GCLowWater free groups,
// cleans it until it has GCRestoreTo, finishing any victim in progress
// first. Cleaning a group that
// holds only valid data gains nothing but moves on (FIFO does that, and
// Random may); so that a policy cannot livelock a die, after a die's worth
// of fruitless victims the next is chosen greedily (counted in
// GCFallbacks), and if even that gains nothing the spare area is exhausted.
func (f *FTL) collectBlocking(d int) error {
	if len(f.free[d]) > f.cfg.GCLowWater {
		return nil
	}
	for i := 0; len(f.free[d]) < f.cfg.GCRestoreTo; i++ {
		if f.clean[d].group < 0 {
			fallback := i >= f.gpd
			if fallback {
				g := Greedy{}.Victim(View{f}, d)
				if g < 0 || f.Valid(g) == f.upg {
					return fmt.Errorf("%w: die %d: every group holds only valid data; the spare area is exhausted", ErrNoVictim, d)
				}
				f.cnt.GCFallbacks++
			}
			if err := f.startVictim(d, GCStream, fallback); err != nil {
				return err
			}
		}
		if _, err := f.copyPages(d, -1); err != nil {
			return err
		}
	}
	return nil
}

// cleaning is the victim a die is collecting.
type cleaning struct {
	group  int32 // -1 when none
	page   int32 // next page to copy
	cause  Stream
	ratio  float64 // units to copy per host unit written (paced GC)
	credit float64 // units the pacer may still copy
}

// startVictim chooses the next victim on die d and makes it the die's
// cleaning target.
func (f *FTL) startVictim(d int, cause Stream, greedy bool) error {
	var g int
	switch {
	case cause == WLStream:
		g = f.coldest(d)
	case greedy:
		g = Greedy{}.Victim(View{f}, d)
	default:
		g = f.cfg.Victim.Victim(View{f}, d)
	}
	if g < d*f.gpd || g >= (d+1)*f.gpd || !f.candidate(int32(g)) {
		if g == -1 {
			return fmt.Errorf("%w: die %d (policy %s)", ErrNoVictim, d, f.cfg.Victim.Name())
		}
		return fmt.Errorf("ftl: victim policy %s chose group %d, not a full group of die %d", f.cfg.Victim.Name(), g, d)
	}
	f.sampleAlpha()
	f.cnt.GCRuns++
	v := float64(f.Valid(g))
	ratio := float64(f.upg) // a victim of only valid data is copied at once
	if v < float64(f.upg) {
		ratio = v / (float64(f.upg) - v)
	}
	f.clean[d] = cleaning{group: int32(g), cause: cause, ratio: ratio}
	f.busy[g] = true
	return nil
}

// copyPages moves the valid units of die d's victim, page by page, until
// at least budget units have moved (all of them for budget < 0); when the
// victim is empty it is erased and freed. It returns the units moved.
func (f *FTL) copyPages(d int, budget float64) (float64, error) {
	c := &f.clean[d]
	g := int(c.group)
	gs := &f.gc[d]
	base := int64(g) * int64(f.upg)
	moved := 0.0
	for ; c.page < int32(f.ppb) && (budget < 0 || moved < budget); c.page++ {
		pu := base + int64(int(c.page)*f.pageUnits)
		mask := f.dev.ValidMask(pu, f.pageUnits)
		if mask == 0 {
			continue
		}
		if int(c.page)+1 < f.ppb {
			// Start loading the mapping entries the next page's moves
			// will update, so that they arrive while this page moves.
			nu := pu + int64(f.pageUnits)
			for m := f.dev.ValidMask(nu, f.pageUnits); m != 0; m &= m - 1 {
				if t := f.dev.Tag(nu + int64(bits.TrailingZeros64(m))); int64(t) < int64(len(f.l2p)) {
					prefetch.Load(unsafe.Pointer(&f.l2p[t]))
				}
			}
		}
		n := bits.OnesCount64(mask)
		f.cnt.ReadPages += int64(f.np)
		if f.sink != nil {
			f.sink.ReadPage(d, int(c.page), f.np, n, c.cause)
		}
		if err := f.dev.InvalidateMask(pu, mask); err != nil {
			return moved, err
		}
		for ; mask != 0; mask &= mask - 1 {
			u := pu + int64(bits.TrailingZeros64(mask))
			lba := int64(f.dev.Tag(u))
			n := 1
			if f.size != nil {
				if f.l2p[lba] != uint32(u) {
					continue // a later slot of a unit moved with its first
				}
				n = int(f.size[lba])
				if gs.group >= 0 && int(gs.n)+n > f.pageUnits {
					if err := f.pad(gs, c.cause); err != nil {
						return moved, err
					}
				}
			}
			tok := f.dev.Data(u)
			if gs.group < 0 {
				og, err := f.openGroup(GCStream, d)
				if err != nil {
					return moved, err
				}
				gs.group, gs.page = og, int32(f.groupWP(og))
			}
			if err := f.place(gs, c.cause, lba, tok, n); err != nil {
				return moved, err
			}
			if f.moves != nil {
				f.moves.Moved(lba)
			}
		}
		if c.cause == WLStream {
			f.cnt.WLCopiedUnits += int64(n)
		} else {
			f.cnt.GCCopiedUnits += int64(n)
		}
		moved += float64(n)
	}
	if c.page < int32(f.ppb) {
		return moved, nil
	}
	// Every unit has moved (or was overwritten meanwhile): erase.
	for p := 0; p < f.np; p++ {
		if err := f.dev.Erase(g*f.np + p); err != nil {
			return moved, err
		}
	}
	f.cnt.Erases += int64(f.np)
	if f.sink != nil {
		f.sink.EraseGroup(d, f.np, c.cause)
	}
	f.free[d] = append(f.free[d], int32(g))
	f.nfree++
	f.busy[g] = false
	cause := c.cause
	*c = cleaning{group: -1}
	if f.cfg.StaticWLSpread > 0 && cause != WLStream {
		return moved, f.levelWear(d)
	}
	return moved, nil
}

// pace runs paced garbage collection on die d after the host programmed
// a page there: below GCPaceWater free groups the die cleans a victim a
// little at a time, moving about v/(U−v) units per host unit written (v
// valid of U units in the victim), which frees space as fast as the host
// consumes it and spreads the cost of cleaning over the host's writes.
func (f *FTL) pace(d int) error {
	c := &f.clean[d]
	if c.group < 0 {
		if len(f.free[d]) > f.cfg.GCPaceWater {
			return nil
		}
		g := f.cfg.Victim.Victim(View{f}, d)
		if g < 0 || !f.candidate(int32(g)) || f.Valid(g) == f.upg {
			return nil // nothing worth cleaning: the blocking path decides
		}
		if err := f.startVictim(d, GCStream, false); err != nil {
			return err
		}
	}
	if c.cause != GCStream {
		return nil
	}
	c.credit += c.ratio * float64(f.pageUnits)
	if c.credit <= 0 {
		return nil
	}
	moved, err := f.copyPages(d, c.credit)
	if c.group >= 0 {
		c.credit -= moved
	}
	return err
}

// isOpen reports whether g is a stream's open group.
func (f *FTL) isOpen(g int32) bool {
	d := f.dieOf(g)
	return f.open[HostStream][d] == g || f.open[GCStream][d] == g
}

// candidate reports whether g may become a victim: full, not open and not
// already being cleaned.
func (f *FTL) candidate(g int32) bool {
	return !f.busy[g] && f.groupWP(g) == f.ppb
}

// coldest returns the least-worn candidate group on die d, or -1.
func (f *FTL) coldest(d int) int {
	best, be := -1, 0
	for g := d * f.gpd; g < (d+1)*f.gpd; g++ {
		if !f.candidate(int32(g)) {
			continue
		}
		if e := f.dev.EraseCount(g * f.np); best < 0 || e < be {
			best, be = g, e
		}
	}
	return best
}

// levelWear moves the least-worn full group of die d when the erase counts
// of the die spread wider than StaticWLSpread.
func (f *FTL) levelWear(d int) error {
	if f.clean[d].group >= 0 || len(f.free[d]) == 0 {
		return nil
	}
	lo, hi := -1, 0
	for g := d * f.gpd; g < (d+1)*f.gpd; g++ {
		e := f.dev.EraseCount(g * f.np)
		hi = max(hi, e)
		if f.candidate(int32(g)) && (lo < 0 || e < lo) {
			lo = e
		}
	}
	if lo < 0 || hi-lo <= f.cfg.StaticWLSpread {
		return nil
	}
	if err := f.startVictim(d, WLStream, false); err != nil {
		return err
	}
	_, err := f.copyPages(d, -1)
	return err
}

// CollectBackground cleans one victim on die d — finishing one in progress
// or starting one that frees space — if the die has fewer than GCHighWater
// free groups. It reports whether it did any work.
func (f *FTL) CollectBackground(d int) (bool, error) {
	if len(f.free[d]) >= f.cfg.GCHighWater && f.clean[d].group < 0 {
		return false, nil
	}
	if f.clean[d].group < 0 {
		g := f.cfg.Victim.Victim(View{f}, d)
		if g < 0 || !f.candidate(int32(g)) || f.Valid(g) == f.upg {
			return false, nil
		}
		if err := f.startVictim(d, GCStream, false); err != nil {
			return false, err
		}
	}
	f.cnt.BackgroundRuns++
	_, err := f.copyPages(d, -1)
	return true, err
}

// ReclaimEmpty erases one full group of die d that holds no valid data
// (trimmed or overwritten space), whatever the die's free count, and
// reports whether there was one. Erasing costs no copying; firmware does
// it while the host is idle so that later writes find erased blocks.
func (f *FTL) ReclaimEmpty(d int) (bool, error) {
	if f.clean[d].group >= 0 {
		return false, nil
	}
	for g := d * f.gpd; g < (d+1)*f.gpd; g++ {
		if f.candidate(int32(g)) && f.Valid(g) == 0 {
			f.clean[d] = cleaning{group: int32(g), cause: GCStream}
			f.busy[g] = true
			f.cnt.GCRuns++
			f.cnt.BackgroundRuns++
			_, err := f.copyPages(d, -1)
			return true, err
		}
	}
	return false, nil
}

// NeedsBackground reports whether die d is below its background target or
// has a victim half cleaned.
func (f *FTL) NeedsBackground(d int) bool {
	return len(f.free[d]) < f.cfg.GCHighWater || f.clean[d].group >= 0
}

// Location describes where a logical unit's data is.
type Location struct {
	Mapped   bool // the unit holds data
	Buffered bool // the data waits in controller memory, not yet programmed
	Die      int
	Block    int // physical block
	Page     int
	Units    int    // device units the data takes (fewer than UnitSlots when compressed)
	Token    uint32 // payload token (0 when the device does not track data)
}

// Read looks up logical unit lba for a host read and counts it. The FTL
// does not time host reads: the caller reads the page it names (and may
// merge reads of one page), so no operation goes to the sink.
func (f *FTL) Read(lba int64) (Location, error) {
	loc, err := f.Lookup(lba)
	if err == nil {
		f.cnt.HostReadUnits++
		if loc.Mapped && !loc.Buffered {
			f.cnt.ReadPages++
		}
	}
	return loc, err
}

// Lookup reports where logical unit lba's data is, without counting a read.
func (f *FTL) Lookup(lba int64) (Location, error) {
	if lba < 0 || lba >= int64(len(f.l2p)) {
		return Location{}, fmt.Errorf("%w: read unit %d, user space has %d", ErrRange, lba, len(f.l2p))
	}
	u := f.l2p[lba]
	if u == Unmapped {
		return Location{}, nil
	}
	n := 1
	if f.size != nil {
		n = int(f.size[lba])
	}
	if s := f.stageOf(u); s != nil {
		return Location{Mapped: true, Buffered: true, Units: n, Token: s.data[f.slot(u)]}, nil
	}
	pb, page := f.dev.Locate(int64(u))
	tag, tok, err := f.dev.Read(int64(u))
	if err != nil {
		return Location{}, err
	}
	if int64(tag) != lba {
		return Location{}, fmt.Errorf("ftl: unit %d maps to physical unit %d tagged %d", lba, u, tag)
	}
	return Location{Mapped: true, Die: f.dev.DieOfBlock(pb), Block: pb, Page: page, Units: n, Token: tok}, nil
}

// PrefetchMapping hints that logical unit lba will be written or read
// soon: it starts loading lba's mapping entry. Call PrefetchLocation for
// the same unit a little later, once the entry has arrived. Hints never
// change results.
func (f *FTL) PrefetchMapping(lba int64) {
	if lba >= 0 && lba < int64(len(f.l2p)) {
		prefetch.Load(unsafe.Pointer(&f.l2p[lba]))
		if f.size != nil {
			prefetch.Load(unsafe.Pointer(&f.size[lba]))
		}
	}
}

// PrefetchLocation hints that the physical unit lba maps to will be
// needed soon, for a read or (read false) for an overwrite (see
// PrefetchMapping).
func (f *FTL) PrefetchLocation(lba int64, read bool) {
	if lba >= 0 && lba < int64(len(f.l2p)) {
		if u := f.l2p[lba]; u != Unmapped {
			f.dev.PrefetchUnit(int64(u), read)
		}
	}
}

// Mapped reports whether logical unit lba holds data, without reading it.
func (f *FTL) Mapped(lba int64) bool { return f.l2p[lba] != Unmapped }

// Trim discards logical units [lba, lba+n).
func (f *FTL) Trim(lba, n int64) error {
	if lba < 0 || n < 0 || lba+n > int64(len(f.l2p)) {
		return fmt.Errorf("%w: trim units %d+%d, user space has %d", ErrRange, lba, n, len(f.l2p))
	}
	for i := lba; i < lba+n; i++ {
		if f.l2p[i] != Unmapped {
			f.cnt.TrimUnits++
			if err := f.unmap(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// Flush programs every partly filled page, padding it, as a controller
// does on a cache flush or before power-off.
func (f *FTL) Flush() error {
	if err := f.pad(&f.host, HostStream); err != nil {
		return err
	}
	for d := range f.gc {
		if err := f.pad(&f.gc[d], GCStream); err != nil {
			return err
		}
	}
	return nil
}

// pad fills the rest of stage s's page with empty units and programs it.
func (f *FTL) pad(s *stage, cause Stream) error {
	if s.group < 0 || s.n == 0 {
		return nil
	}
	for s.n < int32(f.pageUnits) {
		s.tags[s.n], s.data[s.n] = nand.NoTag, 0
		s.n++
		f.cnt.PaddedUnits++
	}
	return f.program(s, cause)
}

// sampleAlpha records, at each collection, how much physical space can
// hold closed data: everything but free groups and the unwritten part of
// open groups and stages.
func (f *FTL) sampleAlpha() {
	unusable := int64(f.nfree) * int64(f.upg)
	for st := range f.open {
		for _, g := range f.open[st] {
			if g >= 0 {
				unusable += int64(f.ppb-f.groupWP(g)) * int64(f.pageUnits)
			}
		}
	}
	phys := int64(f.dies*(f.gpd-f.reserved))*int64(f.upg) - unusable
	f.alphaSum += float64(phys) / float64(int64(len(f.l2p))*int64(f.k))
	f.alphaN++
}

// Stats are derived figures of a run.
type Stats struct {
	// EffectiveAlpha is the mean, over garbage collections, of the
	// physical space able to hold data (free groups and the unwritten part
	// of open groups excluded) divided by the user space: the α of the
	// analytic models. 0 before the first collection.
	EffectiveAlpha float64
}

// Stats returns derived figures.
func (f *FTL) Stats() Stats {
	if f.alphaN == 0 {
		return Stats{}
	}
	return Stats{EffectiveAlpha: f.alphaSum / f.alphaN}
}

// ResetFreeGroupsMin restarts the low-water mark of free groups
// (Counters.FreeGroupsMin) from the current count.
func (f *FTL) ResetFreeGroupsMin() { f.cnt.FreeGroupsMin = f.nfree }

// ResetStats restarts the spare-area sampling (for a new measurement window).
func (f *FTL) ResetStats() { f.alphaSum, f.alphaN = 0, 0 }
