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
	// WritePoints is the zones the firmware writes at once, each into
	// groups of its own on every die of its set: an active zone takes a
	// write point at its first write and gives it back once full, reset,
	// finished or offline. More active zones than write points share
	// them, the later ones each taking the one of its zone number modulo
	// the write points. A zone's pages go to its set's dies in turn from
	// die (zone mod dies in the set). A zone finished or reset before it
	// is full leaves the groups its write point was filling to the next
	// zone that takes it. 1: every zone writes into one open group per
	// die, as a conventional drive's host data does, and zones written
	// at once share groups. Each write point keeps an open group on
	// every die, which a zone that does not fill whole groups on each
	// die leaves partly filled: then a die needs write_points + 2 spare
	// groups. An SLC cache or compression allows only 1.
	WritePoints int `yaml:"write_points,omitempty" layer:"firmware" unit:"zones" range:"0..128" default:"0: max_active (with no limit 128), at most the zones, and unless zones fill whole groups the spare groups per die less 2 (1 with an SLC cache or compression)" doc:"zones written at once each into groups of their own (more active zones share them)"`
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
	single := c.oneWritePoint()
	switch {
	case z.WritePoints < 0 || z.WritePoints > ftl.MaxHandles:
		return c.errAt(&z.WritePoints, "%s = %d, allowed 0 (default) to %d", c.FieldPath(&z.WritePoints), z.WritePoints, ftl.MaxHandles)
	case z.WritePoints > 1 && single:
		return c.errAt(&z.WritePoints, "%s = %d with an SLC cache or compression, allowed 0 or 1", c.FieldPath(&z.WritePoints), z.WritePoints)
	case z.WritePoints > 1 && !c.zonesAligned() && c.freeGroupsPerDie() < z.WritePoints+2:
		return c.errAt(&z.WritePoints, "%s = %d: each die needs %d groups beyond the data for the write points' open groups, it has %d spare; raise the spare area or lower %s",
			c.FieldPath(&z.WritePoints), z.WritePoints, z.WritePoints+2, c.freeGroupsPerDie(), c.FieldPath(&z.WritePoints))
	}
	_, err := ftl.NewZones(c.zoneConfig())
	if err != nil {
		return c.errAt(&z.MaxOpen, "zoned: %v", err)
	}
	return nil
}

// zoneWritePoints is the write points a zoned drive keeps for its
// active zones (Zoned.WritePoints resolved): 0 on a conventional drive.
func (c *Config) zoneWritePoints() int {
	z := c.Firmware.Zoned
	switch {
	case !z.On():
		return 0
	case z.WritePoints > 0:
		return z.WritePoints
	case c.oneWritePoint():
		return 1
	}
	n := ftl.MaxHandles
	if z.MaxActive > 0 {
		n = min(n, z.MaxActive)
	}
	n = min(n, c.zoneConfig().Zones)
	if !c.zonesAligned() {
		// Each write point keeps an open group on every die, which
		// zones that end inside a group leave partly filled: a die
		// needs two more beyond the data (as FDP's handles do).
		n = min(n, c.freeGroupsPerDie()-2)
	}
	return max(1, n)
}

// oneWritePoint reports a data path the write points do not support (an
// SLC cache, compression): every zone writes through one.
func (c *Config) oneWritePoint() bool {
	return c.Firmware.Compression || c.Firmware.SLCCache.Static > 0 || c.Firmware.SLCCache.DynamicMax > 0
}

// zonesAligned reports whether a zone's capacity fills whole groups on
// each die of its set: then the open groups of the active zones hold
// only what the zones will hold, and their write points take no spare.
func (c *Config) zonesAligned() bool {
	z, g := c.Firmware.Zoned, c.NAND.Geometry
	k := z.ZoneDies
	if k == 0 {
		k = g.Dies()
	}
	per := int64(g.UnitsPerGroup()) * int64(g.UnitBytes) * int64(k)
	return int64(z.capacity())%per == 0
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
	offset = at * c.unit
	r.Op, r.Offset = blockio.Write, c.stored(offset)
	done, err = c.submit(now, r)
	c.dieSet = dieSet{}
	if err == nil {
		zone, _ := c.zones.ZoneOf(at)
		c.zoneRelease(zone)
	}
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
		r.Offset = c.stored(r.Offset)
		done, err := c.submit(now, r)
		c.dieSet = dieSet{}
		if err == nil {
			zone, _ := c.zones.ZoneOf(u)
			c.zoneRelease(zone)
		}
		return done, err
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
		c.zoneRelease(i)
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

// dieSet is a zone's dies: n dies from first, and the write point
// (handle) its pages go through.
type dieSet struct{ set, first, n, wp int }

// zoneWP is a zoned drive's write points (Zoned.WritePoints): which
// active zone holds which, and where each puts its next page.
type zoneWP struct {
	of    []int16 // per zone: its write point, -1 none
	users []int32 // per write point: the active zones on it
	free  []int16 // the write points no zone holds, the next taken last
	// next is, per write point, the page it puts next (of its zone's
	// set: die first + next mod n).
	next []int
}

// newZoneWP sets up n write points for zones zones.
func newZoneWP(n, zones int) *zoneWP {
	w := &zoneWP{of: make([]int16, zones), users: make([]int32, n), next: make([]int, n)}
	for i := range w.of {
		w.of[i] = -1
	}
	for h := n - 1; h >= 0; h-- {
		w.free = append(w.free, int16(h))
	}
	return w
}

// setDieSet maps the write of namespace unit u to its zone's die set
// and write point, which the zone takes now if it holds none.
func (c *Controller) setDieSet(u int64) {
	k := c.cfg.Firmware.Zoned.ZoneDies
	if k == 0 {
		k = c.dies
	}
	zone, _ := c.zones.ZoneOf(u)
	set := zone % (c.dies / k)
	ds := dieSet{set: set, first: set * k, n: k}
	if w := c.zwp; w != nil {
		h := w.of[zone]
		if h < 0 {
			if n := len(w.free); n > 0 {
				h = w.free[n-1]
				w.free = w.free[:n-1]
				w.next[h] = zone % k
			} else {
				h = int16(zone % len(w.users))
			}
			w.of[zone] = h
			w.users[h]++
		}
		ds.wp = int(h)
	} else if k == c.dies {
		return // any die, as a conventional drive's host pages
	} else if c.zoneNext == nil {
		c.zoneNext = make([]int, c.dies/k)
	}
	c.dieSet = ds
}

// zoneDie is the die of the zone's set the next host page goes to: the
// set's dies in turn, for each write point on its own.
func (c *Controller) zoneDie() int {
	s := c.dieSet
	if w := c.zwp; w != nil {
		d := s.first + w.next[s.wp]%s.n
		w.next[s.wp]++
		return d
	}
	d := s.first + c.zoneNext[s.set]
	c.zoneNext[s.set] = (c.zoneNext[s.set] + 1) % s.n
	return d
}

// zoneRelease gives back the write point of zone i once it is no longer
// active. The groups it was filling are filled on by the next zone that
// takes it: the ends of a zone finished or reset early share groups with
// the next zone (a full zone on aligned groups shares none).
func (c *Controller) zoneRelease(i int) {
	w := c.zwp
	if w == nil || w.of[i] < 0 || c.zones.State(i).IsActive() {
		return
	}
	h := w.of[i]
	w.of[i] = -1
	if w.users[h]--; w.users[h] == 0 {
		w.free = append(w.free, h)
	}
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
	for i := range z.Zones {
		c.zoneRelease(i) // a zone rolled back to empty holds no write point
	}
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
