package controller

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/ftl"
	"github.com/ftlsim/ftlsim/nand"
)

// ErrRequest is wrapped by errors about malformed host requests.
var ErrRequest = errors.New("invalid request")

// Controller is a simulated drive: the host interface and firmware
// (this file: commands in; link.go, buffer.go, readahead.go: the data
// paths), the FTL that decides which flash operations happen, and the
// timeline that books them. Every method that does flash work takes the
// time it starts from as an argument; the FTL's operations (its Ready)
// are booked at that time and their outcomes reported back to it (ops.go,
// and "The contract" in the package documentation).
//
// A Controller is not safe for concurrent use: one goroutine (normally
// one sim.Engine) drives it; simulate drives in parallel with one
// Controller each.
type Controller struct {
	cfg  Config
	dev  deviceReader // the flash array's state, which only the FTL writes
	tl   *nand.Timeline
	ftl  *ftl.FTL
	unit int64      // mapping unit bytes
	slot int64      // device unit bytes (the unit, or a compression slot)
	cap  int64      // user bytes
	rng  *rand.Rand // the dedupe draws

	fdpStats *fdpEvents // FDP's events (nil: no FDP)

	raise  raise  // RAISE parity (raise.go)
	maps   region // mapping pages written back from the cache, and checkpoints
	ckpt   checkpoints
	mc     *mapCache      // nil: the whole mapping is in DRAM
	trimQ  int64          // trimmed units not yet reclaimed (TrimBacklog)
	link   *nand.Calendar // the host link (NVMe: towards the host)
	linkIn *nand.Calendar // from the host: link itself on SATA
	hmb    *mapCache      // the host memory buffer's mapping pages (nil: none)
	fwFree int64          // when the firmware core is next free
	buf    writeBuffer
	dp     datapath
	ra     readAhead
	gc     gcPath
	stripe *stripes // host programs by channel stripes (nil: off)

	cnt ftl.Counters // the controller's own counts; the FTL keeps the rest

	// hostDie's state: the dies, and where its search for the next host
	// page's die starts (with rotate, the next host page's die).
	dies, nextDie int
	rotate        bool // Firmware.HostDies is HostDiesRotate
	// flight records, on a drive that can lose power (NAND.TrackData), the
	// programs and erases booked and not known to be over.
	flight []flightOp
	// flushes records, on a drive that can lose power, the flushes not
	// known to be acknowledged: the write number each makes durable and
	// when it completes; durable is the newest acknowledged one's.
	flushes []flushMark
	durable uint32
	// programsDone is when the last program of host data booked ends;
	// rest, with GCSafeErase, when each host program comes to rest (an
	// erase starts only after the programs it depends on: restlog.go).
	programsDone int64
	rest         *restLog
	// re is the handling of read errors (nil: Firmware.ReadErrors off).
	re *readErrors
	// zones is the zone table of a zoned namespace (nil: conventional;
	// zoned.go).
	zones *ftl.Zones
	// dieSet is the dies the zone being written is mapped to (n 0: any
	// die); zoneNext, per die set, the die its next page goes to.
	dieSet   dieSet
	zoneNext []int
	zwp      *zoneWP // a zoned drive's write points (nil: one, shared)
}

// New builds a drive from a description, resolving it first.
func New(cfg Config) (*Controller, error) {
	r, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	given := cfg // as read: its errors name the file and line
	cfg = r.Config
	dev, err := nand.New(cfg.DeviceConfig())
	if err != nil {
		return nil, fmt.Errorf("%w: nand: %w", ErrConfig, err)
	}
	fc, err := cfg.FTLConfig()
	if err != nil {
		return nil, err
	}
	c := &Controller{cfg: cfg, dev: dev, tl: nand.NewTimeline(cfg.NAND)}
	c.tl.SetSuspendLimit(cfg.Firmware.SuspendLimit)
	c.tl.SetReadFirst(cfg.Firmware.ReadPriority)
	c.newLinks(0)
	c.dies = cfg.NAND.Geometry.Dies()
	c.rotate = cfg.Firmware.HostDies == HostDiesRotate
	fc.RecordOps = true
	// Moves are recorded for a mapping cache, and for read errors
	// without RAISE: a page garbage collection cannot read loses the
	// logical units moved out of it.
	fc.RecordMoves = cfg.Firmware.MapCache > 0 || (cfg.Firmware.ReadErrors && cfg.Firmware.RaiseStripe == 0)
	f, err := ftl.New(dev, fc)
	if err != nil {
		return nil, given.ftlError(err)
	}
	c.ftl = f
	c.unit = int64(cfg.NAND.Geometry.UnitBytes)
	c.slot = int64(dev.Geometry().UnitBytes)
	c.cap = int64(cfg.Capacity)
	if cfg.Firmware.Zoned.On() {
		if c.zones, err = ftl.NewZones(cfg.zoneConfig()); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		c.cap = int64(c.zones.Config().Zones) * int64(cfg.Firmware.Zoned.ZoneSize)
		if n := cfg.zoneWritePoints(); n > 1 {
			c.zwp = newZoneWP(n, c.zones.Config().Zones)
		}
	}
	if cfg.Firmware.FDP.On() {
		c.fdpStats = &fdpEvents{}
	}
	c.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5851f42d4c957f2d))
	g := cfg.NAND.Geometry
	c.raise = raise{stripe: cfg.Firmware.RaiseStripe, dies: g.Dies(), region: newRegion(g.Dies(), g.PagesPerBlock)}
	c.maps = newRegion(g.Dies(), g.PagesPerBlock)
	c.ckpt = newCheckpoints(int64(cfg.Firmware.MapCheckpoint), f.UserUnits(), int64(g.PageBytes/4))
	if cfg.Firmware.MapCache > 0 {
		c.mc = newMapCache(f.UserUnits(), int64(g.PageBytes/4), int64(cfg.Firmware.MapCache)/int64(g.PageBytes))
		if cfg.Firmware.HMB > 0 {
			c.hmb = newMapCache(f.UserUnits(), int64(g.PageBytes/4), int64(cfg.Firmware.HMB)/int64(g.PageBytes))
		}
	}
	c.buf = newWriteBuffer(int64(cfg.Firmware.WriteBuffer)/c.unit, g.Dies())
	c.ra = readAhead{last: -1}
	c.gc = newGCPath(g.Dies(), cfg.Firmware.GCStreams, cfg.Firmware.Cores, cfg.Firmware.ECCMBps)
	if cfg.Firmware.GCSafeErase {
		c.rest = newRestLog(g.Dies(), 0)
	}
	c.stripe = newStripes(cfg.Firmware.ChannelStripe, g.Dies(), g.Channels, cfg.Firmware.StripeNs)
	c.re = newReadErrors(&cfg)
	return c, nil
}

// Config returns the resolved description.
func (c *Controller) Config() Config { return c.cfg }

// FTL returns the translation layer.
func (c *Controller) FTL() *ftl.FTL { return c.ftl }

// Device returns the flash array's state. Only the FTL changes it: the
// controller reports what it needs changed through the FTL (see "The
// contract" in the package documentation).
func (c *Controller) Device() *nand.Device { return c.ftl.Device() }

// deviceReader is what the controller reads of the flash array's state:
// the inputs of its read-error model and of a power cut's damage. It
// holds none of nand.Device's methods that change the state, which the
// FTL alone calls.
type deviceReader interface {
	EraseCount(pb int) int
	ProgramTime(pb int) int64
	ReadsSinceErase(pb int) uint32
	IsSLC(pb int) bool
	WritePointer(pb int) int
	MemoryBytes() int64
}

// Timeline returns the flash array's occupancy.
func (c *Controller) Timeline() *nand.Timeline { return c.tl }

// CapacityBytes is the user-visible capacity.
func (c *Controller) CapacityBytes() int64 { return c.cap }

// SlotBytes is the size of a device unit: the mapping unit, or the
// compression slot on a compressing drive.
func (c *Controller) SlotBytes() int64 { return c.slot }

// UnitBytes is the size of a logical unit: the mapping unit.
func (c *Controller) UnitBytes() int64 { return c.unit }

// ErrNoData is returned by DataToken on a drive built without data
// tracking (nand.Config.TrackData).
var ErrNoData = errors.New("controller: the drive does not track data (build it with nand.Config.TrackData)")

// DataToken returns the token of the data the logical unit holding byte
// off holds (blockio.Request.Token of the write that put it there), and
// whether it holds any: what a read of it returns, for verification.
func (c *Controller) DataToken(off int64) (uint32, bool, error) {
	if !c.cfg.NAND.TrackData {
		return 0, false, ErrNoData
	}
	if off < 0 || off >= c.cap {
		return 0, false, fmt.Errorf("%w: offset %d, the drive has %d bytes", ErrRequest, off, c.cap)
	}
	if c.zones != nil {
		if c.zones.Written(off/c.unit, 1) == 0 {
			return 0, false, nil // past the write pointer: zeroes
		}
		off = c.stored(off)
	}
	loc, err := c.ftl.Lookup(off / c.unit)
	return loc.Token, loc.Mapped, err
}

// Counters returns cumulative totals: the FTL's and the controller's.
func (c *Controller) Counters() ftl.Counters { return c.cnt.Add(c.ftl.Counters()) }

// MemoryBytes is the memory the simulated drive holds.
func (c *Controller) MemoryBytes() int64 {
	m := c.dev.MemoryBytes() + c.ftl.MemoryBytes() + c.tl.MemoryBytes() + 2<<18
	if c.mc != nil {
		m += c.mc.memoryBytes()
	}
	if c.hmb != nil {
		m += c.hmb.memoryBytes()
	}
	return m
}

// Validate checks a request against the drive.
func (c *Controller) Validate(r blockio.Request) error {
	if c.zones != nil {
		return c.validateZoned(r)
	}
	if r.Op == blockio.Flush {
		return nil
	}
	if r.Op == blockio.ZoneAppend || r.Op == blockio.ZoneManage {
		return fmt.Errorf("%w: %s needs a zoned drive (zoned.zone_size)", ErrRequest, r.Op)
	}
	if r.Op > blockio.ZoneManage {
		return fmt.Errorf("%w: op %d", ErrRequest, r.Op)
	}
	return c.validateRange(r)
}

// validateRange checks the byte range of a read, write or trim.
func (c *Controller) validateRange(r blockio.Request) error {
	if r.Op > blockio.Trim {
		return fmt.Errorf("%w: op %s", ErrRequest, r.Op)
	}
	if len(r.Ranges) > 0 {
		if r.Op != blockio.Trim {
			return fmt.Errorf("%w: %s with %d ranges: only TRIM takes several", ErrRequest, r.Op, len(r.Ranges))
		}
		total := int64(0)
		for i, rg := range r.Ranges {
			if err := c.Validate(blockio.Request{Op: blockio.Trim, Offset: rg.Offset, Length: rg.Length}); err != nil {
				return fmt.Errorf("range %d: %w", i, err)
			}
			total += rg.Length
		}
		if total != r.Length || r.Offset != r.Ranges[0].Offset {
			return fmt.Errorf("%w: TRIM of %d ranges: length %d and offset %d must be their total (%d) and the first's (%d)",
				ErrRequest, len(r.Ranges), r.Length, r.Offset, total, r.Ranges[0].Offset)
		}
		return nil
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

// Submit executes request r, which the host submits at time now, and
// returns when the host sees it complete: the firmware takes it
// Firmware.DoorbellNs after now, and its completion reaches the host
// Firmware.InterruptNs after the drive posts it.
func (c *Controller) Submit(now int64, r blockio.Request) (int64, error) {
	if c.zones != nil && r.Op != blockio.Flush {
		return c.zoned(now, r)
	}
	return c.submit(now, r)
}

// submit is Submit of a request to the translation layer's space.
func (c *Controller) submit(now int64, r blockio.Request) (int64, error) {
	if err := c.Validate(r); err != nil {
		return 0, err
	}
	c.tl.Advance(now)
	c.link.Advance(now)
	if c.linkIn != c.link {
		c.linkIn.Advance(now)
	}
	c.settleFlight(now)
	if len(c.flushes) >= 64 {
		c.settleFlushes(now)
	}
	c.gc.advance(now)
	c.cnt.Commands++
	if checkInvariants && c.cnt.Commands%max(invariantsEvery, c.ftl.UserUnits()/64) == 0 {
		if err := c.ftl.CheckInvariants(); err != nil {
			return 0, err
		}
	}
	done, err := c.execute(now, r)
	if done > 0 {
		// The host sees the completion once its interrupt is handled.
		done += c.cfg.Firmware.InterruptNs
	}
	return done, err
}

// execute runs command r, which the host submitted at now, and returns
// when the drive completes it.
func (c *Controller) execute(now int64, r blockio.Request) (int64, error) {
	// The firmware takes commands in arrival order, once the controller
	// has fetched them (the doorbell's latency).
	now += c.cfg.Firmware.DoorbellNs
	cost := c.cfg.Firmware.CommandNs
	switch {
	case r.Op == blockio.Read && c.cfg.Firmware.ReadCommandNs > 0 && !c.ra.holds(r):
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
		if r.FUA {
			c.cnt.FUACommands++
			if c.buffered(r) {
				// The buffered data the read covers is committed to
				// flash first, and read from there.
				t, err := c.flush(fw)
				if err != nil {
					return 0, err
				}
				fw = t
			}
		}
		return c.read(fw, r)
	case blockio.Write:
		if r.FUA {
			// The write completes once its data is programmed: the
			// buffer is flushed behind it, its page padded if partly
			// filled, as a FLUSH would.
			c.cnt.FUACommands++
			done, err := c.write(fw, r)
			if err != nil {
				return 0, err
			}
			t, err := c.flush(done)
			return max(done, t), err
		}
		return c.write(fw, r)
	case blockio.Trim:
		return c.trim(fw, r)
	default:
		return c.flush(fw)
	}
}

// buffered reports whether any unit request r covers waits in the write
// buffer, not yet on flash.
func (c *Controller) buffered(r blockio.Request) bool {
	for lba := r.Offset / c.unit; lba <= (r.Offset+r.Length-1)/c.unit; lba++ {
		if loc, err := c.ftl.Lookup(lba); err == nil && loc.Buffered {
			return true
		}
	}
	return false
}

// invariantsEvery is how often, in commands, a build with -tags invariants
// verifies the FTL's invariants; on large drives the check, which walks
// the whole mapping, runs every UserUnits/64 commands instead, so that its
// cost per command stays bounded.
const invariantsEvery = 4096
