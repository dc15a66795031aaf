package ftl

import (
	"errors"
	"fmt"
)

// Zoned namespaces (NVMe ZNS): the zone table — each zone's state and
// write pointer, the open and active resources — and the checks NVMe
// makes of every write and zone management command. The state machine
// follows the NVMe Zoned Namespace Command Set as QEMU's reference
// device implements it (hw/nvme/ctrl.c: nvme_zrm_open_flags,
// nvme_zrm_close, nvme_zrm_finish, nvme_zrm_reset, nvme_offline_zone,
// nvme_check_zone_write); the states and status codes carry NVMe's
// values.

// ZoneState is a zone's state, with its NVMe Zone Descriptor value.
type ZoneState uint8

// Zone states.
const (
	// ZoneEmpty holds no data; its write pointer is at its start (ZSE).
	ZoneEmpty ZoneState = 0x1
	// ZoneImplicitOpen was opened by a write (ZSIO).
	ZoneImplicitOpen ZoneState = 0x2
	// ZoneExplicitOpen was opened by an Open Zone command (ZSEO); the
	// drive never closes it by itself.
	ZoneExplicitOpen ZoneState = 0x3
	// ZoneClosed is partly written, its open resource released (ZSC).
	ZoneClosed ZoneState = 0x4
	// ZoneReadOnly is readable only, after a media failure (ZSRO).
	ZoneReadOnly ZoneState = 0xD
	// ZoneFull is written to its capacity, or finished (ZSF).
	ZoneFull ZoneState = 0xE
	// ZoneOffline is neither readable nor writable (ZSO).
	ZoneOffline ZoneState = 0xF
)

// String returns the state's name as nvme-cli prints it, lower case.
func (s ZoneState) String() string {
	switch s {
	case ZoneEmpty:
		return "empty"
	case ZoneImplicitOpen:
		return "implicitly-open"
	case ZoneExplicitOpen:
		return "explicitly-open"
	case ZoneClosed:
		return "closed"
	case ZoneReadOnly:
		return "read-only"
	case ZoneFull:
		return "full"
	case ZoneOffline:
		return "offline"
	}
	return fmt.Sprintf("ZoneState(%#x)", uint8(s))
}

// IsOpen reports an open state: one that holds an open resource.
func (s ZoneState) IsOpen() bool { return s == ZoneImplicitOpen || s == ZoneExplicitOpen }

// IsActive reports an active state (open or closed): one that holds an
// active resource.
func (s ZoneState) IsActive() bool { return s.IsOpen() || s == ZoneClosed }

// ZoneStatus is the NVMe status a zoned command fails with: a
// command-specific status (SCT 1h) of the Zoned Namespace Command Set,
// or Invalid Field in Command (generic, SCT 0h).
type ZoneStatus uint8

// Zone statuses, with their NVMe status codes.
const (
	// InvalidField: a Zone Append whose offset is not a zone's start,
	// or a zone command on an offset that is not one.
	InvalidField ZoneStatus = 0x02
	// ZoneBoundaryError: the command's blocks span two zones, or a
	// write goes past the zone's capacity.
	ZoneBoundaryError ZoneStatus = 0xB8
	// ZoneIsFull: a write to a full zone.
	ZoneIsFull ZoneStatus = 0xB9
	// ZoneIsReadOnly: a write to a read-only zone.
	ZoneIsReadOnly ZoneStatus = 0xBA
	// ZoneIsOffline: a read or write of an offline zone.
	ZoneIsOffline ZoneStatus = 0xBB
	// ZoneInvalidWrite: a write not at the zone's write pointer.
	ZoneInvalidWrite ZoneStatus = 0xBC
	// TooManyActiveZones: no active resource left.
	TooManyActiveZones ZoneStatus = 0xBD
	// TooManyOpenZones: no open resource left.
	TooManyOpenZones ZoneStatus = 0xBE
	// InvalidZoneStateTransition: the action does not apply in the
	// zone's state.
	InvalidZoneStateTransition ZoneStatus = 0xBF
)

// Name returns the status's NVMe name.
func (s ZoneStatus) Name() string {
	switch s {
	case InvalidField:
		return "Invalid Field in Command"
	case ZoneBoundaryError:
		return "Zone Boundary Error"
	case ZoneIsFull:
		return "Zone Is Full"
	case ZoneIsReadOnly:
		return "Zone Is Read Only"
	case ZoneIsOffline:
		return "Zone Is Offline"
	case ZoneInvalidWrite:
		return "Zone Invalid Write"
	case TooManyActiveZones:
		return "Too Many Active Zones"
	case TooManyOpenZones:
		return "Too Many Open Zones"
	case InvalidZoneStateTransition:
		return "Invalid Zone State Transition"
	}
	return fmt.Sprintf("ZoneStatus(%#x)", uint8(s))
}

// Type is the status code type: 0 (generic) for InvalidField, 1
// (command specific) for the others.
func (s ZoneStatus) Type() int {
	if s == InvalidField {
		return 0
	}
	return 1
}

// Linux errnos the host sees for the statuses (drivers/nvme/host/core.c
// nvme_error_status, block/blk-core.c blk_errors).
const (
	errnoEIO          = 5
	errnoEOVERFLOW    = 75
	errnoEOPNOTSUPP   = 95
	errnoETOOMANYREFS = 109
)

// Errno is the error a Linux host reports for the status, as fio prints
// it: EOVERFLOW for Too Many Active Zones, ETOOMANYREFS for Too Many Open
// Zones, EOPNOTSUPP for Invalid Field, EIO for the rest.
func (s ZoneStatus) Errno() int {
	switch s {
	case TooManyActiveZones:
		return errnoEOVERFLOW
	case TooManyOpenZones:
		return errnoETOOMANYREFS
	case InvalidField:
		return errnoEOPNOTSUPP
	}
	return errnoEIO
}

// ErrZone is what every ZoneError matches with errors.Is.
var ErrZone = errors.New("ftl: zone command failed")

// ZoneError is a zoned command refused with an NVMe status.
type ZoneError struct {
	Status ZoneStatus
	Zone   int       // the zone's index (-1: none)
	State  ZoneState // its state when refused
	Detail string    // what was asked, e.g. "write at unit 8, write pointer at 16"
}

// Error names the zone, its state, the status and the detail.
func (e *ZoneError) Error() string {
	s := fmt.Sprintf("%s (SCT %dh SC %02Xh)", e.Status.Name(), e.Status.Type(), uint8(e.Status))
	if e.Zone >= 0 {
		s = fmt.Sprintf("zone %d (%s): %s", e.Zone, e.State, s)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is matches ErrZone.
func (e *ZoneError) Is(target error) bool { return target == ErrZone }

// ZoneConfig is a zoned namespace's zone layout and limits, in mapping
// units.
type ZoneConfig struct {
	// Zones is the number of zones; ZoneUnits the size of each (the
	// distance between zone starts) and CapacityUnits the writable part
	// from its start (at most ZoneUnits).
	Zones                    int
	ZoneUnits, CapacityUnits int64
	// MaxOpen and MaxActive are the most zones open (implicitly or
	// explicitly) and active (open or closed) at once; 0: no limit.
	// NVMe's MOR and MAR are these less one.
	MaxOpen, MaxActive int
	// NoAutoClose turns off what drives do by default when a write
	// must open a zone with every open resource taken: close the
	// implicitly opened zone opened longest ago (QEMU's
	// zoned.auto_transition). Explicitly opened zones are never closed.
	NoAutoClose bool
}

// Validate checks the layout.
func (c ZoneConfig) Validate() error {
	switch {
	case c.Zones < 1:
		return fieldErr("Zones", c.Zones, "1 or more", "")
	case c.ZoneUnits < 1:
		return fieldErr("ZoneUnits", c.ZoneUnits, "1 or more", "")
	case c.CapacityUnits < 1 || c.CapacityUnits > c.ZoneUnits:
		return fieldErr("CapacityUnits", c.CapacityUnits, fmt.Sprintf("1..%d", c.ZoneUnits), "at most the zone size")
	case c.MaxActive < 0 || c.MaxActive > c.Zones:
		return fieldErr("MaxActive", c.MaxActive, fmt.Sprintf("0 (no limit)..%d", c.Zones), "")
	case c.MaxActive > 0 && (c.MaxOpen < 1 || c.MaxOpen > c.MaxActive):
		return fieldErr("MaxOpen", c.MaxOpen, fmt.Sprintf("1..%d (MaxActive)", c.MaxActive), "an open zone is active too")
	case c.MaxOpen < 0 || c.MaxOpen > c.Zones:
		return fieldErr("MaxOpen", c.MaxOpen, fmt.Sprintf("0 (no limit)..%d (the zones)", c.Zones), "")
	}
	return nil
}

// ZoneDesc is one zone as Report Zones describes it, in units.
type ZoneDesc struct {
	Zone          int
	State         ZoneState
	Start         int64 // first unit
	CapacityUnits int64
	// WritePointer is the next unit to write, from the zone's start;
	// a full zone reports its capacity.
	WritePointer int64
}

// ZoneCounters are what zone management did.
type ZoneCounters struct {
	// Resets counts zones reset that held data (as fio counts them);
	// Finishes zones finished by a command; AutoCloses implicitly
	// opened zones the drive closed to open another.
	Resets, Finishes, AutoCloses int64
	// Refused counts the commands refused with a ZoneError.
	Refused int64
}
