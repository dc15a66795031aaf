package controller

import (
	"fmt"
	"slices"

	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/ftl"
)

// Zoned describes a zoned namespace (NVMe ZNS): the drive's capacity is
// cut into zones, each written only sequentially at its write pointer
// and emptied by a reset. A zone of ZoneSize bytes of the namespace holds
// ZoneCapacity writable bytes from its start; Capacity is what the zones
// hold (zones × ZoneCapacity), and the namespace is zones × ZoneSize
// bytes long. Zero ZoneSize: a conventional drive.
type Zoned struct {
	ZoneSize     Size `yaml:"zone_size,omitempty" layer:"firmware" unit:"bytes" range:"0.." default:"0: not zoned" doc:"distance between zone starts in the namespace (NVMe ZSZE)"`
	ZoneCapacity Size `yaml:"zone_capacity,omitempty" layer:"firmware" unit:"bytes" range:"0.." default:"zone_size" doc:"writable bytes of a zone from its start (NVMe ZCAP), at most zone_size"`
	MaxOpen      int  `yaml:"max_open,omitempty" layer:"firmware" unit:"zones" range:"0..1048576" default:"0: no limit" doc:"zones open at once (NVMe MOR + 1)"`
	MaxActive    int  `yaml:"max_active,omitempty" layer:"firmware" unit:"zones" range:"0..1048576" default:"0: no limit" doc:"zones open or closed at once (NVMe MAR + 1)"`
	// ZoneDies maps each zone onto that many dies: zone i is written on
	// die set i mod (dies / zone_dies), its pages striped over the set's
	// dies; 0 stripes every zone over all the dies. Zones on separate
	// die sets never share a block.
	ZoneDies int `yaml:"zone_dies,omitempty" layer:"firmware" unit:"dies" range:"0..65536" default:"0: all the dies" doc:"dies each zone is striped over (a divisor of the dies), zone i on die set i mod (dies / zone_dies)"`
	// NoAutoClose: a write that must open a zone with every open
	// resource taken fails (Too Many Open Zones) instead of closing the
	// implicitly opened zone opened longest ago.
	NoAutoClose bool `yaml:"no_auto_close,omitempty" layer:"firmware" doc:"refuse, rather than close an implicitly opened zone, when a write must open one over max_open"`
}

// On reports a zoned namespace.
func (z Zoned) On() bool { return z.ZoneSize > 0 }

// capacity is the zone capacity, ZoneSize when not given.
func (z Zoned) capacity() Size {
	if z.ZoneCapacity > 0 {
		return z.ZoneCapacity
	}
	return z.ZoneSize
}

// validateZoned checks a zoned description against the resolved drive.
func (c *Config) validateZoned() error {
	z := &c.Firmware.Zoned
	if !z.On() {
		if z.ZoneCapacity != 0 || z.MaxOpen != 0 || z.MaxActive != 0 {
			return c.errAt(&z.ZoneSize, "%s is 0 (not zoned) but zone fields are set", c.FieldPath(&z.ZoneSize))
		}
		return nil
	}
	unit := Size(c.NAND.Geometry.UnitBytes)
	zc := z.capacity()
	switch {
	case z.ZoneSize%unit != 0:
		return c.errAt(&z.ZoneSize, "%s = %d bytes, must be a multiple of the mapping unit (%d)", c.FieldPath(&z.ZoneSize), z.ZoneSize, unit)
	case zc%unit != 0 || zc > z.ZoneSize:
		return c.errAt(&z.ZoneCapacity, "%s = %d bytes, allowed a multiple of %d up to %s (%d)", c.FieldPath(&z.ZoneCapacity), zc, unit, c.FieldPath(&z.ZoneSize), z.ZoneSize)
	case c.Capacity%zc != 0 || c.Capacity < zc:
		return c.errAt(&c.Capacity, "%s = %d bytes on a zoned drive, must be a whole number of zones of %s = %d bytes", c.FieldPath(&c.Capacity), c.Capacity, c.FieldPath(&z.ZoneCapacity), zc)
	}
	if dies := c.NAND.Geometry.Dies(); z.ZoneDies < 0 || (z.ZoneDies > 0 && dies%z.ZoneDies != 0) {
		return c.errAt(&z.ZoneDies, "%s = %d, allowed 0 (all) or a divisor of the %d dies", c.FieldPath(&z.ZoneDies), z.ZoneDies, dies)
	}
	_, err := ftl.NewZones(c.zoneConfig())
	if err != nil {
		return c.errAt(&z.MaxOpen, "zoned: %v", err)
	}
	return nil
}

// zoneConfig is the FTL zone table's layout, in mapping units.
func (c *Config) zoneConfig() ftl.ZoneConfig {
	z, unit := c.Firmware.Zoned, int64(c.NAND.Geometry.UnitBytes)
	return ftl.ZoneConfig{Zones: int(int64(c.Capacity) / int64(z.capacity())), ZoneUnits: int64(z.ZoneSize) / unit,
		CapacityUnits: int64(z.capacity()) / unit, MaxOpen: z.MaxOpen, MaxActive: z.MaxActive, NoAutoClose: z.NoAutoClose}
}

// ZoneInfo is a zoned drive's zone layout, in bytes.
type ZoneInfo struct {
	Zones                   int
	ZoneBytes, ZoneCapacity int64
	// MaxOpen and MaxActive are the limits (0: none).
	MaxOpen, MaxActive int
}

// ZoneReport is one zone as Report Zones describes it, in bytes.
type ZoneReport struct {
	Zone     int
	State    ftl.ZoneState
	Start    int64 // the zone's first byte in the namespace
	Capacity int64
	// WritePointer is the next byte to write, in the namespace (start +
	// capacity for a full zone).
	WritePointer int64
}

// Zones returns the zone layout, and false on a conventional drive.
func (c *Controller) Zones() (ZoneInfo, bool) {
	if c.zones == nil {
		return ZoneInfo{}, false
	}
	z := c.zones.Config()
	return ZoneInfo{Zones: z.Zones, ZoneBytes: z.ZoneUnits * c.unit, ZoneCapacity: z.CapacityUnits * c.unit,
		MaxOpen: z.MaxOpen, MaxActive: z.MaxActive}, true
}

// ReportZones describes up to n zones from zone first (none on a
// conventional drive).
func (c *Controller) ReportZones(first, n int) []ZoneReport {
	if c.zones == nil {
		return nil
	}
	var out []ZoneReport
	for i := max(first, 0); i < c.zones.Config().Zones && len(out) < n; i++ {
		d := c.zones.Desc(i)
		out = append(out, ZoneReport{Zone: i, State: d.State, Start: d.Start * c.unit, Capacity: d.CapacityUnits * c.unit,
			WritePointer: (d.Start + d.WritePointer) * c.unit})
	}
	return out
}

// ZoneCounters returns what zone management did (zero on a conventional
// drive): resets of zones holding data, finishes, auto-closes, refusals.
func (c *Controller) ZoneCounters() ftl.ZoneCounters {
	if c.zones == nil {
		return ftl.ZoneCounters{}
	}
	return c.zones.Counters()
}

// SubmitAppend executes a Zone Append (r.Op blockio.ZoneAppend, r.Offset
// the zone's start) as Submit does and returns, besides its completion,
// the offset the drive wrote the data at.
func (c *Controller) SubmitAppend(now int64, r blockio.Request) (done, offset int64, err error) {
	if c.zones == nil || r.Op != blockio.ZoneAppend {
		return 0, 0, fmt.Errorf("%w: zone append needs a zoned drive and a ZoneAppend request", ErrRequest)
	}
	if err := c.validateZoned(r); err != nil {
		return 0, 0, err
	}
	at, err := c.zones.Append(r.Offset/c.unit, r.Length/c.unit)
	if err != nil {
		return 0, 0, err
	}
	c.setDieSet(at)
	defer func() { c.dieSet = dieSet{} }()
	offset = at * c.unit
	r.Op, r.Offset = blockio.Write, c.stored(offset)
	done, err = c.submit(now, r)
	return done, offset, err
}

// validateZoned checks a request against a zoned drive's namespace.
func (c *Controller) validateZoned(r blockio.Request) error {
	switch r.Op {
	case blockio.Flush:
		return nil
	case blockio.ZoneManage:
		if r.AllZones {
			return nil
		}
		if r.Offset < 0 || r.Offset >= c.cap || r.Offset%(c.zones.Config().ZoneUnits*c.unit) != 0 {
			return &ftl.ZoneError{Status: ftl.InvalidField, Zone: -1, Detail: fmt.Sprintf("zone %s at offset %d, not a zone's start", r.Zone, r.Offset)}
		}
		return nil
	case blockio.Write, blockio.ZoneAppend:
		if r.Offset%c.unit != 0 || r.Length%c.unit != 0 {
			return fmt.Errorf("%w: %s of %d bytes at offset %d: a zoned drive writes whole %d-byte blocks", ErrRequest, r.Op, r.Length, r.Offset, c.unit)
		}
		r.Op = blockio.Write
	}
	return c.validateRange(r)
}

// zoned runs request r on a zoned drive: the zone table checks it, and
// it reaches the translation layer with the namespace's offsets mapped
// onto the zones' capacities (zone i's byte o is stored at i ×
// zone_capacity + o).
func (c *Controller) zoned(now int64, r blockio.Request) (int64, error) {
	if err := c.validateZoned(r); err != nil {
		return 0, err
	}
	u, n := r.Offset/c.unit, (r.Length+c.unit-1)/c.unit
	switch r.Op {
	case blockio.Write:
		if err := c.zones.Write(u, n); err != nil {
			return 0, err
		}
		c.setDieSet(u)
		defer func() { c.dieSet = dieSet{} }()
	case blockio.ZoneAppend:
		done, _, err := c.SubmitAppend(now, r)
		return done, err
	case blockio.Read:
		if err := c.zones.Read(u, n); err != nil {
			return 0, err
		}
		// Only what lies below the zone's capacity is stored: the rest
		// reads as zeroes, from no flash.
		_, off := c.zones.ZoneOf(u)
		if keep := max(min(n, c.zones.Config().CapacityUnits-off), 0); keep < n {
			if keep == 0 {
				return c.submitNoFlash(now)
			}
			r.Length = keep * c.unit
		}
	case blockio.Trim:
		// Deallocating part of a zone leaves its write pointer where it
		// is (the data reads back as zeroes).
	case blockio.ZoneManage:
		return c.zoneManage(now, r)
	}
	r.Offset = c.stored(r.Offset)
	return c.submit(now, r)
}

// stored maps a namespace offset below its zone's capacity to where the
// translation layer keeps it.
func (c *Controller) stored(off int64) int64 {
	z := c.zones.Config()
	zb := z.ZoneUnits * c.unit
	return off/zb*z.CapacityUnits*c.unit + off%zb
}

// zoneManage applies a zone management command: a reset deallocates
// what the zone held and erases the blocks that leaves empty, with no
// data to move; the other actions change only the zone table.
func (c *Controller) zoneManage(now int64, r blockio.Request) (int64, error) {
	zs := c.zones.Config()
	first, last := int(r.Offset/(zs.ZoneUnits*c.unit)), int(r.Offset/(zs.ZoneUnits*c.unit))
	if r.AllZones {
		first, last = 0, zs.Zones-1
	}
	done, err := c.submitNoFlash(now)
	if err != nil {
		return 0, err
	}
	reset := false
	for i := first; i <= last; i++ {
		if r.AllZones && !ftl.AppliesToAll(r.Zone, c.zones.State(i)) {
			continue
		}
		held, err := c.zones.Manage(i, r.Zone)
		if err != nil {
			return 0, err
		}
		if held > 0 {
			if done, err = c.trimRange(done, blockio.Request{Op: blockio.Trim, Offset: int64(i) * zs.CapacityUnits * c.unit, Length: held * c.unit}); err != nil {
				return 0, err
			}
			reset = true
		}
	}
	if reset {
		// The blocks the reset left empty are erased now, on their dies
		// (the command does not wait for them; later writes to those
		// dies do).
		if err := c.eraseEmpty(done); err != nil {
			return 0, err
		}
	}
	return done, nil
}

// eraseEmpty erases, from time at, every full group left with no valid
// data, die by die.
func (c *Controller) eraseEmpty(at int64) error {
	for d := 0; d < c.dies; d++ {
		for {
			did, err := c.ftl.ReclaimEmpty(d)
			if err == nil && did {
				_, err = c.ftl.SettlePending()
			}
			c.drain(at)
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

// submitNoFlash completes a command that touches no flash: the
// firmware's command cost only.
func (c *Controller) submitNoFlash(now int64) (int64, error) {
	fw := max(now+c.cfg.Firmware.DoorbellNs, c.fwFree) + c.cfg.Firmware.CommandNs
	c.fwFree = fw
	c.cnt.Commands++
	return fw + c.cfg.Firmware.InterruptNs, nil
}

// dieSet is a zone's dies: n dies from first.
type dieSet struct{ set, first, n int }

// setDieSet maps the write of namespace unit u to its zone's die set.
func (c *Controller) setDieSet(u int64) {
	k := c.cfg.Firmware.Zoned.ZoneDies
	if k == 0 || k == c.dies {
		return
	}
	if c.zoneNext == nil {
		c.zoneNext = make([]int, c.dies/k)
	}
	zone, _ := c.zones.ZoneOf(u)
	set := zone % (c.dies / k)
	c.dieSet = dieSet{set: set, first: set * k, n: k}
}

// zoneDie is the die of the zone's set the next host page goes to: the
// set's dies in turn.
func (c *Controller) zoneDie() int {
	s := c.dieSet
	d := s.first + c.zoneNext[s.set]
	c.zoneNext[s.set] = (c.zoneNext[s.set] + 1) % s.n
	return d
}

// zonesPowerUp brings a zoned namespace's table back after a power cycle
// (ftl.Zones.PowerUp): no zone stays open, and the write pointer of a
// zone that lost acknowledged data (rec.Lost: the FTL's lost units, in
// its own numbering, from the rebuild) moves back to the first unit
// lost. What a zone then holds past its write pointer (data kept beyond
// a lost unit) is deallocated, as are the lost units that read an older
// copy again and the units the rebuild found again after a reset or a
// trim (rec.Resurrected: stale copies not yet erased — the FTL does not
// journal deallocation, but the zone table knows the zone was reset),
// and the blocks left empty are erased while mounting.
func (c *Controller) zonesPowerUp(rec ftl.Recovery, rep *PowerLossReport) error {
	lost := rec.Lost
	z := c.zones.Config()
	first := map[int]int64{}
	for _, lba := range lost {
		i, o := int(lba/z.CapacityUnits), lba%z.CapacityUnits
		if k, ok := first[i]; !ok || o < k {
			first[i] = o
		}
	}
	rolled, units, closed := c.zones.PowerUp(first)
	rep.ZonesRolledBack, rep.ZoneRollbackBytes, rep.ZonesClosed = rolled, units*c.unit, closed
	trimmed := false
	trim := func(from, to int64) error {
		for u := from; u < to; u++ {
			if !c.ftl.Mapped(u) {
				continue
			}
			end := u + 1
			for end < to && c.ftl.Mapped(end) {
				end++
			}
			if err := c.ftl.Trim(u, end-u); err != nil {
				return err
			}
			trimmed = true
			u = end
		}
		return nil
	}
	for i := range z.Zones {
		base := int64(i) * z.CapacityUnits
		if err := trim(base+c.zones.Extent(i), base+z.CapacityUnits); err != nil {
			return err
		}
	}
	for _, lba := range slices.Concat(lost, rec.Resurrected) {
		if err := trim(lba, lba+1); err != nil {
			return err
		}
	}
	for d := 0; trimmed && d < c.dies; d++ {
		for {
			did, err := c.ftl.ReclaimEmpty(d)
			if err == nil && did {
				_, err = c.ftl.SettlePending()
			}
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
