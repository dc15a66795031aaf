package ftl

import (
	"fmt"

	"github.com/ftlsim/ftlsim/blockio"
)

// Zones is a zoned namespace's zone table: each zone's state and write
// pointer, and the open and active resources they hold. It decides what
// a command may do and records it; where the data goes is the caller's.
// All offsets are in mapping units.
type Zones struct {
	cfg          ZoneConfig
	state        []ZoneState
	wp           []int64  // units written, from the zone's start
	openedAt     []uint64 // clock of the last open, to pick what auto-close closes
	clock        uint64
	open, active int
	cnt          ZoneCounters
}

// NewZones returns the table of cfg, every zone empty.
func NewZones(cfg ZoneConfig) (*Zones, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	z := &Zones{cfg: cfg, state: make([]ZoneState, cfg.Zones), wp: make([]int64, cfg.Zones), openedAt: make([]uint64, cfg.Zones)}
	for i := range z.state {
		z.state[i] = ZoneEmpty
	}
	return z, nil
}

// Config returns the layout.
func (z *Zones) Config() ZoneConfig { return z.cfg }

// Counters returns what zone management did.
func (z *Zones) Counters() ZoneCounters { return z.cnt }

// Open and Active are the zones holding open and active resources.
func (z *Zones) Open() int   { return z.open }
func (z *Zones) Active() int { return z.active }

// State returns zone i's state.
func (z *Zones) State(i int) ZoneState { return z.state[i] }

// Desc describes zone i as Report Zones does.
func (z *Zones) Desc(i int) ZoneDesc {
	d := ZoneDesc{Zone: i, State: z.state[i], Start: int64(i) * z.cfg.ZoneUnits, CapacityUnits: z.cfg.CapacityUnits, WritePointer: z.wp[i]}
	if d.State == ZoneFull {
		d.WritePointer = z.cfg.CapacityUnits
	}
	return d
}

// ZoneOf returns the zone of unit u and u's offset in it.
func (z *Zones) ZoneOf(u int64) (zone int, off int64) {
	return int(u / z.cfg.ZoneUnits), u % z.cfg.ZoneUnits
}

func (z *Zones) refuse(st ZoneStatus, i int, format string, args ...any) error {
	z.cnt.Refused++
	e := &ZoneError{Status: st, Zone: i, Detail: fmt.Sprintf(format, args...)}
	if i >= 0 && i < len(z.state) {
		e.State = z.state[i]
	}
	return e
}

// zoneEvent is what a command asks of a zone.
type zoneEvent uint8

const (
	evWrite zoneEvent = iota // a write or append (opens implicitly)
	evOpen
	evClose
	evFinish
	evReset
	evOffline
)

// zoneNext is the state machine: the state event ev takes a zone in
// state s to, or the status it is refused with (0: allowed). Resource
// changes follow from the two states (IsOpen, IsActive).
func zoneNext(s ZoneState, ev zoneEvent) (ZoneState, ZoneStatus) {
	switch ev {
	case evWrite:
		switch s {
		case ZoneEmpty, ZoneClosed, ZoneImplicitOpen:
			return ZoneImplicitOpen, 0
		case ZoneExplicitOpen:
			return s, 0
		case ZoneFull:
			return s, ZoneIsFull
		case ZoneReadOnly:
			return s, ZoneIsReadOnly
		case ZoneOffline:
			return s, ZoneIsOffline
		}
	case evOpen:
		switch s {
		case ZoneEmpty, ZoneClosed, ZoneImplicitOpen, ZoneExplicitOpen:
			return ZoneExplicitOpen, 0
		}
	case evClose:
		switch s {
		case ZoneImplicitOpen, ZoneExplicitOpen, ZoneClosed:
			return ZoneClosed, 0
		}
	case evFinish:
		switch s {
		case ZoneEmpty, ZoneImplicitOpen, ZoneExplicitOpen, ZoneClosed, ZoneFull:
			return ZoneFull, 0
		}
	case evReset:
		switch s {
		case ZoneEmpty, ZoneImplicitOpen, ZoneExplicitOpen, ZoneClosed, ZoneFull:
			return ZoneEmpty, 0
		}
	case evOffline:
		switch s {
		case ZoneReadOnly, ZoneOffline:
			return ZoneOffline, 0
		}
	}
	return s, InvalidZoneStateTransition
}

// transition moves zone i by ev, taking and releasing resources: the
// active check first, then the open one (closing an implicitly opened
// zone to make room unless NoAutoClose).
func (z *Zones) transition(i int, ev zoneEvent) error {
	s := z.state[i]
	next, st := zoneNext(s, ev)
	if st != 0 {
		return z.refuse(st, i, "%s", evName(ev))
	}
	if next.IsActive() && !s.IsActive() && z.cfg.MaxActive > 0 && z.active >= z.cfg.MaxActive {
		return z.refuse(TooManyActiveZones, i, "%s with %d of %d zones active", evName(ev), z.active, z.cfg.MaxActive)
	}
	if next.IsOpen() && !s.IsOpen() && z.cfg.MaxOpen > 0 && z.open >= z.cfg.MaxOpen {
		victim := -1
		if !z.cfg.NoAutoClose {
			for j, js := range z.state {
				if js == ZoneImplicitOpen && j != i && (victim < 0 || z.openedAt[j] < z.openedAt[victim]) {
					victim = j
				}
			}
		}
		if victim < 0 {
			return z.refuse(TooManyOpenZones, i, "%s with %d of %d zones open", evName(ev), z.open, z.cfg.MaxOpen)
		}
		z.set(victim, ZoneClosed)
		z.cnt.AutoCloses++
	}
	if next.IsOpen() && !s.IsOpen() {
		z.clock++
		z.openedAt[i] = z.clock
	}
	z.set(i, next)
	return nil
}

// set puts zone i in state s, keeping the resource counts.
func (z *Zones) set(i int, s ZoneState) {
	old := z.state[i]
	z.open += b2i(s.IsOpen()) - b2i(old.IsOpen())
	z.active += b2i(s.IsActive()) - b2i(old.IsActive())
	z.state[i] = s
	switch s {
	case ZoneEmpty:
		z.wp[i] = 0
	case ZoneFull:
		z.wp[i] = z.cfg.CapacityUnits
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func evName(ev zoneEvent) string {
	return [...]string{"write", "open", "close", "finish", "reset", "offline"}[ev]
}

// Write checks a write of n units at unit u, and on success advances the
// zone's write pointer (a zone written to its capacity becomes full). The
// checks are NVMe's, in QEMU's order: the zone's state, the write
// pointer, the zone's capacity, then the resources opening it takes.
func (z *Zones) Write(u, n int64) error {
	i, off := z.ZoneOf(u)
	if i < 0 || i >= len(z.state) || n < 1 {
		return z.refuse(ZoneBoundaryError, -1, "write of %d units at unit %d, past the namespace's %d zones", n, u, len(z.state))
	}
	if _, st := zoneNext(z.state[i], evWrite); st != 0 {
		return z.refuse(st, i, "write at unit %d", u)
	}
	if off != z.wp[i] {
		return z.refuse(ZoneInvalidWrite, i, "write at unit %d of the zone, write pointer at %d", off, z.wp[i])
	}
	return z.advance(i, n)
}

// Append writes n units at zone i's write pointer (Zone Append) and
// returns the unit written first. u must be the zone's start.
func (z *Zones) Append(u, n int64) (int64, error) {
	i, off := z.ZoneOf(u)
	if i < 0 || i >= len(z.state) || n < 1 {
		return 0, z.refuse(ZoneBoundaryError, -1, "append of %d units at unit %d, past the namespace's %d zones", n, u, len(z.state))
	}
	if off != 0 {
		return 0, z.refuse(InvalidField, i, "append at unit %d, not the zone's start", u)
	}
	if _, st := zoneNext(z.state[i], evWrite); st != 0 {
		return 0, z.refuse(st, i, "append")
	}
	at := int64(i)*z.cfg.ZoneUnits + z.wp[i]
	return at, z.advance(i, n)
}

func (z *Zones) advance(i int, n int64) error {
	if z.wp[i]+n > z.cfg.CapacityUnits {
		return z.refuse(ZoneBoundaryError, i, "%d units from the write pointer at %d pass the zone capacity %d", n, z.wp[i], z.cfg.CapacityUnits)
	}
	if err := z.transition(i, evWrite); err != nil {
		return err
	}
	z.wp[i] += n
	if z.wp[i] == z.cfg.CapacityUnits {
		z.set(i, ZoneFull)
	}
	return nil
}

// Read checks a read of n units at unit u: it may not span zones nor
// read an offline zone. Units past the write pointer read as zeroes,
// from no flash (see Written).
func (z *Zones) Read(u, n int64) error {
	i, off := z.ZoneOf(u)
	if i < 0 || i >= len(z.state) || off+n > z.cfg.ZoneUnits {
		return z.refuse(ZoneBoundaryError, i, "read of %d units at unit %d spans zones", n, u)
	}
	if z.state[i] == ZoneOffline {
		return z.refuse(ZoneIsOffline, i, "read")
	}
	return nil
}

// Written returns how many of the n units from u (in one zone) lie below
// its write pointer: the ones that hold data.
func (z *Zones) Written(u, n int64) int64 {
	i, off := z.ZoneOf(u)
	wp := z.wp[i]
	if z.state[i] == ZoneFull {
		wp = z.cfg.CapacityUnits
	}
	return max(min(off+n, wp)-off, 0)
}

// Manage applies zone action a to zone i. A reset of a zone holding data
// returns the units it held (written), for the caller to deallocate and
// erase; the others return 0.
func (z *Zones) Manage(i int, a blockio.ZoneAction) (written int64, err error) {
	if i < 0 || i >= len(z.state) {
		return 0, z.refuse(InvalidField, -1, "zone %d of %d", i, len(z.state))
	}
	ev, ok := map[blockio.ZoneAction]zoneEvent{blockio.ZoneOpen: evOpen, blockio.ZoneClose: evClose,
		blockio.ZoneFinish: evFinish, blockio.ZoneReset: evReset, blockio.ZoneOffline: evOffline}[a]
	if !ok {
		return 0, z.refuse(InvalidField, i, "zone action %s", a)
	}
	held := z.wp[i]
	if z.state[i] == ZoneFull {
		held = z.cfg.CapacityUnits
	}
	if err := z.transition(i, ev); err != nil {
		return 0, err
	}
	switch ev {
	case evReset:
		if held > 0 {
			z.cnt.Resets++
		}
		return held, nil
	case evFinish:
		z.cnt.Finishes++
	}
	return 0, nil
}

// AppliesToAll reports whether action a, sent to every zone (Select
// All), applies to a zone in state s: Open to closed zones, Close to open
// ones, Finish to active ones, Reset to active and full ones, Offline to
// read-only ones.
func AppliesToAll(a blockio.ZoneAction, s ZoneState) bool {
	switch a {
	case blockio.ZoneOpen:
		return s == ZoneClosed
	case blockio.ZoneClose:
		return s.IsOpen()
	case blockio.ZoneFinish:
		return s.IsActive()
	case blockio.ZoneReset:
		return s.IsActive() || s == ZoneFull
	case blockio.ZoneOffline:
		return s == ZoneReadOnly
	}
	return false
}

// Fail marks zone i read-only (offline: false) or offline after a media
// failure, releasing its resources; the host can no longer write it.
func (z *Zones) Fail(i int, offline bool) {
	s := ZoneReadOnly
	if offline {
		s = ZoneOffline
	}
	wp := z.wp[i]
	z.set(i, s)
	z.wp[i] = wp
}

// PowerUp puts the table as a zoned namespace comes back from a power
// cycle: the initial state of the NVMe ZNS Command Set (revision 1.1,
// §2.1.1.3 Zone State Machine, after an NVM Subsystem Reset or a
// shutdown) — empty if the write pointer is at the zone's start, closed
// if it is past it, full if the zone was full, read-only and offline
// zones as they were. No zone is open afterwards: the open resources do
// not outlive the power (QEMU's reference device does the same in
// nvme_zoned_ns_shutdown, hw/nvme/ns.c). lost gives, for the zones that
// lost data the host had been told was written (a drive without
// power-loss protection loses its write buffer), the offset of the first
// unit lost: the write pointer of an open or closed zone moves back to
// it, to what the drive kept (§2.1.1.2.1.1 lets a write that did not
// complete leave the pointer anywhere in its range). A full zone stays
// full whatever it lost (the spec keeps it full), the lost units reading
// as unwritten. It returns the zones whose write pointer moved back, the
// units it moved back over, and the open zones the power cycle closed
// (or emptied).
func (z *Zones) PowerUp(lost map[int]int64) (rolled int, units int64, closed int) {
	for i, s := range z.state {
		if s.IsActive() {
			if k, ok := lost[i]; ok && k < z.wp[i] {
				rolled++
				units += z.wp[i] - k
				z.wp[i] = k
			}
		}
		if s.IsOpen() {
			closed++
		}
		switch {
		case s.IsActive() && z.wp[i] == 0:
			z.set(i, ZoneEmpty)
		case s.IsActive():
			z.set(i, ZoneClosed)
		}
	}
	return rolled, units, closed
}

// Extent returns how many units from zone i's start may hold data: its
// write pointer, its capacity when full or finished.
func (z *Zones) Extent(i int) int64 {
	if z.state[i] == ZoneFull {
		return z.cfg.CapacityUnits
	}
	return z.wp[i]
}
