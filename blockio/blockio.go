// Package blockio defines the block-I/O requests a host sends a drive:
// the command (Op), the byte range it covers (Request) and a description
// of the content it writes (Data). It is a leaf package shared by the
// workload generators, the controller that executes requests and the
// event engine that carries them, so that none of those needs another
// for these types.
//
// Offsets and lengths are bytes; a drive requires multiples of 512 (the
// sector size).
package blockio

import "fmt"

// Op is a host command.
type Op uint8

// Host commands.
const (
	Read Op = iota
	Write
	Trim
	Flush
	// ZoneAppend writes Length bytes at the write pointer of the zone
	// that starts at Offset, on a zoned drive (NVMe Zone Append, opcode
	// 7Dh): the drive picks the offset and returns it
	// (controller.Controller.SubmitAppend).
	ZoneAppend
	// ZoneManage applies Request.Zone to the zone that starts at Offset,
	// or to every zone in a state the action applies to with AllZones
	// (NVMe Zone Management Send, opcode 79h, and its Select All bit).
	// Length is ignored.
	ZoneManage
)

// Dir returns fio's data direction index of o, as its logs and reports
// number them: 0 for a read, 1 for a write (a zone append is a write), 2
// for anything else (trims and the commands that move no data).
func (o Op) Dir() int {
	switch o {
	case Read:
		return 0
	case Write, ZoneAppend:
		return 1
	}
	return 2
}

// String returns "read", "write", "trim", "flush", "zone-append" or
// "zone-manage".
func (o Op) String() string {
	switch o {
	case Read:
		return "read"
	case Write:
		return "write"
	case Trim:
		return "trim"
	case Flush:
		return "flush"
	case ZoneAppend:
		return "zone-append"
	case ZoneManage:
		return "zone-manage"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// ZoneAction is a Zone Management Send action (its ZSA field, whose NVMe
// values the constants carry).
type ZoneAction uint8

// Zone actions (NVMe Zoned Namespace Command Set, Zone Send Action).
const (
	// NoZoneAction: not a zone management command.
	NoZoneAction ZoneAction = 0
	// ZoneClose releases an open zone's open resource (ZSA 1h).
	ZoneClose ZoneAction = 1
	// ZoneFinish moves the write pointer to the end: the zone is full
	// (ZSA 2h).
	ZoneFinish ZoneAction = 2
	// ZoneOpen opens a zone explicitly (ZSA 3h).
	ZoneOpen ZoneAction = 3
	// ZoneReset empties a zone: its data is deallocated and its blocks
	// erased (ZSA 4h).
	ZoneReset ZoneAction = 4
	// ZoneOffline takes a read-only zone offline (ZSA 5h).
	ZoneOffline ZoneAction = 5
)

// String returns the action's name: "close", "finish", "open", "reset",
// "offline" or "none".
func (a ZoneAction) String() string {
	switch a {
	case NoZoneAction:
		return "none"
	case ZoneClose:
		return "close"
	case ZoneFinish:
		return "finish"
	case ZoneOpen:
		return "open"
	case ZoneReset:
		return "reset"
	case ZoneOffline:
		return "offline"
	}
	return fmt.Sprintf("ZoneAction(%d)", int(a))
}

// DirectiveType is the directive a write carries (NVMe DTYPE, CDW12
// bits 23:20).
type DirectiveType uint8

// Directive types.
const (
	// NoDirective: the drive places the data itself.
	NoDirective DirectiveType = 0
	// DirectiveStreams: DSpec is a stream identifier (NVMe Streams).
	DirectiveStreams DirectiveType = 1
	// DirectivePlacement: DSpec is a placement identifier, a reclaim
	// group and a placement handle (NVMe Flexible Data Placement). An
	// identifier the drive does not have goes to placement handle 0 of
	// reclaim group 0, as NVMe says (and an Invalid Placement Identifier
	// event is logged); it is not an error.
	DirectivePlacement DirectiveType = 2
)

// Data describes the content of written data, as fio's buffer options
// do: CompressPct is the share a compressor removes
// (buffer_compress_percentage), DedupePct the share that repeats data
// written before (dedupe_percentage). A compressing controller stores each
// unit in the space its compressed size needs; others store data as it
// comes and ignore its content.
type Data struct {
	CompressPct uint8
	DedupePct   uint8
}

// Range is one extent of a multi-range command, in bytes.
type Range struct{ Offset, Length int64 }

// Request is one host command. Offset and Length are in bytes and must be
// multiples of 512 (the sector size); Flush ignores them.
type Request struct {
	Op Op
	// KeepData, on a write, stores in each unit the data it already
	// holds (a defragmenter moving a file's extents rewrites the same
	// content): the flash work of a write, the content of none. Token
	// is then the data of units that hold none.
	KeepData bool // (beside Op, in its padding: a Request stays 64 bytes)
	Offset   int64
	Length   int64
	Data     Data // content of written data
	// DSpec is the directive's specific value (NVMe DSPEC, CDW13 bits
	// 31:16): with DirectivePlacement, the placement identifier fio's
	// fdp_pli options choose. Reads, trims and the zero value carry
	// none. (Declared here, and the small fields below, to keep a
	// Request at 64 bytes.)
	DSpec uint16
	// Ranges, when set on a TRIM, are the extents one command
	// deallocates (an NVMe Dataset Management command with several
	// ranges; fio's num_range). Offset is then the first one's and
	// Length their total.
	Ranges []Range
	// FUA is Force Unit Access: a write completes only once its data is
	// on flash, not in the write buffer; a read first commits buffered
	// data it covers to flash and reads it from there.
	FUA bool
	// Zone is the action of a ZoneManage request; AllZones applies it
	// to every zone it can apply to (Offset is then ignored).
	Zone     ZoneAction
	AllZones bool
	// Directive is a write's directive type (NVMe DTYPE), DSpec its
	// specific value (see DSpec).
	Directive DirectiveType
	// Token is an opaque payload stamp for written data (tests use it
	// to check that reads return the latest write).
	Token uint32
}
