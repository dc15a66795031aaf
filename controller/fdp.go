package controller

import (
	"github.com/ftlsim/ftlsim/blockio"
	"github.com/ftlsim/ftlsim/ftl"
)

// FDP describes flexible data placement (NVMe FDP, TP4146, Base 2.1):
// the host tags each write with a placement identifier (a write's
// Directive DirectivePlacement and DSpec, the index of a reclaim unit
// handle), and the drive keeps the data of each handle in reclaim units
// of its own. Here a reclaim unit is one plane group (a block on every
// plane of a die), the drive is one reclaim group, and each handle has a
// write point on every die. Handles are persistently isolated (the first
// persistent_handles: collection keeps their data apart too) or initially
// isolated (collection may mix their data). Zero Handles: no FDP.
type FDP struct {
	Handles           int  `yaml:"handles,omitempty" layer:"firmware" unit:"handles" range:"0..128" ftl:"Handles" default:"0: no FDP" doc:"reclaim unit handles (NVMe NRUH); writes name one by placement identifier"`
	PersistentHandles int  `yaml:"persistent_handles,omitempty" layer:"firmware" unit:"handles" range:"0..128" ftl:"PersistentHandles" default:"0" doc:"how many of the handles, the first ones, are persistently isolated (RUHT 2h); the rest are initially isolated (1h)"`
	ReclaimGroups     int  `yaml:"reclaim_groups,omitempty" layer:"firmware" unit:"groups" range:"0..1" default:"0: 1" doc:"reclaim groups (NVMe NRG); only one, the whole drive, is modelled"`
	ReclaimUnitSize   Size `yaml:"reclaim_unit_size,omitempty" layer:"firmware" unit:"bytes" range:"0.." default:"0: a plane group" doc:"reclaim unit nominal size (NVMe RUNS): a block on every plane of a die"`
}

// On reports FDP.
func (p FDP) On() bool { return p.Handles > 0 }

// validateFDP checks the FDP description against the resolved drive.
func (c *Config) validateFDP() error {
	p := &c.Firmware.FDP
	if !p.On() {
		if p.PersistentHandles != 0 || p.ReclaimGroups != 0 || p.ReclaimUnitSize != 0 {
			return c.errAt(&p.Handles, "%s is 0 (no FDP) but FDP fields are set", c.FieldPath(&p.Handles))
		}
		return nil
	}
	g := c.NAND.Geometry
	ru := Size(g.BlockBytes()) * Size(g.PlanesPerDie)
	switch {
	case p.PersistentHandles > p.Handles:
		return c.errAt(&p.PersistentHandles, "%s = %d, allowed 0..%d (%s)", c.FieldPath(&p.PersistentHandles), p.PersistentHandles, p.Handles, c.FieldPath(&p.Handles))
	case p.ReclaimUnitSize != 0 && p.ReclaimUnitSize != ru:
		return c.errAt(&p.ReclaimUnitSize, "%s = %d bytes, allowed 0 or %d (a block on each of the %d planes of a die)", c.FieldPath(&p.ReclaimUnitSize), p.ReclaimUnitSize, ru, g.PlanesPerDie)
	case c.Firmware.Zoned.On():
		return c.errAt(&p.Handles, "%s with %s: a drive is zoned or has FDP, not both", c.FieldPath(&p.Handles), c.FieldPath(&c.Firmware.Zoned.ZoneSize))
	case c.Firmware.Compression:
		return c.errAt(&p.Handles, "%s with %s is not supported", c.FieldPath(&p.Handles), c.FieldPath(&c.Firmware.Compression))
	case c.Firmware.GCSafeErase && p.PersistentHandles > 0:
		// Each die's collection programs are numbered in one sequence,
		// which a victim's erase waits on: a GC write point per
		// persistently isolated handle would give a die several.
		return c.errAt(&p.PersistentHandles, "%s = %d with %s is not supported (initially isolated handles only)", c.FieldPath(&p.PersistentHandles), p.PersistentHandles, c.FieldPath(&c.Firmware.GCSafeErase))
	case c.Firmware.SLCCache.Static > 0 || c.Firmware.SLCCache.DynamicMax > 0:
		return c.errAt(&p.Handles, "%s with an SLC cache (%s) is not supported", c.FieldPath(&p.Handles), c.FieldPath(&c.Firmware.SLCCache.Static))
	}
	if free := c.freeGroupsPerDie(); free < p.Handles+p.PersistentHandles+2 {
		return c.errAt(&p.Handles, "%s = %d with %d persistently isolated: each die needs %d groups for write points beyond the data, it has %d spare; raise the spare area",
			c.FieldPath(&p.Handles), p.Handles, p.PersistentHandles, p.Handles+p.PersistentHandles+2, free)
	}
	return nil
}

// freeGroupsPerDie is the groups of a die beyond what the user data fills.
func (c *Config) freeGroupsPerDie() int {
	g := c.NAND.Geometry
	groupBytes := int64(g.UnitsPerGroup()) * int64(g.UnitBytes)
	used := (int64(c.Capacity) + groupBytes*int64(g.Dies()) - 1) / (groupBytes * int64(g.Dies()))
	return g.BlocksPerPlane - int(used)
}

// FDPInfo is an FDP drive's configuration as its FDP Configurations log
// (20h) reports it.
type FDPInfo struct {
	ReclaimGroups, Handles, PersistentHandles int
	ReclaimUnitBytes                          int64
}

// FDP returns the FDP configuration, and false on a drive without FDP.
func (c *Controller) FDP() (FDPInfo, bool) {
	p := c.cfg.Firmware.FDP
	if !p.On() {
		return FDPInfo{}, false
	}
	g := c.cfg.NAND.Geometry
	return FDPInfo{ReclaimGroups: 1, Handles: p.Handles, PersistentHandles: p.PersistentHandles,
		ReclaimUnitBytes: g.BlockBytes() * int64(g.PlanesPerDie)}, true
}

// handleOf is the reclaim unit handle write r goes to: its placement
// identifier on an FDP drive, else 0. An identifier out of range is not
// failed: as the reference device does, the write goes to handle 0 and
// an Invalid Placement Identifier event (03h) is counted.
func (c *Controller) handleOf(r blockio.Request) int {
	if c.zwp != nil {
		return c.dieSet.wp
	}
	if r.Directive != blockio.DirectivePlacement || c.fdpStats == nil {
		return 0
	}
	if int(r.DSpec) >= c.cfg.Firmware.FDP.Handles {
		c.fdpStats.InvalidPIDs++
		return 0
	}
	return int(r.DSpec)
}

// fdpEvents counts the FDP events the drive raised.
type fdpEvents struct {
	InvalidPIDs int64 // Invalid Placement Identifier (03h)
}

// FDPHandleCounters is one reclaim unit handle's FDP statistics, in
// bytes, since the drive was built: the host's bytes written through it,
// and the bytes programmed and erased in the reclaim units holding its
// data.
type FDPHandleCounters struct {
	HostBytes, MediaBytes, ErasedBytes int64
}

// FDPCounters is the FDP statistics of an FDP drive since it was built.
type FDPCounters struct {
	// Handles is per reclaim unit handle; Shared is the reclaim units
	// collection filled with initially isolated handles' data together.
	Handles []FDPHandleCounters
	Shared  FDPHandleCounters
	// InvalidPIDs counts writes whose placement identifier named no
	// handle (sent to handle 0; event 03h).
	InvalidPIDs int64
}

// FDPCounters returns the FDP statistics, and false on a drive without FDP.
func (c *Controller) FDPCounters() (FDPCounters, bool) {
	if c.fdpStats == nil {
		return FDPCounters{}, false
	}
	out := FDPCounters{InvalidPIDs: c.fdpStats.InvalidPIDs, Handles: make([]FDPHandleCounters, c.ftl.Handles())}
	conv := func(s ftl.HandleStats) FDPHandleCounters {
		return FDPHandleCounters{HostBytes: s.HostUnits * c.unit, MediaBytes: s.MediaUnits * c.slot, ErasedBytes: s.ErasedUnits * c.slot}
	}
	for h := range out.Handles {
		out.Handles[h] = conv(c.ftl.HandleStats(h))
	}
	out.Shared = conv(c.ftl.HandleStats(len(out.Handles)))
	return out, true
}

// PlacementIDs returns the placement identifiers the drive reports, in
// the order of its Reclaim Unit Handle Status descriptors (I/O
// Management Receive, management operation 01h), as a host reads them
// (fio's fdp_fetch_ruhs): one per reclaim unit handle of the one reclaim
// group, each the handle's index (with one reclaim group the identifier
// has no reclaim group bits: RGIF 0). Nil on a drive without FDP.
func (c *Controller) PlacementIDs() []uint16 {
	n := c.cfg.Firmware.FDP.Handles
	if n == 0 {
		return nil
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = uint16(i)
	}
	return out
}
