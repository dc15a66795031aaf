package controller

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// ErrRequest is wrapped by errors about malformed host requests.
var ErrRequest = errors.New("invalid request")

// Counters are cumulative host-side and flash-side totals.
type Counters struct {
	ftl.Counters
	HostReadBytes  int64
	HostWriteBytes int64
	HostTrimBytes  int64
	Commands       int64
	RMWReads       int64 // flash reads done to merge partial-unit writes
	BufferStallNs  int64 // total time writes waited for buffer space
	// ChannelReadBytes is the data moved from flash to the controller:
	// host reads, read-ahead, RMW, GC and mapping reads.
	ChannelReadBytes int64
	ParityPages      int64 // RAISE parity pages programmed (each plane counts)
	MapReads         int64 // mapping pages read on mapping-cache misses
	MapWrites        int64 // dirty mapping pages programmed on eviction
	RegionErases     int64 // blocks erased in the parity and mapping regions
	DedupedUnits     int64 // units stored as a reference to earlier data
	TrimIgnoredBytes int64 // TRIM ranges dropped because the backlog was full
}

// FlashWritePages is every page programmed: data, parity and mapping.
func (c Counters) FlashWritePages() int64 { return c.ProgramPages + c.ParityPages + c.MapWrites }

// WriteAmplification is flash bytes programmed (data, padding, parity and
// mapping pages) per byte the host wrote.
func (c Counters) WriteAmplification(pageBytes int) float64 {
	if c.HostWriteBytes == 0 {
		return 1
	}
	return float64(c.FlashWritePages()) * float64(pageBytes) / float64(c.HostWriteBytes)
}

// release frees units of the write buffer when a program finishes.
type release struct {
	at    int64
	units int64
}

// releases is a min-heap on at, typed so that pushes do not allocate.
type releases []release

func (h *releases) push(r release) {
	*h = append(*h, r)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].at <= a[i].at {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *releases) pop() release {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && a[l].at < a[m].at {
			m = l
		}
		if l+1 < n && a[l+1].at < a[m].at {
			m = l + 1
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// extent is data read ahead into the buffer.
type extent struct {
	off, n int64
	ready  int64
}

// Controller is a simulated drive.
type Controller struct {
	cfg  Config
	dev  *nand.Device
	tl   *nand.Timeline
	ftl  *ftl.FTL
	unit int64      // mapping unit bytes
	slot int64      // device unit bytes (the unit, or a compression slot)
	cap  int64      // user bytes
	rng  *rand.Rand // the dedupe draws

	parity region    // RAISE parity pages
	maps   region    // mapping pages written back from the cache
	stripe int       // data pages since the last parity page
	mc     *mapCache // nil: the whole mapping is in DRAM
	trimQ  int64     // trimmed units not yet reclaimed (TrimBacklog)

	link    *nand.Calendar // the host link, booked like a channel
	fwFree  int64
	bufAt   int64 // writes enter the buffer in order: not before this
	bufCap  int64 // units
	bufUsed int64
	rel     releases

	dpRead   int64 // datapath free times
	dpWrite  int64
	ra       []extent // read-ahead extents, in offset order
	lastRead int64    // where the previous read ended (-1: none)

	at       int64 // earliest start of flash work being issued
	lastDone int64 // latest completion of flash work issued since reset

	cnt Counters
}

// New builds a drive from a description, resolving it first.
func New(cfg Config) (*Controller, error) {
	r, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	cfg = r.Config
	dev, err := nand.New(cfg.DeviceConfig())
	if err != nil {
		return nil, fmt.Errorf("%w: nand: %w", ErrConfig, err)
	}
	fc, err := cfg.FTLConfig()
	if err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, dev: dev, tl: nand.NewTimeline(cfg.NAND), link: nand.NewCalendar()}
	fc.Allocator = &leastBusy{tl: c.tl, dies: cfg.NAND.Geometry.Dies()}
	f, err := ftl.New(dev, fc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	c.ftl = f
	f.SetSink(c)
	c.unit = int64(cfg.NAND.Geometry.UnitBytes)
	c.slot = int64(dev.Geometry().UnitBytes)
	c.cap = int64(cfg.Capacity)
	c.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5851f42d4c957f2d))
	g := cfg.NAND.Geometry
	c.parity = newRegion(g.Dies(), g.PagesPerBlock)
	c.maps = newRegion(g.Dies(), g.PagesPerBlock)
	if cfg.Firmware.MapCache > 0 {
		c.mc = newMapCache(f.UserUnits(), int64(g.PageBytes/4), int64(cfg.Firmware.MapCache)/int64(g.PageBytes))
		f.SetMoveSink(mapMover{c})
	}
	c.bufCap = int64(cfg.Firmware.WriteBuffer) / c.unit
	c.lastRead = -1
	return c, nil
}

// leastBusy sends each host page to the die that frees up first (the
// lowest numbered on a tie), as firmware that dispatches to idle dies does.
type leastBusy struct {
	tl   *nand.Timeline
	dies int
	next int
}

func (l *leastBusy) NextDie() int {
	best, bt := l.next, l.tl.DieFree(l.next)
	for d := l.next + 1; d < l.dies; d++ {
		if t := l.tl.DieFree(d); t < bt {
			best, bt = d, t
		}
	}
	for d := 0; d < l.next; d++ {
		if t := l.tl.DieFree(d); t < bt {
			best, bt = d, t
		}
	}
	l.next = best + 1
	if l.next == l.dies {
		l.next = 0
	}
	return best
}

// Config returns the resolved description.
func (c *Controller) Config() Config { return c.cfg }

// FTL returns the translation layer.
func (c *Controller) FTL() *ftl.FTL { return c.ftl }

// Device returns the flash array's state.
func (c *Controller) Device() *nand.Device { return c.dev }

// Timeline returns the flash array's occupancy.
func (c *Controller) Timeline() *nand.Timeline { return c.tl }

// CapacityBytes is the user-visible capacity.
func (c *Controller) CapacityBytes() int64 { return c.cap }

// Counters returns cumulative totals.
func (c *Controller) Counters() Counters {
	k := c.cnt
	k.Counters = c.ftl.Counters()
	return k
}

// MemoryBytes is the memory the simulated drive holds.
func (c *Controller) MemoryBytes() int64 {
	m := c.dev.MemoryBytes() + c.ftl.MemoryBytes() + c.tl.MemoryBytes() + 2<<18
	if c.mc != nil {
		m += c.mc.memoryBytes()
	}
	return m
}

// ReadPage implements ftl.OpSink.
func (c *Controller) ReadPage(die, page, planes, units int, cause ftl.Stream) {
	c.cnt.ChannelReadBytes += int64(units) * c.slot
	c.note(c.tl.Read(die, planes, units*int(c.slot), c.at))
}

// ProgramPage implements ftl.OpSink. With RAISE, every raise_stripe−1
// data pages are followed by a parity page on the next die in turn.
func (c *Controller) ProgramPage(die, page, planes, hostUnits int, cause ftl.Stream) {
	done := c.tl.Program(die, page, planes, c.at)
	c.note(done)
	if hostUnits > 0 {
		c.rel.push(release{at: done, units: int64(hostUnits)})
	}
	if s := c.cfg.Firmware.RaiseStripe; s > 0 {
		if c.stripe++; c.stripe == s-1 {
			c.stripe = 0
			c.cnt.ParityPages += int64(planes)
			c.note(c.parity.program(c, (die+1)%c.cfg.NAND.Geometry.Dies(), planes, c.at))
		}
	}
}

// EraseGroup implements ftl.OpSink.
func (c *Controller) EraseGroup(die, planes int, cause ftl.Stream) {
	c.note(c.tl.Erase(die, planes, c.at))
}

func (c *Controller) note(done int64) { c.lastDone = max(c.lastDone, done) }

// Validate checks a request against the drive.
func (c *Controller) Validate(r blockio.Request) error {
	if r.Op == blockio.Flush {
		return nil
	}
	if r.Op > blockio.Flush {
		return fmt.Errorf("%w: op %d", ErrRequest, r.Op)
	}
	if r.Offset < 0 || r.Offset%512 != 0 {
		return fmt.Errorf("%w: offset %d, must be a non-negative multiple of 512", ErrRequest, r.Offset)
	}
	if r.Length <= 0 || r.Length%512 != 0 {
		return fmt.Errorf("%w: length %d, must be a positive multiple of 512", ErrRequest, r.Length)
	}
	if r.Offset+r.Length > c.cap {
		return fmt.Errorf("%w: %s of %d bytes at offset %d ends past the drive's %d bytes", ErrRequest, r.Op, r.Length, r.Offset, c.cap)
	}
	return nil
}

// Prefetch hints that request r will be submitted soon. Stage 1 starts
// loading the mapping entry of its first unit; stage 2, called later,
// starts loading the state of the flash unit that entry points to. The
// engine issues stage 1 two requests ahead and stage 2 one request ahead.
// Hints never change results.
func (c *Controller) Prefetch(r *blockio.Request, stage int) {
	if r.Op == blockio.Flush || r.Offset < 0 {
		return
	}
	lba := r.Offset / c.unit
	if stage == 1 {
		c.ftl.PrefetchMapping(lba)
	} else {
		c.ftl.PrefetchLocation(lba, r.Op == blockio.Read)
	}
}

// Submit executes request r, which reaches the drive at time now, and
// returns when the drive completes it.
func (c *Controller) Submit(now int64, r blockio.Request) (int64, error) {
	if err := c.Validate(r); err != nil {
		return 0, err
	}
	c.tl.Advance(now)
	c.link.Advance(now)
	c.cnt.Commands++
	if checkInvariants && c.cnt.Commands%max(invariantsEvery, c.ftl.UserUnits()/64) == 0 {
		if err := c.ftl.CheckInvariants(); err != nil {
			return 0, err
		}
	}
	// The firmware takes commands in arrival order.
	cost := c.cfg.Firmware.CommandNs
	switch {
	case r.Op == blockio.Read && c.cfg.Firmware.ReadCommandNs > 0 && !c.readAheadHolds(r):
		// A read served from read-ahead needs no lookups or flash
		// commands: only the base cost.
		cost = c.cfg.Firmware.ReadCommandNs
	case r.Op == blockio.Write && c.cfg.Firmware.WriteCommandNs > 0:
		cost = c.cfg.Firmware.WriteCommandNs
	}
	fw := max(now, c.fwFree) + cost
	c.fwFree = fw
	switch r.Op {
	case blockio.Read:
		return c.read(fw, r)
	case blockio.Write:
		return c.write(fw, r)
	case blockio.Trim:
		return c.trim(fw, r)
	default:
		return c.flush(fw)
	}
}

// linkTransfer books the link for a command moving n bytes, starting no
// earlier than at, and returns when the transfer ends.
func (c *Controller) linkTransfer(at, n int64) int64 {
	return c.link.Book(at, c.cfg.Host.CommandNs+(n*1000+c.cfg.Host.LinkMBps-1)/c.cfg.Host.LinkMBps)
}

func (c *Controller) read(fw int64, r blockio.Request) (int64, error) {
	c.cnt.HostReadBytes += r.Length
	var firstReady, ready int64
	if e, ok := c.readAheadHit(r); ok {
		firstReady, ready = max(fw, e.ready), max(fw, e.ready)
		if err := c.countReads(r); err != nil {
			return 0, err
		}
	} else {
		var err error
		firstReady, ready, err = c.flashRead(r.Offset, r.Length, fw, true)
		if err != nil {
			return 0, err
		}
	}
	sequential := r.Offset == c.lastRead
	c.lastRead = r.Offset + r.Length
	if sequential && c.cfg.Firmware.ReadAhead > 0 {
		if err := c.readAhead(r, fw); err != nil {
			return 0, err
		}
	} else if !sequential {
		c.ra = c.ra[:0]
	}
	// The data path (ECC, DMA) handles the request's bytes in order.
	if mbps := c.cfg.Firmware.DatapathReadMBps; mbps > 0 {
		c.dpRead = max(firstReady, c.dpRead) + (r.Length*1000+mbps-1)/mbps
		ready = max(ready, c.dpRead)
	}
	// The controller streams data to the host as units arrive: the link
	// transfer may start with the first unit, and ends no sooner than the
	// last unit plus its own share of the transfer.
	end := c.linkTransfer(firstReady, r.Length)
	if tail := ready + c.cfg.Host.CommandNs + (min(r.Length, c.unit)*1000+c.cfg.Host.LinkMBps-1)/c.cfg.Host.LinkMBps; tail > end {
		end = tail
	}
	return end, nil
}

// flashRead books the flash reads of [off, off+n) from time at and
// returns when the first and the last unit are in the controller. host
// says whether the reads count as host reads.
func (c *Controller) flashRead(off, n, at int64, host bool) (firstReady, ready int64, err error) {
	first, last := off/c.unit, (off+n-1)/c.unit
	ready, firstReady = at, int64(math.MaxInt64)
	prevBlock, prevPage := -1, -1
	for lba := first; lba <= last; lba++ {
		var loc ftl.Location
		if host {
			loc, err = c.ftl.Read(lba)
		} else {
			loc, err = c.ftl.Lookup(lba)
		}
		if err != nil {
			return 0, 0, err
		}
		t := at
		if c.mc != nil {
			t = c.mapLookup(lba, false, at)
		}
		n := int(c.slot) * loc.Units // bytes stored (compressed)
		if loc.Mapped && !loc.Buffered {
			c.cnt.ChannelReadBytes += int64(n)
		}
		switch {
		case !loc.Mapped:
			// Unwritten data reads as zeros without touching flash.
		case loc.Buffered:
			t += c.cfg.Firmware.BufferNs
		case loc.Block == prevBlock && loc.Page == prevPage && host && c.cfg.Firmware.ReadSuspend:
			t = c.tl.OutputSuspending(loc.Die, n, t)
		case loc.Block == prevBlock && loc.Page == prevPage:
			// Same page as the previous unit: only more transfer.
			t = c.tl.Output(loc.Die, n, t)
		case host && c.cfg.Firmware.ReadSuspend:
			t = c.tl.ReadSuspending(loc.Die, 1, n, t, c.cfg.Firmware.SuspendNs)
			prevBlock, prevPage = loc.Block, loc.Page
		default:
			t = c.tl.Read(loc.Die, 1, n, t)
			prevBlock, prevPage = loc.Block, loc.Page
		}
		ready = max(ready, t)
		firstReady = min(firstReady, t)
	}
	return firstReady, ready, nil
}

// countReads counts a read served from read-ahead as host reads.
func (c *Controller) countReads(r blockio.Request) error {
	for lba := r.Offset / c.unit; lba <= (r.Offset+r.Length-1)/c.unit; lba++ {
		if _, err := c.ftl.Read(lba); err != nil {
			return err
		}
	}
	return nil
}

// readAheadHolds reports whether read-ahead holds all of r.
func (c *Controller) readAheadHolds(r blockio.Request) bool {
	for _, e := range c.ra {
		if e.off <= r.Offset && r.Offset+r.Length <= e.off+e.n {
			return true
		}
	}
	return false
}

// readAheadHit returns the read-ahead extent that holds all of r, dropping
// the extents before it.
func (c *Controller) readAheadHit(r blockio.Request) (extent, bool) {
	k := 0
	for k < len(c.ra) && c.ra[k].off+c.ra[k].n <= r.Offset {
		k++
	}
	c.ra = append(c.ra[:0], c.ra[k:]...)
	if len(c.ra) > 0 && c.ra[0].off <= r.Offset && r.Offset+r.Length <= c.ra[0].off+c.ra[0].n {
		return c.ra[0], true
	}
	return extent{}, false
}

// readAhead keeps ReadAhead bytes beyond a sequential read in the buffer,
// reading them in pieces of the stream's request size.
func (c *Controller) readAhead(r blockio.Request, at int64) error {
	next := r.Offset + r.Length
	if len(c.ra) > 0 {
		next = max(next, c.ra[len(c.ra)-1].off+c.ra[len(c.ra)-1].n)
	}
	limit := min(r.Offset+r.Length+int64(c.cfg.Firmware.ReadAhead), c.cap)
	for next+r.Length <= limit {
		_, ready, err := c.flashRead(next, r.Length, at, false)
		if err != nil {
			return err
		}
		c.ra = append(c.ra, extent{off: next, n: r.Length, ready: ready})
		next += r.Length
	}
	return nil
}

// waitBuffer returns the earliest time at or after t when n more units
// fit in the write buffer, and takes them.
func (c *Controller) waitBuffer(t, n int64) (int64, error) {
	t = max(t, c.bufAt)
	for len(c.rel) > 0 && c.rel[0].at <= t {
		c.bufUsed -= c.rel.pop().units
	}
	for c.bufUsed+n > c.bufCap {
		if len(c.rel) == 0 {
			return 0, fmt.Errorf("controller: write buffer of %d units cannot take %d more", c.bufCap, n)
		}
		x := c.rel.pop()
		c.bufUsed -= x.units
		c.cnt.BufferStallNs += max(0, x.at-t)
		t = max(t, x.at)
	}
	c.bufUsed += n
	c.bufAt = t
	return t, nil
}

func (c *Controller) write(fw int64, r blockio.Request) (int64, error) {
	c.cnt.HostWriteBytes += r.Length
	c.dropReadAhead(r)
	first, last := r.Offset/c.unit, (r.Offset+r.Length-1)/c.unit
	// Large requests stream into the buffer in pieces of an eighth of it,
	// so that a transfer larger than a small (on-chip) buffer flows as
	// programs free room, as the link's data FISes would.
	chunk := max(1, c.bufCap/8)
	done := fw
	for lo := first; lo <= last; lo += chunk {
		hi := min(last, lo+chunk-1)
		n := hi - lo + 1
		t, err := c.waitBuffer(fw, n)
		if err != nil {
			return 0, err
		}
		// The data moves over the link once the buffer has room.
		bytes := n * c.unit
		if lo == first {
			bytes -= r.Offset - first*c.unit
		}
		if hi == last {
			bytes -= (last+1)*c.unit - (r.Offset + r.Length)
		}
		done = c.linkTransfer(t, bytes)
		if mbps := c.cfg.Firmware.DatapathWriteMBps; mbps > 0 {
			c.dpWrite = max(t, c.dpWrite) + (bytes*1000+mbps-1)/mbps
			done = max(done, c.dpWrite)
		}
		c.at = done
		for lba := lo; lba <= hi; lba++ {
			partial := lba*c.unit < r.Offset || (lba+1)*c.unit > r.Offset+r.Length
			if partial && c.ftl.Mapped(lba) {
				// Read-modify-write: the rest of the unit comes from flash.
				loc, err := c.ftl.Lookup(lba)
				if err != nil {
					return 0, err
				}
				if !loc.Buffered {
					// The old data is read into DRAM and merged there while
					// the dies go on with their work: the read occupies its
					// die, but the page program is not booked after it (a
					// booking in the future would leave its die idle until
					// then, which the firmware's queues would not).
					c.cnt.RMWReads++
					n := int(c.slot) * loc.Units
					c.cnt.ChannelReadBytes += int64(n)
					if c.cfg.Firmware.ReadSuspend {
						c.tl.ReadSuspending(loc.Die, 1, n, done, c.cfg.Firmware.SuspendNs)
					} else {
						c.tl.Read(loc.Die, 1, n, done)
					}
				}
			}
			if c.mc != nil {
				// The firmware records the new location in the mapping
				// before it acknowledges the write.
				done = max(done, c.mapLookup(lba, true, c.at))
			}
			var err error
			if c.slot < c.unit {
				err = c.ftl.WriteSlots(lba, r.Token, c.slotsFor(r.Data))
			} else {
				err = c.ftl.Write(lba, r.Token)
			}
			if err != nil {
				return 0, err
			}
		}
	}
	return done, nil
}

// slotsFor returns the slots a unit of data d takes once compressed: its
// compressed size rounded up to whole slots, at most the whole unit
// (incompressible data is stored as it is); a unit that repeats earlier
// data (drawn with probability DedupePct) is stored as a reference in one
// slot.
func (c *Controller) slotsFor(d blockio.Data) int {
	if d.DedupePct > 0 {
		if c.rng.Uint32N(100) < uint32(d.DedupePct) {
			c.cnt.DedupedUnits++
			return 1
		}
	}
	k := c.unit / c.slot
	stored := c.unit * int64(100-min(d.CompressPct, 100)) / 100
	return int(min(k, max(1, (stored+c.slot-1)/c.slot)))
}

// dropReadAhead forgets read-ahead data that request r overwrites.
func (c *Controller) dropReadAhead(r blockio.Request) {
	for _, e := range c.ra {
		if e.off < r.Offset+r.Length && r.Offset < e.off+e.n {
			c.ra = c.ra[:0]
			return
		}
	}
}

func (c *Controller) trim(fw int64, r blockio.Request) (int64, error) {
	c.cnt.HostTrimBytes += r.Length
	c.dropReadAhead(r)
	// Only whole units are unmapped; the partial ends keep their data.
	first := (r.Offset + c.unit - 1) / c.unit
	end := (r.Offset + r.Length) / c.unit
	done := c.linkTransfer(fw, 0)
	if b := int64(c.cfg.Firmware.TrimBacklog); b > 0 && end > first {
		// The firmware records trimmed ranges until it reclaims them
		// while idle; what does not fit is dropped (TRIM is advisory).
		room := max(0, b/c.unit-c.trimQ)
		if end-first > room {
			c.cnt.TrimIgnoredBytes += (end - first - room) * c.unit
			end = first + room
		}
		c.trimQ += max(0, end-first)
	}
	if c.mc != nil {
		for mp := first / c.mc.perPage; end > first && mp <= (end-1)/c.mc.perPage; mp++ {
			done = max(done, c.mapLookup(mp*c.mc.perPage, true, done))
		}
	}
	if end > first {
		if err := c.ftl.Trim(first, end-first); err != nil {
			return 0, err
		}
		done += (end - first) * c.cfg.Firmware.TrimUnitNs
		c.fwFree = max(c.fwFree, done)
	}
	return done, nil
}

func (c *Controller) flush(fw int64) (int64, error) {
	c.at, c.lastDone = fw, fw
	if err := c.ftl.Flush(); err != nil {
		return 0, err
	}
	return c.linkTransfer(c.lastDone, 0), nil
}

// Idle tells the drive that no command is outstanding from from until to.
// Once the drive has been idle for IdleNs the firmware reclaims its TRIM
// backlog and, with background GC on, cleans dies below their target.
func (c *Controller) Idle(from, to int64) error {
	start := max(from, c.fwFree) + c.cfg.Firmware.IdleNs
	if start >= to {
		return nil
	}
	if c.trimQ > 0 {
		// Reclaiming recorded trims takes firmware time per unit.
		n := c.trimQ
		if t := c.cfg.Firmware.TrimUnitNs; t > 0 {
			n = min(n, (to-start)/t)
		}
		c.trimQ -= n
	}
	if !c.cfg.Firmware.BackgroundGC {
		return nil
	}
	c.tl.Advance(start)
	dies := c.cfg.NAND.Geometry.Dies()
	for d := 0; d < dies && c.cfg.Firmware.ReclaimOnIdle; d++ {
		for {
			c.at = max(start, c.tl.DieFree(d))
			if c.at >= to {
				break
			}
			did, err := c.ftl.ReclaimEmpty(d)
			if err != nil {
				return err
			}
			if !did {
				break
			}
		}
	}
	for d := 0; d < dies; d++ {
		for c.ftl.NeedsBackground(d) {
			c.at = max(start, c.tl.DieFree(d))
			if c.at >= to {
				break
			}
			did, err := c.ftl.CollectBackground(d)
			if err != nil {
				return err
			}
			if !did {
				break
			}
		}
	}
	return nil
}

// SecureErase erases the whole drive at time now and returns when it is
// done. The write buffer is discarded.
func (c *Controller) SecureErase(now int64) int64 {
	c.tl.Advance(now)
	c.at, c.lastDone = now, now
	c.ftl.SecureErase()
	c.ra = c.ra[:0]
	c.rel = c.rel[:0]
	c.bufUsed = 0
	c.trimQ, c.stripe = 0, 0
	if c.mc != nil {
		c.mc.reset()
	}
	c.fwFree = max(c.fwFree, c.lastDone)
	return c.lastDone
}

// invariantsEvery is how often, in commands, a build with -tags invariants
// verifies the FTL's invariants; on large drives the check, which walks
// the whole mapping, runs every UserUnits/64 commands instead, so that its
// cost per command stays bounded.
const invariantsEvery = 4096
